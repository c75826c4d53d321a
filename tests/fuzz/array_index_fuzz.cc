// The index list of bsub -J "name[...]", as mbatchd checks it at submission: the
// indices it gives are positive, ascending, unique and within MAX_JOB_ARRAY_SIZE.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libsched/array_index_list.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (int max_size : {1000, 100'000}) {
    auto indices = lsf::sched::parse_array_index_list(text, max_size);
    if (!indices) continue;
    const auto& v = *indices;
    if (v.empty() || v.size() > static_cast<std::size_t>(max_size) || v.front() < 1 || v.back() > max_size)
      std::abort();
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i - 1] >= v[i]) std::abort();
  }
  return 0;
}
