#include "cli/job_selection.h"

#include <algorithm>
#include <iostream>
#include <set>

namespace lsf::cli {
namespace {

bool in_group(const std::string& g, const std::string& group) {
  return g == group || (g.size() > group.size() && g.starts_with(group) && g[group.size()] == '/');
}

// A filter naming an object that must exist: mbatchd's refusal, as bjobs prints it.
void require_known(Session& session, wire::RequestEnvelope asked) {
  if (auto r = session.call(std::move(asked)); r.reply && r.reply->status() != wire::STATUS_OK) {
    std::cerr << r.reply->message() << "\n";
    std::exit(255);
  }
}

// What LSF says when the filters match no job: "No unfinished job found in queue <q>",
// "Job <name> is not found", ...
std::string none_found(const JobFilters& f) {
  std::string where;
  if (!f.queue.empty()) where = " in queue <" + f.queue;
  if (!f.host.empty()) where += (where.empty() ? " on host/group <" : "> and on host/group <") + f.host;
  if (!where.empty()) where += ">";
  if (!f.job_name.empty()) return "Job <" + f.job_name + "> is not found" + where;
  if (f.stat == wire::JOB_RUN) return "No running job found" + where;
  if (f.stat == wire::JOB_PEND) return "No pending job found" + where;
  if (f.stat) return "No suspended job found" + where;
  return "No unfinished job found" + where;
}

}  // namespace

JobSelection select_jobs(Session& session, const std::string& command, const JobFilters& f, JobScope scope,
                         const std::vector<wire::JobRef>& named) {
  if (!f.job_group.empty()) {
    wire::RequestEnvelope asked;
    asked.mutable_job_groups()->add_paths(f.job_group);
    require_known(session, asked);
  }
  if (!f.app.empty()) {
    wire::RequestEnvelope asked;
    asked.mutable_applications()->add_names(f.app);
    require_known(session, asked);
  }
  wire::RequestEnvelope req;
  auto* q = req.mutable_jobs();
  if (scope == JobScope::kNamed)
    for (const auto& ref : named) *q->add_jobs() = ref;
  q->set_user(f.user);
  q->set_queue(f.queue);
  q->set_host(f.host);
  q->set_job_name(f.job_name);
  q->set_only_running(f.stat == wire::JOB_RUN);
  q->set_only_pending(f.stat == wire::JOB_PEND);
  q->set_only_suspended(f.stat && *f.stat != wire::JOB_RUN && *f.stat != wire::JOB_PEND);
  const auto reply = fetch_jobs(session, command, req);
  std::vector<const wire::JobInfo*> chosen;
  for (const auto& j : reply.jobs()) {
    if (!f.app.empty() && j.spec().app() != f.app) continue;
    if (!f.sla.empty() && j.spec().service_class() != f.sla) continue;
    if (!f.job_group.empty() && !in_group(j.spec().job_group(), f.job_group)) continue;
    chosen.push_back(&j);
  }
  if (scope == JobScope::kLast && !chosen.empty()) {
    // Job ids grow with submission: the last job is the largest id (all its elements
    // that match, for an array).
    const auto last = (*std::max_element(chosen.begin(), chosen.end(), [](auto* a, auto* b) {
                        return a->job_id() < b->job_id();
                      }))->job_id();
    std::erase_if(chosen, [&](const wire::JobInfo* j) { return j->job_id() != last; });
  }
  JobSelection out;
  std::set<std::pair<std::int64_t, std::int32_t>> found;
  for (const auto* j : chosen) {
    auto& ref = out.jobs.emplace_back();
    ref.set_job_id(j->job_id());
    ref.set_index(j->index());
    found.insert({j->job_id(), j->index()});
    found.insert({j->job_id(), 0});  // the whole array was named
  }
  if (scope == JobScope::kNamed)
    for (const auto& ref : named)
      if (!found.count({ref.job_id(), ref.index()}))
        out.errors.push_back("Job <" + job_id_text(ref.job_id(), ref.index()) + ">: No matching job found");
  if (out.jobs.empty() && scope != JobScope::kNamed) out.none = none_found(f);
  return out;
}

}  // namespace lsf::cli
