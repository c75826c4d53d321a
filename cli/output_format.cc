#include "cli/output_format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace lsf::cli {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::optional<size_t> find_field(std::string_view name, std::span<const FieldDef> fields) {
  std::string want = lower(name);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == want) return i;
    std::string_view rest = fields[i].aliases;
    while (!rest.empty()) {
      size_t sp = rest.find(' ');
      if (rest.substr(0, sp) == want) return i;
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    }
  }
  return std::nullopt;
}

std::optional<char> parse_unit(std::string_view u) {
  std::string s = upper(u);
  if (s.size() == 2 && s[1] == 'B') s.pop_back();
  if (s.size() == 1 && std::string_view("KMGTPE").find(s[0]) != std::string_view::npos) return s[0];
  return std::nullopt;
}

// Splits on blanks, keeping delimiter='x' whole (its character may be a blank).
std::vector<std::string> tokens(std::string_view spec) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < spec.size()) {
    if (std::isspace(static_cast<unsigned char>(spec[i]))) {
      ++i;
      continue;
    }
    size_t start = i;
    if (spec.substr(i).starts_with("delimiter=") && i + 12 <= spec.size() &&
        (spec[i + 10] == '\'' || spec[i + 10] == '"')) {
      size_t close = spec.find(spec[i + 10], i + 11);
      i = close == std::string_view::npos ? spec.size() : close + 1;
    } else {
      while (i < spec.size() && !std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    }
    out.emplace_back(spec.substr(start, i - start));
  }
  return out;
}

std::string fit(const std::string& value, const Column& c, const FieldDef& f) {
  std::string v = value.empty() ? "-" : value;
  if (c.width <= 0) return v;
  size_t w = static_cast<size_t>(c.width);
  if (v.size() > w) v = f.name_like && w > 1 ? "*" + v.substr(v.size() - (w - 1)) : v.substr(0, w);
  return v;
}

}  // namespace

std::optional<OutputFormat> parse_output_format(std::string_view spec, std::span<const FieldDef> fields,
                                                std::string* error) {
  OutputFormat format;
  for (const auto& tok : tokens(spec)) {
    if (tok.starts_with("delimiter=")) {
      std::string d = tok.substr(10);
      if (d.size() >= 2 && (d.front() == '\'' || d.front() == '"') && d.back() == d.front())
        d = d.substr(1, d.size() - 2);
      if (d.size() != 1) {
        *error = "delimiter must be a single character: " + tok;
        return std::nullopt;
      }
      format.delimiter = d;
      continue;
    }
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t c = tok.find(':'); c != std::string::npos; c = tok.find(':', start)) {
      parts.push_back(tok.substr(start, c - start));
      start = c + 1;
    }
    parts.push_back(tok.substr(start));
    if (parts.size() > 3) {
      *error = "Bad output format: " + tok;
      return std::nullopt;
    }
    Column col;
    if (parts.size() >= 2) {
      std::string w = parts[1];
      if (!w.empty() && w[0] == '-') {
        col.right = true;
        w.erase(0, 1);
      }
      if (!w.empty() && (w.size() > 4 || w.find_first_not_of("0123456789") != std::string::npos || std::stoi(w) == 0)) {
        *error = "Bad output width in " + tok;
        return std::nullopt;
      }
      col.width = w.empty() ? -1 : std::stoi(w);  // -1: the field's recommended width
    }
    if (parts.size() == 3) {
      auto unit = parse_unit(parts[2]);
      if (!unit) {
        *error = "Bad unit in " + tok + " (KB, MB, GB, TB, PB or EB)";
        return std::nullopt;
      }
      col.unit = *unit;
    }
    if (lower(parts[0]) == "all") {
      for (size_t i = 0; i < fields.size(); ++i) {
        Column each = col;
        each.field = i;
        if (each.width < 0) each.width = fields[i].width;
        if (!fields[i].has_unit) each.unit = 0;
        format.columns.push_back(each);
      }
      continue;
    }
    auto f = find_field(parts[0], fields);
    if (!f) {
      *error = parts[0] + ": Illegal field name";
      return std::nullopt;
    }
    if (col.unit && !fields[*f].has_unit) {
      *error = parts[0] + ": a unit applies only to memory fields";
      return std::nullopt;
    }
    col.field = *f;
    if (col.width < 0) col.width = fields[*f].width;
    format.columns.push_back(col);
  }
  if (format.columns.empty()) {
    *error = "Output format has no fields";
    return std::nullopt;
  }
  return format;
}

