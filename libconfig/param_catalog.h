// The catalogue of every keyword the project knows, per file and section, with its
// status: supported (read into ClusterConfig, for the scheduler and daemons to act on)
// or accepted (a real LSF keyword, kept as written, with a warning that it is not yet
// acted on). Anything else is unknown and draws a warning, as in LSF.
//
// docs/config.md is generated from this table (tests/unit/config_doc_test.cc keeps
// the two equal), so the documentation cannot drift from what the parser does.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace lsf::config {

enum class Support { kSupported, kAccepted };

struct ParamSpec {
  std::string_view file;     // lsf.conf, lsb.queues, ...
  std::string_view section;  // Queue, Host, ... ("" for lsf.conf)
  std::string_view name;     // upper case; "<load index>" stands for every index
  Support support;
  std::string_view meaning;
};

std::span<const ParamSpec> param_catalog();

// nullptr when the keyword is unknown for that file and section.
const ParamSpec* find_param(std::string_view file, std::string_view section, std::string_view name);

// Sections each file may hold, in the order the documentation lists them.
struct SectionSpec {
  std::string_view file;
  std::string_view section;
  bool table;  // true: keyword line + rows; false: KEY = value (Limit allows both)
  Support support;
  std::string_view meaning;
};
std::span<const SectionSpec> section_catalog();
const SectionSpec* find_section(std::string_view file, std::string_view section);

// The whole catalogue as Markdown (the body of docs/config.md).
std::string render_config_doc();

}  // namespace lsf::config
