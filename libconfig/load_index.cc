#include "libconfig/load_index.h"

#include "libconfig/text.h"

namespace lsf::config {

// Called for every threshold of every host in a scheduling pass: compares in place
// rather than building a lower-case copy.
std::optional<LoadIndex> find_load_index(std::string_view name) {
  if (name.size() > 5) return std::nullopt;  // the longest name, "login", has 5
  for (const auto& info : kLoadIndices)
    if (iequals(info.name, name)) return info.index;
  if (iequals(name, "cpu")) return LoadIndex::kR1m;
  if (iequals(name, "login")) return LoadIndex::kLs;
  if (iequals(name, "idle")) return LoadIndex::kIt;
  if (iequals(name, "swap")) return LoadIndex::kSwp;
  return std::nullopt;
}

const LoadIndexInfo& load_index_info(LoadIndex index) { return kLoadIndices[static_cast<size_t>(index)]; }

}  // namespace lsf::config
