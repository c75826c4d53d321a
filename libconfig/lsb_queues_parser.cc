// lsb.queues: one Queue section per queue, KEY = value lines.

#include "libconfig/file_parsers.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

// PREEMPTION = PREEMPTIVE[low+1 low2] PREEMPTABLE[high] ; either list may be empty.
std::optional<Preemption> parse_preemption(std::string_view value, const SourceLocation& where,
                                           const std::string& context, FileContext& ctx) {
  Preemption p;
  for (const auto& word : split_words(value)) {
    size_t open = word.find('[');
    std::string kw = to_upper(word.substr(0, open));
    std::string body;
    if (open != std::string::npos) {
      if (word.back() != ']') {
        ctx.error(where, context, "PREEMPTION: \"" + word + "\" has no closing ']'");
        return std::nullopt;
      }
      body = word.substr(open + 1, word.size() - open - 2);
    }
    if (kw == "PREEMPTIVE") {
      auto list = parse_host_list(body);  // same `name+pref` shape as host lists
      if (!list) {
        ctx.error(where, context, "PREEMPTION: " + list.error());
        return std::nullopt;
      }
      p.preemptive = *list;
      p.preemptive_all = list->empty();
    } else if (kw == "PREEMPTABLE") {
      p.preemptable = split_words(body);
      p.preemptable_all = p.preemptable.empty();
    } else {
      ctx.error(where, context, "PREEMPTION: \"" + word + "\" is not PREEMPTIVE[...] or PREEMPTABLE[...]");
      return std::nullopt;
    }
  }
  return p;
}

