#include "cli/share_tables.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace lsf::cli {

void print_share_tables(const std::string& root,
                        const google::protobuf::RepeatedPtrField<wire::ShareAccountInfo>& accounts, bool recursive) {
  // Accounts come depth first; each goes to the table of the path of groups above it.
  std::vector<std::pair<std::string, std::vector<const wire::ShareAccountInfo*>>> tables;
  std::vector<std::string> path;
  for (const auto& a : accounts) {
    path.resize(static_cast<size_t>(a.depth()));
    if (a.depth() > 0 && !recursive) continue;
    std::string where = root;
    for (const auto& p : path) where += p + "/";
    auto it = std::find_if(tables.begin(), tables.end(), [&](const auto& t) { return t.first == where; });
    if (it == tables.end()) it = tables.insert(tables.end(), {where, {}});
    it->second.push_back(&a);
    path.push_back(a.name());
  }
  for (const auto& [where, rows] : tables) {
    std::printf("\nSHARE_INFO_FOR: %s\n", where.c_str());
    std::printf(" USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST\n");
    for (const auto* a : rows) {
      std::string name = a->name() + (a->group() ? "/" : "");
      std::printf("%-14s %6.0f %9.3f %8d %9d %9.1f %9.0f %8.3f\n", name.c_str(), a->shares(), a->priority(),
                  a->started(), a->reserved(), a->cpu_time_s(), a->run_time_s(), 0.0);
    }
  }
}

}  // namespace lsf::cli
