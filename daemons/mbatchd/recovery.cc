#include "daemons/mbatchd/recovery.h"

#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

daemon::Result<RecoveryResult> recover_state(const fs::path& dir, ClusterState& state,
                                             const config::ClusterConfig& config, const ConfigIndex& index) {
  auto started = std::chrono::steady_clock::now();
  if (auto made = make_log_dir(dir); !made) return made;
  RecoveryResult out;
  out.job_ids = JobIdMark(dir / "lsb.jobid");
  if (auto mark = out.job_ids.load(); !mark) return mark.status();

  auto snap = read_event_file(dir / "lsb.snapshot", [&](std::string_view payload, std::uint64_t) -> daemon::Status {
    wire::Snapshot s;
    if (!s.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
      return daemon::fail("cannot parse snapshot");
    state.load_snapshot(s);
    out.snapshot_jobs = static_cast<std::uint64_t>(s.jobs_size());
    out.newest_epoch = s.epoch();
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
  state.sync_config(config, index.policy);
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  return out;
}

}  // namespace lsf::mbd
