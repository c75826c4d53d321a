// lsb.applications: one Application section per profile, KEY = value lines.
#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

void apply(const KeyValue& kv, const ParamSpec& spec, Application& app, FileContext& ctx) {
  const std::string context = "application profile \"" + app.name + "\"";
  const auto& k = kv.key;
  const auto& v = kv.value;
  const auto& at = kv.where;
  if (spec.support == Support::kAccepted) {
    app.other[k] = v;
    return;
  }
  // A profile's limit is one value: the queue's maximum stays the hard limit above it.
  auto one_time = [&](std::optional<TimeLimit>& slot) {
    auto r = parse_time_limits(v);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else if (r->default_value)
      ctx.error(at, context, k + ": one value only (the queue's is the hard limit)");
    else
      slot = r->maximum;
  };
  if (k == "DESCRIPTION") {
    app.description = v;
  } else if (k == "RUNLIMIT") {
    one_time(app.run_limit);
  } else if (k == "CPULIMIT") {
    one_time(app.cpu_limit);
  } else if (k == "MEMLIMIT") {
    auto r = parse_memory_limits(v, ctx.unit);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else if (r->default_value)
      ctx.error(at, context, k + ": one value only (the queue's is the hard limit)");
    else
      app.mem_limit = r->maximum;
  } else if (k == "PROCLIMIT") {
    if (auto r = parse_processor_limit(v); !r)
      ctx.error(at, context, k + ": " + r.error());
    else
      app.proc_limit = *r;
  } else if (k == "RES_REQ") {
    if (auto r = ctx.resreq(v, at, context, k)) app.res_req = *r;
  } else if (k == "GPU_REQ") {
    if (auto r = GpuRequest::parse(v, ctx.unit); !r)
      ctx.error(at, context, k + ": " + r.error());
    else
      app.gpu_req = *r;
  } else if (k == "PRE_EXEC") {
    app.pre_exec = v;
  } else if (k == "POST_EXEC") {
    app.post_exec = v;
  } else if (k == "JOB_STARTER") {
    app.job_starter = v;
  } else if (k == "REQUEUE_EXIT_VALUES") {
    if (auto r = RequeueExitValues::parse(v); !r)
      ctx.error(at, context, k + ": " + r.error());
    else
      app.requeue_exit_values = *r;
  } else if (k == "RERUNNABLE") {
    if (auto b = ctx.yes_no(v, at, context, k)) app.rerunnable = *b;
  } else {
    // As in lsb.queues: a supported keyword without a branch is an error, not dropped.
    ctx.error(at, context,
              k + ": supported by the catalogue but not read by the lsb.applications parser (internal error)");
  }
}

}  // namespace

void parse_lsb_applications(const SectionFile& file, FileContext& ctx, std::vector<Application>& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (s.table) {
      ctx.diags.error(s.where, "section Application must be KEY = value lines, not a table");
      continue;
    }
    Application app;
    app.where = s.where;
    for (const auto& kv : s.entries)
      if (kv.key == "NAME") app.name = kv.value;
    if (app.name.empty()) {
      ctx.diags.error(s.where, "section Application has no NAME; the profile is ignored");
      continue;
    }
    if (app.name.find_first_of(" \t()[]@/") != std::string::npos) {
      ctx.diags.error(s.where,
                      "application profile \"" + app.name + "\": NAME may not contain spaces, brackets, @ or /");
      continue;
    }
    bool duplicate = false;
    for (const auto& prior : out)
      if (prior.name == app.name) {
        ctx.diags.error(s.where, "application profile \"" + app.name + "\" is defined twice (first at line " +
                                     std::to_string(prior.where.line) + ")");
        duplicate = true;
      }
    if (duplicate) continue;
    for (const auto& kv : s.entries) {
      app.keys.lines[kv.key] = kv.where;
      if (kv.key == "NAME") continue;
      if (const ParamSpec* spec = ctx.check_key(s, kv.key, kv.where, "application profile \"" + app.name + "\""))
        apply(kv, *spec, app, ctx);
    }
    out.push_back(std::move(app));
  }
}

}  // namespace lsf::config
