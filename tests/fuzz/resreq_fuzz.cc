// A resource requirement string (bsub -R, RES_REQ) as the scheduling pass takes it:
// parsed, joined with a queue's, its select[] evaluated on a fixed host and its order[]
// used to rank two; what it prints must read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libconfig/input_limits.h"
#include "libconfig/resreq.h"

namespace {

using namespace lsf::config;

ResourceValue host_a(std::string_view name) {
  if (name == "mem") return 3000.0;
  if (name == "swp") return 60.0;
  if (name == "r1m") return 0.5;
  if (name == "ncpus") return 8.0;
  if (name == "fs") return 1.0;
  if (name == "type") return std::string("LINUX64");
  if (name == "model") return std::string("Generic");
  return std::monostate{};
}

ResourceValue host_b(std::string_view name) {
  if (name == "mem") return 1000.0;
  if (name == "r1m") return 2.0;
  if (name == "type") return std::string("MIPS");
  return std::monostate{};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rr = ResourceRequirement::parse(text);
  if (!rr) return 0;
  static const ResourceRequirement queue = *ResourceRequirement::parse("select[mem>100] order[r1m] same[type]");
  const ResourceRequirement merged = merge_with_queue(*rr, queue);
  const SelectContext local{std::string("LINUX64"), std::string("Generic")};
  (void)rr->select.matches(host_a);
  (void)merged.select.matches(host_b, local);
  (void)compare_by_order(merged.order, host_a, host_b);
  rr->select.for_each_name([](const std::string&) {});
  // What bapp -l and bjobs -l show reads back as a requirement. Printing puts an
  // operator's operand after ! or unary - in parentheses, so near the nesting limit
  // the text may nest deeper than the input did; that alone is not a finding.
  const auto again = ResourceRequirement::parse(rr->to_string());
  if (!again && again.error() != nests_too_deep("select[]")) std::abort();
  return 0;
}
