#include "libconfig/gpu_request.h"

#include <cctype>
#include <vector>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

// No host has more; a larger count is a typing error, not a request to wait forever.
constexpr long long kMaxGpus = 1024;

Result<bool> yes_no(std::string_view option, std::string_view value) {
  if (value == "yes") return true;
  if (value == "no") return false;
  return fail(std::string(option) + "=" + std::string(value) + ": must be yes or no");
}

// MEM in MB, from a memory amount with or without a unit.
Result<std::int64_t> memory_mb(std::string_view option, std::string_view value, MemoryUnit unit) {
  auto kb = parse_memory(value, unit);
  if (!kb) return fail(std::string(option) + "=" + std::string(value) + ": " + kb.error());
  if (*kb <= 0) return fail(std::string(option) + "=" + std::string(value) + ": must be more than 0");
  return (*kb + 1023) / 1024;
}

Result<GpuMps> parse_mps(std::string_view value) {
  const auto bad = [&](const std::string& why) { return fail("mps=" + std::string(value) + ": " + why); };
  auto words = split(value, ',');
  GpuMps m;
  if (words[0] == "no") {
    if (words.size() > 1) return bad("no takes no modifiers");
    return m;
  }
  if (words[0] == "yes")
    m.kind = GpuMps::Kind::kYes;
  else if (words[0] == "per_socket")
    m.kind = GpuMps::Kind::kPerSocket;
  else if (words[0] == "per_gpu")
    m.kind = GpuMps::Kind::kPerGpu;
  else
    return bad("must be yes, per_socket, per_gpu or no");
  for (size_t i = 1; i < words.size(); ++i) {
    // LSF's own examples write the modifier `share` as well as `shared`.
    if (words[i] == "shared" || words[i] == "share")
      m.shared = true;
    else if (words[i] == "nocvd")
      m.nocvd = true;
    else
      return bad("unknown modifier \"" + words[i] + "\" (shared or nocvd)");
  }
  return m;
}

std::string mps_text(const GpuMps& m) {
  static const char* kKinds[] = {"no", "yes", "per_socket", "per_gpu"};
  std::string s = kKinds[static_cast<int>(m.kind)];
  if (m.shared) s += ",shared";
  if (m.nocvd) s += ",nocvd";
  return s;
}

// One `name=value` option into `r`.
Result<bool> take_option(GpuRequest& r, std::string_view name, std::string_view value, MemoryUnit unit) {
  const auto bad = [&](const std::string& why) {
    return fail(std::string(name) + "=" + std::string(value) + ": " + why);
  };
  if (value.empty()) return fail(std::string(name) + ": a value is missing");
  if (name == "num") {
    std::string_view count = value;
    r.per_task = false;  // per host unless it says /task
    if (auto slash = value.find('/'); slash != std::string_view::npos) {
      count = value.substr(0, slash);
      const auto per = value.substr(slash + 1);
      if (per != "task" && per != "host") return bad("the count is per task or per host (N/task, N/host)");
      r.per_task = per == "task";
    }
    auto n = parse_int(count);
    if (!n || *n < 1 || *n > kMaxGpus)
      return bad("the number of GPUs must be a whole number from 1 to " + std::to_string(kMaxGpus));
    r.num = static_cast<int>(*n);
  } else if (name == "mode") {
    if (value == "shared")
      r.mode = GpuMode::kShared;
    else if (value == "exclusive_process")
      r.mode = GpuMode::kExclusiveProcess;
    else
      return bad("must be shared or exclusive_process");
  } else if (name == "mps") {
    auto m = parse_mps(value);
    if (!m) return fail(m.error());
    r.mps = *m;
  } else if (name == "j_exclusive" || name == "aff" || name == "block" || name == "gpack" || name == "glink") {
    auto b = yes_no(name, value);
    if (!b) return fail(b.error());
    if (name == "j_exclusive") r.j_exclusive = *b;
    if (name == "aff") r.aff = *b;
    if (name == "block") r.block = *b;
    if (name == "gpack") r.gpack = *b;
    if (name == "glink") {
      if (!*b) return bad("only glink=yes is written; leave it out for no");
      r.glink = true;
    }
  } else if (name == "gvendor") {
    if (value != "nvidia" && value != "amd") return bad("must be nvidia or amd");
    r.gvendor = std::string(value);
  } else if (name == "gmodel") {
    // NAME-MEM on the command line, NAME#MEM in configuration files. Model names hold
    // dashes themselves (Tesla-V100), so only a last part that reads as memory is one.
    std::string_view model = value;
    auto cut = value.find('#');
    if (cut == std::string_view::npos) cut = value.rfind('-');
    if (cut != std::string_view::npos) {
      const auto mem = value.substr(cut + 1);
      const bool is_memory = !mem.empty() && std::isdigit(static_cast<unsigned char>(mem[0]));
      if (is_memory || value[cut] == '#') {
        auto mb = memory_mb("gmodel", mem, unit);
        if (!mb) return fail(mb.error());
        r.gmodel_mem_mb = *mb;
        model = value.substr(0, cut);
      }
    }
    if (model.empty()) return bad("the model name is missing");
    r.gmodel = std::string(model);
  } else if (name == "gtile") {
    if (value == "!" || value == "'!'") {
      r.gtile = GpuRequest::kGtileAny;
    } else {
      auto n = parse_int(value);
      if (!n || *n < 1 || *n > kMaxGpus) return bad("must be a whole number of GPUs per socket, or '!'");
      r.gtile = static_cast<int>(*n);
    }
  } else if (name == "gmem") {
    auto mb = memory_mb("gmem", value, unit);
    if (!mb) return fail(mb.error());
    r.gmem_mb = *mb;
  } else if (name == "mig") {
    auto parts = split(value, '/');
    for (const auto& p : parts) {
      auto n = parse_int(p);
      if (parts.size() > 2 || !n || *n < 1 || *n > 7) return bad("must be GI_size[/CI_size], each from 1 to 7");
    }
    r.mig = std::string(value);
  } else {
    return fail("unknown GPU option \"" + std::string(name) +
                "\" (num, mode, mps, j_exclusive, aff, block, gpack, gvendor, gmodel, gtile, gmem, glink, mig)");
  }
  return true;
}

