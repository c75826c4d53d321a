#include "daemons/sbatchd/gpu_file.h"

#include <set>
#include <string>

#include "libconfig/limits.h"
#include "libconfig/text.h"

namespace lsf::sbd {
namespace {

constexpr int kMaxGpuId = 255;
constexpr size_t kMaxWordLength = 256;

// 0..1, or a percentage written with '%'.
std::optional<double> fraction(std::string_view v) {
  const bool percent = !v.empty() && v.back() == '%';
  auto d = config::parse_double(percent ? v.substr(0, v.size() - 1) : v);
  if (!d) return std::nullopt;
  const double f = percent ? *d / 100.0 : *d;
  if (f < 0 || f > 1) return std::nullopt;
  return f;
}

daemon::Status take(wire::GpuDevice& g, std::string_view name, std::string_view value, std::set<std::string>& seen) {
  const auto bad = [&](const std::string& why) {
    return daemon::fail(std::string(name) + "=" + std::string(value) + ": " + why);
  };
  if (value.empty()) return daemon::fail(std::string(name) + ": a value is missing");
  if (value.size() > kMaxWordLength) return daemon::fail(std::string(name) + ": the value is too long");
  if (!seen.insert(std::string(name)).second) return daemon::fail(std::string(name) + " is given twice");
  auto memory_mb = [&](std::int64_t& out) -> daemon::Status {
    auto kb = config::parse_memory(value, config::MemoryUnit::kMB);
    if (!kb || *kb < 0) return bad("not an amount of memory");
    out = *kb / 1024;
    return {};
  };
  auto whole = [&](long long lo, long long hi, const char* what) -> daemon::Result<long long> {
    auto n = config::parse_int(value);
    if (!n || *n < lo || *n > hi) return bad(what);
    return *n;
  };
  if (name == "id") {
    auto n = whole(0, kMaxGpuId, "the index must be a whole number from 0 to 255");
    if (!n) return n.status();
    g.set_id(static_cast<int>(*n));
  } else if (name == "model") {
    g.set_model(std::string(value));
  } else if (name == "mem" || name == "mused") {
    std::int64_t mb = 0;
    if (auto st = memory_mb(mb); !st) return st;
    name == "mem" ? g.set_mem_total_mb(mb) : g.set_mem_used_mb(mb);
  } else if (name == "mode") {
    if (value != "shared" && value != "exclusive_process" && value != "prohibited")
      return bad("must be shared, exclusive_process or prohibited");
    g.set_mode(std::string(value));
  } else if (name == "uuid") {
    g.set_uuid(std::string(value));
  } else if (name == "driver") {
    g.set_driver(std::string(value));
  } else if (name == "vendor") {
    if (value != "nvidia" && value != "amd") return bad("must be nvidia or amd");
    g.set_vendor(std::string(value));
  } else if (name == "socket") {
    auto n = whole(-1, 1023, "must be a socket number, or -1");
    if (!n) return n.status();
    g.set_socket(static_cast<int>(*n));
  } else if (name == "factor" || name == "temp") {
    auto d = config::parse_double(value);
    if (!d || *d < -273 || *d > 1e6) return bad("not a number");
    name == "factor" ? g.set_factor(*d) : g.set_temp_c(*d);
  } else if (name == "ut" || name == "mut") {
    auto f = fraction(value);
    if (!f) return bad("must be from 0 to 1, or a percentage");
    name == "ut" ? g.set_ut(*f) : g.set_mut(*f);
  } else if (name == "ecc") {
    auto n = whole(0, 1LL << 40, "must be a count of errors");
    if (!n) return n.status();
    g.set_ecc_errors(*n);
  } else if (name == "pstate") {
    auto n = whole(-1, 15, "must be from 0 to 15, or -1");
    if (!n) return n.status();
    g.set_pstate(static_cast<int>(*n));
  } else if (name == "status") {
    if (value != "ok" && value != "error") return bad("must be ok or error");
    g.set_status(std::string(value));
  } else if (name == "error") {
    g.set_error(std::string(value));
  } else {
    return daemon::fail("unknown name \"" + std::string(name) +
                        "\" (id, model, mem, mode, uuid, driver, vendor, socket, factor, ut, mut, mused, temp, ecc, "
                        "pstate, status, error)");
  }
  return {};
}

}  // namespace

daemon::Result<std::vector<wire::GpuDevice>> parse_gpu_file(std::string_view text) {
  std::vector<wire::GpuDevice> out;
  std::set<int> ids;
  int number = 0;
  for (const auto& raw : config::split(text, '\n')) {
    ++number;
    std::string_view line = raw;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto words = config::split_words(line);
    if (words.empty()) continue;
    const std::string where = "line " + std::to_string(number) + ": ";
    if (out.size() > static_cast<size_t>(kMaxGpuId)) return daemon::fail(where + "more than 256 GPUs");
    wire::GpuDevice g;
    g.set_mode("shared");
    g.set_vendor("nvidia");
    g.set_socket(-1);
    g.set_pstate(-1);
    g.set_status("ok");
    std::set<std::string> seen;
    for (const auto& word : words) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) return daemon::fail(where + "\"" + word + "\" is not name=value");
      if (auto st = take(g, std::string_view(word).substr(0, eq), std::string_view(word).substr(eq + 1), seen); !st)
        return daemon::fail(where + st.message());
    }
    for (const char* required : {"id", "model", "mem"})
      if (!seen.count(required)) return daemon::fail(where + required + "= is missing");
    if (!ids.insert(g.id()).second)
      return daemon::fail(where + "GPU " + std::to_string(g.id()) + " is described twice");
    if (g.mem_used_mb() > g.mem_total_mb()) return daemon::fail(where + "mused is more than mem");
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace lsf::sbd
