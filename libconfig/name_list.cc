#include "libconfig/name_list.h"

#include <cctype>

#include "libconfig/text.h"

namespace lsf::config {

std::string HostListItem::to_string() const {
  std::string out = exclude ? "~" : "";
  switch (kind) {
    case Kind::kAll: out += "all"; break;
    case Kind::kOthers: out += "others"; break;
    case Kind::kNone: out += "none"; break;
    case Kind::kAllRemote: out += "allremote"; break;
    case Kind::kName: out += name; break;
  }
  if (!cluster.empty()) out += "@" + cluster;
  if (has_preference) out += "+" + std::to_string(preference);
  return out;
}

Result<std::vector<HostListItem>> parse_host_list(std::string_view text) {
  std::vector<HostListItem> items;
  for (auto word : split_words(strip_parens(text))) {
    HostListItem item;
    std::string_view w = word;
    if (!w.empty() && w.front() == '~') {
      item.exclude = true;
      w.remove_prefix(1);
    }
    size_t plus = w.rfind('+');
    if (plus != std::string_view::npos) {
      auto pref = parse_int(w.substr(plus + 1));
      if (!pref || *pref < 0) return fail("host preference in \"" + word + "\" is not a number");
      if (item.exclude) return fail("\"" + word + "\": an excluded host cannot have a preference");
      item.preference = static_cast<int>(*pref);
      item.has_preference = true;
      w = w.substr(0, plus);
    }
    size_t at = w.find('@');
    if (at != std::string_view::npos) {
      item.cluster = std::string(w.substr(at + 1));
      w = w.substr(0, at);
      if (item.cluster.empty()) return fail("\"" + word + "\" names no cluster after '@'");
    }
    if (w.empty()) return fail("\"" + word + "\" names no host");
    if (w == "all") {
      item.kind = HostListItem::Kind::kAll;
    } else if (w == "others") {
      item.kind = HostListItem::Kind::kOthers;
    } else if (w == "none") {
      item.kind = HostListItem::Kind::kNone;
    } else if (w == "allremote") {
      item.kind = HostListItem::Kind::kAllRemote;
    } else {
      item.name = std::string(w);
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::string format_host_list(const std::vector<HostListItem>& items) {
  std::vector<std::string> words;
  for (const auto& i : items) words.push_back(i.to_string());
  return join(words, " ");
}

std::string UserListItem::to_string() const {
  switch (kind) {
    case Kind::kAll: return exclude ? "~all" : "all";
    case Kind::kExternal: return "!";
    case Kind::kName: break;
  }
  return (exclude ? "~" : "") + name + (per_member ? "@" : "");
}

Result<std::vector<UserListItem>> parse_user_list(std::string_view text) {
  std::vector<UserListItem> items;
  for (auto word : split_words(strip_parens(text))) {
    UserListItem item;
    std::string_view w = word;
    if (w == "!") {
      item.kind = UserListItem::Kind::kExternal;
      items.push_back(item);
      continue;
    }
    if (!w.empty() && w.front() == '~') {
      item.exclude = true;
      w.remove_prefix(1);
    }
    if (!w.empty() && w.back() == '@') {
      item.per_member = true;
      w.remove_suffix(1);
    }
    if (w.empty()) return fail("\"" + word + "\" names no user or group");
    if (w == "all")
      item.kind = UserListItem::Kind::kAll;
    else
      item.name = std::string(w);
    items.push_back(std::move(item));
  }
  return items;
}

std::string format_user_list(const std::vector<UserListItem>& items) {
  std::vector<std::string> words;
  for (const auto& i : items) words.push_back(i.to_string());
  return join(words, " ");
}

std::vector<std::string> parse_name_list(std::string_view text) { return split_words(strip_parens(text)); }

}  // namespace lsf::config
