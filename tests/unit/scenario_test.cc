// Scheduling scenarios: tests/scenarios/*.yaml, one per rule. Each gives configuration
// snippets (real lsb.* text), hosts with their load, running and pending jobs, and a
// list of steps in time; at each step the real pass runs and its dispatches,
// reservations, suspensions, resumptions and pending reasons must be exactly those
// expected. Between steps the scenario plays the daemon: dispatched jobs start,
// suspended ones stop, jobs named in `finish` end, reservations carry over.
//
// Every step also runs the pass a second time and on a copy of the view: the
// decisions must be identical (the pass is deterministic). And once more with user and
// project ids, as mbatchd gives them: the ids must change nothing.
//
// The contract of libsched/pass_apply.h: every scenario runs a second time keeping its
// jobs also as mbatchd keeps them (MbatchdRecords: a state and a suspend reason, the
// reservations and hosts' times beside them), applying each pass's result to them
// through an ApplyTarget as mbatchd does and rebuilding the view from them as
// build_view does. That view must be the view the view applier (the simulator's path)
// keeps, and decide the same, after every pass.
//
// Format (all keys optional except steps):
//   config: {lsb.queues: "...", lsb.hosts: "...", lsb.users: "...", lsb.resources: "...",
//            lsb.params: "...", lsb.modules: "...", lsf.shared.resources: "...",
//            resource_map: "..."}
//   hosts: [{name, ncpus, status, resources: [fs], load: {r1m: 0.5, mem: 4000}}]
//   week: "3 12:00"            (weekday hour:minute of the first step; Sunday = 0)
//   running: [job...]          (jobs started before the first step)
//   steps:
//     - at: 0                  (seconds)
//       submit: [job...]
//       finish: [ids]
//       load: {hostA: {r1m: 3}}
//       week: "3 23:00"
//       expect:
//         dispatch: {1: "hostA hostA", 2: "*"}   (exactly these jobs start)
//         pending: {3: "reason text"}           (these jobs pend for exactly this)
//         pending_hosts: {3: "reason: hostA hostB; reason: hostC"}  (bjobs -l's detail)
//         reserve: {4: {hosts: "hostB", start: 600}}  (exactly these reserve)
//         suspend: {5: "reason"}                (exactly these are suspended)
//         resume: [6]                           (exactly these are resumed)
//   job: {id, index, queue, user, project, n, max, R, m, x, W (seconds), begin, hold,
//         after (ids: a dependency not yet satisfied), hosts: "hostA hostA" (running),
//         start, state: RUN|SSUSP|USUSP, cause: preempted|load|window|user, forced}
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/bsim/scenario.h"
#include "config_tree.h"
#include "libconfig/host_resolution.h"
#include "libconfig/text.h"
#include "libsched/pass.h"
#include "libsched/pass_apply.h"
#include "libsched/pending_reason.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

std::filesystem::path scenario_dir() { return std::filesystem::path(LSFSCHED_SOURCE_DIR) / "tests/scenarios"; }

std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(scenario_dir()))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

