// lsb.resources: Limit (KEY = value or table layout), GuaranteedResourcePool,
// HostExport, SharedResourceExport and ReservationUsage.
#include <limits>

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

// A Limit is the same whichever layout wrote it: a list of KEY, value, location.
struct Setting {
  std::string key;
  std::string value;
  SourceLocation where;
};

// `MEM = 200` (MB) or `MEM = 20%`.
void amount_or_percent(const Setting& s, FileContext& ctx, const std::string& context, std::optional<double>& slot,
                       bool& percent) {
  std::string_view v = s.value;
  percent = !v.empty() && v.back() == '%';
  if (percent) v.remove_suffix(1);
  auto n = ctx.number(v, s.where, context, s.key, 0);
  if (!n) return;
  if (percent && *n > 100) {
    ctx.error(s.where, context, s.key + " = " + s.value + " is more than 100%");
    return;
  }
  slot = *n;
}

// `JOBS = 8` or `JOBS = 6/8`: a soft value below the hard one.
void soft_hard(const Setting& s, FileContext& ctx, const std::string& context, std::optional<int>& soft,
               std::optional<int>& hard) {
  auto slash = s.value.find('/');
  auto h = ctx.integer(trim(slash == std::string::npos ? s.value : s.value.substr(slash + 1)), s.where, context, s.key,
                       0, kIntMax);
  if (!h) return;
  if (slash == std::string::npos) {
    hard = static_cast<int>(*h);
    return;
  }
  auto f = ctx.integer(trim(s.value.substr(0, slash)), s.where, context, s.key, 0, kIntMax);
  if (!f) return;
  if (*f > *h) {
    ctx.error(s.where, context, s.key + " = " + s.value + ": the hard value is below the soft one");
    return;
  }
  soft = static_cast<int>(*f);
  hard = static_cast<int>(*h);
}

