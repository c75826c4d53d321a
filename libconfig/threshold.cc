#include "libconfig/threshold.h"

#include "libconfig/text.h"

namespace lsf::config {

Result<LoadThreshold> LoadThreshold::parse(std::string_view text) {
  text = trim(text);
  LoadThreshold t;
  size_t slash = text.find('/');
  auto side = [&](std::string_view s, std::optional<double>& out) -> bool {
    s = trim(s);
    if (s.empty() || s == "-" || s == "()") return true;
    auto v = parse_double(s);
    if (!v) return false;
    out = *v;
    return true;
  };
  std::string_view a = slash == std::string_view::npos ? text : text.substr(0, slash);
  std::string_view b = slash == std::string_view::npos ? std::string_view() : text.substr(slash + 1);
  if (!side(a, t.sched) || !side(b, t.stop) || b.find('/') != std::string_view::npos)
    return fail("\"" + std::string(text) + "\" is not a threshold loadSched/loadStop");
  return t;
}

std::string LoadThreshold::to_string() const {
  return (sched ? format_number(*sched) : "-") + "/" + (stop ? format_number(*stop) : "-");
}

}  // namespace lsf::config
