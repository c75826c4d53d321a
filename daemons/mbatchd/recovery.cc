#include "daemons/mbatchd/recovery.h"

#include <fstream>
#include <optional>

#include "daemons/mbatchd/acct_record.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

namespace {

// Users' last runtimes as lsb.acct's last `max_bytes` tell them, each finished job in
// the order it ended; nullopt when the file cannot be read (a new cluster has none).
std::optional<sched::RuntimeHistory> runtimes_from_acct(const fs::path& path, std::uint64_t max_bytes,
                                                        std::uint64_t& jobs) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const std::uint64_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string line;
  // Started mid-file: the first line is a part of one.
  if (from > 0) std::getline(in, line);
  sched::RuntimeHistory history;
  while (std::getline(in, line)) {
    auto r = parse_job_finish_record(line);
    if (!r || r->start_time() <= 0 || r->end_time() < r->start_time()) continue;
    history.finished(r->user(), r->end_time() - r->start_time());
    ++jobs;
  }
  return history;
}

}  // namespace

daemon::Result<RecoveryResult> recover_state(const fs::path& dir, ClusterState& state,
                                             const config::ClusterConfig& config, const ConfigIndex& index) {
  auto started = std::chrono::steady_clock::now();
  if (auto made = make_log_dir(dir); !made) return made;
  RecoveryResult out;
  out.job_ids = JobIdMark(dir / "lsb.jobid");
  if (auto mark = out.job_ids.load(); !mark) return mark.status();

  bool snapshot_runtimes = false;
  auto snap = read_event_file(dir / "lsb.snapshot", [&](std::string_view payload, std::uint64_t) -> daemon::Status {
    wire::Snapshot s;
    if (!s.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
      return daemon::fail("cannot parse snapshot");
    state.load_snapshot(s);
    out.snapshot_jobs = static_cast<std::uint64_t>(s.jobs_size());
    out.newest_epoch = s.epoch();
    snapshot_runtimes = s.runtimes_size() > 0;
    return {};
  });
  if (!snap.error.empty()) return daemon::fail(snap.error);
  if (snap.torn_tail) return daemon::fail((dir / "lsb.snapshot").string() + " is incomplete");
  const std::int64_t snapshot_seq = state.last_seq();

  auto events = read_event_file(dir / "lsb.events", [&](std::string_view payload, std::uint64_t) -> daemon::Status {
    wire::EventRecord r;
    if (!r.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
      return daemon::fail("cannot parse event record");
    if (r.seq() <= snapshot_seq) return {};
    // A later master's term was read already: this is the superseded one's late write.
    if (r.epoch() < out.newest_epoch) {
      ++out.superseded;
      return {};
    }
    out.newest_epoch = r.epoch();
    ++out.replayed;
    return state.apply(r);
  });
  if (events.damage_offset)
    return daemon::fail(
        events.error +
        "; `mbatchd --salvage` keeps the records before the damage and moves the rest aside (see docs/admin.md)");
  if (!events.error.empty()) return daemon::fail(events.error);
  state.raise_next_job_id(out.job_ids.mark());
  out.valid_bytes = events.good_bytes;
  out.torn_tail = events.torn_tail;
  if (events.torn_tail)
    out.warnings.push_back((dir / "lsb.events").string() + ": dropped a partial record after offset " +
                           std::to_string(events.good_bytes) +
                           " (torn write at a crash); recovered to the last whole record");
  if (out.superseded > 0)
    out.warnings.push_back("skipped " + std::to_string(out.superseded) +
                           " records written by a master after its term had been taken over");
  if (!snapshot_runtimes) {
    // lsb.acct holds every job the replay just saw end, and those before it.
    if (auto history = runtimes_from_acct(dir / "lsb.acct", kAcctHistoryBytes, out.acct_runtimes)) {
      if (out.acct_runtimes > 0) state.set_runtimes(std::move(*history));
    }
  }
  state.sync_config(config, index.policy);
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  return out;
}

}  // namespace lsf::mbd
