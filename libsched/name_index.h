// Names to dense ids (0, 1, 2 ... in the order first seen). A pass looks a user and a
// project up for each of 100,000 jobs; std::unordered_map's prime-sized bucket arrays
// cost a division per lookup, where this table, a power of two in size and at most half
// full, costs a mask.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lsf::sched {

class NameIndex {
 public:
  // The name's id, and whether this call added it.
  std::pair<int, bool> insert(std::string_view name) {
    if (2 * (names_.size() + 1) > slots_.size()) grow();
    const std::uint64_t h = hash(name);
    size_t at = static_cast<size_t>(h) & (slots_.size() - 1);
    for (; slots_[at] >= 0; at = (at + 1) & (slots_.size() - 1)) {
      const auto id = static_cast<size_t>(slots_[at]);
      if (hashes_[id] == h && names_[id] == name) return {slots_[at], false};
    }
    slots_[at] = static_cast<int>(names_.size());
    names_.emplace_back(name);
    hashes_.push_back(h);
    return {slots_[at], true};
  }

  // -1: not there.
  int find(std::string_view name) const {
    if (slots_.empty()) return -1;
    const std::uint64_t h = hash(name);
    for (size_t at = static_cast<size_t>(h) & (slots_.size() - 1); slots_[at] >= 0;
         at = (at + 1) & (slots_.size() - 1)) {
      const auto id = static_cast<size_t>(slots_[at]);
      if (hashes_[id] == h && names_[id] == name) return slots_[at];
    }
    return -1;
  }

  const std::string& name(int id) const { return names_[static_cast<size_t>(id)]; }
  size_t size() const { return names_.size(); }

 private:
  // FNV-1a, folded so the low bits the mask keeps depend on every byte.
  static std::uint64_t hash(std::string_view s) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h ^ (h >> 29);
  }

  void grow() {
    slots_.assign(slots_.empty() ? 16 : 2 * slots_.size(), -1);
    for (size_t id = 0; id < names_.size(); ++id) {
      size_t at = static_cast<size_t>(hashes_[id]) & (slots_.size() - 1);
      while (slots_[at] >= 0) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = static_cast<int>(id);
    }
  }

  std::vector<std::string> names_;     // by id
  std::vector<std::uint64_t> hashes_;  // by id
  std::vector<int> slots_;             // ids; -1: empty
};

}  // namespace lsf::sched
