#include "libconfig/shares.h"

#include <cctype>

#include "libconfig/text.h"

namespace lsf::config {

std::string ShareAssignment::to_string() const {
  return "[" + name + ", " + format_number(amount) + (percent ? "%" : "") + "]";
}

Result<std::vector<ShareAssignment>> parse_shares(std::string_view text) {
  std::vector<ShareAssignment> out;
  std::string body = strip_parens(text);
  size_t pos = 0;
  while (true) {
    while (pos < body.size() && std::isspace(static_cast<unsigned char>(body[pos]))) ++pos;
    if (pos >= body.size()) break;
    if (body[pos] != '[') return fail("expected '[' at \"" + body.substr(pos) + "\" in share list");
    size_t close = body.find(']', pos);
    if (close == std::string::npos) return fail("share item \"" + body.substr(pos) + "\" has no ']'");
    std::string_view item = std::string_view(body).substr(pos + 1, close - pos - 1);
    pos = close + 1;
    size_t comma = item.find(',');
    if (comma == std::string_view::npos)
      return fail("share item [" + std::string(item) + "] is not [name, number]");
    ShareAssignment share;
    share.name = std::string(trim(item.substr(0, comma)));
    std::string_view amount = trim(item.substr(comma + 1));
    if (!amount.empty() && amount.back() == '%') {
      share.percent = true;
      amount.remove_suffix(1);
    }
    auto v = parse_double(amount);
    if (share.name.empty() || !v || *v < 0)
      return fail("share item [" + std::string(item) + "] is not [name, number] or [name, number%]");
    share.amount = *v;
    if (share.percent && share.amount > 100)
      return fail("share item [" + std::string(item) + "] is more than 100%");
    out.push_back(std::move(share));
  }
  return out;
}

Result<std::vector<ShareAssignment>> parse_keyword_shares(std::string_view text, std::string_view keyword) {
  text = trim(text);
  if (!starts_with_icase(text, keyword))
    return fail("expected " + std::string(keyword) + "[...] but found \"" + std::string(text) + "\"");
  text = trim(text.substr(keyword.size()));
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return fail(std::string(keyword) + " must be followed by [...]");
  return parse_shares(text.substr(1, text.size() - 2));
}

std::string format_shares(const std::vector<ShareAssignment>& shares) {
  std::string out;
  for (const auto& s : shares) out += (out.empty() ? "" : " ") + s.to_string();
  return out;
}

}  // namespace lsf::config
