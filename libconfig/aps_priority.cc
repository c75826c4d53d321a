#include "libconfig/aps_priority.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

// `[[a, 1] [b, 2]]` (the part after the keyword) -> pairs; false with `why` set when
// the brackets or commas are wrong.
bool pairs(std::string_view body, std::vector<std::pair<std::string, std::string>>& out, std::string& why) {
  std::string_view s = trim(body);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') {
    why = "expected [[name, value] ...], got \"" + std::string(body) + "\"";
    return false;
  }
  s = s.substr(1, s.size() - 2);
  while (!(s = trim(s)).empty()) {
    if (s.front() != '[') {
      why = "expected [name, value] at \"" + std::string(s) + "\"";
      return false;
    }
    size_t close = s.find(']');
    if (close == std::string_view::npos) {
      why = "no closing ']' in \"" + std::string(s) + "\"";
      return false;
    }
    std::string_view item = s.substr(1, close - 1);
    size_t comma = item.find(',');
    if (comma == std::string_view::npos) {
      why = "\"[" + std::string(item) + "]\" is not [name, value]";
      return false;
    }
    out.emplace_back(to_upper(std::string(trim(item.substr(0, comma)))), std::string(trim(item.substr(comma + 1))));
    s = s.substr(close + 1);
  }
  return true;
}

bool number(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && std::isfinite(out);
}

}  // namespace

const std::map<std::string, std::vector<std::string>, std::less<>>& ApsPriority::factors() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kFactors = {
      {"FS", {}},
      {"FSTARGET", {}},
      {"RSRC", {"PROC", "MEM", "SWAP"}},
      {"WORK", {"JPRIORITY", "QPRIORITY"}},
      {"SERV", {"QUEUETIME", "XFACTOR", "BYPASS"}},
      {"TARG", {"TARGETQUEUETIME"}},
      {"QOS", {}},
  };
  return kFactors;
}

std::string_view ApsPriority::parent(std::string_view name) {
  for (const auto& [factor, subs] : factors())
    for (const auto& s : subs)
      if (s == name) return factor;
  return {};
}

Result<ApsPriority> ApsPriority::parse(std::string_view text) {
  ApsPriority aps;
  std::string_view rest = trim(text);
  while (!rest.empty()) {
    size_t open = rest.find('[');
    if (open == std::string_view::npos)
      return fail("\"" + std::string(rest) + "\" is not WEIGHT[...], LIMIT[...] or GRACE_PERIOD[...]");
    std::string keyword = to_upper(std::string(trim(rest.substr(0, open))));
    // The body runs to the bracket that closes the first one.
    int depth = 0;
    size_t end = open;
    for (; end < rest.size(); ++end) {
      if (rest[end] == '[') ++depth;
      if (rest[end] == ']' && --depth == 0) break;
    }
    if (end == rest.size()) return fail(keyword + ": no closing ']'");
    std::vector<std::pair<std::string, std::string>> items;
    std::string why;
    if (!pairs(rest.substr(open, end - open + 1), items, why)) return fail(keyword + ": " + why);
    if (keyword != "WEIGHT" && keyword != "LIMIT" && keyword != "GRACE_PERIOD")
      return fail("\"" + keyword + "\" is not WEIGHT, LIMIT or GRACE_PERIOD");
    for (const auto& [name, value] : items) {
      if (name == "ADMIN") return fail(keyword + ": ADMIN is set per job with bmod -aps, not configured");
      if (!factors().count(name) && parent(name).empty())
        return fail(
            keyword + ": unknown factor \"" + name +
            "\" (FS, FSTARGET, RSRC, PROC, MEM, SWAP, WORK, JPRIORITY, QPRIORITY, SERV, QUEUETIME, XFACTOR, BYPASS, "
            "TARG, TARGETQUEUETIME, QOS)");
      Term& term = aps.terms[name];
      if (keyword == "GRACE_PERIOD") {
        std::string digits = value;
        double unit = 3600;
        if (!digits.empty() && (digits.back() == 's' || digits.back() == 'm' || digits.back() == 'h')) {
          unit = digits.back() == 's' ? 1 : digits.back() == 'm' ? 60 : 3600;
          digits.pop_back();
        }
        double n = 0;
        if (!number(digits, n) || n <= 0)
          return fail("GRACE_PERIOD: " + name + " = \"" + value + "\" is not a positive time (30s, 30m, 30h)");
        term.grace_s = static_cast<std::int64_t>(std::llround(n * unit));
      } else {
        double n = 0;
        if (!number(value, n) || n == 0)
          return fail(keyword + ": " + name + " = \"" + value + "\" is not a non-zero number");
        (keyword == "WEIGHT" ? term.weight : term.limit) = n;
      }
    }
    rest = trim(rest.substr(end + 1));
  }
  if (aps.terms.empty()) return fail("nothing is weighted");
  return aps;
}

double ApsPriority::weight(std::string_view name) const {
  auto own = [&](std::string_view n) -> std::optional<double> {
    auto it = terms.find(n);
    return it == terms.end() ? std::nullopt : it->second.weight;
  };
  std::string_view up = parent(name);
  if (up.empty()) {
    if (auto w = own(name)) return *w;
    const auto& subs = factors().at(std::string(name));
    for (const auto& s : subs)
      if (own(s)) return 1;
    return 0;
  }
  if (auto w = own(name)) return *w;
  // A weighted factor without weighted subfactors counts each of them.
  if (!own(up)) return 0;
  for (const auto& s : factors().at(std::string(up)))
    if (own(s)) return 0;
  return 1;
}

std::string ApsPriority::to_string() const {
  std::ostringstream out;
  auto section = [&](const char* keyword, auto value_of) {
    std::string items;
    for (const auto& [name, term] : terms) {
      std::string v = value_of(term);
      if (!v.empty()) items += (items.empty() ? "[" : " [") + name + ", " + v + "]";
    }
    if (!items.empty()) out << (out.tellp() > 0 ? " " : "") << keyword << "[" << items << "]";
  };
  auto fmt = [](double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  };
  section("WEIGHT", [&](const Term& t) { return t.weight ? fmt(*t.weight) : std::string(); });
  section("LIMIT", [&](const Term& t) { return t.limit ? fmt(*t.limit) : std::string(); });
  section("GRACE_PERIOD", [&](const Term& t) { return t.grace_s ? std::to_string(t.grace_s) + "s" : std::string(); });
  return out.str();
}

}  // namespace lsf::config
