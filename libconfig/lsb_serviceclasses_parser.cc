// lsb.serviceclasses: service classes, time-based or guarantee (GOALS = [GUARANTEE]).
#include <limits>

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

// ACCESS_CONTROL = QUEUES[a b] USERS[u g] FAIRSHARE_GROUPS[..] APPS[..] PROJECTS[..] LIC_PROJECTS[..]
bool parse_access_control(std::string_view value, ServiceClass& sc, const SourceLocation& where,
                          const std::string& context, FileContext& ctx) {
  for (const auto& word : split_words(value)) {
    size_t open = word.find('[');
    if (open == std::string::npos || word.back() != ']') {
      ctx.error(where, context, "ACCESS_CONTROL: \"" + word + "\" is not KEYWORD[names]");
      return false;
    }
    std::string kw = to_upper(word.substr(0, open));
    auto names = split_words(std::string_view(word).substr(open + 1, word.size() - open - 2));
    if (kw == "QUEUES")
      sc.access_queues = names;
    else if (kw == "USERS")
      sc.access_users = names;
    else if (kw == "FAIRSHARE_GROUPS")
      sc.access_fairshare_groups = names;
    else if (kw == "APPS")
      sc.access_apps = names;
    else if (kw == "PROJECTS")
      sc.access_projects = names;
    else if (kw == "LIC_PROJECTS")
      sc.access_lic_projects = names;
    else {
      ctx.error(where, context, "ACCESS_CONTROL: unknown keyword " + kw);
      return false;
    }
  }
  return true;
}

}  // namespace

void parse_lsb_serviceclasses(const SectionFile& file, FileContext& ctx, std::vector<ServiceClass>& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (s.table) {
      ctx.diags.error(s.where, "section ServiceClass must be KEY = value lines, not a table");
      continue;
    }
    ServiceClass sc;
    sc.where = s.where;
    for (const auto& kv : s.entries)
      if (kv.key == "NAME") sc.name = kv.value;
    if (sc.name.empty()) {
      ctx.diags.error(s.where, "section ServiceClass has no NAME");
      continue;
    }
    std::string context = "service class \"" + sc.name + "\"";
    for (const auto& prior : out)
      if (prior.name == sc.name)
        ctx.error(s.where, context, "is defined twice (first at line " + std::to_string(prior.where.line) + ")");
    const KeyValue* priority = nullptr;
    const KeyValue* control = nullptr;
    const KeyValue* user_group = nullptr;
    for (const auto& kv : s.entries) {
      sc.keys.lines[kv.key] = kv.where;
      if (kv.key == "NAME" || !ctx.check_key(s, kv.key, kv.where, context)) continue;
      const auto& k = kv.key;
      if (k == "GOALS") {
        for (const auto& g : split_words(kv.value)) {
          std::string goal = strip_parens(g);
          if (goal.size() >= 2 && goal.front() == '[' && goal.back() == ']') goal = goal.substr(1, goal.size() - 2);
          sc.goals.push_back(goal);
          if (iequals(trim(goal), "GUARANTEE")) sc.guarantee = true;
        }
      } else if (k == "PRIORITY") {
        priority = &kv;
        if (auto n = ctx.integer(kv.value, kv.where, context, k, 1, std::numeric_limits<int>::max()))
          sc.priority = static_cast<int>(*n);
      } else if (k == "QUEUE_TIME_TARGET") {
        if (auto n = ctx.integer(kv.value, kv.where, context, k, 1, std::numeric_limits<int>::max()))
          sc.queue_time_target_min = static_cast<int>(*n);
      } else if (k == "ACCESS_CONTROL") {
        parse_access_control(kv.value, sc, kv.where, context, ctx);
      } else if (k == "AUTO_ATTACH") {
        if (auto b = ctx.yes_no(kv.value, kv.where, context, k)) sc.auto_attach = *b;
      } else if (k == "USER_GROUP") {
        user_group = &kv;
        sc.user_group = split_words(kv.value);
      } else if (k == "CONTROL_ACTION") {
        control = &kv;
        sc.control_action = kv.value;
      } else if (k == "DESCRIPTION") {
        sc.description = kv.value;
      }
    }
    if (sc.goals.empty()) ctx.error(s.where, context, "GOALS is required");
    if (sc.guarantee) {
      for (const KeyValue* kv : {priority, control, user_group})
        if (kv) ctx.error(kv->where, context, "a guarantee service class may not set " + kv->key);
    }
    out.push_back(std::move(sc));
  }
}

void parse_lsb_modules(const SectionFile& file, FileContext& ctx, ClusterConfig& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (!s.table) {
      ctx.diags.error(s.where, "section PluginModule must be a table (a keyword line, then rows)");
      continue;
    }
    ctx.check_columns(s);
    out.modules_configured = true;
    for (const auto& row : s.rows) {
      auto name = s.cell(row, "SCH_PLUGIN");
      if (!name) {
        ctx.diags.error(row.where, "section PluginModule: row has no SCH_PLUGIN");
        continue;
      }
      SchedulerModule m{*name, s.cell(row, "RB_PLUGIN").value_or(""), s.cell(row, "SCH_DISABLE_PHASES").value_or(""),
                        row.where};
      if (!starts_with_icase(m.name, "schmod_"))
        ctx.diags.error(row.where, "module \"" + m.name + "\" is not a scheduler module (schmod_...)");
      for (const auto& prior : out.modules)
        if (prior.name == m.name)
          ctx.diags.error(row.where, "module \"" + m.name + "\" is listed twice (first at line " +
                                         std::to_string(prior.where.line) + ")");
      out.modules.push_back(std::move(m));
    }
  }
}

}  // namespace lsf::config
