// A host's resources by name (r1m, mem, type ...): a handful of names, read in full
// by every pass. Kept sorted in one vector rather than a tree: a pass walks the
// resources of every host (5,000 on a large cluster) once, and a tree's nodes, one
// allocation each, cost a cache miss per name where one host's vector costs a few.
// The interface is the part of std::map's the code uses.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libconfig/select_expr.h"

namespace lsf::sched {

class ResourceMap {
 public:
  using value_type = std::pair<std::string, config::ResourceValue>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

 private:
  // Before their callers: their return types are deduced. For the const and
  // non-const vector alike.
  // compare(), not `<`: clang 14 with libstdc++ 12 fails to rewrite string < string_view
  // through operator<=> here (the fuzz build uses clang).
  template <class Entries>
  static auto lower(Entries& entries, std::string_view name) {
    return std::lower_bound(entries.begin(), entries.end(), name,
                            [](const value_type& e, std::string_view n) { return e.first.compare(n) < 0; });
  }
  template <class Entries>
  static auto locate(Entries& entries, std::string_view name) {
    auto it = lower(entries, name);
    return it != entries.end() && it->first == name ? it : entries.end();
  }

 public:
  ResourceMap() = default;
  ResourceMap(std::initializer_list<value_type> entries) {
    for (const auto& e : entries) (*this)[e.first] = e.second;
  }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  iterator find(std::string_view name) { return locate(entries_, name); }
  const_iterator find(std::string_view name) const { return locate(entries_, name); }

  config::ResourceValue& operator[](std::string_view name) { return try_emplace(name).first->second; }

  template <class... Args>
  std::pair<iterator, bool> try_emplace(std::string_view name, Args&&... args) {
    auto it = lower(entries_, name);
    if (it != entries_.end() && it->first == name) return {it, false};
    return {entries_.emplace(it, std::string(name), config::ResourceValue(std::forward<Args>(args)...)), true};
  }

  bool operator==(const ResourceMap&) const = default;

 private:
  std::vector<value_type> entries_;  // sorted by name
};

}  // namespace lsf::sched
