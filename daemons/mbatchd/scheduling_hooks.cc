// What the scheduling driver (scheduling_driver.h) asks of the rest of mbatchd: host
// tracking's links and statuses, MultiCluster's borrowed hosts and leases, job groups,
// the event log.
#include <algorithm>
#include <optional>

#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {

SchedulingHooks Mbatchd::scheduling_hooks() {
  SchedulingHooks h;
  h.view.status_of = [this](const std::string& host) { return hosts_.status_of(host); };
  h.view.add_load = [this](const std::string& host, sched::ResourceMap& res) {
    const auto& links = hosts_.links();
    auto link = links.find(host);
    if (link == links.end() || !link->second.registered) return;
    for (auto index : kReportedLoad) res[std::string(index)] = load_value(link->second.load, index);
    // LSF_GPU_AUTOCONFIG's built-in resources, for select[] and order[]: only hosts
    // with GPUs have them.
    if (const auto& gpus = link->second.load.gpus(); !gpus.empty()) {
      double factor = 0;
      for (const auto& g : gpus) factor = std::max(factor, g.factor());
      res["ngpus"] = static_cast<double>(gpus.size());
      res["ngpus_physical"] = static_cast<double>(gpus.size());
      res["gpu_maxfactor"] = factor;
    }
  };
  h.view.reported_ncpus = [this](const std::string& host) -> std::optional<int> {
    const auto& links = hosts_.links();
    if (auto link = links.find(host); link != links.end() && link->second.registered)
      return static_cast<int>(link->second.load.ncpus());
    return std::nullopt;
  };
  h.view.add_gpus = [this](const std::string& host, std::vector<sched::GpuView>& out) {
    const auto& links = hosts_.links();
    auto link = links.find(host);
    if (link == links.end() || !link->second.registered) return;
    for (const auto& d : link->second.load.gpus()) {
      sched::GpuView g;
      g.id = d.id();
      g.model = d.model();
      if (!d.vendor().empty()) g.vendor = d.vendor();
      g.mem_mb = d.mem_total_mb();
      g.socket = d.socket();
      g.exclusive_mode = d.mode() == "exclusive_process";
      g.usable = d.mode() != "prohibited" && d.status() != "error";
      out.push_back(std::move(g));
    }
  };
  h.view.lent_slots = [this](const std::string& host) { return cluster_links_.lent_slots(host); };
  h.view.add_borrowed_hosts = [this](sched::ClusterView& view) {
    cluster_links_.add_borrowed_hosts(view, scheduling_.last_dispatch());
  };
  h.view.policy_with_leased_resources = [this] { return cluster_links_.policy_with_leased_resources(); };
  h.view.add_job_groups = [this](sched::ClusterView& view, std::unordered_map<std::string, int>& index) {
    add_job_groups(view, index);
  };
  h.view.config_generation = [this] { return config_generation_; };
  h.start_on_hosts = [this](const std::vector<sched::JobKey>& jobs) { hosts_.start_on_hosts(jobs); };
  h.signal_on_host = [this](const Job& job, int signal) { hosts_.signal_on_host(job, signal, {}); };
  h.log_refusal = [this] { return log_core_.writer().refusal(); };
  h.when_durable = [this](std::function<void(bool)> done) { log_core_.writer().when_durable(std::move(done)); };
  return h;
}

}  // namespace lsf::mbd
