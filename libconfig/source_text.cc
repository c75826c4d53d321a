#include "libconfig/source_text.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "libconfig/input_limits.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

constexpr int kMaxIncludeDepth = 16;

// Drops a `#` comment that is not inside double quotes.
std::string_view strip_comment(std::string_view line) {
  bool in_quote = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') in_quote = !in_quote;
    if (line[i] == '#' && !in_quote) return line.substr(0, i);
  }
  return line;
}

enum class Directive { kNone, kComment, kIf, kElif, kElse, kEndif, kInclude, kDefine };

Directive classify(std::string_view t, std::string_view* rest) {
  if (t.empty() || t.front() != '#') return Directive::kNone;
  auto word_end = t.find_first_of(" \t(\"", 1);
  std::string word = to_lower(t.substr(1, word_end == std::string_view::npos ? word_end : word_end - 1));
  *rest = trim(word_end == std::string_view::npos ? std::string_view() : t.substr(word_end));
  if (word == "if") return Directive::kIf;
  if (word == "elif") return Directive::kElif;
  if (word == "else") return Directive::kElse;
  if (word == "endif") return Directive::kEndif;
  if (word == "include") return Directive::kInclude;
  if (word == "define") return Directive::kDefine;
  return Directive::kComment;
}

// Condition of `#if`: time(...) terms joined by && || ! and parentheses.
class ConditionParser {
 public:
  ConditionParser(std::string_view text, const WeekInstant& now) : s_(text), now_(now) {}

