// schmod_guarantee's report, which the pass hands back in PassResult::guarantees (one per
// guarantee pool, in configuration order): what bresources -g and bsla show.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lsf::sched {

// A guarantee pool as the pass leaves it (after its dispatches), for bresources -g and
// bsla. Amounts are packages (hosts for a hosts pool, slots for a slots pool).
struct GuaranteeReport {
  std::string pool;
  std::string type;  // as configured: slots, hosts, package[slots=1:mem=1000]
  bool overcommitted = false;
  int total = 0, free = 0;  // on the pool's available hosts
  int slots_total = 0, slots_free = 0;
  double mem_total = 0, mem_free = 0;  // MB; 0 when the hosts report none
  int package_slots = 0;               // 0: the package has no slot part (hosts pools too)
  std::int64_t package_mem = 0;        // MB; 0: no memory part
  // Slots and rusage[mem] of the jobs on the pool's available hosts: the owners' (jobs
  // of classes guaranteed here), loans (what other jobs hold beyond the part nobody is
  // guaranteed) and the rest.
  struct Use {
    int slots = 0;
    double mem = 0;
  };
  Use owner_use, loan_use, other_use;
  struct Owner {
    std::string service_class;
    int guaranteed = 0;
    int used = 0;  // packages its jobs hold on the pool's available hosts
    Use use;
  };
  std::vector<Owner> owners;
  struct Host {
    std::string name;
    bool available = false;
    int total = 0, free = 0;
  };
  std::vector<Host> hosts;  // every member host
};

}  // namespace lsf::sched