void print_text(std::ostream& out, const OutputFormat& format, std::span<const FieldDef> fields,
                const std::vector<Row>& rows, bool header) {
  const auto& cols = format.columns;
  // Width-limited columns are exactly that wide; unlimited ones as wide as their widest
  // value, so that blank-separated output lines up and still splits on blanks.
  std::vector<std::vector<std::string>> cells(rows.size(), std::vector<std::string>(cols.size()));
  std::vector<size_t> widths(cols.size(), 0);
  for (size_t c = 0; c < cols.size(); ++c) {
    const FieldDef& f = fields[cols[c].field];
    widths[c] = cols[c].width > 0 ? static_cast<size_t>(cols[c].width) : (header ? f.name.size() : 0);
    for (size_t r = 0; r < rows.size(); ++r) {
      cells[r][c] = fit(rows[r][c], cols[c], f);
      if (cols[c].width <= 0) widths[c] = std::max(widths[c], cells[r][c].size());
    }
  }
  const bool pad = format.delimiter == " ";
  auto line = [&](auto cell_of) {
    std::string s;
    for (size_t c = 0; c < cols.size(); ++c) {
      std::string v = cell_of(c);
      bool last = c + 1 == cols.size();
      if (pad && v.size() < widths[c] && (cols[c].right || !last))
        v = cols[c].right ? std::string(widths[c] - v.size(), ' ') + v : v + std::string(widths[c] - v.size(), ' ');
      s += v;
      if (!last) s += format.delimiter;
    }
    out << s << "\n";
  };
  if (header) {
    line([&](size_t c) {
      std::string h = upper(fields[cols[c].field].name);
      return cols[c].width > 0 && h.size() > widths[c] ? h.substr(0, widths[c]) : h;
    });
  }
  for (const auto& row : cells) line([&](size_t c) { return row[c]; });
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

void print_json(std::ostream& out, const OutputFormat& format, std::span<const FieldDef> fields,
                const std::vector<Row>& rows, std::string_view command, std::string_view count_key,
                const std::vector<ErrorRecord>& errors) {
  const size_t records = rows.size() + errors.size();
  out << "{\n  \"COMMAND\":" << json_quote(command) << ",\n  \"" << count_key << "\":" << records
      << ",\n  \"RECORDS\":[";
  for (size_t r = 0; r < rows.size(); ++r) {
    out << (r ? ",\n" : "\n") << "    {\n";
    const auto& cols = format.columns;
    for (size_t c = 0; c < cols.size(); ++c) {
      // JSON is for programs: widths do not cut values.
      out << "      " << json_quote(upper(fields[cols[c].field].name)) << ":" << json_quote(rows[r][c])
          << (c + 1 < cols.size() ? ",\n" : "\n");
    }
    out << "    }";
  }
  for (size_t e = 0; e < errors.size(); ++e) {
    out << (rows.size() + e ? ",\n" : "\n") << "    {\n      " << json_quote(errors[e].key) << ":"
        << json_quote(errors[e].id) << ",\n      \"ERROR\":" << json_quote(errors[e].message) << "\n    }";
  }
  out << (records == 0 ? "]\n}\n" : "\n  ]\n}\n");
}

std::string memory_text(double kb, char unit) {
  char buf[64];
  if (unit) {
    static constexpr std::string_view kUnits = "KMGTPE";
    double v = kb / std::pow(1024.0, static_cast<double>(kUnits.find(unit)));
    std::snprintf(buf, sizeof buf, "%.2f %cB", v, unit);
    return buf;
  }
  if (kb < 1024) {
    std::snprintf(buf, sizeof buf, "%.0f Kbytes", kb);
  } else if (kb < 1024.0 * 1024) {
    std::snprintf(buf, sizeof buf, "%.0f Mbytes", kb / 1024);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f Gbytes", kb / 1024 / 1024);
  }
  return buf;
}

}  // namespace lsf::cli
