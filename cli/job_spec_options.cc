#include "cli/job_spec_options.h"

#include <ctime>
#include <limits>

#include "libconfig/gpu_request.h"
#include "libconfig/limits.h"
#include "libconfig/text.h"

namespace po = boost::program_options;

namespace lsf::cli {

void add_spec_options(po::options_description& opts) {
  opts.add_options()("n", po::value<std::string>(), "")("R", po::value<std::vector<std::string>>(), "")(
      "m", po::value<std::vector<std::string>>(), "")("W", po::value<std::string>(), "")(
      "c", po::value<std::string>(), "")("M", po::value<std::string>(), "")("o", po::value<std::string>(), "")(
      "oo", po::value<std::string>(), "")("e", po::value<std::string>(), "")("eo", po::value<std::string>(), "")(
      "i", po::value<std::string>(), "")("J", po::value<std::string>(), "")("b", po::value<std::string>(), "")(
      "E", po::value<std::string>(), "")("Ep", po::value<std::string>(), "")("w", po::value<std::string>(), "")(
      "P", po::value<std::string>(), "")("Q", po::value<std::string>(), "")("sp", po::value<std::string>(), "")(
      "app", po::value<std::string>(), "")("g", po::value<std::string>(), "")("gpu", po::value<std::string>(), "")(
      "x", "")("r", "");
}

std::optional<std::int64_t> parse_begin_time(const std::string& text) {
  auto parts = config::split(text, ':');
  if (parts.size() < 2 || parts.size() > 4) return std::nullopt;
  std::vector<int> v;
  for (const auto& p : parts) {
    auto n = config::parse_int(p);
    if (!n) return std::nullopt;
    v.push_back(static_cast<int>(*n));
  }
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  tm.tm_sec = 0;
  tm.tm_min = v.back();
  tm.tm_hour = v[v.size() - 2];
  if (v.size() >= 3) tm.tm_mday = v[v.size() - 3];
  if (v.size() == 4) tm.tm_mon = v[0] - 1;
  if (tm.tm_min > 59 || tm.tm_hour > 23) return std::nullopt;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t < now) {
    if (v.size() == 2) {
      t += 24 * 3600;
    } else if (v.size() == 3) {
      tm.tm_mon += 1;
      t = std::mktime(&tm);
    } else {
      tm.tm_year += 1;
      t = std::mktime(&tm);
    }
  }
  return t;
}

