#include "libconfig/params_table.h"

#include <algorithm>
#include <cstdio>

namespace lsf::config {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string yn(bool b) { return b ? "Y" : "N"; }

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string remove_hung_jobs_for(const BatchParams& p) {
  std::string out;
  if (p.remove_hung_runlimit_min) out = "runlimit,wait_time=" + std::to_string(*p.remove_hung_runlimit_min);
  if (p.remove_hung_host_unavail_min)
    out += (out.empty() ? "" : ":") + std::string("host_unavail,wait_time=") +
           std::to_string(*p.remove_hung_host_unavail_min);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> param_values(const BatchParams& p) {
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string(); };
  std::vector<std::pair<std::string, std::string>> out = {
      {"ABS_RUNLIMIT", yn(p.abs_runlimit)},
      {"CLEAN_PERIOD", std::to_string(p.clean_period)},
      {"COMMITTED_RUN_TIME_FACTOR", number(p.committed_run_time_factor)},
      {"COMPUTE_UNIT_TYPES", joined(p.compute_unit_types)},
      {"CPU_TIME_FACTOR", number(p.cpu_time_factor)},
      {"DEFAULT_HOST_SPEC", p.default_host_spec},
      {"DEFAULT_PROJECT", p.default_project},
      {"DEFAULT_QUEUE", joined(p.default_queues)},
      {"ENABLE_HIST_RUN_TIME", yn(p.enable_hist_run_time)},
      {"FAIRSHARE_ADJUSTMENT_FACTOR", number(p.fairshare_adjustment_factor)},
      {"HIST_HOURS", number(p.hist_hours)},
      {"JOB_ACCEPT_INTERVAL", std::to_string(p.job_accept_interval)},
      {"JOB_DEP_LAST_SUB", p.job_dep_last_sub ? "1" : ""},
      {"JOB_TERMINATE_INTERVAL", std::to_string(p.job_terminate_interval)},
      {"LOCAL_MAX_PREEXEC_RETRY", opt(p.local_max_preexec_retry)},
      {"LOCAL_MAX_PREEXEC_RETRY_ACTION", p.preexec_retry_exit ? "EXIT" : "SUSPEND"},
      {"MAX_JOBID", std::to_string(p.max_jobid)},
      {"MAX_JOB_ARRAY_SIZE", std::to_string(p.max_job_array_size)},
      {"MAX_JOB_NUM", std::to_string(p.max_job_num)},
      {"MAX_PEND_JOBS", opt(p.max_pend_jobs)},
      {"MAX_PEND_SLOTS", opt(p.max_pend_slots)},
      {"MAX_SBD_FAIL", std::to_string(p.max_sbd_fail)},
      {"MAX_USER_PRIORITY", p.max_user_priority > 0 ? std::to_string(p.max_user_priority) : ""},
      {"MBD_SLEEP_TIME", std::to_string(p.mbd_sleep_time)},
      {"MC_RECLAIM_DELAY", number(p.mc_reclaim_delay)},
      {"PARALLEL_SCHED_BY_SLOT", yn(p.parallel_sched_by_slot)},
      {"PG_SUSP_IT", std::to_string(p.pg_susp_it)},
      {"REMOVE_HUNG_JOBS_FOR", remove_hung_jobs_for(p)},
      {"RESERVATION_DEPTH", opt(p.reservation_depth)},
      {"RESERVATION_MODEL", p.reservation_plan ? "PLAN" : "HOLD"},
      {"RUNTIME_ESTIMATE", p.planning.predict.value_or(false) ? "PREDICT" : "LIMIT"},
      {"BACKFILL_ORDER", p.planning.shortest_first.value_or(false) ? "SHORTEST" : "FCFS"},
      {"BACKFILL_MAX_WAIT", opt(p.planning.max_wait_minutes)},
      {"RUN_JOB_FACTOR", number(p.run_job_factor)},
      {"RUN_TIME_FACTOR", number(p.run_time_factor)},
      {"SBD_SLEEP_TIME", std::to_string(p.sbd_sleep_time)},
  };
  for (const auto& [k, v] : p.other) out.emplace_back(k, v);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace lsf::config
