#include "libconfig/limits.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

std::int64_t kb_per(MemoryUnit unit) {
  std::int64_t v = 1;
  for (int i = 0; i < static_cast<int>(unit); ++i) v *= 1024;
  return v;
}

}  // namespace

Result<MemoryUnit> parse_memory_unit(std::string_view text) {
  std::string u = to_upper(trim(text));
  if (u == "K" || u == "KB") return MemoryUnit::kKB;
  if (u == "M" || u == "MB") return MemoryUnit::kMB;
  if (u == "G" || u == "GB") return MemoryUnit::kGB;
  if (u == "T" || u == "TB") return MemoryUnit::kTB;
  if (u == "P" || u == "PB") return MemoryUnit::kPB;
  if (u == "E" || u == "EB") return MemoryUnit::kEB;
  return fail("\"" + std::string(text) + "\" is not a memory unit (KB, MB, GB, TB, PB, EB)");
}

std::string_view memory_unit_name(MemoryUnit unit) {
  static constexpr std::string_view kNames[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  return kNames[static_cast<int>(unit)];
}

Result<std::int64_t> parse_memory(std::string_view text, MemoryUnit default_unit) {
  text = trim(text);
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  auto number = parse_double(text.substr(0, i));
  if (i == 0 || !number) return fail("\"" + std::string(text) + "\" is not a memory amount");
  MemoryUnit unit = default_unit;
  if (i < text.size()) {
    auto u = parse_memory_unit(text.substr(i));
    if (!u) return fail("\"" + std::string(text) + "\": " + u.error());
    unit = *u;
  }
  const double kb = *number * static_cast<double>(kb_per(unit));
  // Converting a double past int64's range is undefined: refuse it first.
  if (!(kb < 9.2e18)) return fail("\"" + std::string(text) + "\" is too large a memory amount");
  return static_cast<std::int64_t>(kb);
}

// Minutes kept in an int, and in seconds (x 60) in an int64 on the wire.
constexpr long long kMaxMinutes = std::numeric_limits<int>::max();

Result<TimeLimit> TimeLimit::parse(std::string_view text) {
  text = trim(text);
  TimeLimit t;
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    t.host_spec = std::string(trim(text.substr(slash + 1)));
    if (t.host_spec.empty()) return fail("\"" + std::string(text) + "\" names no host or model after '/'");
    text = trim(text.substr(0, slash));
  }
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto m = parse_int(text);
    if (!m || *m < 0) return fail("\"" + std::string(text) + "\" is not [hours:]minutes");
    if (*m > kMaxMinutes) return fail("\"" + std::string(text) + "\" is too long a time");
    t.minutes = static_cast<int>(*m);
  } else {
    auto h = parse_int(text.substr(0, colon));
    auto m = parse_int(text.substr(colon + 1));
    if (!h || !m || *h < 0 || *m < 0) return fail("\"" + std::string(text) + "\" is not [hours:]minutes");
    // Checked before multiplying: a huge hour count must not wrap into a small limit.
    if (*h > kMaxMinutes / 60 || *h * 60 + *m > kMaxMinutes)
      return fail("\"" + std::string(text) + "\" is too long a time");
    t.minutes = static_cast<int>(*h * 60 + *m);
  }
  return t;
}

std::string TimeLimit::to_string() const {
  int m = minutes % 60;
  return std::to_string(minutes / 60) + ":" + (m < 10 ? "0" : "") + std::to_string(m) +
         (host_spec.empty() ? "" : "/" + host_spec);
}

Result<DefaultAndMax<TimeLimit>> parse_time_limits(std::string_view text) {
  auto words = split_words(text);
  if (words.empty() || words.size() > 2) return fail("expected [default] maximum, found \"" + std::string(text) + "\"");
  DefaultAndMax<TimeLimit> out;
  auto max = TimeLimit::parse(words.back());
  if (!max) return fail(max.error());
  out.maximum = *max;
  if (words.size() == 2) {
    auto def = TimeLimit::parse(words[0]);
    if (!def) return fail(def.error());
    if (def->minutes > max->minutes) return fail("the default " + words[0] + " is above the maximum " + words[1]);
    out.default_value = *def;
  }
  return out;
}

