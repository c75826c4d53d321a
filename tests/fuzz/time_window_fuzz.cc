// A time window list (RUN_WINDOW, DISPATCH_WINDOW, `#if time(...)`): parsed, asked
// whether it is open at instants around the week, and printed back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libconfig/time_window.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lsf::config;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto set = TimeWindowSet::parse(text);
  if (!set) return 0;
  for (int day = 0; day < 7; ++day)
    for (int hour = 0; hour < 24; hour += 5) (void)set->is_open(WeekInstant{day, hour, 59});
  // Its canonical form reads back as the same windows.
  auto again = TimeWindowSet::parse(set->to_string());
  if (!again || !(*again == *set)) std::abort();
  return 0;
}
