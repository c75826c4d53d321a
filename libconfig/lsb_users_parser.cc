// lsb.users: user groups (with the shares that make the fairshare tree) and
// per-user / per-group job limits.

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

void parse_user_groups(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& row : s.rows) {
    UserGroup g;
    g.where = row.where;
    auto name = s.cell(row, "GROUP_NAME");
    if (!name) {
      ctx.diags.error(row.where, "section UserGroup: row has no GROUP_NAME");
      continue;
    }
    g.name = *name;
    std::string context = "user group \"" + g.name + "\"";
    for (const auto& prior : out.user_groups)
      if (prior.name == g.name)
        ctx.error(row.where, context, "is defined twice (first at line " + std::to_string(prior.where.line) + ")");
    auto members = s.cell(row, "GROUP_MEMBER");
    if (members && *members == "!") {
      g.external = true;
    } else if (members) {
      if (auto m = ctx.users(*members, row.where, context, "GROUP_MEMBER")) g.members = *m;
    }
    if (auto sh = s.cell(row, "USER_SHARES"))
      if (auto v = ctx.shares(*sh, row.where, context, "USER_SHARES")) g.user_shares = *v;
    if (auto a = s.cell(row, "GROUP_ADMIN")) g.admins = split_words(*a);
    out.user_groups.push_back(std::move(g));
  }
}

void parse_user_limits(const Section& s, FileContext& ctx, ClusterConfig& out) {
  for (const auto& row : s.rows) {
    UserLimit u;
    u.where = row.where;
    auto name = s.cell(row, "USER_NAME");
    if (!name) {
      ctx.diags.error(row.where, "section User: row has no USER_NAME");
      continue;
    }
    u.name = *name;
    if (u.name.size() > 1 && u.name.back() == '@') {
      u.per_member = true;
      u.name.pop_back();
    }
    std::string context = "user \"" + *name + "\"";
    if (auto v = s.cell(row, "MAX_JOBS"))
      if (auto n = ctx.integer(*v, row.where, context, "MAX_JOBS", 0, kIntMax)) u.max_jobs = static_cast<int>(*n);
    if (auto v = s.cell(row, "JL/P"))
      if (auto n = ctx.number(*v, row.where, context, "JL/P", 0)) u.jl_p = *n;
    if (auto v = s.cell(row, "MAX_PEND_JOBS"))
      if (auto n = ctx.integer(*v, row.where, context, "MAX_PEND_JOBS", 0, kIntMax))
        u.max_pend_jobs = static_cast<int>(*n);
    if (auto v = s.cell(row, "MAX_PEND_SLOTS"))
      if (auto n = ctx.integer(*v, row.where, context, "MAX_PEND_SLOTS", 0, kIntMax))
        u.max_pend_slots = static_cast<int>(*n);
    out.user_limits.push_back(std::move(u));
  }
}

}  // namespace

void parse_lsb_users(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (!s.table) {
      ctx.diags.error(s.where, "section " + s.name + " must be a table (a keyword line, then rows)");
      continue;
    }
    ctx.check_columns(s);
    if (iequals(s.name, "UserGroup"))
      parse_user_groups(s, ctx, out);
    else if (iequals(s.name, "User"))
      parse_user_limits(s, ctx, out);
  }
}

}  // namespace lsf::config