Result<DefaultAndMax<std::int64_t>> parse_memory_limits(std::string_view text, MemoryUnit unit) {
  auto words = split_words(text);
  if (words.empty() || words.size() > 2) return fail("expected [default] maximum, found \"" + std::string(text) + "\"");
  DefaultAndMax<std::int64_t> out;
  auto max = parse_memory(words.back(), unit);
  if (!max) return fail(max.error());
  out.maximum = *max;
  if (words.size() == 2) {
    auto def = parse_memory(words[0], unit);
    if (!def) return fail(def.error());
    if (*def > *max) return fail("the default " + words[0] + " is above the maximum " + words[1]);
    out.default_value = *def;
  }
  return out;
}

Result<ProcessorLimit> parse_processor_limit(std::string_view text) {
  auto words = split_words(text);
  std::vector<int> v;
  for (const auto& w : words) {
    auto n = parse_int(w);
    if (!n || *n < 1) return fail("\"" + w + "\" is not a number of processors");
    v.push_back(static_cast<int>(*n));
  }
  ProcessorLimit p;
  if (v.size() == 1) {
    p.maximum = v[0];
  } else if (v.size() == 2) {
    p.minimum = p.default_value = v[0];
    p.maximum = v[1];
  } else if (v.size() == 3) {
    p.minimum = v[0];
    p.default_value = v[1];
    p.maximum = v[2];
  } else {
    return fail("expected [minimum [default]] maximum, found \"" + std::string(text) + "\"");
  }
  if (p.minimum > p.default_value || p.default_value > p.maximum)
    return fail("\"" + std::string(text) + "\" must satisfy minimum <= default <= maximum");
  return p;
}

Result<RequeueExitValues> RequeueExitValues::parse(std::string_view text) {
  RequeueExitValues r;
  auto code = [](std::string_view w) -> std::optional<int> {
    auto n = parse_int(w);
    if (!n || *n < 0 || *n > 255) return std::nullopt;
    return static_cast<int>(*n);
  };
  for (const auto& word : split_words(text)) {
    // `all ~1 ~2`: every exit value but 1 and 2 (bsub -Q and lsb.queues alike).
    if (iequals(word, "all")) {
      for (int c = 0; c <= 255; ++c)
        if (std::find(r.requeue.begin(), r.requeue.end(), c) == r.requeue.end()) r.requeue.push_back(c);
      continue;
    }
    if (word.size() > 1 && word[0] == '~') {
      auto c = code(std::string_view(word).substr(1));
      if (!c) return fail("exit value \"" + word + "\" is not ~0-255");
      std::erase(r.requeue, *c);
      continue;
    }
    if (starts_with_icase(word, "EXCLUDE(")) {
      if (word.back() != ')') return fail("\"" + word + "\" has no closing ')'");
      for (const auto& w : split_words(std::string_view(word).substr(8, word.size() - 9))) {
        auto c = code(w);
        if (!c) return fail("exit value \"" + w + "\" in EXCLUDE() is not 0-255");
        r.exclude.push_back(*c);
      }
      continue;
    }
    auto c = code(word);
    if (!c) return fail("exit value \"" + word + "\" is not 0-255");
    r.requeue.push_back(*c);
  }
  return r;
}

std::string RequeueExitValues::to_string() const {
  std::vector<std::string> words;
  for (int c : requeue) words.push_back(std::to_string(c));
  if (!exclude.empty()) {
    std::vector<std::string> ex;
    for (int c : exclude) ex.push_back(std::to_string(c));
    words.push_back("EXCLUDE(" + join(ex, " ") + ")");
  }
  return join(words, " ");
}

}  // namespace lsf::config