config::WeekInstant parse_week(const std::string& text) {
  config::WeekInstant w;
  char colon = 0;
  std::istringstream in(text);
  in >> w.weekday >> w.hour >> colon >> w.minute;
  return w;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

std::string key_text(const JobKey& k) {
  return k.index ? std::to_string(k.id) + "[" + std::to_string(k.index) + "]" : std::to_string(k.id);
}

JobKey parse_key(const std::string& text) {
  JobKey k;
  auto br = text.find('[');
  k.id = std::stoll(text.substr(0, br));
  if (br != std::string::npos) k.index = std::stoi(text.substr(br + 1));
  return k;
}

// Decisions as text, for the determinism check and for failure messages.
std::string describe(const PassResult& r) {
  std::ostringstream out;
  for (const auto& d : r.dispatches) out << "dispatch " << key_text(d.job) << " " << join(d.hosts) << "\n";
  for (const auto& d : r.reservations)
    out << "reserve " << key_text(d.job) << " " << join(d.hosts) << " start " << d.estimated_start << "\n";
  for (const auto& d : r.suspends) out << "suspend " << key_text(d.job) << " " << d.reason << "\n";
  for (const auto& d : r.resumes) out << "resume " << key_text(d.job) << "\n";
  for (const auto& d : r.reasons) out << "pending " << key_text(d.job) << " " << *d.text << "\n";
  return out.str();
}

// The view with user and project ids, as a caller that keeps them would give them: ids
// in an order of their own (not the order the pass meets the names), and every third
// job without ids, as a job whose name is not in the tables yet has none.
ClusterView with_ids(ClusterView view) {
  std::set<std::string, std::greater<>> user_names, project_names;
  for (const auto& j : view.pending) user_names.insert(j.user), project_names.insert(j.project);
  for (const auto& j : view.running) user_names.insert(j.user), project_names.insert(j.project);
  auto users = std::make_shared<NameIndex>(), projects = std::make_shared<NameIndex>();
  users->insert("nobody-runs-this");
  for (const auto& n : user_names) users->insert(n);
  for (const auto& n : project_names) projects->insert(n);
  int n = 0;
  auto give = [&](auto& job) {
    if (n++ % 3 == 2) return;
    job.user_id = users->find(job.user);
    job.project_id = projects->find(job.project);
  };
  for (auto& j : view.pending) give(j);
  for (auto& j : view.running) give(j);
  view.accel.user_ids = users;
  view.accel.project_ids = projects;
  return view;
}

// What of a view applying a pass's result changes, as text in job-key order (mbatchd
// lists jobs by key; the view applier appends started jobs), for comparing views.
std::string view_text(const ClusterView& v) {
  std::ostringstream out;
  for (const auto& h : v.hosts)
    out << "host " << h.name << " dispatch " << h.last_dispatch << " load_action " << h.last_load_action << "\n";
  std::vector<const JobView*> pending;
  for (const auto& j : v.pending) pending.push_back(&j);
  std::sort(pending.begin(), pending.end(), [](auto* a, auto* b) { return a->key < b->key; });
  for (const JobView* j : pending)
    out << "pending " << key_text(j->key) << " queue " << j->queue << " order " << j->order << " user " << j->user
        << " slots " << j->min_slots << "," << j->max_slots << " reserving " << j->reserving_since << "/"
        << j->reserved_slots << " planned " << j->planned_start << " idle " << j->idle_since << " bypass "
        << j->bypass_count << " held " << j->held << "\n";
  std::vector<const RunningJobView*> running;
  for (const auto& r : v.running) running.push_back(&r);
  std::sort(running.begin(), running.end(), [](auto* a, auto* b) { return a->key < b->key; });
  for (const RunningJobView* r : running)
    out << "running " << key_text(r->key) << " queue " << r->queue << " user " << r->user << " project " << r->project
        << " state " << static_cast<int>(r->state) << " cause " << static_cast<int>(r->cause) << " hosts "
        << join(r->hosts) << " start " << r->start_time << " limit " << r->run_limit_s << " x " << r->exclusive
        << " forced " << r->forced << " req " << r->res_req.get() << "\n";
  return out.str();
}

// Jobs as mbatchd keeps them (daemons/mbatchd: Job, its reservations and hosts' times):
// a state and the reason text it was suspended with, not a SuspendCause; the pending
// marks as ClusterState::set_pending_reasons keeps them. Decisions reach them through
// an ApplyTarget written as SchedulingDriver::apply writes it (libsched's apply(), see
// pass_apply.h), and view() builds the pass's view from them as ViewBuilder::build does.
struct MbatchdRecords {
  struct Job {
    JobView submission;  // what build_view derives from the job's submission
    enum State { kPend, kRun, kSsusp, kUsusp } state = kPend;
    std::string reason;  // why the system suspended it
    std::vector<std::string> exec_hosts;
    std::int64_t start_time = 0;
    bool forced = false;
    std::int64_t submit_time = 0;
    bool blocked = false;
    std::int64_t idle_since = 0;
    int bypass_count = 0;
  };
  std::map<JobKey, Job> jobs;
  std::map<JobKey, Reservation> reservations;
  std::map<std::string, std::int64_t> last_dispatch, last_load_action;

  void add_pending(const JobView& v, std::int64_t now) {
    Job& j = jobs[v.key];
    j.submission = v;
    j.submit_time = now;
  }
  void add_running(const RunningJobView& r) {
    Job& j = jobs[r.key];
    j.submission.key = r.key;
    j.submission.queue = r.queue;
    j.submission.user = r.user;
    j.submission.project = r.project;
    j.submission.run_limit_s = r.run_limit_s;
    j.submission.exclusive = r.exclusive;
    j.submission.res_req = r.res_req;
    j.state = r.state == RunState::kRun ? Job::kRun : r.state == RunState::kSsusp ? Job::kSsusp : Job::kUsusp;
    j.reason = r.cause == SuspendCause::kPreempted ? reason::kSuspPreempted
               : r.cause == SuspendCause::kLoad    ? reason::kSuspLoad
               : r.cause == SuspendCause::kWindow  ? reason::kSuspWindow
                                                   : reason::kSuspResumeWait;
    j.exec_hosts = r.hosts;
    j.start_time = r.start_time;
    j.forced = r.forced;
  }

  ClusterView view(const ClusterView& like) const {
    ClusterView v;
    v.policy = like.policy;
    v.week = like.week;
    v.queues = like.queues;
    v.hosts = like.hosts;
    for (auto& h : v.hosts) {
      auto d = last_dispatch.find(h.name), l = last_load_action.find(h.name);
      h.last_dispatch = d == last_dispatch.end() ? 0 : d->second;
      h.last_load_action = l == last_load_action.end() ? 0 : l->second;
    }
    for (const auto& [key, j] : jobs) {
      if (j.state != Job::kPend) continue;
      JobView jv = j.submission;
      auto r = reservations.find(key);
      carry_reservation(jv, r == reservations.end() ? nullptr : &r->second);
      jv.idle_since = j.blocked ? -1 : j.idle_since > 0 ? j.idle_since : j.submit_time;
      jv.bypass_count = j.bypass_count;
      v.pending.push_back(std::move(jv));
    }
    for (const auto& [key, j] : jobs) {
      if (j.state == Job::kPend) continue;
      RunningJobView rv;
      rv.key = key;
      rv.queue = j.submission.queue;
      rv.user = j.submission.user;
      rv.project = j.submission.project;
      rv.hosts = j.exec_hosts;
      rv.state = j.state == Job::kRun ? RunState::kRun : j.state == Job::kSsusp ? RunState::kSsusp : RunState::kUsusp;
      rv.cause = suspend_cause_of(j.state == Job::kSsusp, j.reason);
      rv.start_time = j.start_time;
      rv.run_limit_s = j.submission.run_limit_s;
      rv.exclusive = j.submission.exclusive;
      rv.forced = j.forced;
      rv.res_req = j.submission.res_req;
      rv.share_group = j.submission.share_group;
      rv.sla = j.submission.sla;
      v.running.push_back(std::move(rv));
    }
    return v;
  }

  void apply(PassResult& result, std::int64_t now) {
    ApplyTarget t;
    t.start = [&](const Dispatch& d) {
      auto it = jobs.find(d.job);
      if (it == jobs.end() || it->second.state != Job::kPend) return false;
      it->second.state = Job::kRun;
      it->second.exec_hosts = d.hosts;
      it->second.start_time = now;
      return true;
    };
    t.dispatched = [&](const std::string& host) { last_dispatch[host] = now; };
    t.reservations = [&](std::vector<Reservation>& held) {
      std::map<JobKey, Reservation> kept;
      for (auto& r : held) kept[r.job] = std::move(r);
      reservations = std::move(kept);
    };
    t.find = [&](const JobKey& key) -> std::optional<StartedJob> {
      auto it = jobs.find(key);
      if (it == jobs.end() || it->second.state == Job::kPend) return std::nullopt;
      const Job& j = it->second;
      StartedJob out;
      out.state = j.state == Job::kRun ? RunState::kRun : j.state == Job::kSsusp ? RunState::kSsusp : RunState::kUsusp;
      out.cause = suspend_cause_of(j.state == Job::kSsusp, j.reason);
      if (!j.exec_hosts.empty()) out.first_host = j.exec_hosts[0];
      return out;
    };
    t.suspend = [&](const Suspend& s) {
      Job& j = jobs.at(s.job);
      j.state = Job::kSsusp;
      j.reason = s.reason;
    };
    t.resume = [&](const Resume& r) {
      Job& j = jobs.at(r.job);
      j.state = Job::kRun;
      j.reason.clear();
    };
    t.load_action = [&](const std::string& host) { last_load_action[host] = now; };
    ::lsf::sched::apply(result, t);
    // ClusterState::set_pending_reasons: what a reason carries to the next pass.
    for (const auto& r : result.reasons) {
      auto it = jobs.find(r.job);
      if (it == jobs.end() || it->second.state != Job::kPend) continue;
      Job& j = it->second;
      if (j.blocked && !r.blocked) j.idle_since = now;
      j.bypass_count += r.bypassed;
      j.blocked = r.blocked;
    }
  }
};

class Scenario {
 public:
  // `contract`: besides the view the scenario keeps (applied to by apply(view, ...), as
  // the simulator applies), keep jobs as mbatchd keeps them (MbatchdRecords) and apply
  // the same decisions to them through an ApplyTarget; the view rebuilt from the
  // records must be the view, and give the same decisions, after every pass.
  explicit Scenario(const std::string& name, bool contract = false) {
    doc_ = YAML::LoadFile((scenario_dir() / (name + ".yaml")).string());
    write_config();
    auto loaded = tree_.load();
    if (!loaded.usable()) throw std::runtime_error("configuration: " + lsf::testing::errors_of(loaded));
    config_ = loaded.config;
    view_.policy = build_policy(*config_);
    view_.queues.resize(view_.policy->queues.size());
    if (doc_["week"]) view_.week = parse_week(doc_["week"].as<std::string>());
    for (const auto& h : config_->hosts) {
      HostView hv;
      hv.name = h.name;
      hv.resources["hname"] = h.name;
      hv.resources["type"] = h.type;
      hv.resources["model"] = h.model;
      for (const auto& r : h.resources) hv.resources[r] = 1.0;
      hv.resources["r15s"] = 0.0;
      hv.resources["r1m"] = 0.0;
      hv.resources["pg"] = 0.0;
      hv.resources["it"] = 10.0;
      view_.hosts.push_back(hv);
    }
    for (const auto& h : doc_["hosts"]) {
      HostView& hv = host(h["name"].as<std::string>());
      if (h["ncpus"]) hv.ncpus = h["ncpus"].as<int>();
      if (h["status"]) {
        const auto word = h["status"].as<std::string>();
        auto status = parse_host_status(word);
        if (!status) throw std::runtime_error("unknown host status " + word);
        hv.status = *status;
      }
      set_load(hv, h["load"]);
    }
    for (const auto& j : doc_["running"]) view_.running.push_back(running_job(j, 0));
    if (contract) {
      records_.emplace();
      for (const auto& r : view_.running) records_->add_running(r);
    }
  }

  void run() {
    int n = 0;
    for (const auto& step : doc_["steps"]) run_step(step, n++);
  }

 private:
  // The same cluster bsim --scenario replays.
  void write_config() {
    for (const auto& [rel, text] : bsim::scenario_files(doc_)) tree_.write(rel, text);
  }

  HostView& host(const std::string& name) {
    for (auto& h : view_.hosts)
      if (h.name == name) return h;
    throw std::runtime_error("unknown host " + name);
  }

  static void set_load(HostView& hv, const YAML::Node& load) {
    for (const auto& kv : load) {
      auto name = kv.first.as<std::string>();
      try {
        hv.resources[name] = kv.second.as<double>();
      } catch (const YAML::Exception&) {
        hv.resources[name] = kv.second.as<std::string>();
      }
    }
  }

  int queue_of(const YAML::Node& j) const {
    std::string q = j["queue"] ? j["queue"].as<std::string>() : view_.policy->queues.front().name;
    int i = view_.policy->queue_index(q);
    if (i < 0) throw std::runtime_error("unknown queue " + q);
    return i;
  }

  std::shared_ptr<const config::ResourceRequirement> requirement(const YAML::Node& j, int queue) {
    std::string text = j["R"] ? j["R"].as<std::string>() : "";
    auto key = std::make_pair(text, queue);
    if (auto it = reqs_.find(key); it != reqs_.end()) return it->second;
    const config::Queue* q = config_->find_queue(view_.policy->queues[queue].name);
    std::shared_ptr<const config::ResourceRequirement> out;
    if (!text.empty()) {
      auto r = config::ResourceRequirement::parse(text);
      if (!r) throw std::runtime_error("bad -R " + text);
      out = std::make_shared<const config::ResourceRequirement>(
          q && q->res_req ? config::merge_with_queue(*r, *q->res_req) : *r);
    } else if (q && q->res_req) {
      out = std::make_shared<const config::ResourceRequirement>(*q->res_req);
    }
    reqs_[key] = out;
    return out;
  }

  RunningJobView running_job(const YAML::Node& j, std::int64_t now) {
    RunningJobView r;
    r.key = {j["id"].as<std::int64_t>(), j["index"] ? j["index"].as<int>() : 0};
    r.queue = queue_of(j);
    r.user = j["user"] ? j["user"].as<std::string>() : "alice";
    if (j["project"]) r.project = j["project"].as<std::string>();
    r.hosts = config::split(j["hosts"].as<std::string>(), ' ');
    r.start_time = j["start"] ? j["start"].as<std::int64_t>() : now;
    r.run_limit_s = j["W"] ? j["W"].as<std::int64_t>() : 0;
    r.exclusive = j["x"] && j["x"].as<bool>();
    r.forced = j["forced"] && j["forced"].as<bool>();
    r.res_req = requirement(j, r.queue);
    std::string state = j["state"] ? j["state"].as<std::string>() : "RUN";
    r.state = state == "SSUSP" ? RunState::kSsusp : state == "USUSP" ? RunState::kUsusp : RunState::kRun;
    std::string cause = j["cause"] ? j["cause"].as<std::string>() : "";
    r.cause = cause == "preempted" ? SuspendCause::kPreempted
              : cause == "load"    ? SuspendCause::kLoad
              : cause == "window"  ? SuspendCause::kWindow
              : cause == "user"    ? SuspendCause::kUser
                                   : SuspendCause::kNone;
    return r;
  }

  JobView pending_job(const YAML::Node& j) {
    JobView v;
    v.key = {j["id"].as<std::int64_t>(), j["index"] ? j["index"].as<int>() : 0};
    v.queue = queue_of(j);
    v.order = j["order"] ? j["order"].as<std::int64_t>() : v.key.id;
    v.user = j["user"] ? j["user"].as<std::string>() : "alice";
    if (j["project"]) v.project = j["project"].as<std::string>();
    v.min_slots = j["n"] ? j["n"].as<int>() : 1;
    v.max_slots = j["max"] ? j["max"].as<int>() : v.min_slots;
    if (j["m"]) {
      auto items = config::parse_host_list(j["m"].as<std::string>());
      auto asked = std::make_shared<AskedHosts>();
      for (const auto& h : config::resolve_host_list(*config_, *items)) asked->preference[h] = 0;
      for (const auto& item : *items)
        if (item.has_preference) asked->preference[item.name] = item.preference;
      v.asked_hosts = asked;
    }
    v.exclusive = j["x"] && j["x"].as<bool>();
    v.res_req = requirement(j, v.queue);
    v.run_limit_s = j["W"] ? j["W"].as<std::int64_t>() : 0;
    v.begin_time = j["begin"] ? j["begin"].as<std::int64_t>() : 0;
    v.held = j["hold"] && j["hold"].as<bool>();
    v.array_limit = j["array_limit"] ? j["array_limit"].as<int>() : 0;
    if (j["after"]) v.dependency = DependencyState::kWaiting;
    if (j["excluded"]) v.excluded_hosts = config::split(j["excluded"].as<std::string>(), ' ');
    return v;
  }

  void run_step(const YAML::Node& step, int n) {
    std::int64_t now = step["at"] ? step["at"].as<std::int64_t>() : 0;
    SCOPED_TRACE("step " + std::to_string(n) + " at " + std::to_string(now));
    if (step["week"]) view_.week = parse_week(step["week"].as<std::string>());
    for (const auto& id : step["finish"]) {
      JobKey k = parse_key(id.as<std::string>());
      std::erase_if(view_.running, [&](const RunningJobView& r) { return r.key == k; });
      if (records_) records_->jobs.erase(k);
    }
    for (const auto& kv : step["load"]) set_load(host(kv.first.as<std::string>()), kv.second);
    for (const auto& j : step["submit"]) {
      view_.pending.push_back(pending_job(j));
      view_.pending.back().idle_since = now;  // eligible from submission, as mbatchd has it
      if (records_) records_->add_pending(view_.pending.back(), now);
    }
    for (const auto& kv : step["queues"]) {
      int q = view_.policy->queue_index(kv.first.as<std::string>());
      view_.queues[q].active = kv.second.as<std::string>() == "active";
    }

    PassResult r = schedule(view_, now);
    ClusterView copy = view_;
    EXPECT_EQ(describe(r), describe(schedule(view_, now))) << "second pass differs";
    EXPECT_EQ(describe(r), describe(schedule(copy, now))) << "pass on a copy differs";
    EXPECT_EQ(describe(r), describe(schedule(with_ids(view_), now))) << "pass with user and project ids differs";
    check(step["expect"], r);
    if (records_) {
      // The same pass on the view mbatchd would build from its records.
      const ClusterView rebuilt = records_->view(view_);
      EXPECT_EQ(view_text(rebuilt), view_text(view_)) << "the records and the view differ before the pass";
      PassResult from_records = schedule(rebuilt, now);
      EXPECT_EQ(describe(from_records), describe(r)) << "the records' view decides otherwise";
      records_->apply(from_records, now);
    }
    advance(r, now);
    if (records_) {
      EXPECT_EQ(view_text(records_->view(view_)), view_text(view_)) << "mbatchd's path and the view applier differ";
    }
  }

  void check(const YAML::Node& expect, const PassResult& r) {
    const std::string all = describe(r);
    std::map<std::string, std::string> dispatched, reasons, reserved, suspended;
    std::set<std::string> resumed;
    for (const auto& d : r.dispatches) dispatched[key_text(d.job)] = join(d.hosts);
    for (const auto& d : r.reasons) reasons[key_text(d.job)] = *d.text;
    for (const auto& d : r.reservations)
      reserved[key_text(d.job)] = join(d.hosts) + " start " + std::to_string(d.estimated_start);
    for (const auto& d : r.suspends) suspended[key_text(d.job)] = d.reason;
    for (const auto& d : r.resumes) resumed.insert(key_text(d.job));

    std::map<std::string, std::string> want_dispatch, want_reserve, want_suspend;
    for (const auto& kv : expect["dispatch"]) want_dispatch[kv.first.as<std::string>()] = kv.second.as<std::string>();
    for (const auto& kv : expect["reserve"]) {
      std::string text = kv.second["hosts"].as<std::string>() + " start " +
                         (kv.second["start"] ? kv.second["start"].as<std::string>() : "0");
      want_reserve[kv.first.as<std::string>()] = text;
    }
    for (const auto& kv : expect["suspend"]) want_suspend[kv.first.as<std::string>()] = kv.second.as<std::string>();
    std::set<std::string> want_resume;
    for (const auto& id : expect["resume"]) want_resume.insert(id.as<std::string>());

    // Exactly the expected jobs start; "*" accepts any hosts.
    std::set<std::string> got_keys, want_keys;
    for (const auto& [k, v] : dispatched) got_keys.insert(k);
    for (const auto& [k, v] : want_dispatch) want_keys.insert(k);
    EXPECT_EQ(got_keys, want_keys) << all;
    for (const auto& [k, hosts] : want_dispatch)
      if (hosts != "*" && dispatched.count(k)) {
        EXPECT_EQ(dispatched[k], hosts) << "job " << k << "\n" << all;
      }
    EXPECT_EQ(reserved, want_reserve) << all;
    EXPECT_EQ(suspended, want_suspend) << all;
    EXPECT_EQ(resumed, want_resume) << all;
    // Host-level reasons with the hosts' names, as bjobs -l shows them.
    for (const auto& kv : expect["pending_hosts"]) {
      auto k = kv.first.as<std::string>();
      std::string got;
      for (const auto& d : r.reasons) {
        if (key_text(d.job) != k || !d.hosts) continue;
        for (const auto& hr : *d.hosts) {
          std::vector<std::string> names;
          for (int h : hr.hosts) names.push_back(hr.name(h));
          got += (got.empty() ? "" : "; ") + hr.reason + ": " + join(names);
        }
      }
      EXPECT_EQ(got, kv.second.as<std::string>()) << "job " << k << "\n" << all;
    }
    for (const auto& kv : expect["pending"]) {
      auto k = kv.first.as<std::string>();
      EXPECT_EQ(reasons[k], kv.second.as<std::string>()) << "job " << k << "\n" << all;
    }
    // Every job left pending has a reason.
    for (const auto& j : view_.pending)
      if (!dispatched.count(key_text(j.key))) {
        EXPECT_TRUE(reasons.count(key_text(j.key))) << key_text(j.key);
      }
  }

  // What mbatchd does with the decisions before the next step (pass_apply.h).
  void advance(const PassResult& r, std::int64_t now) { apply(view_, r, now); }

  YAML::Node doc_;
  std::optional<MbatchdRecords> records_;
  lsf::testing::ConfigTree tree_;
  std::shared_ptr<const config::ClusterConfig> config_;
  ClusterView view_;
  std::map<std::pair<std::string, int>, std::shared_ptr<const config::ResourceRequirement>> reqs_;
};

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, Decisions) {
  Scenario s(GetParam());
  s.run();
}

// mbatchd's path (its records, an ApplyTarget, the view rebuilt from them) and the
// simulator's (apply() to the view it keeps) give the same views and decisions.
TEST_P(ScenarioTest, MbatchdPathAndViewApplierAgree) {
  Scenario s(GetParam(), /*contract=*/true);
  s.run();
}

INSTANTIATE_TEST_SUITE_P(Scheduling, ScenarioTest, ::testing::ValuesIn(scenario_files()), [](const auto& param_info) {
  std::string name = param_info.param;
  for (auto& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
