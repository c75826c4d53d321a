// Small string helpers shared by the configuration parsers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lsf::config {

std::string_view trim(std::string_view s);
std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool starts_with_icase(std::string_view s, std::string_view prefix);

// Splits on white space, keeping (...), [...] and "..." groups whole, so that
// `a (b c) [d, e]` gives `a`, `(b c)`, `[d, e]`. Unbalanced groups set *error.
std::vector<std::string> split_words(std::string_view s, std::string* error = nullptr);

// Removes one pair of enclosing parentheses: `(a b)` -> `a b`. Other text is returned trimmed.
std::string strip_parens(std::string_view s);

// Splits at every `sep`; empty parts are kept.
std::vector<std::string> split(std::string_view s, char sep);

// Strict numbers: the whole text must be the number.
std::optional<long long> parse_int(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// Y/YES/N/NO in any case.
std::optional<bool> parse_yes_no(std::string_view s);

std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Shortest plain form of a number as admins write it: 4, 0.7, 12.5 (no trailing zeros).
std::string format_number(double v);

}  // namespace lsf::config