void read_spec_options(const po::variables_map& vm, const config::LsfConf& conf, wire::JobSpec& spec,
                       std::vector<std::string>& set, const std::function<void(const std::string&)>& fail) {
  auto has = [&](const char* o) { return vm.count(o) > 0; };
  auto str = [&](const char* o) { return vm[o].as<std::string>(); };
  // [hours:]minutes[/host_spec] -> seconds, read as lsb.queues limits are.
  auto minutes = [&](const std::string& text, const char* what) {
    auto limit = config::TimeLimit::parse(text);
    if (!limit) {
      fail(std::string("Bad ") + what + " specification");
      return std::int64_t{0};
    }
    return std::int64_t{limit->minutes} * 60;
  };
  if (has("n")) {
    auto text = str("n");
    auto comma = text.find(',');
    auto min = config::parse_int(text.substr(0, comma));
    auto max = comma == std::string::npos ? min : config::parse_int(text.substr(comma + 1));
    if (!min || !max || *min < 1 || *max < *min || *max > std::numeric_limits<std::int32_t>::max())
      return fail("Bad argument for option -n");
    spec.set_min_processors(static_cast<int>(*min));
    spec.set_max_processors(static_cast<int>(*max));
    set.insert(set.end(), {"min_processors", "max_processors"});
  }
  if (has("R")) {
    std::string rr;
    for (const auto& r : vm["R"].as<std::vector<std::string>>()) rr += (rr.empty() ? "" : " ") + r;
    spec.set_res_req(rr);
    set.push_back("res_req");
  }
  if (has("m")) {
    spec.clear_asked_hosts();
    for (const auto& m : vm["m"].as<std::vector<std::string>>())
      for (const auto& w : config::split_words(m)) spec.add_asked_hosts(w);
    set.push_back("asked_hosts");
  }
  if (has("W")) {
    spec.set_run_limit_s(minutes(str("W"), "runtime"));
    set.push_back("run_limit_s");
  }
  if (has("c")) {
    spec.set_cpu_limit_s(minutes(str("c"), "CPU time"));
    set.push_back("cpu_limit_s");
  }
  if (has("M")) {
    auto mem = config::parse_memory(str("M"), conf.unit_for_limits);
    if (!mem) return fail("Bad memory limit specification");
    spec.set_mem_limit_kb(*mem);
    set.push_back("mem_limit_kb");
  }
  if (has("o") || has("oo")) {
    spec.set_out_file(has("oo") ? str("oo") : str("o"));
    spec.set_out_overwrite(has("oo"));
    set.insert(set.end(), {"out_file", "out_overwrite"});
  }
  if (has("e") || has("eo")) {
    spec.set_err_file(has("eo") ? str("eo") : str("e"));
    spec.set_err_overwrite(has("eo"));
    set.insert(set.end(), {"err_file", "err_overwrite"});
  }
  if (has("i")) {
    spec.set_in_file(str("i"));
    set.push_back("in_file");
  }
  if (has("J")) {
    std::string name = str("J");
    auto b = name.find('[');
    if (b != std::string::npos) {
      auto e = name.find(']', b);
      if (e == std::string::npos) return fail("Bad job array index list");
      spec.set_array_spec(name.substr(b + 1, e - b - 1));
      std::string rest = name.substr(e + 1);
      if (!rest.empty()) {
        auto lim = rest[0] == '%' ? config::parse_int(rest.substr(1)) : std::nullopt;
        if (!lim || *lim < 1 || *lim > std::numeric_limits<std::int32_t>::max())
          return fail("Bad job array index list");
        spec.set_array_limit(static_cast<int>(*lim));
      }
      name = name.substr(0, b);
      set.insert(set.end(), {"array_spec", "array_limit"});
    }
    spec.set_job_name(name);
    set.push_back("job_name");
  }
  if (has("x")) {
    spec.set_exclusive(true);
    set.push_back("exclusive");
  }
  if (has("r")) {
    spec.set_rerunnable(true);
    set.push_back("rerunnable");
    set.push_back("not_rerunnable");  // -r undoes an earlier bsub -rn
  }
  if (has("b")) {
    auto t = parse_begin_time(str("b"));
    if (!t) return fail("Bad time specification");
    spec.set_begin_time(*t);
    set.push_back("begin_time");
  }
  if (has("E")) {
    spec.set_pre_exec(str("E"));
    set.push_back("pre_exec");
  }
  if (has("Ep")) {
    spec.set_post_exec(str("Ep"));
    set.push_back("post_exec");
  }
  if (has("w")) {
    spec.set_dependency(str("w"));
    set.push_back("dependency");
  }
  if (has("Q")) {
    auto values = config::RequeueExitValues::parse(str("Q"));
    if (!values) return fail("Bad requeue exit value specification: " + values.error());
    spec.set_requeue_exit_values(str("Q"));
    set.push_back("requeue_exit_values");
  }
  if (has("P")) {
    spec.set_project(str("P"));
    set.push_back("project");
  }
  if (has("app")) {
    spec.set_app(str("app"));
    set.push_back("app");
  }
  if (has("gpu")) {
    // Checked here for the user's sake; mbatchd checks again and keeps it with units.
    auto gpu = config::GpuRequest::parse(str("gpu"), conf.unit_for_limits);
    if (!gpu) return fail("Bad GPU requirement (-gpu): " + gpu.error());
    spec.set_gpu(str("gpu"));
    set.push_back("gpu");
  }
  if (has("g")) {
    spec.set_job_group(str("g"));
    set.push_back("job_group");
  }
  if (has("sp")) {
    auto n = config::parse_int(str("sp"));
    if (!n || *n < 1 || *n > std::numeric_limits<std::int32_t>::max())
      return fail("-sp " + str("sp") + ": the job priority must be a positive integer");
    spec.set_user_priority(static_cast<std::int32_t>(*n));
    set.push_back("user_priority");
  }
}

}  // namespace lsf::cli
