// lsb.jobid: a mark above every job id mbatchd has handed out, so that ids are never
// given twice, whatever happened to lsb.events (records cut at a full disk, the rest of
// a damaged log moved aside by `mbatchd --salvage`). LSF keeps its next id the same way
// in its event log; this file survives the log.
//
// The mark moves ahead in blocks, written atomically (temp, fsync, rename, fsync of the
// directory) before any id of the block is used; recovery starts at the larger of the
// mark and the id after the last one replayed; a clean stop brings the mark back down
// to the next id, so only a crash leaves a gap.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "daemons/common/status.h"

namespace lsf::mbd {

class JobIdMark {
 public:
  static constexpr std::int64_t kBlock = 1000;

  explicit JobIdMark(std::filesystem::path file) : file_(std::move(file)) {}

  // The mark on disk; 0 when there is none. Fails when the file is unreadable (the
  // mark then stays as it was).
  daemon::Result<std::int64_t> load();
  // Makes sure the mark is above `id` before it is used; else why not (the id must
  // then not be used).
  daemon::Status cover(std::int64_t id);
  // At a clean stop: brings the mark down to `next`, the first id not handed out, so
  // that ids go on without a gap after a restart (a crash leaves a gap of up to a block).
  daemon::Status settle(std::int64_t next);
  std::int64_t mark() const { return mark_; }

 private:
  daemon::Status write(std::int64_t mark);

  std::filesystem::path file_;
  std::int64_t mark_ = 0;
};

}  // namespace lsf::mbd
