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
  void clear() { entries_.clear(); }

  iterator find(std::string_view name) {
    auto it = lower(name);
    return it != entries_.end() && it->first == name ? it : entries_.end();
  }
  const_iterator find(std::string_view name) const {
    auto it = const_cast<ResourceMap*>(this)->lower(name);
    return it != entries_.end() && it->first == name ? const_iterator(it) : entries_.end();
  }
  size_t count(std::string_view name) const { return find(name) == end() ? 0 : 1; }
  bool contains(std::string_view name) const { return find(name) != end(); }

  config::ResourceValue& operator[](std::string_view name) { return try_emplace(name).first->second; }

  template <class... Args>
  std::pair<iterator, bool> try_emplace(std::string_view name, Args&&... args) {
    auto it = lower(name);
    if (it != entries_.end() && it->first == name) return {it, false};
    return {entries_.emplace(it, std::string(name), config::ResourceValue(std::forward<Args>(args)...)), true};
  }
  template <class V>
  std::pair<iterator, bool> emplace(std::string_view name, V&& value) {
    return try_emplace(name, std::forward<V>(value));
  }
  template <class V>
  std::pair<iterator, bool> insert_or_assign(std::string_view name, V&& value) {
    auto [it, fresh] = try_emplace(name);
    it->second = std::forward<V>(value);
    return {it, fresh};
  }
  size_t erase(std::string_view name) {
    auto it = find(name);
    if (it == entries_.end()) return 0;
    entries_.erase(it);
    return 1;
  }
  iterator erase(const_iterator it) { return entries_.erase(it); }

  bool operator==(const ResourceMap&) const = default;

 private:
  iterator lower(std::string_view name) {
    return std::lower_bound(entries_.begin(), entries_.end(), name,
                            [](const value_type& e, std::string_view n) { return e.first < n; });
  }

  std::vector<value_type> entries_;  // sorted by name
};

}  // namespace lsf::sched