  Result<bool> parse() {
    if (s_.size() > kMaxExpressionBytes) return fail(too_long("condition"));
    auto v = parse_or();
    if (!v) return v;
    skip_space();
    if (pos_ != s_.size()) return fail("unexpected \"" + std::string(s_.substr(pos_)) + "\"");
    return v;
  }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip_space();
    if (s_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  Result<bool> parse_or() {
    auto left = parse_and();
    while (left && eat("||")) {
      auto right = parse_and();
      if (!right) return right;
      left = *left || *right;
    }
    return left;
  }
  Result<bool> parse_and() {
    auto left = parse_not();
    while (left && eat("&&")) {
      auto right = parse_not();
      if (!right) return right;
      left = *left && *right;
    }
    return left;
  }
  // `!` and `(` open a level of nesting: the only places the parser recurses.
  Result<bool> parse_not() {
    const bool negate = eat("!");
    if (negate || eat("(")) {
      if (depth_ >= kMaxNesting) return fail(nests_too_deep("condition"));
      ++depth_;
      auto v = negate ? parse_not() : parse_or();
      --depth_;
      if (!v) return v;
      if (negate) return !*v;
      if (!eat(")")) return fail("missing ')'");
      return v;
    }
    skip_space();
    if (!starts_with_icase(s_.substr(pos_), "time")) {
      return fail("expected time(...) but found \"" + std::string(s_.substr(pos_)) + "\"");
    }
    pos_ += 4;
    if (!eat("(")) return fail("expected '(' after time");
    size_t close = s_.find(')', pos_);
    if (close == std::string_view::npos) return fail("missing ')' after time(");
    std::string_view inside = s_.substr(pos_, close - pos_);
    pos_ = close + 1;
    // A trailing word of letters is a time zone; windows are read in local time.
    auto words = split_words(inside);
    if (!words.empty() && std::isalpha(static_cast<unsigned char>(words.back()[0]))) {
      notes_.push_back("time zone " + words.back() + " is ignored; windows use local time");
      words.pop_back();
    }
    auto set = TimeWindowSet::parse(join(words, " "));
    if (!set) return fail(set.error());
    if (set->always_open()) return fail("time() names no window");
    return set->is_open(now_);
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
  const WeekInstant& now_;
  std::vector<std::string> notes_;
};

struct Branch {
  SourceLocation where;
  bool parent_active = true;  // lines outside this #if are kept
  bool taking = false;        // the current branch is the one kept
  bool taken = false;         // some branch of this #if was already kept
  bool seen_else = false;
};

class Preprocessor {
 public:
  Preprocessor(const WeekInstant& now, Diagnostics& diags) : now_(now), diags_(diags) {}

  void run(std::string_view text, const std::string& display, const std::filesystem::path& base, int depth,
           std::vector<LogicalLine>& out) {
    std::vector<Branch> branches;
    auto active = [&] { return branches.empty() || (branches.back().parent_active && branches.back().taking); };

    std::istringstream in{std::string(text)};
    std::string physical;
    int number = 0;
    while (std::getline(in, physical)) {
      ++number;
      SourceLocation where{display, number};
      std::string_view t = trim(physical);
      std::string_view rest;
      Directive d = classify(t, &rest);

      if (d == Directive::kIf || d == Directive::kElif) {
        bool cond = false;
        bool evaluate = d == Directive::kIf
                            ? active()
                            : !branches.empty() && branches.back().parent_active && !branches.back().taken;
        if (d == Directive::kElif && (branches.empty() || branches.back().seen_else)) {
          diags_.error(where, "#elif without a matching #if");
          continue;
        }
        if (evaluate || d == Directive::kIf) {
          ConditionParser p(rest, now_);
          auto v = p.parse();
          if (!v) {
            diags_.error(where, "#" + std::string(d == Directive::kIf ? "if" : "elif") + " condition: " + v.error());
          } else {
            cond = *v;
            for (const auto& note : p.notes()) diags_.warning(where, note);
          }
        }
        if (d == Directive::kIf) {
          branches.push_back({where, active(), cond, cond, false});
        } else {
          auto& b = branches.back();
          b.taking = !b.taken && cond;
          b.taken = b.taken || cond;
        }
        continue;
      }
      if (d == Directive::kElse) {
        if (branches.empty() || branches.back().seen_else) {
          diags_.error(where, "#else without a matching #if");
          continue;
        }
        auto& b = branches.back();
        b.seen_else = true;
        b.taking = !b.taken;
        b.taken = true;
        continue;
      }
      if (d == Directive::kEndif) {
        if (branches.empty()) {
          diags_.error(where, "#endif without a matching #if");
        } else {
          branches.pop_back();
        }
        continue;
      }
      if (!active() || d == Directive::kComment) continue;
      if (d == Directive::kDefine) {
        diags_.warning(where, "#define is not supported and is ignored");
        continue;
      }
      if (d == Directive::kInclude) {
        include(rest, where, base, depth, out);
        continue;
      }

      // An ordinary line: drop its comment, then follow continuations.
      std::string logical(trim(strip_comment(t)));
      while (!logical.empty() && logical.back() == '\\') {
        logical.pop_back();
        std::string next;
        if (!std::getline(in, next)) break;
        ++number;
        logical += std::string(trim(strip_comment(next)));
      }
      std::string_view kept = trim(logical);
      if (!kept.empty()) out.push_back({where, std::string(kept)});
    }
    for (const auto& b : branches) diags_.error(b.where, "#if without a matching #endif");
  }

 private:
  void include(std::string_view rest, const SourceLocation& where, const std::filesystem::path& base, int depth,
               std::vector<LogicalLine>& out) {
    std::string target(trim(strip_comment(rest)));
    if (target.size() >= 2 && target.front() == '"' && target.back() == '"')
      target = target.substr(1, target.size() - 2);
    if (target.empty()) {
      diags_.error(where, "#INCLUDE names no file");
      return;
    }
    if (depth >= kMaxIncludeDepth) {
      diags_.error(where, "#INCLUDE \"" + target + "\": nested more than " + std::to_string(kMaxIncludeDepth) +
                              " deep (an include cycle?)");
      return;
    }
    std::filesystem::path path(target);
    if (path.is_relative()) path = base / path;
    std::ifstream f(path);
    if (!f) {
      diags_.error(where, "#INCLUDE \"" + target + "\": cannot read " + path.string());
      return;
    }
    std::stringstream buf;
    buf << f.rdbuf();
    run(buf.str(), target, path.parent_path(), depth + 1, out);
  }

  const WeekInstant& now_;
  Diagnostics& diags_;
};

}  // namespace

std::vector<LogicalLine> preprocess_config_text(std::string_view text, const std::string& display,
                                                const std::filesystem::path& base_dir, const WeekInstant& now,
                                                Diagnostics& diags) {
  std::vector<LogicalLine> out;
  Preprocessor(now, diags).run(text, display, base_dir, 0, out);
  return out;
}

std::optional<std::vector<LogicalLine>> read_config_file(const std::filesystem::path& path, const std::string& display,
                                                         const WeekInstant& now, Diagnostics& diags) {
  std::ifstream f(path);
  if (!f) {
    diags.error({display, 0}, "cannot read " + path.string());
    return std::nullopt;
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return preprocess_config_text(buf.str(), display, path.parent_path(), now, diags);
}

}  // namespace lsf::config
