// lsb.hosts: batch host limits and thresholds, host groups, host partitions and
// compute units.

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

void parse_host_rows(const Section& s, FileContext& ctx, ClusterConfig& out) {
  if (s.column("HOST_NAME") < 0) {
    ctx.diags.error(s.where, "section Host: the keyword line has no HOST_NAME column");
    return;
  }
  for (const auto& row : s.rows) {
    BatchHost h;
    h.where = row.where;
    auto name = s.cell(row, "HOST_NAME");
    if (!name) {
      ctx.diags.error(row.where, "section Host: row has no HOST_NAME");
      continue;
    }
    h.name = *name;
    std::string context = "host \"" + h.name + "\"";
    for (const auto& prior : out.batch_hosts)
      if (prior.name == h.name)
        ctx.error(row.where, context, "is listed twice (first at line " + std::to_string(prior.where.line) + ")");
    for (size_t i = 0; i < s.columns.size(); ++i) {
      const std::string& col = s.columns[i];
      if (col == "HOST_NAME" || !row.cells[i]) continue;
      const std::string& v = *row.cells[i];
      if (col == "MXJ") {
        if (v == "!")
          h.mxj_is_ncpus = true;
        else if (auto n = ctx.integer(v, row.where, context, col, 0, kIntMax))
          h.mxj = static_cast<int>(*n);
      } else if (col == "JL/U") {
        if (auto n = ctx.integer(v, row.where, context, col, 0, kIntMax)) h.jl_u = static_cast<int>(*n);
      } else if (col == "DISPATCH_WINDOW") {
        if (auto w = ctx.windows(v, row.where, context, col)) h.dispatch_window = *w;
      } else if (col == "MIG") {
        if (auto n = ctx.integer(v, row.where, context, col, 0, kIntMax)) h.mig = static_cast<int>(*n);
      } else if (is_threshold_name(col)) {
        if (auto t = ctx.threshold(v, row.where, context, col)) h.thresholds[to_lower(col)] = *t;
      } else {
        h.other[col] = v;
      }
    }
    out.batch_hosts.push_back(std::move(h));
  }
}

void parse_host_groups(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& row : s.rows) {
    HostGroup g;
    g.where = row.where;
    auto name = s.cell(row, "GROUP_NAME");
    if (!name) {
      ctx.diags.error(row.where, "section HostGroup: row has no GROUP_NAME");
      continue;
    }
    g.name = *name;
    std::string context = "host group \"" + g.name + "\"";
    for (const auto& prior : out.host_groups)
      if (prior.name == g.name)
        ctx.error(row.where, context, "is defined twice (first at line " + std::to_string(prior.where.line) + ")");
    auto members = s.cell(row, "GROUP_MEMBER");
    if (members && *members == "!") {
      g.external = true;
    } else if (members) {
      if (auto m = ctx.hosts(*members, row.where, context, "GROUP_MEMBER")) g.members = *m;
    }
    if (auto c = s.cell(row, "CONDENSE"))
      if (auto b = ctx.yes_no(*c, row.where, context, "CONDENSE")) g.condense = *b;
    if (auto m = s.cell(row, "MAX_SLOTS"))
      if (auto n = ctx.integer(*m, row.where, context, "MAX_SLOTS", 0, kIntMax)) g.max_slots = static_cast<int>(*n);
    out.host_groups.push_back(std::move(g));
  }
}

void parse_host_partition(const Section& s, FileContext& ctx, ClusterConfig& out) {
  HostPartition p;
  p.where = s.where;
  for (const auto& kv : s.entries)
    if (kv.key == "HPART_NAME") p.name = kv.value;
  if (p.name.empty()) {
    ctx.diags.error(s.where, "section HostPartition has no HPART_NAME");
    return;
  }
  std::string context = "host partition \"" + p.name + "\"";
  for (const auto& kv : s.entries) {
    p.keys.lines[kv.key] = kv.where;
    if (!ctx.check_key(s, kv.key, kv.where, context)) continue;
    if (kv.key == "HOSTS") {
      if (auto h = ctx.hosts(kv.value, kv.where, context, kv.key)) p.hosts = *h;
    } else if (kv.key == "USER_SHARES") {
      if (auto sh = ctx.shares(kv.value, kv.where, context, kv.key)) p.user_shares = *sh;
    }
  }
  out.host_partitions.push_back(std::move(p));
}

void parse_compute_units(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& row : s.rows) {
    ComputeUnit cu;
    cu.where = row.where;
    auto name = s.cell(row, "NAME");
    if (!name) {
      ctx.diags.error(row.where, "section ComputeUnit: row has no NAME");
      continue;
    }
    cu.name = *name;
    std::string context = "compute unit \"" + cu.name + "\"";
    if (auto t = s.cell(row, "TYPE")) cu.type = *t;
    if (auto m = s.cell(row, "MEMBER"))
      if (auto h = ctx.hosts(*m, row.where, context, "MEMBER")) cu.members = *h;
    if (auto c = s.cell(row, "CONDENSE"))
      if (auto b = ctx.yes_no(*c, row.where, context, "CONDENSE")) cu.condense = *b;
    out.compute_units.push_back(std::move(cu));
  }
}

}  // namespace

void parse_lsb_hosts(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    const SectionSpec* spec = find_section(ctx.kind, s.name);
    if (spec->table != s.table) {
      ctx.diags.error(s.where, "section " + s.name + " must be " +
                                   (spec->table ? "a table (a keyword line, then rows)" : "KEY = value lines"));
      continue;
    }
    if (s.table) ctx.check_columns(s);
    if (iequals(s.name, "Host"))
      parse_host_rows(s, ctx, out);
    else if (iequals(s.name, "HostGroup"))
      parse_host_groups(s, ctx, out);
    else if (iequals(s.name, "HostPartition"))
      parse_host_partition(s, ctx, out);
    else if (iequals(s.name, "ComputeUnit"))
      parse_compute_units(s, ctx, out);
  }
}

}  // namespace lsf::config
