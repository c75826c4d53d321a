// bhist and bacct: what happened to jobs, read back from lsb.events (and lsb.events.1,
// kept at the last snapshot) and from lsb.acct. Both files are append-only, so reading
// them while the writer thread appends sees whole records up to some point.
#include "daemons/mbatchd/queries.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/acct_record.h"
#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/event_log_reader.h"

namespace lsf::mbd {
namespace {

// The job a record is about; id 0 for records about no job.
sched::JobKey job_of(const wire::EventRecord& r) {
  using E = wire::EventRecord;
  switch (r.event_case()) {
    case E::kJobNew:
      return {r.job_new().job_id(), 0};
    case E::kJobStart:
      return {r.job_start().job_id(), r.job_start().index()};
    case E::kJobExecute:
      return {r.job_execute().job_id(), r.job_execute().index()};
    case E::kJobStatus:
      return {r.job_status().job_id(), r.job_status().index()};
    case E::kJobRequeue:
      return {r.job_requeue().job_id(), r.job_requeue().index()};
    case E::kJobMove:
      return {r.job_move().job_id(), r.job_move().index()};
    case E::kJobSwitch:
      return {r.job_switch().job_id(), r.job_switch().index()};
    case E::kJobModify:
      return {r.job_modify().job_id(), r.job_modify().index()};
    default:
      return {0, 0};
  }
}

}  // namespace

namespace {
// What one page of bhist or bacct may hold: well under the largest frame.
constexpr std::size_t kHistoryPageBytes = 4u << 20;
}  // namespace

Queries::Queries(const std::shared_ptr<const config::ClusterConfig>& config, std::string host)
    : config_(config), host_(std::move(host)) {}

wire::ReplyEnvelope Queries::history(const wire::RequestEnvelope& request) const {
  const auto& q = request.history();
  const std::string user = q.user().empty() ? request.caller().user_name() : q.user();
  // Asked for by id: those jobs (index 0: every element). Else every job of the user.
  std::map<std::int64_t, std::set<std::int32_t>> asked;
  for (const auto& ref : q.jobs()) asked[ref.job_id()].insert(ref.index());
  std::set<std::int64_t> users_jobs;
  auto wanted = [&](const sched::JobKey& key) {
    if (key.id == 0) return false;
    if (!asked.empty()) {
      auto it = asked.find(key.id);
      return it != asked.end() && (key.index == 0 || it->second.count(0) || it->second.count(key.index));
    }
    return users_jobs.count(key.id) > 0;
  };
  auto reply = net::ok_reply();
  auto* out = reply.mutable_history();
  std::set<std::int64_t> seen_seq;
  // The primary: on LSB_LOCALDIR, it answers while the file server is down.
  const auto dir = event_log_dirs(*config_, host_).primary;
  // lsb.events.1 is the only older file kept (it is replaced at each snapshot).
  std::vector<const char*> files = {"lsb.events.1", "lsb.events"};
  if (q.log_files() == 1) files.erase(files.begin());
  // The writer may rotate while the files are read (lsb.events.1 read before, the new
  // lsb.events after: what was in between would be missed); read again if it did.
  auto events_inode = [&dir] {
    struct stat st {};
    return ::stat((dir / "lsb.events").c_str(), &st) == 0 ? st.st_ino : ino_t{0};
  };
  for (int attempt = 0; attempt < 3; ++attempt) {
    const ino_t before = events_inode();
    out->Clear();
    seen_seq.clear();
    users_jobs.clear();
    std::size_t bytes = 0;
    for (const char* file : files) {
      if (out->more()) break;
      read_event_file(dir / file, [&](std::string_view payload, std::uint64_t) -> daemon::Status {
        if (out->more()) return {};
        wire::EventRecord r;
        if (!r.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return {};
        if (r.has_job_new() && (user == "all" || r.job_new().user() == user)) users_jobs.insert(r.job_new().job_id());
        // A record in both files (written across a rotation) is shown once.
        bool cluster_event = r.has_queue_ctrl() || r.has_host_ctrl() || r.has_mbd_start() || r.has_job_group();
        if ((q.cluster() ? !cluster_event : !wanted(job_of(r))) || !seen_seq.insert(r.seq()).second) return {};
        if (r.has_job_new()) r.mutable_job_new()->mutable_spec()->clear_env();  // kilobytes no one prints
        if (q.paged() && r.seq() <= q.after_seq()) return {};
        if (q.paged() && bytes > kHistoryPageBytes) {
          out->set_more(true);
          return {};
        }
        bytes += r.ByteSizeLong();
        *out->add_events() = std::move(r);
        return {};
      });
    }
    if (events_inode() == before) break;
  }
  return reply;
}

wire::ReplyEnvelope Queries::acct(const wire::RequestEnvelope& request) const {
  const auto& q = request.acct();
  const std::string user = q.user().empty() ? request.caller().user_name() : q.user();
  std::map<std::int64_t, std::set<std::int32_t>> asked;
  for (const auto& ref : q.jobs()) asked[ref.job_id()].insert(ref.index());
  auto reply = net::ok_reply();
  auto* out = reply.mutable_acct();
  std::ifstream in(event_log_dirs(*config_, host_).primary / "lsb.acct");
  if (q.paged() && q.offset() > 0) in.seekg(q.offset());
  std::string line;
  std::size_t bytes = 0;
  while (std::getline(in, line)) {
    auto r = parse_job_finish_record(line);
    if (!r) continue;
    if (!asked.empty()) {
      auto it = asked.find(r->job_id());
      if (it == asked.end() || !(it->second.count(0) || it->second.count(r->index()))) continue;
    } else if (user != "all" && r->user() != user) {
      continue;
    }
    if (!q.queue().empty() && r->queue() != q.queue()) continue;
    if (!q.project().empty() && r->project() != q.project()) continue;
    if (!q.host().empty() &&
        std::find(r->exec_hosts().begin(), r->exec_hosts().end(), q.host()) == r->exec_hosts().end())
      continue;
    bytes += r->ByteSizeLong();
    *out->add_records() = std::move(*r);
    if (q.paged() && bytes > kHistoryPageBytes) {
      const auto next = in.tellg();
      if (next >= 0) {
        out->set_more(true);
        out->set_next_offset(static_cast<std::int64_t>(next));
      }
      break;
    }
  }
  return reply;
}

}  // namespace lsf::mbd