void apply(const KeyValue& kv, const ParamSpec& spec, Queue& q, FileContext& ctx) {
  const std::string context = "queue \"" + q.name + "\"";
  const auto& k = kv.key;
  const auto& v = kv.value;
  const auto& at = kv.where;
  if (spec.support == Support::kAccepted) {
    q.other[k] = v;
    return;
  }
  auto opt_int = [&](std::optional<int>& slot, long long min) {
    if (auto n = ctx.integer(v, at, context, k, min, kIntMax)) slot = static_cast<int>(*n);
  };
  auto opt_double = [&](std::optional<double>& slot) {
    if (auto n = ctx.number(v, at, context, k, 0)) slot = *n;
  };
  auto flag = [&](bool& slot) {
    if (auto b = ctx.yes_no(v, at, context, k)) slot = *b;
  };
  auto mem_limits = [&](std::optional<DefaultAndMax<std::int64_t>>& slot) {
    auto r = parse_memory_limits(v, ctx.unit);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else
      slot = *r;
  };
  auto time_limits = [&](std::optional<DefaultAndMax<TimeLimit>>& slot) {
    auto r = parse_time_limits(v);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else
      slot = *r;
  };
  auto cond = [&](std::optional<ResourceRequirement>& slot) {
    if (auto r = ctx.resreq(v, at, context, k)) slot = *r;
  };

  if (spec.name == "<load index>") {
    if (auto t = ctx.threshold(v, at, context, k)) q.thresholds[to_lower(k)] = *t;
  } else if (k == "PRIORITY") {
    if (auto n = ctx.integer(v, at, context, k, 0, kIntMax)) q.priority = static_cast<int>(*n);
  } else if (k == "DESCRIPTION") {
    q.description = v;
  } else if (k == "USERS") {
    if (auto u = ctx.users(v, at, context, k)) q.users = *u;
  } else if (k == "HOSTS") {
    if (auto h = ctx.hosts(v, at, context, k)) q.hosts = *h;
  } else if (k == "ADMINISTRATORS") {
    if (auto u = ctx.users(v, at, context, k)) q.administrators = *u;
  } else if (k == "RES_REQ") {
    cond(q.res_req);
  } else if (k == "GPU_REQ") {
    if (auto r = GpuRequest::parse(v, ctx.unit); !r)
      ctx.error(at, context, k + ": " + r.error());
    else
      q.gpu_req = *r;
  } else if (k == "QJOB_LIMIT") {
    opt_int(q.qjob_limit, 0);
  } else if (k == "UJOB_LIMIT") {
    opt_int(q.ujob_limit, 0);
  } else if (k == "HJOB_LIMIT") {
    opt_int(q.hjob_limit, 0);
  } else if (k == "PJOB_LIMIT") {
    opt_double(q.pjob_limit);
  } else if (k == "RUNLIMIT") {
    time_limits(q.run_limit);
  } else if (k == "CPULIMIT") {
    time_limits(q.cpu_limit);
  } else if (k == "MEMLIMIT") {
    mem_limits(q.mem_limit);
  } else if (k == "SWAPLIMIT") {
    mem_limits(q.swap_limit);
  } else if (k == "FILELIMIT") {
    mem_limits(q.file_limit);
  } else if (k == "DATALIMIT") {
    mem_limits(q.data_limit);
  } else if (k == "STACKLIMIT") {
    mem_limits(q.stack_limit);
  } else if (k == "CORELIMIT") {
    mem_limits(q.core_limit);
  } else if (k == "PROCESSLIMIT") {
    opt_int(q.process_limit, 1);
  } else if (k == "PROCLIMIT") {
    auto r = parse_processor_limit(v);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else
      q.proc_limit = *r;
  } else if (k == "RUN_WINDOW") {
    if (auto w = ctx.windows(v, at, context, k)) q.run_window = *w;
  } else if (k == "DISPATCH_WINDOW") {
    if (auto w = ctx.windows(v, at, context, k)) q.dispatch_window = *w;
  } else if (k == "STOP_COND") {
    cond(q.stop_cond);
  } else if (k == "RESUME_COND") {
    cond(q.resume_cond);
  } else if (k == "PREEMPTION") {
    if (auto p = parse_preemption(v, at, context, ctx)) q.preemption = *p;
  } else if (k == "BACKFILL") {
    flag(q.backfill);
  } else if (parse_planning(k, v, at, context, ctx, q.planning)) {
  } else if (k == "SLOT_RESERVE") {
    if (auto n = ctx.bracketed_int(v, "MAX_RESERVE_TIME", at, context, k)) q.slot_reserve_time = *n;
  } else if (k == "RESOURCE_RESERVE") {
    if (auto n = ctx.bracketed_int(v, "MAX_RESERVE_TIME", at, context, k)) q.resource_reserve_time = *n;
  } else if (k == "EXCLUSIVE") {
    flag(q.exclusive);
  } else if (k == "INTERACTIVE") {
    if (iequals(v, "ONLY"))
      q.interactive = Queue::Interactive::kOnly;
    else if (auto b = ctx.yes_no(v, at, context, k))
      q.interactive = *b ? Queue::Interactive::kYes : Queue::Interactive::kNo;
  } else if (k == "REQUEUE_EXIT_VALUES") {
    auto r = RequeueExitValues::parse(v);
    if (!r)
      ctx.error(at, context, k + ": " + r.error());
    else
      q.requeue_exit_values = *r;
  } else if (k == "LOCAL_MAX_PREEXEC_RETRY_ACTION") {
    if (auto exit = ctx.preexec_retry_action(v, at, context, k)) q.preexec_retry_exit = *exit;
  } else if (k == "PRE_EXEC") {
    q.pre_exec = v;
  } else if (k == "POST_EXEC") {
    q.post_exec = v;
  } else if (k == "PRE_POST_EXEC_USER") {
    q.pre_post_exec_user = v;
  } else if (k == "JOB_STARTER") {
    q.job_starter = v;
  } else if (k == "JOB_CONTROLS") {
    q.job_controls = v;
  } else if (k == "TERMINATE_WHEN") {
    for (const auto& w : split_words(v)) {
      std::string u = to_upper(w);
      if (u != "WINDOW" && u != "LOAD" && u != "PREEMPT")
        ctx.error(at, context, "TERMINATE_WHEN: \"" + w + "\" is not WINDOW, LOAD or PREEMPT");
      else
        q.terminate_when.push_back(u);
    }
  } else if (k == "NICE") {
    if (auto n = ctx.integer(v, at, context, k, -20, 20)) q.nice = static_cast<int>(*n);
  } else if (k == "RERUNNABLE") {
    flag(q.rerunnable);
  } else if (k == "JOB_ACCEPT_INTERVAL") {
    opt_int(q.job_accept_interval, 0);
  } else if (k == "FAIRSHARE") {
    auto r = parse_keyword_shares(v, "USER_SHARES");
    if (!r)
      ctx.error(at, context, "FAIRSHARE: " + r.error());
    else
      q.fairshare = *r;
  } else if (k == "FAIRSHARE_QUEUES") {
    q.fairshare_queues = split_words(v);
  } else if (k == "DISPATCH_ORDER") {
    if (v == "QUEUE")
      q.dispatch_order_queue = true;
    else
      ctx.error(at, context, "DISPATCH_ORDER = " + v + ": the only value is QUEUE");
  } else if (k == "SLOT_POOL") {
    q.slot_pool = v;
    if (v.size() > 60 ||
        v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
      ctx.error(at, context, "SLOT_POOL \"" + v + "\" must be at most 60 characters of letters, digits, _ and -");
  } else if (k == "SLOT_SHARE") {
    if (auto n = ctx.number(v, at, context, k, 0)) {
      if (*n <= 0 || *n > 100)
        ctx.error(at, context, "SLOT_SHARE = " + v + " must be above 0 and at most 100");
      else
        q.slot_share = *n;
    }
  } else if (k == "APS_PRIORITY") {
    auto r = ApsPriority::parse(v);
    if (!r)
      ctx.error(at, context, "APS_PRIORITY: " + r.error());
    else
      q.aps_priority = *r;
  } else if (k == "MAX_SLOTS_IN_POOL") {
    opt_int(q.max_slots_in_pool, 1);
  } else if (k == "USE_PRIORITY_IN_POOL") {
    flag(q.use_priority_in_pool);
  } else if (k == "CPU_TIME_FACTOR") {
    opt_double(q.cpu_time_factor);
  } else if (k == "RUN_TIME_FACTOR") {
    opt_double(q.run_time_factor);
  } else if (k == "RUN_JOB_FACTOR") {
    opt_double(q.run_job_factor);
  } else if (k == "HIST_HOURS") {
    opt_double(q.hist_hours);
  } else if (k == "SLA_GUARANTEES_IGNORE") {
    flag(q.sla_guarantees_ignore);
  } else {
    // The catalogue calls it supported but nothing here reads it: say so rather than
    // drop it (config_keywords_test finds such a keyword before a site does).
    ctx.error(at, context, k + ": supported by the catalogue but not read by the lsb.queues parser (internal error)");
  }
}

}  // namespace

