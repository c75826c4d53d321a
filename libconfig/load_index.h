// LSF's built-in load indices (the names select[], order[], thresholds and lsload
// use), with their aliases and the direction in which a larger value means more load.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace lsf::config {

enum class LoadIndex { kR15s, kR1m, kR15m, kUt, kPg, kIo, kLs, kIt, kTmp, kSwp, kMem };
inline constexpr int kLoadIndexCount = 11;

struct LoadIndexInfo {
  LoadIndex index;
  std::string_view name;  // canonical, as lsload prints it
  bool increasing;        // true: larger is busier (r1m); false: larger is freer (mem)
  bool operator==(const LoadIndexInfo&) const = default;
};

inline constexpr std::array<LoadIndexInfo, kLoadIndexCount> kLoadIndices{{
    {LoadIndex::kR15s, "r15s", true},
    {LoadIndex::kR1m, "r1m", true},
    {LoadIndex::kR15m, "r15m", true},
    {LoadIndex::kUt, "ut", true},
    {LoadIndex::kPg, "pg", true},
    {LoadIndex::kIo, "io", true},
    {LoadIndex::kLs, "ls", true},
    {LoadIndex::kIt, "it", false},
    {LoadIndex::kTmp, "tmp", false},
    {LoadIndex::kSwp, "swp", false},
    {LoadIndex::kMem, "mem", false},
}};

// Accepts canonical names and LSF's aliases (cpu = r1m, login = ls, idle = it,
// swap = swp), in any case.
std::optional<LoadIndex> find_load_index(std::string_view name);
const LoadIndexInfo& load_index_info(LoadIndex index);

}  // namespace lsf::config
