// This project's planning keys (RESERVATION_MODEL, RUNTIME_ESTIMATE, BACKFILL_ORDER,
// BACKFILL_MAX_WAIT): the same words in lsb.params and in lsb.queues.
#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

// One of two words, case-insensitive: true for `yes`, false for `no`.
std::optional<bool> either(const std::string& value, const char* no, const char* yes, const SourceLocation& where,
                           const std::string& context, const std::string& key, FileContext& ctx) {
  const std::string u = to_upper(std::string(trim(value)));
  if (u == yes || u == no) return u == yes;
  ctx.error(where, context, key + " = " + value + ": the values are " + no + " and " + yes);
  return std::nullopt;
}

}  // namespace

bool parse_planning(const std::string& key, const std::string& value, const SourceLocation& where,
                    const std::string& context, FileContext& ctx, Planning& out) {
  if (key == "RESERVATION_MODEL") {
    if (auto b = either(value, "HOLD", "PLAN", where, context, key, ctx)) out.plan = *b;
  } else if (key == "RUNTIME_ESTIMATE") {
    if (auto b = either(value, "LIMIT", "PREDICT", where, context, key, ctx)) out.predict = *b;
  } else if (key == "BACKFILL_ORDER") {
    if (auto b = either(value, "FCFS", "SHORTEST", where, context, key, ctx)) out.shortest_first = *b;
  } else if (key == "BACKFILL_MAX_WAIT") {
    // Minutes, as LSF's other waits; a year at most keeps seconds far from overflow.
    if (auto n = ctx.integer(value, where, context, key, 0, 366 * 24 * 60)) out.max_wait_minutes = static_cast<int>(*n);
  } else {
    return false;
  }
  return true;
}

}  // namespace lsf::config