void parse_lsb_queues(const SectionFile& file, FileContext& ctx, std::vector<Queue>& out) {
  for (const auto& s : file.sections) {
    if (!ctx.known_section(s)) continue;
    if (s.table) {
      ctx.diags.error(s.where, "section Queue must be KEY = value lines, not a table");
      continue;
    }
    Queue q;
    q.where = s.where;
    for (const auto& kv : s.entries)
      if (kv.key == "QUEUE_NAME") q.name = kv.value;
    if (q.name.empty()) {
      ctx.diags.error(s.where, "section Queue has no QUEUE_NAME; the queue is ignored");
      continue;
    }
    if (q.name.find_first_of(" \t()[]@") != std::string::npos) {
      ctx.diags.error(s.where, "queue \"" + q.name + "\": QUEUE_NAME may not contain spaces, brackets or @");
      continue;
    }
    bool duplicate = false;
    for (const auto& prior : out) {
      if (prior.name == q.name) {
        ctx.diags.error(s.where, "queue \"" + q.name + "\" is defined twice (first at line " +
                                     std::to_string(prior.where.line) + ")");
        duplicate = true;
      }
    }
    if (duplicate) continue;
    for (const auto& kv : s.entries) {
      q.keys.lines[kv.key] = kv.where;
      if (kv.key == "QUEUE_NAME") continue;
      if (const ParamSpec* spec = ctx.check_key(s, kv.key, kv.where, "queue \"" + q.name + "\""))
        apply(kv, *spec, q, ctx);
    }
    if (q.slot_reserve_time && q.resource_reserve_time) {
      ctx.diags.warning(s.where, "queue \"" + q.name + "\": RESOURCE_RESERVE overrides SLOT_RESERVE, which is ignored");
      q.slot_reserve_time.reset();
    }
    out.push_back(std::move(q));
  }
}

}  // namespace lsf::config
