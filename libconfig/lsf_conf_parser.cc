// lsf.conf: shell-style KEY=VALUE lines, read by every daemon and command.
#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

std::string unquote(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

}  // namespace

void parse_lsf_conf(const std::vector<LogicalLine>& lines, FileContext& ctx, LsfConf& out) {
  const LogicalLine* gpu_req = nullptr;  // read once the unit for bare amounts is known
  for (const auto& line : lines) {
    std::string_view text = line.text;
    if (starts_with_icase(text, "export ")) continue;  // `export NAME` adds nothing
    size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      ctx.diags.error(line.where, "expected NAME=VALUE, found \"" + line.text + "\"");
      continue;
    }
    std::string key(trim(text.substr(0, eq)));
    std::string value = unquote(text.substr(eq + 1));
    if (!find_param("lsf.conf", "", key)) {
      // Sites keep their own variables in lsf.conf; only our namespace is checked.
      if (starts_with_icase(key, "LSF_") || starts_with_icase(key, "LSB_"))
        ctx.diags.warning(line.where, "unknown parameter " + key + " is ignored");
    }
    out.values[key] = value;
    auto port = [&](std::optional<int>& slot) {
      if (auto p = ctx.integer(value, line.where, "", key, 1, 65535)) slot = static_cast<int>(*p);
    };
    if (key == "LSF_LIM_PORT") port(out.lim_port);
    if (key == "LSF_RES_PORT") port(out.res_port);
    if (key == "LSB_MBD_PORT") port(out.mbd_port);
    if (key == "LSB_SBD_PORT") port(out.sbd_port);
    if (key == "LSB_METRICS_PORT") {
      if (auto p = ctx.integer(value, line.where, "", key, 0, 65535)) out.metrics_port = static_cast<int>(*p);
    }
    if (key == "LSB_METRICS_ADDRESS") {
      if (value.empty())
        ctx.diags.error(line.where, "LSB_METRICS_ADDRESS: an address is required (default 127.0.0.1)");
      else
        out.metrics_address = value;
    }
    if (key == "LSB_METRICS_TOKEN_FILE") out.metrics_token_file = value;
    if (key == "LSF_UNIT_FOR_LIMITS") {
      auto u = parse_memory_unit(value);
      if (!u)
        ctx.diags.error(line.where, "LSF_UNIT_FOR_LIMITS: " + u.error());
      else
        out.unit_for_limits = *u;
    }
    if (key == "LSF_MASTER_LIST") out.master_list = split_words(value);
    if (key == "LSF_ENVDIR") out.envdir = value;
    if (key == "LSF_CONFDIR") out.confdir = value;
    if (key == "LSB_CONFDIR") out.lsb_confdir = value;
    if (key == "LSB_SHAREDIR") out.lsb_sharedir = value;
    if (key == "LSF_LOGDIR") out.logdir = value;
    if (key == "LSB_GPU_REQ") gpu_req = &line;
  }
  if (gpu_req) {
    auto r = GpuRequest::parse(out.values["LSB_GPU_REQ"], out.unit_for_limits);
    if (!r)
      ctx.diags.error(gpu_req->where, "LSB_GPU_REQ: " + r.error());
    else
      out.gpu_req = *r;
  }
}

}  // namespace lsf::config
