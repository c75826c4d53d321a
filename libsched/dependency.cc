#include "libsched/dependency.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "libconfig/input_limits.h"
#include "libconfig/text.h"

namespace lsf::sched {

enum class Cond {
  kDone,
  kEnded,
  kExit,
  kStarted,
  kPostDone,
  kPostErr,
  kNumDone,
  kNumEnded,
  kNumExit,
  kNumHold,
  kNumPend,
  kNumRun,
  kNumStart
};

struct DependencyExpr::Node {
  enum class Kind { kAnd, kOr, kNot, kCond } kind = Kind::kCond;
  // kAnd, kOr: every term of one run of `&&` or `||`, so a long flat expression is a wide
  // tree, not a deep one. kNot: its one operand.
  std::vector<std::shared_ptr<const Node>> operands;
  Cond cond = Cond::kDone;
  DependencyRef ref;
  std::string op;             // comparison for exit(, op code) and num*(, op n)
  std::optional<long> value;  // absent with num*(, *): "all elements"
};

namespace {

using Node = DependencyExpr::Node;
using NodePtr = std::shared_ptr<const Node>;

std::optional<Cond> cond_named(std::string_view s) {
  static const std::pair<const char*, Cond> names[] = {
      {"done", Cond::kDone},        {"ended", Cond::kEnded},        {"exit", Cond::kExit},
      {"started", Cond::kStarted},  {"post_done", Cond::kPostDone}, {"post_err", Cond::kPostErr},
      {"numdone", Cond::kNumDone},  {"numended", Cond::kNumEnded},  {"numexit", Cond::kNumExit},
      {"numhold", Cond::kNumHold},  {"numpend", Cond::kNumPend},    {"numrun", Cond::kNumRun},
      {"numstart", Cond::kNumStart}};
  for (auto [n, c] : names)
    if (s == n) return c;
  return std::nullopt;
}

bool is_counter(Cond c) { return c >= Cond::kNumDone; }

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  config::Result<NodePtr> parse() {
    auto e = parse_or();
    if (!e) return e;
    skip();
    if (pos_ != s_.size()) return error("unexpected \"" + std::string(s_.substr(pos_)) + "\"");
    return e;
  }

 private:
  config::Failure error(const std::string& what) { return config::fail("Dependency condition syntax error: " + what); }

  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view t) {
    skip();
    if (s_.substr(pos_, t.size()) == t) {
      pos_ += t.size();
      return true;
    }
    return false;
  }

  // Terms joined by `op` (`&&` or `||`) into one node; a single term is itself.
  template <typename ParseTerm>
  config::Result<NodePtr> parse_run(std::string_view op, Node::Kind kind, ParseTerm parse_term) {
    auto first = parse_term();
    if (!first) return first;
    std::vector<NodePtr> terms{*first};
    while (eat(op)) {
      auto next = parse_term();
      if (!next) return next;
      terms.push_back(*next);
    }
    if (terms.size() == 1) return terms.front();
    return std::make_shared<const Node>(Node{kind, std::move(terms), {}, {}, {}, {}});
  }

  config::Result<NodePtr> parse_or() {
    return parse_run("||", Node::Kind::kOr, [this] { return parse_and(); });
  }

  config::Result<NodePtr> parse_and() {
    return parse_run("&&", Node::Kind::kAnd, [this] { return parse_unary(); });
  }

  // `!` and `(` open a level of nesting: the only places the parser recurses.
  config::Result<NodePtr> parse_unary() {
    const bool negate = eat("!");
    if (negate || eat("(")) {
      if (depth_ >= config::kMaxNesting) return error(config::nests_too_deep("dependency expression"));
      ++depth_;
      auto e = negate ? parse_unary() : parse_or();
      --depth_;
      if (!e) return e;
      if (negate) return std::make_shared<const Node>(Node{Node::Kind::kNot, {*e}, {}, {}, {}, {}});
      if (!eat(")")) return error("missing \")\"");
      return e;
    }
    return parse_condition();
  }