std::optional<Limit> build_limit(const std::vector<Setting>& settings, const Section& section,
                                 const SourceLocation& where, FileContext& ctx) {
  Limit l;
  l.where = where;
  for (const auto& s : settings)
    if (s.key == "NAME") l.name = s.value;
  std::string context = l.name.empty() ? "Limit" : "limit \"" + l.name + "\"";
  bool consumer = false, resource = false, ok = true;
  auto pair_check = [&](const char* plain, const char* per) {
    bool a = false, b = false;
    for (const auto& s : settings) {
      a = a || s.key == plain;
      b = b || s.key == per;
    }
    if (a && b) {
      ctx.error(where, context, std::string("give ") + plain + " or " + per + ", not both");
      ok = false;
    }
  };
  pair_check("USERS", "PER_USER");
  pair_check("QUEUES", "PER_QUEUE");
  pair_check("HOSTS", "PER_HOST");
  pair_check("PROJECTS", "PER_PROJECT");
  for (const auto& s : settings) {
    l.keys.lines[s.key] = s.where;
    if (s.key == "NAME") continue;
    const ParamSpec* spec =
        section.table ? find_param("lsb.resources", "Limit", s.key) : ctx.check_key(section, s.key, s.where, context);
    if (!spec) continue;
    const auto& k = s.key;
    if (k == "USERS" || k == "PER_USER") {
      consumer = true;
      l.per_user = k == "PER_USER";
      if (auto u = ctx.users(s.value, s.where, context, k)) l.users = *u;
    } else if (k == "QUEUES" || k == "PER_QUEUE") {
      consumer = true;
      l.per_queue = k == "PER_QUEUE";
      l.queues = parse_name_list(s.value);
    } else if (k == "HOSTS" || k == "PER_HOST") {
      consumer = true;
      l.per_host = k == "PER_HOST";
      if (auto h = ctx.hosts(s.value, s.where, context, k)) l.hosts = *h;
    } else if (k == "PROJECTS" || k == "PER_PROJECT") {
      consumer = true;
      l.per_project = k == "PER_PROJECT";
      l.projects = parse_name_list(s.value);
    } else if (k == "APPS" || k == "PER_APP") {
      consumer = true;
      l.apps = parse_name_list(s.value);
    } else if (k == "LIC_PROJECTS" || k == "PER_LIC_PROJECT") {
      consumer = true;
      l.lic_projects = parse_name_list(s.value);
    } else if (k == "SLOTS") {
      resource = true;
      soft_hard(s, ctx, context, l.slots_soft, l.slots);
    } else if (k == "SLOTS_PER_PROCESSOR") {
      resource = true;
      if (auto n = ctx.number(s.value, s.where, context, k, 0)) l.slots_per_processor = *n;
    } else if (k == "JOBS") {
      resource = true;
      soft_hard(s, ctx, context, l.jobs_soft, l.jobs);
    } else if (k == "IDLE_JOBS" || k == "TOTAL_JOBS") {
      resource = true;
      if (auto n = ctx.integer(s.value, s.where, context, k, 0, kIntMax))
        (k == "IDLE_JOBS" ? l.idle_jobs : l.total_jobs) = static_cast<int>(*n);
    } else if (k == "PROC_SECONDS") {
      resource = true;
      // Processor-seconds pass 2^31: 64-bit values.
      constexpr long long kBig = std::numeric_limits<long long>::max();
      auto slash = s.value.find('/');
      auto a = ctx.integer(trim(s.value.substr(0, slash)), s.where, context, k, 0, kBig);
      std::optional<long long> b;
      if (slash != std::string::npos) b = ctx.integer(trim(s.value.substr(slash + 1)), s.where, context, k, 0, kBig);
      if (a && (slash == std::string::npos || b)) {
        if (b && *b < *a) {
          ctx.error(s.where, context, "PROC_SECONDS = " + s.value + ": the hard value is below the soft one");
        } else {
          l.proc_seconds_soft = *a;
          l.proc_seconds_hard = b ? *b : *a;
        }
      }
    } else if (k == "MEM") {
      resource = true;
      amount_or_percent(s, ctx, context, l.mem, l.mem_percent);
    } else if (k == "SWP") {
      resource = true;
      amount_or_percent(s, ctx, context, l.swp, l.swp_percent);
    } else if (k == "TMP") {
      resource = true;
      amount_or_percent(s, ctx, context, l.tmp, l.tmp_percent);
    } else if (k == "RESOURCE") {
      resource = true;
      if (auto r = ctx.shares(s.value, s.where, context, k)) l.resources = *r;
    }
  }
  if (!consumer) {
    ctx.error(where, context, "names no consumer (USERS, QUEUES, HOSTS, PROJECTS or their PER_ forms)");
    ok = false;
  }
  if (!resource) {
    ctx.error(where, context,
              "limits no resource (SLOTS, SLOTS_PER_PROCESSOR, JOBS, MEM, SWP, TMP, RESOURCE, IDLE_JOBS, TOTAL_JOBS or "
              "PROC_SECONDS)");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return l;
}

void parse_limits(const Section& s, FileContext& ctx, ClusterConfig& out) {
  if (!s.table) {
    std::vector<Setting> settings;
    for (const auto& kv : s.entries) settings.push_back({kv.key, kv.value, kv.where});
    if (auto l = build_limit(settings, s, s.where, ctx)) out.limits.push_back(std::move(*l));
    return;
  }
  ctx.check_columns(s);
  for (const auto& row : s.rows) {
    std::vector<Setting> settings;
    for (size_t i = 0; i < s.columns.size(); ++i)
      if (row.cells[i]) settings.push_back({s.columns[i], *row.cells[i], row.where});
    if (auto l = build_limit(settings, s, row.where, ctx)) out.limits.push_back(std::move(*l));
  }
}

void parse_guarantee_pool(const Section& s, FileContext& ctx, ClusterConfig& out) {
  GuaranteePool p;
  p.where = s.where;
  for (const auto& kv : s.entries)
    if (kv.key == "NAME") p.name = kv.value;
  if (p.name.empty()) {
    ctx.diags.error(s.where, "section GuaranteedResourcePool has no NAME");
    return;
  }
  std::string context = "guarantee pool \"" + p.name + "\"";
  bool have_type = false, have_distribution = false, ok = true;
  for (const auto& kv : s.entries) {
    p.keys.lines[kv.key] = kv.where;
    if (kv.key == "NAME" || !ctx.check_key(s, kv.key, kv.where, context)) continue;
    const auto& k = kv.key;
    if (k == "TYPE") {
      auto t = PoolType::parse(kv.value);
      if (!t) {
        ctx.error(kv.where, context, "TYPE: " + t.error());
        ok = false;
      } else {
        p.type = *t;
        have_type = true;
      }
    } else if (k == "HOSTS") {
      if (auto h = ctx.hosts(kv.value, kv.where, context, k)) p.hosts = *h;
    } else if (k == "RES_SELECT") {
      if (auto r = ctx.resreq(kv.value, kv.where, context, k)) p.res_select = *r;
    } else if (k == "DISTRIBUTION") {
      if (auto d = ctx.shares(kv.value, kv.where, context, k)) {
        p.distribution = *d;
        have_distribution = true;
      }
    } else if (k == "LOAN_POLICIES") {
      auto lp = LoanPolicies::parse(kv.value);
      if (!lp)
        ctx.error(kv.where, context, "LOAN_POLICIES: " + lp.error());
      else
        p.loan_policies = *lp;
    } else if (k == "SLOTS_PER_HOST") {
      if (auto n = ctx.integer(kv.value, kv.where, context, k, 1, kIntMax)) p.slots_per_host = static_cast<int>(*n);
    } else if (k == "DESCRIPTION") {
      p.description = kv.value;
    } else if (k == "ADMINISTRATORS") {
      p.administrators = split_words(kv.value);
    }
  }
  if (!have_type) {
    ctx.error(s.where, context, "TYPE is required (slots, hosts, package[...] or resource[...])");
    ok = false;
  }
  if (!have_distribution) {
    ctx.error(s.where, context, "DISTRIBUTION is required");
    ok = false;
  }
  if (ok) out.guarantee_pools.push_back(std::move(p));
}

void parse_host_export(const Section& s, FileContext& ctx, ClusterConfig& out) {
  HostExport e;
  e.where = s.where;
  const std::string context = "HostExport";
  bool ok = true;
  for (const auto& kv : s.entries) {
    e.keys.lines[kv.key] = kv.where;
    if (!ctx.check_key(s, kv.key, kv.where, context)) continue;
    const auto& k = kv.key;
    if (k == "PER_HOST") {
      if (auto h = ctx.hosts(kv.value, kv.where, context, k)) e.per_host = *h;
    } else if (k == "RES_SELECT") {
      if (auto r = ctx.resreq(kv.value, kv.where, context, k)) e.res_select = *r;
    } else if (k == "NHOSTS") {
      if (auto n = ctx.integer(kv.value, kv.where, context, k, 1, kIntMax)) e.nhosts = static_cast<int>(*n);
    } else if (k == "SLOTS") {
      if (auto n = ctx.integer(kv.value, kv.where, context, k, 1, kIntMax)) e.slots = static_cast<int>(*n);
    } else if (k == "MEM" || k == "SWP" || k == "SWAP") {
      auto kb = parse_memory(kv.value, MemoryUnit::kMB);
      if (!kb)
        ctx.error(kv.where, context, k + ": " + kb.error());
      else
        (k == "MEM" ? e.mem_mb : e.swp_mb) = *kb / 1024;
    } else if (k == "DISTRIBUTION") {
      if (auto d = ctx.shares(kv.value, kv.where, context, k)) e.distribution = *d;
    } else if (k == "TYPE") {
      if (iequals(kv.value, "shared"))
        e.shared = true;
      else if (!iequals(kv.value, "exclusive"))
        ctx.error(kv.where, context, "TYPE = \"" + kv.value + "\" is not shared or exclusive");
    }
  }
  if (e.per_host.empty() == !e.res_select.has_value()) {
    ctx.error(s.where, context, "give exactly one of PER_HOST or RES_SELECT");
    ok = false;
  }
  if (e.res_select && !e.nhosts) {
    ctx.error(s.where, context, "RES_SELECT needs NHOSTS");
    ok = false;
  }
  if (e.distribution.empty()) {
    ctx.error(s.where, context, "DISTRIBUTION is required");
    ok = false;
  }
  if (e.shared && !e.per_host.empty() && e.distribution.size() != 1) {
    ctx.error(s.where, context,
              "a shared export with PER_HOST must name exactly one cluster in DISTRIBUTION, not " +
                  std::to_string(e.distribution.size()));
    ok = false;
  }
  if (ok) out.host_exports.push_back(std::move(e));
}

void parse_shared_export(const Section& s, FileContext& ctx, ClusterConfig& out) {
  SharedResourceExport e;
  e.where = s.where;
  for (const auto& kv : s.entries)
    if (kv.key == "NAME") e.name = kv.value;
  std::string context = e.name.empty() ? "SharedResourceExport" : "shared resource export \"" + e.name + "\"";
  for (const auto& kv : s.entries) {
    e.keys.lines[kv.key] = kv.where;
    if (kv.key == "NAME" || !ctx.check_key(s, kv.key, kv.where, context)) continue;
    if (kv.key == "NINSTANCES") {
      if (auto n = ctx.integer(kv.value, kv.where, context, kv.key, 1, kIntMax)) e.ninstances = static_cast<int>(*n);
    } else if (kv.key == "DISTRIBUTION") {
      if (auto d = ctx.shares(kv.value, kv.where, context, kv.key)) e.distribution = *d;
    }
  }
  if (e.name.empty() || e.distribution.empty()) {
    ctx.error(s.where, context, "NAME and DISTRIBUTION are required");
    return;
  }
  out.shared_resource_exports.push_back(std::move(e));
}

void parse_reservation_usage(const Section& s, FileContext& ctx, ClusterConfig& out) {
  ctx.check_columns(s);
  for (const auto& row : s.rows) {
    auto res = s.cell(row, "RESOURCE");
    auto method = s.cell(row, "METHOD");
    if (!res || !method) {
      ctx.diags.error(row.where, "section ReservationUsage: each row needs RESOURCE and METHOD");
      continue;
    }
    ReservationUsage r{*res, ReservationUsage::Method::kPerJob, row.where};
    std::string m = to_upper(*method);
    if (m == "PER_JOB")
      r.method = ReservationUsage::Method::kPerJob;
    else if (m == "PER_HOST")
      r.method = ReservationUsage::Method::kPerHost;
    else if (m == "PER_SLOT")
      r.method = ReservationUsage::Method::kPerSlot;
    else if (m == "PER_TASK")
      r.method = ReservationUsage::Method::kPerTask;
    else {
      ctx.diags.error(row.where, "resource \"" + *res + "\": METHOD \"" + *method +
                                     "\" is not PER_JOB, PER_HOST, PER_SLOT or PER_TASK");
      continue;
    }
    out.reservation_usage.push_back(std::move(r));
  }
}

}  // namespace

void parse_lsb_resources(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    const SectionSpec* spec = find_section(ctx.kind, s.name);
    bool either_layout = iequals(s.name, "Limit");
    if (!either_layout && spec->table != s.table) {
      ctx.diags.error(s.where, "section " + s.name + " must be " +
                                   (spec->table ? "a table (a keyword line, then rows)" : "KEY = value lines"));
      continue;
    }
    if (iequals(s.name, "Limit"))
      parse_limits(s, ctx, out);
    else if (iequals(s.name, "GuaranteedResourcePool"))
      parse_guarantee_pool(s, ctx, out);
    else if (iequals(s.name, "HostExport"))
      parse_host_export(s, ctx, out);
    else if (iequals(s.name, "SharedResourceExport"))
      parse_shared_export(s, ctx, out);
    else if (iequals(s.name, "ReservationUsage"))
      parse_reservation_usage(s, ctx, out);
    else
      for (const auto& kv : s.entries) ctx.check_key(s, kv.key, kv.where, "section " + s.name);
  }
}

}  // namespace lsf::config
