// schmod_gpu: GPUs as devices of their hosts (bsub -gpu, GPU_REQ). A GPU job takes
// `num` devices on each of its hosts (num=N/task: N per slot there), chosen here, so
// that the job is told exactly which (CUDA_VISIBLE_DEVICES) and later jobs know which
// are taken. A device may serve it when:
//   - it is usable (not prohibited, not in error) and of the vendor and model asked
//     (gmodel: a model name or its beginning; NAME-MEM: that much total memory, within
//     5 %, as devices report a little less than their label);
//   - no job holds it exclusively (mode=exclusive_process or j_exclusive=yes), and for
//     such a job no job holds it at all; a device the admin set to EXCLUSIVE_PROCESS
//     serves one job at a time whatever the job asks;
//   - gmem is left on it after what other jobs reserved.
// Which devices: for an exclusive job the lowest-numbered free ones; for a shared job
// the least used (gpack=yes: the most used, packing shared jobs together), lowest
// number first among equals.
//
// What started jobs hold comes from their allocations (RunningJobView::gpus), so a
// restart or the simulator sees what mbatchd saw. Not yet counted for GPUs: slot
// reservation and backfill (they hold slots only), preemption (a preempted job keeps
// its devices), lsb.resources limits, fairshare and guarantees.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

struct DeviceUse {
  int jobs = 0;
  bool exclusive = false;   // held by a job alone
  std::int64_t mem_mb = 0;  // gmem reserved by jobs
};

bool model_matches(const GpuView& g, const config::GpuRequest& r) {
  if (r.gvendor && g.vendor != *r.gvendor) return false;
  if (r.gmodel && g.model.compare(0, r.gmodel->size(), *r.gmodel) != 0) return false;
  if (r.gmodel_mem_mb) {
    const double want = static_cast<double>(*r.gmodel_mem_mb);
    if (std::abs(static_cast<double>(g.mem_mb) - want) > want * 0.05) return false;
  }
  return true;
}

class GpuModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_gpu"; }

  void prepare(PassContext& ctx) override {
    const auto& view = ctx.view;
    hosts_ = &view.hosts;
    // A GPU job on a cluster without GPUs must still be refused: without a count from
    // the caller, the pending jobs are looked at.
    const bool gpu_hosts =
        std::any_of(view.hosts.begin(), view.hosts.end(), [](const HostView& h) { return !h.gpus.empty(); });
    const bool gpu_jobs = view.accel.gpu_jobs >= 0 ? view.accel.gpu_jobs > 0
                                                   : std::any_of(view.pending.begin(), view.pending.end(),
                                                                 [](const JobView& j) { return j.gpu != nullptr; });
    active_ = gpu_hosts || gpu_jobs;
    if (!active_) return;
    use_.assign(view.hosts.size(), {});
    for (size_t h = 0; h < view.hosts.size(); ++h) use_[h].assign(view.hosts[h].gpus.size(), {});
    for (const auto& run : view.running) {
      if (!run.gpus) continue;
      for (const auto& u : *run.gpus) {
        const int h = ctx.host_table().find(u.host);
        if (h < 0) continue;
        if (DeviceUse* d = device(h, u.gpu)) take(*d, u.exclusive, u.mem_mb);
      }
    }
  }
  bool active(const PassContext&) const override { return active_; }
  bool sees_user(const PassContext&, int) const override { return false; }

  int room(const PassContext&, const JobView& job, int host, const char** why) override {
    if (!job.gpu) return kUnlimited;
    const config::GpuRequest& r = *job.gpu;
    const int num = r.num.value_or(1);
    const int free = static_cast<int>(eligible(job, host).size());
    if (r.per_task.value_or(false)) {
      if (free >= num) return free / num;
    } else if (free >= num) {
      return kUnlimited;
    }
    if (why) *why = not_enough(free, num);
    return 0;
  }

  std::optional<std::string> assign(PassContext& ctx, const JobView& job, Placement& placement) override {
    if (!job.gpu) return std::nullopt;
    const config::GpuRequest& r = *job.gpu;
    const bool exclusive = exclusive_request(r);
    for (const auto& [h, slots] : placement.hosts) {
      const int need = r.num.value_or(1) * (r.per_task.value_or(false) ? slots : 1);
      auto devices = eligible(job, h);
      if (static_cast<int>(devices.size()) < need) {
        placement.gpus.clear();
        return std::string(not_enough(static_cast<int>(devices.size()), need));
      }
      devices.resize(static_cast<size_t>(need));
      std::sort(devices.begin(), devices.end());
      for (int g : devices)
        placement.gpus.push_back({ctx.view.hosts[static_cast<size_t>(h)].name, g, exclusive, r.gmem_mb.value_or(0)});
    }
    return std::nullopt;
  }

  void commit(PassContext& ctx, const JobView&, const Placement& placement) override {
    for (const auto& u : placement.gpus) {
      const int h = ctx.host_table().find(u.host);
      if (DeviceUse* d = h < 0 ? nullptr : device(h, u.gpu)) take(*d, u.exclusive, u.mem_mb);
    }
  }

 private:
  static bool exclusive_request(const config::GpuRequest& r) {
    return r.j_exclusive.value_or(false) ||
           r.mode.value_or(config::GpuMode::kShared) == config::GpuMode::kExclusiveProcess;
  }
  static void take(DeviceUse& d, bool exclusive, std::int64_t mem_mb) {
    ++d.jobs;
    d.exclusive = d.exclusive || exclusive;
    d.mem_mb += mem_mb;
  }
  DeviceUse* device(int host, int id) {
    auto& devices = use_[static_cast<size_t>(host)];
    const auto& views = view_gpus(host);
    for (size_t i = 0; i < views.size(); ++i)
      if (views[i].id == id) return &devices[i];
    return nullptr;
  }
  const std::vector<GpuView>& view_gpus(int host) const { return (*hosts_)[static_cast<size_t>(host)].gpus; }

  // The devices of `host` that may serve `job`, best first.
  std::vector<int> eligible(const JobView& job, int host) {
    const config::GpuRequest& r = *job.gpu;
    const bool exclusive = exclusive_request(r);
    const std::int64_t gmem = r.gmem_mb.value_or(0);
    const auto& views = view_gpus(host);
    const auto& use = use_[static_cast<size_t>(host)];
    struct Choice {
      int jobs, id;
    };
    std::vector<Choice> ok;
    for (size_t i = 0; i < views.size(); ++i) {
      const GpuView& g = views[i];
      const DeviceUse& u = use[i];
      if (!g.usable || !model_matches(g, r) || u.exclusive) continue;
      if ((exclusive || g.exclusive_mode) && u.jobs > 0) continue;
      if (gmem > 0 && g.mem_mb - u.mem_mb < gmem) continue;
      ok.push_back({u.jobs, g.id});
    }
    const bool pack = r.gpack.value_or(false);
    std::stable_sort(ok.begin(), ok.end(), [pack](const Choice& a, const Choice& b) {
      if (a.jobs != b.jobs) return pack ? a.jobs > b.jobs : a.jobs < b.jobs;
      return a.id < b.id;
    });
    std::vector<int> out;
    out.reserve(ok.size());
    for (const auto& c : ok) out.push_back(c.id);
    return out;
  }

  // The host-level reason with its figures, one text per pair for the whole pass:
  // reasons are compared by address.
  const char* not_enough(int free, int wanted) {
    auto& text = reasons_[{free, wanted}];
    if (text.empty())
      text = "Not enough GPUs on the host: " + std::to_string(free) + " free, " + std::to_string(wanted) + " requested";
    return text.c_str();
  }

  bool active_ = false;
  const std::vector<HostView>* hosts_ = nullptr;
  std::vector<std::vector<DeviceUse>> use_;  // by host, by position in HostView::gpus
  std::map<std::pair<int, int>, std::string> reasons_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_gpu() { return std::make_unique<GpuModule>(); }
// Part of every pass, as LSF's GPU scheduling is (its devices are chosen in assign,
// once every module has verified the placement): the last of the modules that lead.
constinit const ModuleDecl kSchmodGpu{"schmod_gpu", Phase::kLead, {"schmod_jobgroup"}, make_schmod_gpu};

}  // namespace lsf::sched
