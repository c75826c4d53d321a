#include "cli/queue_selection.h"

#include <string_view>
#include <vector>

namespace lsf::cli {
namespace {

const wire::GroupInfo* find_group(const google::protobuf::RepeatedPtrField<wire::GroupInfo>& groups,
                                  std::string_view name) {
  for (const auto& g : groups)
    if (g.name() == name) return &g;
  return nullptr;
}

// Whether `member` is in `group` or a group below it (members that are groups end
// with '/'). `depth` stops a cycle a bad configuration could make.
bool in_group(const google::protobuf::RepeatedPtrField<wire::GroupInfo>& groups, std::string_view group,
              const std::string& member, int depth = 0) {
  const auto* g = find_group(groups, group);
  if (!g || depth > 16) return false;
  for (const auto& m : g->members()) {
    if (m == member || m == "all") return true;
    if (!m.empty() && m.back() == '/' &&
        in_group(groups, std::string_view(m).substr(0, m.size() - 1), member, depth + 1))
      return true;
  }
  return false;
}

// A list item as a name: `~` (exclusion) is returned in *excluded; `@` (per member,
// users), `@cluster` and `+preference` (hosts) are dropped.
std::string item_name(std::string item, bool* excluded) {
  *excluded = !item.empty() && item.front() == '~';
  if (*excluded) item.erase(0, 1);
  if (auto plus = item.find('+'); plus != std::string::npos) item.erase(plus);
  if (auto at = item.find('@'); at != std::string::npos) item.erase(at);
  return item;
}

// The rules common to USERS and HOSTS: `name` is a member of the list when named, in a
// group named, or covered by `all` (or `others`), and not excluded. `name` may also be
// a group or "all": then only a list naming it (or `all`) counts, as LSF's.
bool list_covers(const google::protobuf::RepeatedPtrField<std::string>& list, const std::string& name,
                 const google::protobuf::RepeatedPtrField<wire::GroupInfo>& groups) {
  if (list.empty()) return true;  // no list: all
  const bool is_group = find_group(groups, name) != nullptr;
  bool in = false, out = false;
  for (const auto& raw : list) {
    bool excluded = false;
    const std::string item = item_name(raw, &excluded);
    bool match = item == name || item == "all" || item == "others";
    if (!match && name != "all" && !is_group) match = in_group(groups, item, name);
    if (name == "all" && item != "all") match = false;
    (excluded ? out : in) |= match;
  }
  return in && !out;
}

}  // namespace

bool queue_accepts_user(const wire::QueueInfo& queue, const std::string& user, const wire::ConfigInfoReply& config) {
  return list_covers(queue.users(), user, config.user_groups());
}

bool queue_uses_host(const wire::QueueInfo& queue, const std::string& host, const wire::ConfigInfoReply& config) {
  return list_covers(queue.hosts(), host, config.host_groups());
}

}  // namespace lsf::cli
