#include "daemons/mbatchd/job.h"

namespace lsf::mbd {

std::string Job::display_name() const {
  std::string name = spec().job_name().empty() ? spec().command() : spec().job_name();
  if (key.index > 0) name += "[" + std::to_string(key.index) + "]";
  return name;
}

std::string job_label(const sched::JobKey& key) {
  std::string s = std::to_string(key.id);
  if (key.index > 0) s += "[" + std::to_string(key.index) + "]";
  return s;
}

}  // namespace lsf::mbd
