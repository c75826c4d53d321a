// bhosts: batch hosts with status and job counts, in LSF's layout.
//
//   bhosts [-w | -l | -o "fmt" [-json]] [-noheader] [host | host_group ...]
//   bhosts [-w | -l] -gpu [host | host_group ...]
//   bhosts -s [resource ...]
//   bhosts -e [-s] [-json]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/bhosts_exports.h"
#include "cli/cli_support.h"
#include "cli/gpu_views.h"
#include "cli/table_output.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string limit(int v) { return v < 0 ? "-" : std::to_string(v); }

// bhosts -o: LSF's field names with their recommended widths.
enum Field : size_t {
  kName,
  kStatus,
  kCpuf,
  kJlU,
  kMax,
  kNjobs,
  kRun,
  kSsusp,
  kUsusp,
  kRsv,
  kDispatchWindow,
  kComments,
  kCount
};
constexpr cli::FieldDef kFields[] = {
    {"host_name", "hname", 20},
    {"status", "stat", 15},
    {"cpuf", "", 10},
    {"jl_u", "jlu", 8},
    {"max", "", 8},
    {"njobs", "", 8},
    {"run", "", 8},
    {"ssusp", "", 8},
    {"ususp", "", 8},
    {"rsv", "", 8},
    {"dispatch_window", "", 50},
    {"comments", "", 128},
};
static_assert(std::size(kFields) == kCount);

std::string field(const wire::HostInfo& h, const cli::Column& c) {
  switch (static_cast<Field>(c.field)) {
    case kName:
      return h.name();
    case kStatus:
      return h.status();
    case kCpuf: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", h.cpu_factor());
      return buf;
    }
    case kJlU:
      return limit(h.jl_u());
    case kMax:
      return limit(h.max_slots());
    case kNjobs:
      return std::to_string(h.njobs());
    case kRun:
      return std::to_string(h.run());
    case kSsusp:
      return std::to_string(h.ssusp());
    case kUsusp:
      return std::to_string(h.ususp());
    case kRsv:
      return std::to_string(h.rsv());
    case kDispatchWindow:
      return h.dispatch_window();
    case kComments:
      return h.admin_comment();
    case kCount:
      break;
  }
  return "";
}

// A row of bhosts -l's tables: the label in `label_width`, then each cell right-aligned
// in its width.
std::string table_row(const std::string& label, size_t label_width, const std::vector<std::string>& cells,
                      const std::vector<int>& widths) {
  std::string out = label;
  out.resize(std::max(label_width, label.size()), ' ');
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t w = static_cast<size_t>(widths[i]);
    out += std::string(cells[i].size() < w ? w - cells[i].size() : 0, ' ') + cells[i];
  }
  return out;
}

