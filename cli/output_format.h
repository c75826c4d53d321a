// The -o output format that bjobs, bqueues and bhosts share (LSB_BJOBS_FORMAT and
// friends): "field[:[-][width]][:unit] ... [delimiter='c']".
//
//   field        unlimited width, left-justified
//   field:       the field's recommended width
//   field:12     at most 12 characters; longer values are cut at the end, except
//                name fields, which keep their tail behind a `*` (as bjobs' JOB_NAME)
//   field:-12    the same, right-justified
//   mem::GB      a unit for memory fields (KB, MB, GB, TB, PB, EB or their first letter)
//   all          every field (all:20 gives every field that width)
//
// Each command supplies its field table and the values; this file only parses specs and
// lays out rows, in text (empty values print `-`) or in LSF's JSON envelope (every value
// a string, empty values "").
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lsf::cli {

struct FieldDef {
  std::string_view name;     // lower case, as users write it; the header is its upper case
  std::string_view aliases;  // space-separated
  int width;                 // recommended width (`field:`)
  bool name_like = false;    // truncated from the left with `*`
  bool has_unit = false;     // accepts a unit prefix
};

struct Column {
  size_t field = 0;  // index into the command's field table
  int width = 0;     // 0: unlimited
  bool right = false;
  char unit = 0;  // 'K', 'M', 'G', 'T', 'P', 'E'; 0: the field's own
};

struct OutputFormat {
  std::vector<Column> columns;
  std::string delimiter = " ";
};

// nullopt with `error` naming the offending field or option.
std::optional<OutputFormat> parse_output_format(std::string_view spec, std::span<const FieldDef> fields,
                                                std::string* error);

// Rows hold one value per column, already formatted; an empty value has none.
using Row = std::vector<std::string>;

void print_text(std::ostream& out, const OutputFormat& format, std::span<const FieldDef> fields,
                const std::vector<Row>& rows, bool header);

// A record for something asked for that could not be shown: {"JOBID":"123","ERROR":"..."}.
struct ErrorRecord {
  std::string key;  // JOBID
  std::string id;
  std::string message;
};

// {"COMMAND":"bjobs","JOBS":2,"RECORDS":[{...},{...}]}, indented as LSF indents it; the
// error records follow the rows and are counted with them.
void print_json(std::ostream& out, const OutputFormat& format, std::span<const FieldDef> fields,
                const std::vector<Row>& rows, std::string_view command, std::string_view count_key,
                const std::vector<ErrorRecord>& errors = {});

// A string as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

// A memory amount given in KB, as -o prints it: "512 Kbytes", "3 Mbytes", "1.5 Gbytes";
// with a unit prefix, in that unit: "0.50 GB".
std::string memory_text(double kb, char unit);

}  // namespace lsf::cli
