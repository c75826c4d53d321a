#include "libconfig/resreq.h"

#include <algorithm>
#include <cctype>

#include "libconfig/input_limits.h"
#include "libconfig/load_index.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

constexpr std::string_view kResreqSections[] = {"select", "order", "rusage", "span", "same", "cu", "affinity"};

// If text at pos starts a `name[` section, returns the name's length.
size_t section_at(std::string_view text, size_t pos, std::string_view* name) {
  for (auto s : kResreqSections) {
    if (text.substr(pos, s.size()) != s) continue;
    size_t p = pos + s.size();
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
    bool word_start = pos == 0 || !std::isalnum(static_cast<unsigned char>(text[pos - 1]));
    if (word_start && p < text.size() && text[p] == '[') {
      *name = s;
      return p - pos;
    }
  }
  return 0;
}

Result<int> parse_duration(std::string_view v) {
  v = trim(v);
  int scale = 1;
  if (!v.empty() && (v.back() == 'h' || v.back() == 'H')) {
    scale = 60;
    v.remove_suffix(1);
  } else if (!v.empty() && (v.back() == 'm' || v.back() == 'M')) {
    v.remove_suffix(1);
  }
  auto n = parse_int(v);
  if (!n || *n < 0) return fail("duration \"" + std::string(v) + "\" is not a number of minutes");
  return static_cast<int>(*n * scale);
}