std::string fixed(int digits, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A threshold as configured: 0.7, 15.
std::string compact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// CURRENT LOAD USED FOR SCHEDULING: the host's load (Total) and what is held on it
// (Reserved). `slots` are the free slots (MAX - NJOBS) and the reserved ones (RSV).
// The load reserved by running jobs' rusage[] is not reported by mbatchd: `-`.
void print_load_rows(const wire::HostInfo& h) {
  static const std::vector<int> widths = {4, 6, 6, 6, 6, 6, 5, 6, 6, 6, 6, 8};
  const auto& l = h.load();
  const std::string free_slots = h.max_slots() < 0 ? "-" : std::to_string(std::max(0, h.max_slots() - h.njobs()));
  std::printf("\n CURRENT LOAD USED FOR SCHEDULING:\n");
  std::printf("              r15s   r1m  r15m    ut    pg    io   ls    it   tmp   swp   mem   slots\n");
  std::printf("%s\n",
              table_row(" Total", 14,
                        {fixed(1, l.r15s()), fixed(1, l.r1m()), fixed(1, l.r15m()), fixed(0, l.ut() * 100) + "%",
                         fixed(1, l.pg()), "-", fixed(0, l.ls()), fixed(0, l.it()), cli::megabytes(l.tmp_mb()),
                         cli::megabytes(l.swp_mb()), cli::megabytes(l.mem_mb()), free_slots},
                        widths)
                  .c_str());
  std::vector<std::string> reserved(11, "-");
  reserved.push_back(std::to_string(h.rsv()));
  std::printf("%s\n", table_row(" Reserved", 14, reserved, widths).c_str());
}

// LOAD THRESHOLD USED FOR SCHEDULING: the host's loadSched and loadStop (lsb.hosts),
// `-` where none is set, in LSF's columns.
void print_thresholds(const wire::HostInfo& h) {
  static const char* const kIndices[] = {"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"};
  static const std::vector<int> widths = {4, 6, 6, 6, 8, 6, 5, 6, 6, 7, 7};
  auto row = [&](const char* label, const google::protobuf::Map<std::string, double>& values) {
    std::vector<std::string> cells;
    for (const char* index : kIndices) {
      auto it = values.find(index);
      const std::string name = index;
      cells.push_back(it == values.end()                                ? "-"
                      : name == "tmp" || name == "swp" || name == "mem" ? cli::megabytes(it->second)
                                                                        : compact(it->second));
    }
    return table_row(label, 10, cells, widths);
  };
  std::printf("\n LOAD THRESHOLD USED FOR SCHEDULING:\n");
  std::printf("           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n");
  std::printf("%s\n%s\n", row(" loadSched", h.load_sched()).c_str(), row(" loadStop", h.load_stop()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("json", "")("noheader", "")("o", po::value<std::string>(), "")(
      "R", po::value<std::string>(), "")("s", "")("e", "")("gpu", "")("hosts", po::value<std::vector<std::string>>(),
                                                                      "");
  po::positional_options_description pos;
  pos.add("hosts", -1);
  auto vm = cli::parse_options(
      "bhosts", argc, argv, opts, pos,
      "Usage: bhosts [-w | -l | -o \"format\" [-json]] [-noheader] [-R res_req] [host | host_group ...]\n"
      "       bhosts [-w | -l] -gpu [host | host_group ...]\n"
      "       bhosts -s [resource ...]\n"
      "       bhosts -e [-s] [-json]\n");
  cli::Session session("bhosts");
  if (vm.count("e")) return cli::print_exports(session, vm.count("s") > 0, vm.count("json") > 0);
  if (vm.count("s")) {
    // Shared resources; the positional names are resources here, not hosts.
    std::vector<std::string> names;
    if (vm.count("hosts")) names = vm["hosts"].as<std::vector<std::string>>();
    wire::RequestEnvelope req;
    req.mutable_shared_resources();
    const auto reply = cli::require_ok("bhosts", session.call(req)).shared_resources();
    std::printf("RESOURCE                 TOTAL       RESERVED       LOCATION\n");
    for (const auto& r : reply.resources()) {
      if (!names.empty() && std::find(names.begin(), names.end(), r.name()) == names.end()) continue;
      std::string where;
      for (const auto& h : r.hosts()) where += (where.empty() ? "" : " ") + h;
      std::printf("%-20s %10.1f %14.1f       %s\n", r.name().c_str(), r.total(), r.reserved(), where.c_str());
    }
    int rc = 0;
    for (const auto& n : names) {
      bool known = std::any_of(reply.resources().begin(), reply.resources().end(),
                               [&](const wire::SharedResourceInfo& r) { return r.name() == n; });
      if (!known) {
        std::fflush(stdout);
        std::fprintf(stderr, "%s: No such shared resource\n", n.c_str());
        rc = 255;
      }
    }
    return rc;
  }
  const auto hosts_reply = cli::ask_hosts(session, "bhosts", vm);
  const auto& hosts = hosts_reply.hosts();
  if (vm.count("gpu")) {
    cli::print_bhosts_gpu(std::cout, hosts_reply, vm.count("w") > 0, vm.count("l") > 0);
    return 0;
  }
  if (!vm.count("l") && !vm.count("w") &&
      cli::print_custom(
          "bhosts", "LSB_BHOSTS_FORMAT", vm, session.lsf_conf(), kFields, static_cast<size_t>(hosts.size()),
          [&](size_t i, const cli::Column& c) { return field(hosts[static_cast<int>(i)], c); }, "HOSTS"))
    return 0;
  if (vm.count("l")) {
    for (const auto& h : hosts_reply.hosts()) {
      std::printf("HOST  %s\n", h.name().c_str());
      std::printf("STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW\n");
      std::printf("%-14s %6.2f %5s %6s %6d %6d %6d %6d %6d      %s\n", h.status().c_str(), h.cpu_factor(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv(), h.dispatch_window().empty() ? "-" : h.dispatch_window().c_str());
      print_load_rows(h);
      print_thresholds(h);
      if (!h.admin_comment().empty()) std::printf("\n ADMIN ACTION COMMENT: \"%s\"\n", h.admin_comment().c_str());
      // Not in LSF's output: shown only when the host's clock is off by seconds.
      if (std::llabs(h.clock_offset_ms()) >= 2000)
        std::printf("\n CLOCK: %.1f s %s the master's%s\n", std::llabs(h.clock_offset_ms()) / 1000.0,
                    h.clock_offset_ms() > 0 ? "behind" : "ahead of",
                    h.clock_refused() ? "; its sbatchd is refused until the clocks agree" : "");
      std::printf("\n");
    }
    return 0;
  }
  const bool wide = vm.count("w") > 0;
  if (!vm.count("noheader"))
    std::printf("HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n");
  for (const auto& h : hosts_reply.hosts()) {
    if (wide)
      std::printf("%-18s %-14s %5s %6s %6d %6d %6d %6d %6d\n", h.name().c_str(), h.status().c_str(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv());
    else
      std::printf("%-18.18s %-11.11s %5s %6s %6d %6d %6d %6d %6d\n", h.name().c_str(), h.status().c_str(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv());
  }
  return 0;
}
