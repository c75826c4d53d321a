#include "libconfig/pool_type.h"

#include "libconfig/text.h"

namespace lsf::config {
namespace {

// KEYWORD[body] at the start of text: returns body and advances text past it.
std::optional<std::string> take_bracketed(std::string_view& text, std::string_view keyword) {
  std::string_view t = trim(text);
  if (!starts_with_icase(t, keyword)) return std::nullopt;
  std::string_view rest = trim(t.substr(keyword.size()));
  if (rest.empty() || rest.front() != '[') return std::nullopt;
  size_t close = rest.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  text = rest.substr(close + 1);
  return std::string(trim(rest.substr(1, close - 1)));
}

}  // namespace

Result<PoolType> PoolType::parse(std::string_view text) {
  std::string_view t = trim(text);
  PoolType p;
  if (iequals(t, "slots")) return p;
  if (iequals(t, "hosts")) {
    p.kind = Kind::kHosts;
    return p;
  }
  std::string_view rest = t;
  if (auto body = take_bracketed(rest, "package")) {
    if (!trim(rest).empty()) return fail("unexpected \"" + std::string(rest) + "\" after package[]");
    p.kind = Kind::kPackage;
    std::string_view b = *body;
    size_t start = 0;
    while (start <= b.size()) {
      size_t colon = b.find(':', start);
      std::string_view term = trim(b.substr(start, colon == std::string_view::npos ? colon : colon - start));
      start = colon == std::string_view::npos ? b.size() + 1 : colon + 1;
      if (term.empty()) continue;
      size_t eq = term.find('=');
      std::string key = to_lower(trim(term.substr(0, eq)));
      std::string_view value = eq == std::string_view::npos ? std::string_view() : trim(term.substr(eq + 1));
      if (key == "slots") {
        auto n = parse_int(value);
        if (!n || *n < 1) return fail("package[slots=" + std::string(value) + "]: slots must be a positive number");
        p.package_slots = static_cast<int>(*n);
      } else if (key == "mem") {
        auto kb = parse_memory(value, MemoryUnit::kMB);
        if (!kb || *kb <= 0) return fail("package[mem=" + std::string(value) + "]: mem must be a positive amount");
        p.package_mem_mb = *kb / 1024;
      } else {
        return fail("package[] does not know \"" + key + "\" (slots, mem)");
      }
    }
    if (!p.package_slots && !p.package_mem_mb) return fail("package[] needs slots=n or mem=m (or both)");
    return p;
  }
  if (auto body = take_bracketed(rest, "resource")) {
    if (body->empty()) return fail("resource[] names no resource");
    p.kind = Kind::kResource;
    p.resource = *body;
    return p;
  }
  return fail("TYPE \"" + std::string(t) + "\" is not slots, hosts, package[...] or resource[...]");
}

std::string PoolType::to_string() const {
  switch (kind) {
    case Kind::kSlots: return "slots";
    case Kind::kHosts: return "hosts";
    case Kind::kResource: return "resource[" + resource + "]";
    case Kind::kPackage: break;
  }
  std::vector<std::string> terms;
  if (package_slots) terms.push_back("slots=" + std::to_string(*package_slots));
  if (package_mem_mb) terms.push_back("mem=" + std::to_string(*package_mem_mb));
  return "package[" + join(terms, ":") + "]";
}

Result<LoanPolicies> LoanPolicies::parse(std::string_view text) {
  LoanPolicies lp;
  std::string_view rest = trim(text);
  bool have_queues = false;
  while (!trim(rest).empty()) {
    rest = trim(rest);
    if (auto body = take_bracketed(rest, "QUEUES")) {
      have_queues = true;
      for (auto& q : split_words(*body)) {
        if (q == "all")
          lp.all_queues = true;
        else
          lp.queues.push_back(q);
      }
      if (!lp.all_queues && lp.queues.empty()) return fail("QUEUES[] names no queue");
    } else if (auto dur = take_bracketed(rest, "DURATION")) {
      auto n = parse_int(*dur);
      if (!n || *n < 0) return fail("DURATION[" + *dur + "] is not a number of minutes");
      lp.duration_minutes = static_cast<int>(*n);
    } else if (auto ret = take_bracketed(rest, "RETAIN")) {
      std::string_view v = *ret;
      if (!v.empty() && v.back() == '%') {
        lp.retain_percent = true;
        v.remove_suffix(1);
      }
      auto n = parse_double(v);
      if (!n || *n < 0 || (lp.retain_percent && *n > 100)) return fail("RETAIN[" + *ret + "] is not n or n%");
      lp.retain = *n;
    } else if (starts_with_icase(rest, "CLOSE_ON_DEMAND")) {
      lp.close_on_demand = true;
      rest = rest.substr(15);
    } else {
      return fail("LOAN_POLICIES does not know \"" + std::string(rest) +
                  "\" (QUEUES[], DURATION[], CLOSE_ON_DEMAND, RETAIN[])");
    }
  }
  if (!have_queues) return fail("LOAN_POLICIES needs QUEUES[...] to say who may borrow");
  return lp;
}

std::string LoanPolicies::to_string() const {
  std::string out = "QUEUES[" + (all_queues ? std::string("all") : join(queues, " ")) + "]";
  if (duration_minutes) out += " DURATION[" + std::to_string(*duration_minutes) + "]";
  if (close_on_demand) out += " CLOSE_ON_DEMAND";
  if (retain) {
    out += " RETAIN[" + format_number(*retain) + (retain_percent ? "%" : "") + "]";
  }
  return out;
}

}  // namespace lsf::config
