// Groups logical lines into `Begin <Section>` ... `End <Section>` blocks and reads
// each block in one of LSF's two layouts:
//
//  - KEY = value lines (lsb.params, lsb.queues, Limit, GuaranteedResourcePool, ...);
//  - a keyword line naming columns, then one row per record (Host, User, Resource,
//    ...). A row cell may be a parenthesised list; `()` and `-` mean "the default".
//
// The layout is chosen by the block's first line: `NAME = ...` makes it KEY = value.
// Lines outside any section are errors (LSF ignores them silently; that hides typos
// such as a missing `Begin`), except in lsf.conf, which has no sections.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libconfig/diagnostics.h"
#include "libconfig/source_text.h"

namespace lsf::config {

struct KeyValue {
  std::string key;    // upper case
  std::string value;  // trimmed; may be empty
  SourceLocation where;
};

struct TableRow {
  // One per column; nullopt where the row wrote `()` or `-` or left the column out.
  std::vector<std::optional<std::string>> cells;
  SourceLocation where;
};

struct Section {
  std::string name;  // as written after Begin
  SourceLocation where;
  bool table = false;

  std::vector<KeyValue> entries;  // KEY = value layout

  std::vector<std::string> columns;  // table layout: upper-cased column keywords
  SourceLocation columns_where;      // the keyword line
  std::vector<TableRow> rows;

  // Column index by keyword, or -1.
  int column(std::string_view keyword) const;
  // Cell of a row by keyword; nullopt when absent or default.
  std::optional<std::string> cell(const TableRow& row, std::string_view keyword) const;
};

struct SectionFile {
  std::vector<Section> sections;
};

SectionFile read_sections(const std::vector<LogicalLine>& lines, Diagnostics& diags);

// Splits a table row the way LSF does: white space separates cells, parentheses,
// brackets and quotes group. `()` and `-` become nullopt; `(a b)` becomes `a b`.
std::vector<std::optional<std::string>> split_row(const std::string& text, std::string* error);

}  // namespace lsf::config