  // A job reference: 123, 123[4], "name with spaces", name*, name[*]
  config::Result<DependencyRef> parse_ref() {
    skip();
    DependencyRef ref;
    if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
      char q = s_[pos_++];
      auto end = s_.find(q, pos_);
      if (end == std::string_view::npos) return error("unterminated quote");
      ref.name = std::string(s_.substr(pos_, end - pos_));
      pos_ = end + 1;
    } else {
      size_t start = pos_;
      while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_])) && s_[pos_] != ',' &&
             s_[pos_] != ')' && s_[pos_] != '(' && s_[pos_] != '&' && s_[pos_] != '|')
        ++pos_;
      ref.name = std::string(s_.substr(start, pos_ - start));
    }
    if (ref.name.empty()) return error("missing job id or name");
    // A plain number, optionally with one [index], is a job id.
    std::string_view n = ref.name;
    std::int32_t index = 0;
    if (auto b = n.find('['); b != std::string_view::npos && n.back() == ']') {
      auto inner = n.substr(b + 1, n.size() - b - 2);
      if (!inner.empty() && std::all_of(inner.begin(), inner.end(), [](char c) { return std::isdigit(c); })) {
        auto i = config::parse_int(inner);
        if (!i || *i > std::numeric_limits<std::int32_t>::max())
          return error("array index in \"" + ref.name + "\" is too large");
        index = static_cast<std::int32_t>(*i);
      } else if (inner != "*") {
        return error("bad array index in \"" + ref.name + "\"");
      }
      n = n.substr(0, b);
    }
    if (!n.empty() && n.size() < 12 && std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(c); })) {
      ref.job_id = std::stoll(std::string(n));
      ref.index = index;
      ref.name.clear();
    }
    return ref;
  }

  config::Result<NodePtr> parse_condition() {
    skip();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string word(s_.substr(start, pos_ - start));
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    auto cond = cond_named(word);
    if (!cond || !eat("(")) {
      // A bare job id or name means done(id).
      pos_ = start;
      auto ref = parse_ref();
      if (!ref) return config::fail(ref.error());
      return std::make_shared<const Node>(Node{Node::Kind::kCond, {}, Cond::kDone, *ref, {}, {}});
    }
    auto ref = parse_ref();
    if (!ref) return config::fail(ref.error());
    Node node{Node::Kind::kCond, {}, *cond, *ref, {}, {}};
    if (eat(",")) {
      if (*cond != Cond::kExit && !is_counter(*cond)) return error(word + "() takes no second argument");
      skip();
      for (const char* op : {">=", "<=", "==", "!=", ">", "<"}) {
        if (eat(op)) {
          node.op = op;
          break;
        }
      }
      skip();
      if (is_counter(*cond) && eat("*")) {
        if (node.op.empty()) node.op = "==";
      } else {
        size_t ns = pos_;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        if (ns == pos_) return error("expected a number in " + word + "()");
        auto v = config::parse_int(s_.substr(ns, pos_ - ns));
        if (!v || *v > std::numeric_limits<long>::max()) return error("number in " + word + "() is too large");
        node.value = static_cast<long>(*v);
        if (node.op.empty()) node.op = "==";
      }
    } else if (is_counter(*cond)) {
      return error(word + "() needs a comparison, e.g. " + word + "(12, >= 5)");
    }
    if (!eat(")")) return error("missing \")\" after " + word + "(");
    return std::make_shared<const Node>(std::move(node));
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

bool compare(long a, const std::string& op, long b) {
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == "!=") return a != b;
  return a == b;
}

using JobPhase = DependencyJob::Phase;
bool finished(JobPhase p) { return p == JobPhase::kDone || p == JobPhase::kExit; }

