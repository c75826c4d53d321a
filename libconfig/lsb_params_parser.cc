// lsb.params: the single Parameters section of batch-wide settings.
#include <limits>

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {

namespace {

// REMOVE_HUNG_JOBS_FOR = runlimit[,wait_time=min]:host_unavail[,wait_time=min] | all[,wait_time=min]
void parse_remove_hung_jobs_for(const std::string& value, const SourceLocation& where, FileContext& ctx,
                                BatchParams& out) {
  const std::string key = "REMOVE_HUNG_JOBS_FOR";
  std::optional<int> host_unavail, runlimit;
  for (const auto& part : split(value, ':')) {
    auto fields = split(part, ',');
    std::string what = to_lower(trim(fields.empty() ? std::string_view() : std::string_view(fields[0])));
    int wait = 10;
    bool ok = true;
    for (std::size_t i = 1; i < fields.size(); ++i) {
      std::string f(trim(fields[i]));
      const std::string prefix = "wait_time=";
      if (f.rfind(prefix, 0) != 0) {
        ctx.error(where, "", key + " = " + value + ": '" + f + "' is not wait_time=minutes");
        ok = false;
        continue;
      }
      if (auto n = ctx.integer(f.substr(prefix.size()), where, "", key + " wait_time", 0, 1000000))
        wait = static_cast<int>(*n);
      else
        ok = false;
    }
    if (!ok) return;
    if (what == "host_unavail") {
      host_unavail = wait;
    } else if (what == "runlimit") {
      runlimit = wait;
    } else if (what == "all") {
      host_unavail = runlimit = wait;
    } else {
      ctx.error(where, "", key + " = " + value + ": '" + what + "' is not runlimit, host_unavail or all");
      return;
    }
  }
  // Set: only what it names applies (LSF); host_unavail left out means never.
  out.remove_hung_host_unavail_min = host_unavail;
  out.remove_hung_runlimit_min = runlimit;
  if (runlimit)
    ctx.warning(where, "", key + " runlimit: not acted on by this scheduler; only host_unavail removes hung jobs");
}

}  // namespace

void parse_lsb_params(const SectionFile& file, FileContext& ctx, BatchParams& out) {
  bool seen = false;
  constexpr long long kMax = std::numeric_limits<int>::max();
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (s.table) {
      ctx.diags.error(s.where, "section Parameters must be KEY = value lines, not a table");
      continue;
    }
    if (seen) ctx.diags.warning(s.where, "a second Parameters section; its values override the first");
    seen = true;
    out.where = s.where;
    const std::string context;
    for (const auto& kv : s.entries) {
      out.keys.lines[kv.key] = kv.where;
      const ParamSpec* spec = ctx.check_key(s, kv.key, kv.where, context);
      if (!spec) continue;
      if (spec->support == Support::kAccepted) {
        out.other[kv.key] = kv.value;
        continue;
      }
      const auto& k = kv.key;
      const auto& v = kv.value;
      auto set_int = [&](int& slot, long long min, long long max) {
        if (auto n = ctx.integer(v, kv.where, context, k, min, max)) slot = static_cast<int>(*n);
      };
      auto set_opt_int = [&](std::optional<int>& slot, long long min) {
        if (auto n = ctx.integer(v, kv.where, context, k, min, kMax)) slot = static_cast<int>(*n);
      };
      auto set_double = [&](double& slot) {
        if (auto n = ctx.number(v, kv.where, context, k, 0)) slot = *n;
      };
      auto set_bool = [&](bool& slot) {
        if (auto b = ctx.yes_no(v, kv.where, context, k)) slot = *b;
      };
      if (k == "DEFAULT_QUEUE") {
        out.default_queues = split_words(v);
      } else if (k == "DEFAULT_PROJECT") {
        out.default_project = v;
      } else if (k == "DEFAULT_APPLICATION") {
        out.default_application = v;
      } else if (k == "MBD_SLEEP_TIME") {
        set_int(out.mbd_sleep_time, 1, 3600);
      } else if (k == "SBD_SLEEP_TIME") {
        set_int(out.sbd_sleep_time, 1, 3600);
      } else if (k == "JOB_ACCEPT_INTERVAL") {
        set_int(out.job_accept_interval, 0, kMax);
      } else if (k == "JOB_TERMINATE_INTERVAL") {
        set_int(out.job_terminate_interval, 0, kMax);
      } else if (k == "RESERVATION_DEPTH") {
        set_opt_int(out.reservation_depth, 0);
      } else if (parse_planning(k, v, kv.where, context, ctx, out.planning)) {
        if (out.planning.plan) out.reservation_plan = *out.planning.plan;
        out.planning.plan.reset();  // reservation_plan holds it
      } else if (k == "LOCAL_MAX_PREEXEC_RETRY") {
        set_opt_int(out.local_max_preexec_retry, 1);
      } else if (k == "LOCAL_MAX_PREEXEC_RETRY_ACTION") {
        if (auto exit = ctx.preexec_retry_action(v, kv.where, context, k)) out.preexec_retry_exit = *exit;
      } else if (k == "MAX_JOB_NUM") {
        set_int(out.max_job_num, 1, kMax);
      } else if (k == "MAX_JOBID") {
        if (auto n = ctx.integer(v, kv.where, context, k, 999999, 2147483646)) out.max_jobid = *n;
      } else if (k == "MAX_JOB_ARRAY_SIZE") {
        set_int(out.max_job_array_size, 1, 2147483646);
      } else if (k == "CLEAN_PERIOD") {
        set_int(out.clean_period, 1, kMax);
      } else if (k == "MAX_SBD_FAIL") {
        set_int(out.max_sbd_fail, 1, kMax);
      } else if (k == "REMOVE_HUNG_JOBS_FOR") {
        parse_remove_hung_jobs_for(v, kv.where, ctx, out);
      } else if (k == "PG_SUSP_IT") {
        set_int(out.pg_susp_it, 0, kMax);
      } else if (k == "MAX_PEND_JOBS") {
        set_opt_int(out.max_pend_jobs, 0);
      } else if (k == "MAX_PEND_SLOTS") {
        set_opt_int(out.max_pend_slots, 0);
      } else if (k == "MAX_USER_PRIORITY") {
        set_int(out.max_user_priority, 0, kMax);
      } else if (k == "CPU_TIME_FACTOR") {
        set_double(out.cpu_time_factor);
      } else if (k == "RUN_TIME_FACTOR") {
        set_double(out.run_time_factor);
      } else if (k == "RUN_JOB_FACTOR") {
        set_double(out.run_job_factor);
      } else if (k == "COMMITTED_RUN_TIME_FACTOR") {
        set_double(out.committed_run_time_factor);
      } else if (k == "FAIRSHARE_ADJUSTMENT_FACTOR") {
        set_double(out.fairshare_adjustment_factor);
      } else if (k == "HIST_HOURS") {
        set_double(out.hist_hours);
      } else if (k == "ENABLE_HIST_RUN_TIME") {
        set_bool(out.enable_hist_run_time);
      } else if (k == "ABS_RUNLIMIT") {
        set_bool(out.abs_runlimit);
      } else if (k == "JOB_DEP_LAST_SUB") {
        if (v == "1")
          out.job_dep_last_sub = true;
        else
          set_bool(out.job_dep_last_sub);
      } else if (k == "PARALLEL_SCHED_BY_SLOT") {
        set_bool(out.parallel_sched_by_slot);
      } else if (k == "MC_RECLAIM_DELAY") {
        if (auto n = ctx.number(v, kv.where, context, k, 0)) {
          if (*n > 0)
            out.mc_reclaim_delay = *n;
          else
            ctx.error(kv.where, context, "MC_RECLAIM_DELAY = " + v + ": must be more than 0 minutes");
        }
      } else if (k == "DEFAULT_HOST_SPEC") {
        out.default_host_spec = v;
      } else if (k == "COMPUTE_UNIT_TYPES") {
        out.compute_unit_types = split_words(v);
      } else {
        // A keyword the catalogue calls supported without a branch here is an error, not dropped.
        ctx.error(kv.where, context,
                  k + ": supported by the catalogue but not read by the lsb.params parser (internal error)");
      }
    }
  }
}

}  // namespace lsf::config
