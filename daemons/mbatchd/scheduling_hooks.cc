// What the scheduling driver (scheduling_driver.h) asks of the rest of mbatchd: host
// tracking's links and statuses, MultiCluster's borrowed hosts and leases, job groups,
// the event log.
#include <optional>

#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {

SchedulingHooks Mbatchd::scheduling_hooks() {
  SchedulingHooks h;
  h.view.status_of = [this](const std::string& host) { return status_of(host); };
  h.view.add_load = [this](const std::string& host, sched::ResourceMap& res) {
    if (auto link = links_.find(host); link != links_.end() && link->second.registered)
      for (auto index : kReportedLoad) res[std::string(index)] = load_value(link->second.load, index);
  };
  h.view.reported_ncpus = [this](const std::string& host) -> std::optional<int> {
    if (auto link = links_.find(host); link != links_.end() && link->second.registered)
      return static_cast<int>(link->second.load.ncpus());
    return std::nullopt;
  };
  h.view.lent_slots = [this](const std::string& host) { return lent_slots(host); };
  h.view.add_borrowed_hosts = [this](sched::ClusterView& view) { add_borrowed_hosts(view); };
  h.view.policy_with_leased_resources = [this] { return policy_with_leased_resources(); };
  h.view.add_job_groups = [this](sched::ClusterView& view, std::unordered_map<std::string, int>& index) {
    add_job_groups(view, index);
  };
  h.view.config_generation = [this] { return config_generation_; };
  h.start_on_hosts = [this](const std::vector<sched::JobKey>& jobs) { start_on_hosts(jobs); };
  h.signal_on_host = [this](const Job& job, int signal) { signal_on_host(job, signal, {}); };
  h.log_refusal = [this] { return event_log_->refusal(); };
  h.when_durable = [this](std::function<void(bool)> done) { event_log_->when_durable(std::move(done)); };
  return h;
}

}  // namespace lsf::mbd
