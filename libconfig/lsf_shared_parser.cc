// lsf.shared: clusters, host types, host models and site resources.
#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

bool valid_resource_name(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return n.find_first_of(":.()[+-*/!&|<>@=") == std::string::npos;
}

constexpr std::string_view kReserved[] = {"cpu", "cpuf", "io", "logins", "ls", "idle", "maxmem", "maxswp",
                                          "maxtmp", "type", "model", "status", "it", "mem", "ncpus", "ndisks",
                                          "pg", "r15m", "r15s", "r1m", "swap", "swp", "tmp", "ut"};

}  // namespace

void parse_lsf_shared(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (!s.table) {
      ctx.diags.error(s.where, "section " + s.name + " must be a table (a keyword line, then rows)");
      continue;
    }
    ctx.check_columns(s);
    if (iequals(s.name, "Cluster")) {
      for (const auto& row : s.rows) {
        auto name = s.cell(row, "CLUSTERNAME");
        if (!name) {
          ctx.diags.error(row.where, "section Cluster: row has no ClusterName");
          continue;
        }
        ClusterDef c{*name, {}, row.where};
        if (auto servers = s.cell(row, "SERVERS")) c.servers = split_words(*servers);
        out.clusters.push_back(std::move(c));
      }
    } else if (iequals(s.name, "HostType")) {
      for (const auto& row : s.rows)
        if (auto t = s.cell(row, "TYPENAME")) out.host_types.push_back(*t);
    } else if (iequals(s.name, "HostModel")) {
      for (const auto& row : s.rows) {
        HostModel m;
        m.where = row.where;
        auto name = s.cell(row, "MODELNAME");
        if (!name) {
          ctx.diags.error(row.where, "section HostModel: row has no MODELNAME");
          continue;
        }
        m.name = *name;
        std::string context = "host model \"" + m.name + "\"";
        if (auto f = s.cell(row, "CPUFACTOR")) {
          auto v = ctx.number(*f, row.where, context, "CPUFACTOR", 0);
          if (v && *v > 0) m.cpu_factor = *v;
          if (v && *v == 0) ctx.error(row.where, context, "CPUFACTOR must be above 0");
        }
        if (auto a = s.cell(row, "ARCHITECTURE")) m.architectures = split_words(*a);
        out.host_models.push_back(std::move(m));
      }
    } else if (iequals(s.name, "Resource")) {
      for (const auto& row : s.rows) {
        ResourceDef r;
        r.where = row.where;
        auto name = s.cell(row, "RESOURCENAME");
        if (!name) {
          ctx.diags.error(row.where, "section Resource: row has no RESOURCENAME");
          continue;
        }
        r.name = *name;
        std::string context = "resource \"" + r.name + "\"";
        if (!valid_resource_name(r.name)) {
          ctx.error(row.where, context, "a resource name may not start with a digit or contain : . ( ) [ + - * / ! & | < > @ =");
          continue;
        }
        for (auto reserved : kReserved) {
          if (r.name == reserved) ctx.error(row.where, context, "the name is reserved for a built-in index");
        }
        if (auto t = s.cell(row, "TYPE")) {
          if (iequals(*t, "Boolean"))
            r.type = ResourceDef::Type::kBoolean;
          else if (iequals(*t, "Numeric"))
            r.type = ResourceDef::Type::kNumeric;
          else if (iequals(*t, "String"))
            r.type = ResourceDef::Type::kString;
          else
            ctx.error(row.where, context, "TYPE \"" + *t + "\" is not Boolean, Numeric or String");
        }
        if (auto i = s.cell(row, "INTERVAL"))
          if (auto v = ctx.integer(*i, row.where, context, "INTERVAL", 1, 86400)) r.interval = static_cast<int>(*v);
        if (auto inc = s.cell(row, "INCREASING"))
          if (auto v = ctx.yes_no(*inc, row.where, context, "INCREASING")) r.increasing = *v;
        if (auto rel = s.cell(row, "RELEASE"))
          if (auto v = ctx.yes_no(*rel, row.where, context, "RELEASE")) r.release = *v;
        if (auto c = s.cell(row, "CONSUMABLE"))
          if (auto v = ctx.yes_no(*c, row.where, context, "CONSUMABLE")) r.consumable = *v;
        if (auto d = s.cell(row, "DESCRIPTION")) r.description = *d;
        if (r.type != ResourceDef::Type::kNumeric && (s.cell(row, "INCREASING") || s.cell(row, "RELEASE")))
          ctx.warning(row.where, context, "INCREASING and RELEASE apply to Numeric resources only");
        out.resources.push_back(std::move(r));
      }
    }
  }
}

void parse_lsf_task(const SectionFile& file, FileContext& ctx) {
  // lsrun task lists are not used by the batch system; read to report malformed sections only.
  for (const auto& s : file.sections) ctx.known_section(s);
}

}  // namespace lsf::config