Result<RusageClause> parse_rusage_clause(std::string_view text) {
  RusageClause clause;
  size_t start = 0;
  while (start <= text.size()) {
    size_t colon = text.find(':', start);
    std::string_view term = trim(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    start = colon == std::string_view::npos ? text.size() + 1 : colon + 1;
    if (term.empty()) return fail("empty term in rusage[" + std::string(text) + "]");
    size_t eq = term.find('=');
    if (eq == std::string_view::npos) return fail("rusage term \"" + std::string(term) + "\" is not name=value");
    std::string name(trim(term.substr(0, eq)));
    std::string_view value = trim(term.substr(eq + 1));
    if (name == "duration") {
      auto d = parse_duration(value);
      if (!d) return fail(d.error());
      clause.duration_minutes = *d;
    } else if (name == "decay") {
      auto d = parse_double(value);
      if (!d || (*d != 0 && *d != 1)) return fail("decay must be 0 or 1, not \"" + std::string(value) + "\"");
      clause.decay = *d == 1;
    } else {
      auto v = parse_double(value);
      if (!v || *v < 0) return fail("rusage value \"" + std::string(value) + "\" for " + name + " is not a number");
      clause.items.push_back({name, *v});
    }
  }
  if (clause.items.empty()) return fail("rusage[" + std::string(text) + "] reserves nothing");
  if (clause.decay && !clause.duration_minutes) clause.decay = false;  // LSF ignores decay without duration
  return clause;
}

Result<Rusage> parse_rusage(std::string_view text) {
  Rusage r;
  std::vector<std::string_view> alternatives;
  size_t start = 0;
  while (true) {
    size_t bar = text.find("||", start);
    alternatives.push_back(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 2;
  }
  for (auto alt : alternatives) {
    std::vector<RusageClause> clauses;
    size_t s = 0;
    while (s <= alt.size()) {
      size_t comma = alt.find(',', s);
      auto c = parse_rusage_clause(alt.substr(s, comma == std::string_view::npos ? comma : comma - s));
      if (!c) return fail(c.error());
      clauses.push_back(*c);
      s = comma == std::string_view::npos ? alt.size() + 1 : comma + 1;
    }
    r.alternatives.push_back(std::move(clauses));
  }
  return r;
}

// name=value[:name=value...] for span[] and cu[]; bare words have an empty value.
std::vector<std::pair<std::string, std::string>> split_terms(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> terms;
  size_t start = 0;
  while (start <= text.size()) {
    size_t colon = text.find(':', start);
    std::string_view t = trim(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    start = colon == std::string_view::npos ? text.size() + 1 : colon + 1;
    size_t eq = t.find('=');
    if (eq == std::string_view::npos)
      terms.emplace_back(std::string(t), "");
    else
      terms.emplace_back(std::string(trim(t.substr(0, eq))), std::string(trim(t.substr(eq + 1))));
  }
  return terms;
}

Result<int> positive(const std::string& section, const std::string& key, const std::string& v,
                     bool allow_minus_one = false) {
  auto n = parse_int(v);
  if (!n || (*n < 1 && !(allow_minus_one && *n == -1)))
    return fail(section + "[" + key + "=" + v + "]: " + key + " must be a positive number");
  return static_cast<int>(*n);
}

Result<Span> parse_span(std::string_view text) {
  Span span;
  for (auto& [k, v] : split_terms(text)) {
    if (k == "hosts") {
      auto n = positive("span", k, v, true);
      if (!n) return fail(n.error());
      span.hosts = *n;
    } else if (k == "ptile") {
      if (v == "'!'" || v == "!") {
        span.ptile_per_cpu = true;
      } else {
        auto n = positive("span", k, v);
        if (!n) return fail(n.error());
        span.ptile = *n;
      }
    } else if (k == "block") {
      auto n = positive("span", k, v);
      if (!n) return fail(n.error());
      span.block = *n;
    } else {
      return fail("span[] does not know \"" + k + "\" (hosts, ptile, block)");
    }
  }
  if (span.hosts && *span.hosts == 1 && (span.ptile || span.ptile_per_cpu))
    return fail("span[] cannot have both hosts=1 and ptile");
  return span;
}

Result<ComputeUnitRequest> parse_cu(std::string_view text) {
  ComputeUnitRequest cu;
  for (auto& [k, v] : split_terms(text)) {
    if (k == "type") {
      // A bare `type` would print as cu[], which reads back as nothing known.
      if (v.empty()) return fail("cu[type]: type needs a compute unit type (cu[type=enclosure])");
      cu.type = v;
    } else if (k == "pref") {
      if (v != "config" && v != "bestfit" && v != "maxavail" && v != "minavail")
        return fail("cu[pref=" + v + "]: pref is config, bestfit, maxavail or minavail");
      cu.pref = v;
    } else if (k == "maxcus" || k == "usablecuslots") {
      auto n = positive("cu", k, v);
      if (!n) return fail(n.error());
      (k == "maxcus" ? cu.maxcus : cu.usablecuslots) = *n;
    } else if (k == "balance" && v.empty()) {
      cu.balance = true;
    } else if (k == "excl" && v.empty()) {
      cu.excl = true;
    } else {
      return fail("cu[] does not know \"" + k + "\"");
    }
  }
  return cu;
}

}  // namespace

Result<ResourceRequirement> ResourceRequirement::parse(std::string_view text) {
  ResourceRequirement rr;
  if (text.size() > kMaxExpressionBytes) return fail(too_long("resource requirement"));
  text = trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = trim(text.substr(1, text.size() - 2));
  size_t pos = 0;
  // Every select[] must hold: they are joined by one flat `&&`, each in parentheses.
  std::vector<std::string> selects;
  bool have_order = false, have_rusage = false;
  while (true) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos >= text.size()) break;
    std::string_view name;
    size_t len = section_at(text, pos, &name);
    if (len == 0) {
      if (pos != 0) return fail("unexpected \"" + std::string(text.substr(pos)) + "\" in resource requirement");
      // An unlabeled leading string is a select string, up to the first section.
      size_t end = pos;
      while (end < text.size()) {
        std::string_view ignored;
        if (section_at(text, end, &ignored)) break;
        ++end;
      }
      if (auto leading = trim(text.substr(0, end)); !leading.empty()) selects.emplace_back(leading);
      pos = end;
      continue;
    }
    size_t open = pos + len;  // at '['
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
      if (text[close] == '[') ++depth;
      if (text[close] == ']' && --depth == 0) break;
    }
    if (close >= text.size()) return fail(std::string(name) + "[ has no closing ']'");
    std::string_view body = trim(text.substr(open + 1, close - open - 1));
    pos = close + 1;

    if (name == "select") {
      if (!body.empty()) selects.emplace_back(body);
    } else if (name == "order") {
      if (have_order) return fail("order[] is given twice");
      have_order = true;
      size_t s = 0;
      while (s <= body.size()) {
        size_t colon = body.find(':', s);
        std::string key(trim(body.substr(s, colon == std::string_view::npos ? colon : colon - s)));
        s = colon == std::string_view::npos ? body.size() + 1 : colon + 1;
        OrderKey k;
        if (!key.empty() && key.front() == '-') {
          k.reverse = true;
          key.erase(0, 1);
        }
        if (key.empty() || !std::isalpha(static_cast<unsigned char>(key.front())))
          return fail("order[" + std::string(body) + "]: \"" + key + "\" is not a resource name");
        k.name = key;
        rr.order.push_back(k);
      }
    } else if (name == "rusage") {
      if (have_rusage) return fail("rusage[] is given twice");
      have_rusage = true;
      auto r = parse_rusage(body);
      if (!r) return fail(r.error());
      rr.rusage = *r;
    } else if (name == "span") {
      if (rr.span) return fail("span[] is given twice");
      auto s = parse_span(body);
      if (!s) return fail(s.error());
      rr.span = *s;
    } else if (name == "same") {
      for (auto& [k, v] : split_terms(body)) {
        // Resource names only: anything else (a control byte, say) would not read back.
        const bool is_resource = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        if (!is_resource || !v.empty()) return fail("same[] lists resource names separated by ':'");
        rr.same.push_back(k);
      }
    } else if (name == "cu") {
      if (rr.cu) return fail("cu[] is given twice");
      auto c = parse_cu(body);
      if (!c) return fail(c.error());
      rr.cu = *c;
    } else if (name == "affinity") {
      rr.affinity = std::string(body);
    }
  }
  if (!selects.empty()) {
    std::string select_text = selects.front();
    if (selects.size() > 1) select_text = "(" + join(selects, ") && (") + ")";
    auto s = SelectExpr::parse(select_text);
    if (!s) return fail(s.error());
    rr.select = *s;
  }
  return rr;
}

