#include "libconfig/section_reader.h"

#include <cctype>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

// `Begin X` / `End X`: returns the section name, or nullopt.
std::optional<std::string> marker(std::string_view text, std::string_view word) {
  auto words = split_words(text);
  if (words.empty() || !iequals(words[0], word)) return std::nullopt;
  return words.size() > 1 ? words[1] : std::string();
}

bool is_key_value(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                             text[i] == '/'))
    ++i;
  if (i == 0) return false;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i < text.size() && text[i] == '=';
}

}  // namespace

int Section::column(std::string_view keyword) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (iequals(columns[i], keyword)) return static_cast<int>(i);
  return -1;
}

std::optional<std::string> Section::cell(const TableRow& row, std::string_view keyword) const {
  int i = column(keyword);
  if (i < 0 || static_cast<size_t>(i) >= row.cells.size()) return std::nullopt;
  return row.cells[static_cast<size_t>(i)];
}

std::vector<std::optional<std::string>> split_row(const std::string& text, std::string* error) {
  std::vector<std::optional<std::string>> cells;
  for (auto& word : split_words(text, error)) {
    if (word == "-" || word == "()") {
      cells.push_back(std::nullopt);
    } else if (word.front() == '(' && word.back() == ')') {
      std::string inner = strip_parens(word);
      if (inner.empty())
        cells.push_back(std::nullopt);
      else
        cells.push_back(inner);
    } else {
      cells.push_back(word);
    }
  }
  return cells;
}

SectionFile read_sections(const std::vector<LogicalLine>& lines, Diagnostics& diags) {
  SectionFile file;
  Section* open = nullptr;
  bool layout_known = false;

  for (const auto& line : lines) {
    if (auto name = marker(line.text, "Begin")) {
      if (open) {
        diags.error(line.where, "Begin " + *name + " inside section " + open->name + " (begun at line " +
                                    std::to_string(open->where.line) + ") that has no End");
      }
      if (name->empty()) diags.error(line.where, "Begin without a section name");
      file.sections.push_back(Section{});
      open = &file.sections.back();
      open->name = *name;
      open->where = line.where;
      layout_known = false;
      continue;
    }
    if (auto name = marker(line.text, "End")) {
      if (!open) {
        diags.error(line.where, "End " + *name + " without a matching Begin");
      } else if (!iequals(*name, open->name)) {
        diags.error(line.where, "End " + *name + " closes section " + open->name + " begun at line " +
                                    std::to_string(open->where.line));
        open = nullptr;
      } else {
        open = nullptr;
      }
      continue;
    }
    if (!open) {
      diags.error(line.where, "\"" + line.text + "\" is outside any Begin/End section");
      continue;
    }
    if (!layout_known) {
      layout_known = true;
      open->table = !is_key_value(line.text);
      if (open->table) {
        open->columns_where = line.where;
        std::string err;
        for (auto& w : split_words(line.text, &err)) open->columns.push_back(to_upper(w));
        if (!err.empty()) diags.error(line.where, "section " + open->name + " keyword line: " + err);
        continue;
      }
    }
    if (open->table) {
      std::string err;
      TableRow row{split_row(line.text, &err), line.where};
      if (!err.empty()) diags.error(line.where, "section " + open->name + ": " + err);
      if (row.cells.size() > open->columns.size()) {
        diags.error(line.where, "section " + open->name + ": row has " + std::to_string(row.cells.size()) +
                                    " values but the keyword line names " +
                                    std::to_string(open->columns.size()) + " columns");
        continue;
      }
      if (row.cells.size() < open->columns.size()) {
        diags.warning(line.where, "section " + open->name + ": row has " + std::to_string(row.cells.size()) +
                                      " of " + std::to_string(open->columns.size()) +
                                      " values; the missing ones take their defaults");
      }
      row.cells.resize(open->columns.size());
      open->rows.push_back(std::move(row));
    } else {
      size_t eq = line.text.find('=');
      if (eq == std::string::npos || !is_key_value(line.text)) {
        diags.error(line.where, "section " + open->name + ": expected KEY = value, found \"" +
                                    line.text + "\"");
        continue;
      }
      KeyValue kv{to_upper(trim(std::string_view(line.text).substr(0, eq))),
                  std::string(trim(std::string_view(line.text).substr(eq + 1))), line.where};
      for (const auto& prior : open->entries) {
        if (prior.key == kv.key) {
          diags.warning(line.where, "section " + open->name + ": " + kv.key +
                                        " is set again (first at line " +
                                        std::to_string(prior.where.line) + "); the later value is used");
        }
      }
      open->entries.push_back(std::move(kv));
    }
  }
  if (open) diags.error(open->where, "Begin " + open->name + " has no matching End " + open->name);
  return file;
}

}  // namespace lsf::config