DependencyState eval_cond(const Node& n, const DependencyLookup& lookup) {
  auto jobs = lookup(n.ref);
  if (jobs.empty()) return DependencyState::kNever;
  auto all = [&](auto pred) { return std::all_of(jobs.begin(), jobs.end(), pred); };
  auto any = [&](auto pred) { return std::any_of(jobs.begin(), jobs.end(), pred); };
  switch (n.cond) {
    case Cond::kDone:
    case Cond::kPostDone:
      if (all([](const auto& j) { return j.phase == JobPhase::kDone; })) return DependencyState::kSatisfied;
      return any([](const auto& j) { return j.phase == JobPhase::kExit; }) ? DependencyState::kNever
                                                                           : DependencyState::kWaiting;
    case Cond::kEnded:
      return all([](const auto& j) { return finished(j.phase); }) ? DependencyState::kSatisfied
                                                                  : DependencyState::kWaiting;
    case Cond::kExit:
    case Cond::kPostErr: {
      if (any([](const auto& j) { return j.phase == JobPhase::kDone; })) return DependencyState::kNever;
      if (!all([](const auto& j) { return j.phase == JobPhase::kExit; })) return DependencyState::kWaiting;
      if (!n.value) return DependencyState::kSatisfied;
      return all([&](const auto& j) { return compare(j.exit_code, n.op, *n.value); }) ? DependencyState::kSatisfied
                                                                                      : DependencyState::kNever;
    }
    case Cond::kStarted:
      return all([](const auto& j) { return j.phase != JobPhase::kPending && j.phase != JobPhase::kHeld; })
                 ? DependencyState::kSatisfied
                 : DependencyState::kWaiting;
    default: {
      auto count = [&](auto pred) { return static_cast<long>(std::count_if(jobs.begin(), jobs.end(), pred)); };
      long c = 0;
      switch (n.cond) {
        case Cond::kNumDone:
          c = count([](const auto& j) { return j.phase == JobPhase::kDone; });
          break;
        case Cond::kNumEnded:
          c = count([](const auto& j) { return finished(j.phase); });
          break;
        case Cond::kNumExit:
          c = count([](const auto& j) { return j.phase == JobPhase::kExit; });
          break;
        case Cond::kNumHold:
          c = count([](const auto& j) { return j.phase == JobPhase::kHeld; });
          break;
        case Cond::kNumPend:
          c = count([](const auto& j) { return j.phase == JobPhase::kPending; });
          break;
        case Cond::kNumRun:
          c = count([](const auto& j) { return j.phase == JobPhase::kRunning; });
          break;
        default:
          c = count([](const auto& j) { return j.phase != JobPhase::kPending && j.phase != JobPhase::kHeld; });
          break;
      }
      long target = n.value ? *n.value : static_cast<long>(jobs.size());
      if (compare(c, n.op, target)) return DependencyState::kSatisfied;
      bool all_ended = all([](const auto& j) { return finished(j.phase); });
      return all_ended ? DependencyState::kNever : DependencyState::kWaiting;
    }
  }
}

DependencyState eval(const Node& n, const DependencyLookup& lookup) {
  using S = DependencyState;
  switch (n.kind) {
    case Node::Kind::kCond:
      return eval_cond(n, lookup);
    case Node::Kind::kNot: {
      S s = eval(*n.operands.front(), lookup);
      return s == S::kSatisfied ? S::kNever : S::kSatisfied;
    }
    case Node::Kind::kAnd:
    case Node::Kind::kOr: {
      // `&&`: never once any term is never, satisfied when all are. `||` the other way.
      const S decides = n.kind == Node::Kind::kAnd ? S::kNever : S::kSatisfied;
      const S unanimous = n.kind == Node::Kind::kAnd ? S::kSatisfied : S::kNever;
      bool all = true;
      for (const auto& term : n.operands) {
        S s = eval(*term, lookup);
        if (s == decides) return decides;
        all = all && s == unanimous;
      }
      return all ? unanimous : S::kWaiting;
    }
  }
  return S::kWaiting;
}

void collect(const Node& n, std::vector<DependencyRef>& out) {
  if (n.kind == Node::Kind::kCond) {
    out.push_back(n.ref);
    return;
  }
  for (const auto& term : n.operands) collect(*term, out);
}

}  // namespace

config::Result<DependencyExpr> DependencyExpr::parse(std::string_view text) {
  if (text.size() > config::kMaxExpressionBytes)
    return config::fail("Dependency condition syntax error: " + config::too_long("dependency expression"));
  auto root = Parser(text).parse();
  if (!root) return config::fail(root.error());
  DependencyExpr e;
  e.root_ = *root;
  return e;
}

DependencyState DependencyExpr::evaluate(const DependencyLookup& lookup) const {
  return root_ ? eval(*root_, lookup) : DependencyState::kSatisfied;
}

std::vector<DependencyRef> DependencyExpr::references() const {
  std::vector<DependencyRef> out;
  if (root_) collect(*root_, out);
  return out;
}

}  // namespace lsf::sched
