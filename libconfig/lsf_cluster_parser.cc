// lsf.cluster.<name>: administrators, hosts, resource locations, remote clusters.
#include "libconfig/failover_params.h"
#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

void parse_admins(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& kv : s.entries) {
    ctx.check_key(s, kv.key, kv.where, "section " + s.name);
    if (kv.key == "ADMINISTRATORS" || kv.key == "MANAGER") {
      out.cluster_admins = split_words(strip_parens(kv.value));
      if (out.cluster_admins.empty()) ctx.diags.error(kv.where, "section " + s.name + ": " + kv.key + " names nobody");
    }
  }
}

void parse_hosts(const Section& s, FileContext& ctx, ClusterConfig& out) {
  if (s.column("HOSTNAME") < 0) {
    ctx.diags.error(s.where, "section Host: the keyword line has no HOSTNAME column");
    return;
  }
  for (const auto& row : s.rows) {
    ClusterHost h;
    h.where = row.where;
    auto name = s.cell(row, "HOSTNAME");
    if (!name) {
      ctx.diags.error(row.where, "section Host: row has no HOSTNAME");
      continue;
    }
    h.name = *name;
    std::string context = "host \"" + h.name + "\"";
    for (const auto& prior : out.hosts)
      if (prior.name == h.name)
        ctx.error(row.where, context, "is listed twice (first at line " + std::to_string(prior.where.line) + ")");
    if (auto m = s.cell(row, "MODEL"); m && *m != "!") h.model = *m;
    if (auto t = s.cell(row, "TYPE"); t && *t != "!") h.type = *t;
    if (auto sv = s.cell(row, "SERVER")) {
      if (*sv == "1" || iequals(*sv, "y") || iequals(*sv, "yes"))
        h.server = true;
      else if (*sv == "0" || iequals(*sv, "n") || iequals(*sv, "no"))
        h.server = false;
      else
        ctx.error(row.where, context, "SERVER = \"" + *sv + "\" is not 1 or 0");
    }
    if (auto nd = s.cell(row, "ND"))
      if (auto v = ctx.integer(*nd, row.where, context, "ND", 0, 1 << 20)) h.nd = static_cast<int>(*v);
    if (auto r = s.cell(row, "RESOURCES")) h.resources = split_words(*r);
    if (auto w = s.cell(row, "RUNWINDOW"))
      if (auto v = ctx.windows(*w, row.where, context, "RUNWINDOW")) h.run_window = *v;
    if (auto p = s.cell(row, "REXPRI"))
      if (auto v = ctx.integer(*p, row.where, context, "REXPRI", -20, 20)) h.rexpri = static_cast<int>(*v);
    for (size_t i = 0; i < s.columns.size(); ++i) {
      const auto& col = s.columns[i];
      if (!is_threshold_name(col) || !row.cells[i]) continue;
      if (auto t = ctx.threshold(*row.cells[i], row.where, context, col)) h.busy_thresholds[to_lower(col)] = *t;
    }
    out.hosts.push_back(std::move(h));
  }
}

// LOCATION: `[all]`, `[default]`, `(5@[all])`, `2@[h1] 4@[others]`, `([h1 h2] [others])`.
void parse_resource_map(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& row : s.rows) {
    auto name = s.cell(row, "RESOURCENAME");
    auto loc = s.cell(row, "LOCATION");
    if (!name || !loc) {
      ctx.diags.error(row.where, "section ResourceMap: each row needs RESOURCENAME and LOCATION");
      continue;
    }
    ResourceMapEntry e{*name, {}, row.where};
    std::string context = "resource \"" + *name + "\"";
    bool ok = true;
    for (const auto& word : split_words(strip_parens(*loc))) {
      ResourceMapEntry::Location l;
      std::string_view w = word;
      size_t at = w.find("@[");
      if (at != std::string_view::npos) {
        l.value = std::string(w.substr(0, at));
        w = w.substr(at + 1);
      }
      if (w.size() < 2 || w.front() != '[' || w.back() != ']') {
        ctx.error(row.where, context, "LOCATION item \"" + word + "\" is not [hosts] or value@[hosts]");
        ok = false;
        break;
      }
      auto hosts = ctx.hosts(w.substr(1, w.size() - 2), row.where, context, "LOCATION");
      if (!hosts) {
        ok = false;
        break;
      }
      l.hosts = *hosts;
      e.locations.push_back(std::move(l));
    }
    if (ok) out.resource_map.push_back(std::move(e));
  }
}

}  // namespace

void parse_lsf_cluster(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    const SectionSpec* spec = find_section(ctx.kind, s.name);
    if (spec->table != s.table) {
      ctx.diags.error(s.where, "section " + s.name + " must be " +
                                   (spec->table ? "a table (a keyword line, then rows)" : "KEY = value lines"));
      continue;
    }
    if (s.table) ctx.check_columns(s);
    if (iequals(s.name, "ClusterAdmins") || iequals(s.name, "ClusterManager")) {
      parse_admins(s, ctx, out);
    } else if (iequals(s.name, "Parameters")) {
      for (const auto& kv : s.entries) {
        ctx.check_key(s, kv.key, kv.where, "section Parameters");
        if (auto err = check_failover_param(kv.key, kv.value); !err.empty()) {
          ctx.diags.error(kv.where, err);
          continue;
        }
        out.lim_params[kv.key] = kv.value;
      }
    } else if (iequals(s.name, "Host")) {
      parse_hosts(s, ctx, out);
    } else if (iequals(s.name, "ResourceMap")) {
      parse_resource_map(s, ctx, out);
    } else if (iequals(s.name, "RemoteClusters")) {
      for (const auto& row : s.rows) {
        auto n = s.cell(row, "CLUSTERNAME");
        if (!n) continue;
        RemoteCluster r{*n, true, row.where};
        if (auto v = s.cell(row, "RECV_FROM"); v && *v != "-")
          if (auto b = ctx.yes_no(*v, row.where, "RemoteClusters " + *n, "RECV_FROM")) r.recv_from = *b;
        out.remote_clusters.push_back(std::move(r));
      }
    }
  }
}

}  // namespace lsf::config
