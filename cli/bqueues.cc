// bqueues: queues with their state and job counts, in LSF's layout.
//
//   bqueues [-w | -l | -o "fmt" [-json]] [-noheader] [-m host|host_group|all] [-u user|user_group|all]
//           [queue ...]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/queue_selection.h"
#include "cli/share_tables.h"
#include "cli/table_output.h"
#include "cli/threshold_table.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string limit(int v) { return v < 0 ? "-" : std::to_string(v); }
std::string limit(double v) {
  if (v < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<int>(v) ? "%.0f" : "%.1f", v);
  return buf;
}

std::string status(const wire::QueueInfo& q) {
  return std::string(q.open() ? "Open" : "Closed") + (q.active() && q.window_open() ? ":Active" : ":Inact");
}

// bqueues -o: LSF's field names with their recommended widths.
enum Field : size_t {
  kName,
  kDesc,
  kPrio,
  kStatus,
  kMax,
  kJlU,
  kJlP,
  kJlH,
  kNjobs,
  kPend,
  kRun,
  kSusp,
  kRsv,
  kUsusp,
  kSsusp,
  kNice,
  kHosts,
  kRunWindow,
  kDispatchWindow,
  kRunLimit,
  kCount
};
constexpr cli::FieldDef kFields[] = {
    {"queue_name", "qname", 15},
    {"description", "desc", 50},
    {"priority", "prio", 10},
    {"status", "stat", 12},
    {"max", "", 10},
    {"jl_u", "jlu", 10},
    {"jl_p", "jlp", 10},
    {"jl_h", "jlh", 10},
    {"njobs", "", 10},
    {"pend", "", 10},
    {"run", "", 10},
    {"susp", "", 10},
    {"rsv", "", 10},
    {"ususp", "", 10},
    {"ssusp", "", 10},
    {"nice", "", 6},
    {"hosts", "", 30},
    {"run_window", "", 30},
    {"dispatch_window", "", 30},
    {"runlimit", "", 12},
};
static_assert(std::size(kFields) == kCount);

std::string field(const wire::QueueInfo& q, const cli::Column& c) {
  switch (static_cast<Field>(c.field)) {
    case kName:
      return q.name();
    case kDesc:
      return q.description();
    case kPrio:
      return std::to_string(q.priority());
    case kStatus:
      return status(q);
    case kMax:
      return limit(q.max_slots());
    case kJlU:
      return limit(q.user_slots());
    case kJlP:
      return limit(q.proc_slots());
    case kJlH:
      return limit(q.host_slots());
    case kNjobs:
      return std::to_string(q.njobs());
    case kPend:
      return std::to_string(q.pend());
    case kRun:
      return std::to_string(q.run());
    case kSusp:
      return std::to_string(q.ssusp() + q.ususp());
    case kRsv:
      return std::to_string(q.rsv());
    case kUsusp:
      return std::to_string(q.ususp());
    case kSsusp:
      return std::to_string(q.ssusp());
    case kNice:
      return std::to_string(q.nice());
    case kHosts: {
      std::string out;
      for (const auto& h : q.hosts()) out += (out.empty() ? "" : " ") + h;
      return out.empty() ? "all" : out;
    }
    case kRunWindow:
      return q.run_window();
    case kDispatchWindow:
      return q.dispatch_window();
    case kRunLimit: {
      if (q.run_limit_s() <= 0) return "";
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(q.run_limit_s()) / 60.0);
      return buf;
    }
    case kCount:
      break;
  }
  return "";
}