template <typename T>
void keep_or_take(std::optional<T>& mine, const std::optional<T>& lower) {
  if (!mine) mine = lower;
}

}  // namespace

Result<GpuRequest> GpuRequest::parse(std::string_view text, MemoryUnit unit) {
  text = trim(text);
  // Configuration files may quote the whole value.
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = trim(text.substr(1, text.size() - 2));
  GpuRequest r;
  if (text.empty() || text == "-") return r;
  std::vector<std::string> seen;
  for (const auto& part : split(text, ':')) {
    const auto option = trim(part);
    if (option.empty()) return fail("empty GPU option in \"" + std::string(text) + "\"");
    const auto eq = option.find('=');
    if (eq == std::string_view::npos)
      return fail("GPU option \"" + std::string(option) + "\" needs a value (name=value)");
    const auto name = trim(option.substr(0, eq));
    const auto value = trim(option.substr(eq + 1));
    for (const auto& s : seen)
      if (s == name) return fail("GPU option \"" + std::string(name) + "\" is given twice");
    seen.emplace_back(name);
    auto taken = take_option(r, name, value, unit);
    if (!taken) return fail(taken.error());
  }
  return r;
}

GpuRequest GpuRequest::over(const GpuRequest& lower) const {
  GpuRequest r = *this;
  // num=N/task and its count go together: a level that names a count names its unit.
  if (!r.num) {
    r.num = lower.num;
    r.per_task = lower.per_task;
  }
  keep_or_take(r.mode, lower.mode);
  keep_or_take(r.mps, lower.mps);
  keep_or_take(r.j_exclusive, lower.j_exclusive);
  keep_or_take(r.aff, lower.aff);
  keep_or_take(r.block, lower.block);
  keep_or_take(r.gpack, lower.gpack);
  keep_or_take(r.gvendor, lower.gvendor);
  if (!r.gmodel) {
    r.gmodel = lower.gmodel;
    r.gmodel_mem_mb = lower.gmodel_mem_mb;
  }
  keep_or_take(r.gtile, lower.gtile);
  keep_or_take(r.gmem_mb, lower.gmem_mb);
  keep_or_take(r.glink, lower.glink);
  keep_or_take(r.mig, lower.mig);
  return r;
}

GpuRequest GpuRequest::with_defaults() const {
  GpuRequest defaults;
  defaults.num = 1;
  defaults.per_task = false;
  defaults.mode = GpuMode::kShared;
  defaults.mps = GpuMps{};
  defaults.j_exclusive = false;
  return over(defaults);
}

std::optional<GpuRequest> effective_gpu_request(const GpuRequest* job, const GpuRequest* app, const GpuRequest* queue,
                                                const GpuRequest* cluster) {
  if (!job && !app && !queue) return std::nullopt;
  GpuRequest r;
  for (const GpuRequest* level : {job, app, queue, cluster})
    if (level) r = r.over(*level);
  return r.with_defaults();
}

bool GpuRequest::empty() const { return *this == GpuRequest{}; }

std::string GpuRequest::to_string() const {
  std::vector<std::string> parts;
  auto yn = [](bool b) { return std::string(b ? "yes" : "no"); };
  if (num) parts.push_back("num=" + std::to_string(*num) + (per_task.value_or(false) ? "/task" : ""));
  if (mode) parts.push_back(std::string("mode=") + (*mode == GpuMode::kShared ? "shared" : "exclusive_process"));
  if (mps) parts.push_back("mps=" + mps_text(*mps));
  if (j_exclusive) parts.push_back("j_exclusive=" + yn(*j_exclusive));
  if (aff) parts.push_back("aff=" + yn(*aff));
  if (block) parts.push_back("block=" + yn(*block));
  if (gpack) parts.push_back("gpack=" + yn(*gpack));
  if (gvendor) parts.push_back("gvendor=" + *gvendor);
  if (gmodel) parts.push_back("gmodel=" + *gmodel + (gmodel_mem_mb ? "-" + std::to_string(*gmodel_mem_mb) + "M" : ""));
  if (gtile) parts.push_back("gtile=" + (*gtile == kGtileAny ? std::string("!") : std::to_string(*gtile)));
  if (gmem_mb) parts.push_back("gmem=" + std::to_string(*gmem_mb) + "M");
  if (glink) parts.push_back("glink=yes");
  if (mig) parts.push_back("mig=" + *mig);
  return join(parts, ":");
}

}  // namespace lsf::config
