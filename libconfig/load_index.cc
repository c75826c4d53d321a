#include "libconfig/load_index.h"

#include "libconfig/text.h"

namespace lsf::config {

std::optional<LoadIndex> find_load_index(std::string_view name) {
  std::string n = to_lower(name);
  if (n == "cpu") return LoadIndex::kR1m;
  if (n == "login") return LoadIndex::kLs;
  if (n == "idle") return LoadIndex::kIt;
  if (n == "swap") return LoadIndex::kSwp;
  for (const auto& info : kLoadIndices)
    if (info.name == n) return info.index;
  return std::nullopt;
}

const LoadIndexInfo& load_index_info(LoadIndex index) {
  return kLoadIndices[static_cast<size_t>(index)];
}

}  // namespace lsf::config
