// Turns the text of an LSF configuration file into logical lines: what the section
// reader sees after the preprocessing that every lsf.* and lsb.* file gets.
//
//  - `#` starts a comment, on its own line or after a value (outside double quotes);
//  - a trailing `\` joins the next physical line (the logical line keeps the first
//    line's number, so errors point where the admin starts reading);
//  - `#INCLUDE "path"` splices another file (relative paths are taken from the
//    including file's directory; cycles and deep nesting are errors);
//  - `#if time(window ...)`, `#elif`, `#else`, `#endif` keep or drop lines according
//    to the instant given; conditions combine with `&&`, `||`, `!` and parentheses;
//  - `#define` lines (OpenLava) are accepted and ignored with a warning.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/diagnostics.h"
#include "libconfig/time_window.h"

namespace lsf::config {

struct LogicalLine {
  SourceLocation where;
  std::string text;  // trimmed, never empty
};

// Reads and preprocesses a file. Returns nullopt when the file cannot be read
// (and says so in diags); `display` is the name errors show for this file.
std::optional<std::vector<LogicalLine>> read_config_file(const std::filesystem::path& path,
                                                         const std::string& display,
                                                         const WeekInstant& now,
                                                         Diagnostics& diags);

// The same on text already in memory; includes are resolved against base_dir.
std::vector<LogicalLine> preprocess_config_text(std::string_view text, const std::string& display,
                                                const std::filesystem::path& base_dir,
                                                const WeekInstant& now, Diagnostics& diags);

}  // namespace lsf::config