std::string ResourceRequirement::to_string() const {
  std::vector<std::string> parts;
  if (!select.empty()) parts.push_back("select[" + select.to_string() + "]");
  if (!order.empty()) {
    std::vector<std::string> keys;
    for (const auto& k : order) keys.push_back((k.reverse ? "-" : "") + k.name);
    parts.push_back("order[" + join(keys, ":") + "]");
  }
  if (!rusage.empty()) {
    std::vector<std::string> alts;
    for (const auto& alt : rusage.alternatives) {
      std::vector<std::string> clauses;
      for (const auto& c : alt) {
        std::vector<std::string> terms;
        for (const auto& i : c.items) terms.push_back(i.name + "=" + format_number(i.value));
        if (c.duration_minutes) terms.push_back("duration=" + std::to_string(*c.duration_minutes));
        if (c.decay) terms.push_back("decay=1");
        clauses.push_back(join(terms, ":"));
      }
      alts.push_back(join(clauses, ", "));
    }
    parts.push_back("rusage[" + join(alts, " || ") + "]");
  }
  if (span) {
    std::vector<std::string> terms;
    if (span->hosts) terms.push_back("hosts=" + std::to_string(*span->hosts));
    if (span->ptile) terms.push_back("ptile=" + std::to_string(*span->ptile));
    if (span->ptile_per_cpu) terms.push_back("ptile='!'");
    if (span->block) terms.push_back("block=" + std::to_string(*span->block));
    parts.push_back("span[" + join(terms, ":") + "]");
  }
  if (!same.empty()) parts.push_back("same[" + join(same, ":") + "]");
  if (cu) {
    std::vector<std::string> terms;
    if (!cu->type.empty()) terms.push_back("type=" + cu->type);
    if (!cu->pref.empty()) terms.push_back("pref=" + cu->pref);
    if (cu->maxcus) terms.push_back("maxcus=" + std::to_string(*cu->maxcus));
    if (cu->usablecuslots) terms.push_back("usablecuslots=" + std::to_string(*cu->usablecuslots));
    if (cu->balance) terms.push_back("balance");
    if (cu->excl) terms.push_back("excl");
    parts.push_back("cu[" + join(terms, ":") + "]");
  }
  if (!affinity.empty()) parts.push_back("affinity[" + affinity + "]");
  return join(parts, " ");
}

ResourceRequirement merge_with_queue(const ResourceRequirement& job, const ResourceRequirement& queue) {
  ResourceRequirement out = job;
  out.select = SelectExpr::both(queue.select, job.select);
  if (out.order.empty()) out.order = queue.order;
  if (out.rusage.empty()) out.rusage = queue.rusage;
  if (!out.span) out.span = queue.span;
  for (const auto& s : queue.same)
    if (std::find(out.same.begin(), out.same.end(), s) == out.same.end()) out.same.push_back(s);
  if (!out.cu) out.cu = queue.cu;
  return out;
}

std::optional<ResourceRequirement> combine_requirements(const ResourceRequirement* job,
                                                        const ResourceRequirement* application,
                                                        const ResourceRequirement* queue) {
  std::optional<ResourceRequirement> own;
  if (job) own = *job;
  if (application) own = own ? merge_with_queue(*own, *application) : *application;
  if (own && queue) return merge_with_queue(*own, *queue);
  if (own) return own;
  if (queue) return *queue;
  return std::nullopt;
}

bool larger_is_better(std::string_view name) {
  if (auto index = find_load_index(name)) return !load_index_info(*index).increasing;
  return true;
}

int compare_by_order(const std::vector<OrderKey>& keys, const ResourceLookup& a, const ResourceLookup& b) {
  for (const auto& key : keys) {
    auto va = a(key.name), vb = b(key.name);
    auto* da = std::get_if<double>(&va);
    auto* db = std::get_if<double>(&vb);
    if (!da && !db) continue;
    if (!da) return 1;  // undefined sorts last whatever the direction
    if (!db) return -1;
    if (*da == *db) continue;
    bool a_better = larger_is_better(key.name) ? *da > *db : *da < *db;
    if (key.reverse) a_better = !a_better;
    return a_better ? -1 : 1;
  }
  return 0;
}

}  // namespace lsf::config
