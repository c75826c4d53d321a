// Job ids in the forms LSF's job commands take: 12, "12[3]", and an index list
// "12[1-5,7,9-15:2]" (bsub -J's syntax), which names those elements of array 12.
#include <iostream>

#include "cli/cli_support.h"
#include "libconfig/text.h"
#include "libsched/array_index_list.h"

namespace lsf::cli {
namespace {

// The cluster's MAX_JOB_ARRAY_SIZE: no array has an index above it, so a list is
// bounded by it before a single reference is made.
int max_job_array_size(Session& session, const std::string& command) {
  wire::RequestEnvelope req;
  req.mutable_config_info();
  const auto reply = require_ok(command, session.call(req));
  for (const auto& p : reply.config_info().params())
    if (p.name() == "MAX_JOB_ARRAY_SIZE")
      if (auto n = config::parse_int(p.value()); n && *n > 0 && *n <= 2147483646) return static_cast<int>(*n);
  return 1000;  // lsb.params' default
}

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  std::cerr << text << ": " << why << ".\n";
  std::exit(255);
}

}  // namespace

std::vector<wire::JobRef> job_refs(Session& session, const std::string& command, const std::vector<std::string>& ids) {
  std::vector<wire::JobRef> out;
  std::optional<int> max_size;
  for (const auto& text : ids) {
    if (auto ref = parse_job_ref(text)) {
      out.push_back(*ref);
      continue;
    }
    // Not one job or element: an index list, or no job id at all.
    const auto open = text.find('[');
    if (open == std::string::npos || text.back() != ']') refuse(text, "Illegal job ID");
    const std::string id = text.substr(0, open);
    if (id.empty() || id.size() > 12 || id.find_first_not_of("0123456789") != std::string::npos)
      refuse(text, "Illegal job ID");
    const auto job_id = std::stoll(id);
    if (job_id <= 0) refuse(text, "Illegal job ID");
    if (!max_size) max_size = max_job_array_size(session, command);
    auto indices =
        sched::parse_array_index_list(std::string_view(text).substr(open + 1, text.size() - open - 2), *max_size);
    if (!indices) refuse(text, indices.error());
    for (auto index : *indices) {
      wire::JobRef& ref = out.emplace_back();
      ref.set_job_id(job_id);
      ref.set_index(index);
    }
  }
  return out;
}

}  // namespace lsf::cli