// FAIRSHARE: the configured shares, then one SHARE_INFO_FOR table per level of the
// share tree (the queue's own level, then each group with accounts below it), as LSF.
void print_shares(const wire::QueueInfo& q) {
  std::printf("\nSCHEDULING POLICIES:  FAIRSHARE\nUSER_SHARES:  %s\n", q.user_shares().c_str());
  cli::print_share_tables(q.name() + "/", q.share_accounts(), true);
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("json", "")("noheader", "")("o", po::value<std::string>(), "")(
      "m", po::value<std::string>(), "")("u", po::value<std::string>(), "")("queues",
                                                                            po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("queues", -1);
  auto vm = cli::parse_options("bqueues", argc, argv, opts, pos,
                               "Usage: bqueues [-w | -l | -o \"format\" [-json]] [-noheader] [-m host|host_group|all]\n"
                               "               [-u user|user_group|all] [queue ...]\n");
  cli::Session session("bqueues");
  wire::RequestEnvelope req;
  req.mutable_queues();
  if (vm.count("queues"))
    for (const auto& q : vm["queues"].as<std::vector<std::string>>()) req.mutable_queues()->add_names(q);
  auto reply = cli::require_ok("bqueues", session.call(req));
  if (vm.count("u") || vm.count("m")) {
    // -u / -m: only the queues that user may use, or that use that host.
    wire::RequestEnvelope asked;
    asked.mutable_config_info();
    const auto config = cli::require_ok("bqueues", session.call(asked)).config_info();
    const std::string host = vm.count("m") ? vm["m"].as<std::string>() : "";
    const bool host_group = std::any_of(config.host_groups().begin(), config.host_groups().end(),
                                        [&](const wire::GroupInfo& g) { return g.name() == host; });
    if (!host.empty() && host != "all" && !host_group) {
      // As LSF's: a name that is neither a host nor a host group is refused.
      wire::RequestEnvelope known;
      known.mutable_hosts()->add_names(host);
      if (auto r = session.call(known); r.reply && r.reply->status() != wire::STATUS_OK) {
        std::cerr << r.reply->message() << "\n";
        return 255;
      }
    }
    auto* list = reply.mutable_queues()->mutable_queues();
    for (int i = list->size() - 1; i >= 0; --i) {
      const auto& q = list->Get(i);
      if ((vm.count("u") && !cli::queue_accepts_user(q, vm["u"].as<std::string>(), config)) ||
          (!host.empty() && !cli::queue_uses_host(q, host, config)))
        list->DeleteSubrange(i, 1);
    }
    if (list->empty()) {
      // LSF's words (lsb_perror of the user or host).
      if (vm.count("u"))
        std::cerr << vm["u"].as<std::string>() << ": User cannot use the queue\n";
      else
        std::cerr << host << ": Host or host group is not used by the queue\n";
      return 255;
    }
  }
  const auto& queues = reply.queues().queues();
  if (!vm.count("l") && !vm.count("w") &&
      cli::print_custom(
          "bqueues", "LSB_BQUEUES_FORMAT", vm, session.lsf_conf(), kFields, static_cast<size_t>(queues.size()),
          [&](size_t i, const cli::Column& c) { return field(queues[static_cast<int>(i)], c); }, "QUEUES"))
    return 0;
  if (vm.count("l")) {
    for (const auto& q : reply.queues().queues()) {
      std::cout << "\nQUEUE: " << q.name() << "\n  -- "
                << (q.description().empty() ? "No description provided." : q.description())
                << (q.is_default() ? "  This is the default queue." : "") << "\n\nPARAMETERS/STATISTICS\n";
      std::printf("PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n");
      std::printf("%3d %4d  %-15s%4s %4s %4s %4s %5d %5d %5d %5d %5d %4d\n", q.priority(), q.nice(), status(q).c_str(),
                  limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(), limit(q.proc_slots()).c_str(),
                  limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(), q.ssusp(), q.ususp(), q.rsv());
      std::fflush(stdout);
      if (q.run_limit_s() > 0) std::printf("\n RUNLIMIT\n %.1f min\n", static_cast<double>(q.run_limit_s()) / 60.0);
      if (!q.run_window().empty()) std::printf("\nRUN_WINDOW:  %s\n", q.run_window().c_str());
      if (!q.dispatch_window().empty()) std::printf("\nDISPATCH_WINDOW:  %s\n", q.dispatch_window().c_str());
      if (!q.slot_pool().empty())
        std::printf("\nSLOT_POOL: %s    SLOT_SHARE: %g%%\n Entitled to %d of the pool's %d slots; %d in use\n",
                    q.slot_pool().c_str(), q.slot_share(), q.pool_entitled(), q.pool_total(), q.pool_used());
      if (!q.user_shares().empty()) print_shares(q);
      std::cout << "\nSCHEDULING PARAMETERS\n";
      cli::print_threshold_table(std::cout, q.thresholds());
      std::cout.flush();
      // LSF's words: "all" where the queue names none.
      std::string users, hosts;
      for (const auto& u : q.users()) users += (users.empty() ? "" : " ") + u;
      for (const auto& h : q.hosts()) hosts += (hosts.empty() ? "" : " ") + h;
      std::printf("\nUSERS: %s\nHOSTS:  %s\n", users.empty() ? "all" : users.c_str(),
                  hosts.empty() ? "all" : hosts.c_str());
      if (!q.res_req().empty()) std::printf("RES_REQ:  %s\n", q.res_req().c_str());
      if (!q.gpu_req().empty()) std::printf("GPU_REQ:  %s\n", q.gpu_req().c_str());
      std::fflush(stdout);
    }
    return 0;
  }
  const bool wide = vm.count("w") > 0;
  if (!vm.count("noheader"))
    std::printf(wide ? "QUEUE_NAME                 PRIO      STATUS      MAX  JL/U JL/P JL/H NJOBS  PEND  RUN  SUSP\n"
                     : "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP\n");
  for (const auto& q : reply.queues().queues()) {
    if (wide)
      std::printf("%-26s %4d  %-14s %5s %5s %4s %4s %5d %5d %4d %5d\n", q.name().c_str(), q.priority(),
                  status(q).c_str(), limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(),
                  limit(q.proc_slots()).c_str(), limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(),
                  q.ssusp() + q.ususp());
    else
      std::printf("%-15.15s %3d  %-14.14s %4s %4s %4s %4s %5d %5d %5d %5d\n", q.name().c_str(), q.priority(),
                  status(q).c_str(), limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(),
                  limit(q.proc_slots()).c_str(), limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(),
                  q.ssusp() + q.ususp());
  }
  return 0;
}
