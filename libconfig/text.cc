#include "libconfig/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace lsf::config {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

std::vector<std::string> split_words(std::string_view s, std::string* error) {
  std::vector<std::string> words;
  std::string current;
  std::vector<char> closers;  // expected closing brackets, innermost last
  bool in_quote = false;
  auto flush = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (char c : s) {
    if (in_quote) {
      current += c;
      if (c == '"') in_quote = false;
      continue;
    }
    if (c == '"') {
      in_quote = true;
      current += c;
    } else if (c == '(' || c == '[') {
      closers.push_back(c == '(' ? ')' : ']');
      current += c;
    } else if (c == ')' || c == ']') {
      if (closers.empty() || closers.back() != c) {
        if (error) *error = std::string("unbalanced '") + c + "'";
        current += c;
        continue;
      }
      closers.pop_back();
      current += c;
    } else if (std::isspace(static_cast<unsigned char>(c)) && closers.empty()) {
      flush();
    } else {
      current += c;
    }
  }
  if (in_quote && error) *error = "unterminated quoted string";
  if (!closers.empty() && error) *error = std::string("missing '") + closers.back() + "'";
  flush();
  return words;
}

std::string strip_parens(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim(s.substr(1, s.size() - 2));
  return std::string(s);
}

std::optional<long long> parse_int(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> parse_yes_no(std::string_view s) {
  s = trim(s);
  if (iequals(s, "y") || iequals(s, "yes")) return true;
  if (iequals(s, "n") || iequals(s, "no")) return false;
  return std::nullopt;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string format_number(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace lsf::config
