#include "libsched/array_index_list.h"

#include <algorithm>
#include <string>

#include "libconfig/input_limits.h"
#include "libconfig/text.h"

namespace lsf::sched {
namespace {

constexpr std::string_view kBadList = "Bad job array index list";

std::string too_large(int max_size) {
  return "Job array index too large (MAX_JOB_ARRAY_SIZE is " + std::to_string(max_size) + ")";
}

struct Range {
  long long start = 0, end = 0, step = 1;
  long long count() const { return (end - start) / step + 1; }
};

config::Result<Range> parse_range(std::string_view part) {
  Range r;
  const auto colon = part.find(':');
  const std::string_view span = part.substr(0, colon);
  if (colon != std::string_view::npos) {
    auto step = config::parse_int(part.substr(colon + 1));
    if (!step || *step <= 0) return config::fail(std::string(kBadList));
    r.step = *step;
  }
  const auto dash = span.find('-');
  auto start = config::parse_int(span.substr(0, dash));
  if (!start) return config::fail(std::string(kBadList));
  r.start = r.end = *start;
  if (dash != std::string_view::npos) {
    auto end = config::parse_int(span.substr(dash + 1));
    if (!end) return config::fail(std::string(kBadList));
    r.end = *end;
  }
  if (r.start < 1 || r.end < r.start) return config::fail(std::string(kBadList));
  return r;
}

}  // namespace

config::Result<std::vector<std::int32_t>> parse_array_index_list(std::string_view list, int max_job_array_size) {
  if (list.size() > config::kMaxExpressionBytes) return config::fail(config::too_long("job array index list"));
  std::vector<Range> ranges;
  long long named = 0;
  for (const auto& part : config::split(list, ',')) {
    auto range = parse_range(config::trim(part));
    if (!range) return config::fail(range.error());
    if (range->end > max_job_array_size) return config::fail(too_large(max_job_array_size));
    // Every range is within the limit here, so the running sum cannot overflow.
    named += range->count();
    if (named > max_job_array_size) return config::fail(too_large(max_job_array_size));
    ranges.push_back(*range);
  }
  std::vector<std::int32_t> indices;
  indices.reserve(static_cast<size_t>(named));
  for (const Range& r : ranges)
    for (long long k = 0; k < r.count(); ++k) indices.push_back(static_cast<std::int32_t>(r.start + k * r.step));
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  if (indices.empty()) return config::fail(std::string(kBadList));
  return indices;
}

}  // namespace lsf::sched
