#include "libsched/slot_profile.h"

#include <algorithm>
#include <cstring>

namespace lsf::sched {

void SlotProfile::Block::summarize() {
  auto [lo, hi] = std::minmax_element(free, free + n);
  least = *lo + add;
  most = *hi + add;
}

SlotProfile::SlotProfile(std::int64_t now, std::int64_t free_now,
                         std::vector<std::pair<std::int64_t, std::int64_t>> ends) {
  std::sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Half-full blocks leave room for the steps bookings add.
  auto push = [this](std::int64_t at, std::int64_t slots) {
    if (blocks_.empty() || blocks_.back().n == kCap / 2) blocks_.emplace_back();
    Block& b = blocks_.back();
    b.at[b.n] = at;
    b.free[b.n++] = slots;
  };
  std::int64_t last_at = now, last_free = free_now;
  for (const auto& [at, slots] : ends) {
    std::int64_t t = std::max(at, now);
    if (t != last_at) {
      push(last_at, last_free);
      last_at = t;
    }
    last_free += slots;
  }
  push(last_at, last_free);
  for (auto& b : blocks_) {
    b.summarize();
    heads_.push_back(b.at[0]);
  }
}

SlotProfile::Pos SlotProfile::locate(std::int64_t t) const {
  auto it = std::upper_bound(heads_.begin(), heads_.end(), t);
  size_t b = it == heads_.begin() ? 0 : static_cast<size_t>(it - heads_.begin()) - 1;
  const Block& block = blocks_[b];
  int k = static_cast<int>(std::upper_bound(block.at, block.at + block.n, t) - block.at) - 1;
  return {b, std::max(k, 0)};
}

SlotProfile::Pos SlotProfile::split(std::int64_t t) {
  Pos p = locate(t);
  if (blocks_[p.block].at[p.step] == t) return p;
  if (blocks_[p.block].n == kCap) {
    // A full block gives its second half to a new one after it.
    Block half;
    Block& full = blocks_[p.block];
    half.n = kCap / 2;
    half.add = full.add;
    std::memcpy(half.at, full.at + kCap / 2, sizeof(std::int64_t) * kCap / 2);
    std::memcpy(half.free, full.free + kCap / 2, sizeof(std::int64_t) * kCap / 2);
    full.n = kCap / 2;
    full.summarize();
    half.summarize();
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(p.block) + 1, half);
    heads_.insert(heads_.begin() + static_cast<std::ptrdiff_t>(p.block) + 1, half.at[0]);
    p = locate(t);
  }
  // The new step repeats the free slots of the one it cuts: the block's least and most
  // stay as they are.
  Block& b = blocks_[p.block];
  int k = p.step + 1;
  std::memmove(b.at + k + 1, b.at + k, sizeof(std::int64_t) * static_cast<size_t>(b.n - k));
  std::memmove(b.free + k + 1, b.free + k, sizeof(std::int64_t) * static_cast<size_t>(b.n - k));
  b.at[k] = t;
  b.free[k] = b.free[k - 1];
  ++b.n;
  return {p.block, k};
}

void SlotProfile::add(std::int64_t from, std::int64_t to, std::int64_t slots) {
  from = std::max(from, blocks_.front().at[0]);
  if (to <= from) return;
  // Cutting at `to` may move steps into a new block; cutting at `from` last keeps its
  // place right.
  if (to != kForever) split(to);
  Pos p = split(from);
  for (size_t i = p.block; i < blocks_.size(); ++i) {
    Block& b = blocks_[i];
    int k = i == p.block ? p.step : 0;
    if (k == 0 && b.at[b.n - 1] < to) {
      b.add += slots;
      b.least += slots;
      b.most += slots;
      continue;
    }
    for (; k < b.n && b.at[k] < to; ++k) b.free[k] += slots;
    b.summarize();
    if (k < b.n) return;
  }
}

SlotProfile::Pos SlotProfile::next(Pos p) const {
  if (++p.step < blocks_[p.block].n) return p;
  return {p.block + 1, 0};
}

SlotProfile::Pos SlotProfile::first(Pos p, std::int64_t slots, bool below) const {
  for (; p.block < blocks_.size(); p = {p.block + 1, 0}) {
    const Block& b = blocks_[p.block];
    // A block none of whose steps can be a hit is passed whole.
    if (below ? b.least >= slots : b.most < slots) continue;
    for (int k = p.step; k < b.n; ++k)
      if (below ? b.value(k) < slots : b.value(k) >= slots) return {p.block, k};
  }
  return {blocks_.size(), 0};
}

std::int64_t SlotProfile::min_free(std::int64_t from, std::int64_t to) const {
  from = std::max(from, blocks_.front().at[0]);
  std::int64_t least = kForever;
  Pos p = locate(from);
  for (size_t i = p.block; i < blocks_.size(); ++i) {
    const Block& b = blocks_[i];
    int k = i == p.block ? p.step : 0;
    if (b.at[k] >= to) break;
    // A whole block inside the range counts by its least.
    if (k == 0 && b.at[b.n - 1] < to) {
      least = std::min(least, b.least);
      continue;
    }
    for (; k < b.n && b.at[k] < to; ++k) least = std::min(least, b.value(k));
  }
  return least;
}

std::int64_t SlotProfile::earliest(std::int64_t slots, std::int64_t length) const {
  // A start needs a step with enough slots; it fails at the first step short of them
  // before its end, and the next start worth trying is after that step: each step is
  // looked at about once, and blocks of steps alike are passed whole.
  Pos p{0, 0};
  while ((p = first(p, slots, false)).block < blocks_.size()) {
    std::int64_t start = blocks_[p.block].at[p.step];
    Pos short_of = first(p, slots, true);
    if (short_of.block == blocks_.size() || blocks_[short_of.block].at[short_of.step] >= end_of(start, length))
      return start;
    p = next(short_of);
  }
  return kForever;
}

}  // namespace lsf::sched
