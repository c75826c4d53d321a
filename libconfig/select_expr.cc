#include "libconfig/select_expr.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <optional>
#include <vector>

#include "libconfig/input_limits.h"
#include "libconfig/load_index.h"
#include "libconfig/text.h"

namespace lsf::config {

struct SelectExpr::Node {
  // kBinary is a comparison of left and right. kChain is `a && b && ...`, `a || b ...`,
  // `a + b - c ...` or `a * b / c ...`: one node for a whole run of operators of one
  // precedence, so that a long flat expression is a wide tree, not a deep one.
  enum class Kind { kNumber, kString, kName, kDefined, kNot, kNeg, kBinary, kChain };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string text;  // name, string literal, or operator
  // A binary operator as a code, worked out once when parsed: a pass evaluates an
  // expression on every host.
  enum class Op { kOther, kOr, kAnd, kEq, kNe, kLt, kGt, kLe, kGe, kAdd, kSub, kMul, kDiv };
  Op op = Op::kOther;
  // A name that is `type` or `model` (attribute), or `any` or `local` (keyword): what
  // `type==any` and `model==local` need, worked out when parsed rather than compared
  // as text on every host.
  bool attribute = false, keyword = false;
  std::shared_ptr<const Node> left, right;
  // kChain: ops[i] joins operands[i + 1] to what comes before it; all of one precedence.
  std::vector<std::shared_ptr<const Node>> operands;
  std::vector<Op> ops;
};

namespace {

using Node = SelectExpr::Node;
using NodePtr = std::shared_ptr<const Node>;

NodePtr make_leaf(Node::Kind kind, std::string text, double number = 0) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->text = std::move(text);
  n->number = number;
  if (kind == Node::Kind::kName) {
    n->attribute = n->text == "type" || n->text == "model";
    n->keyword = n->text == "any" || n->text == "local";
  }
  return n;
}

constexpr std::pair<std::string_view, Node::Op> kOps[] = {
    {"||", Node::Op::kOr}, {"&&", Node::Op::kAnd}, {"==", Node::Op::kEq}, {"!=", Node::Op::kNe},
    {"<", Node::Op::kLt},  {">", Node::Op::kGt},   {"<=", Node::Op::kLe}, {">=", Node::Op::kGe},
    {"+", Node::Op::kAdd}, {"-", Node::Op::kSub},  {"*", Node::Op::kMul}, {"/", Node::Op::kDiv}};

Node::Op op_code(std::string_view text) {
  for (const auto& [t, code] : kOps)
    if (text == t) return code;
  return Node::Op::kOther;
}

std::string_view op_text(Node::Op op) {
  for (const auto& [t, code] : kOps)
    if (op == code) return t;
  return {};
}

NodePtr make_op(Node::Kind kind, std::string op, NodePtr l, NodePtr r) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->text = std::move(op);
  n->op = op_code(n->text);
  n->left = std::move(l);
  n->right = std::move(r);
  return n;
}

// Operands joined by operators of one precedence; one operand is itself.
class ChainBuilder {
 public:
  explicit ChainBuilder(NodePtr first) { operands_.push_back(std::move(first)); }
  void add(Node::Op op, NodePtr operand) {
    ops_.push_back(op);
    operands_.push_back(std::move(operand));
  }
  NodePtr build() && {
    if (ops_.empty()) return std::move(operands_.front());
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kChain;
    n->op = ops_.front();
    n->text = std::string(op_text(n->op));
    n->operands = std::move(operands_);
    n->ops = std::move(ops_);
    return n;
  }

 private:
  std::vector<NodePtr> operands_;
  std::vector<Node::Op> ops_;
};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }
bool is_word(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_name_char); }
bool is_name(std::string_view s) { return is_word(s) && is_name_start(s.front()); }

// The character at `pos` as an error message quotes it: the whole UTF-8 sequence it
// starts, or "\xNN" for a control byte or one that starts no valid sequence. Messages
// reach commands in protobuf strings, which must be valid UTF-8 to be read at all.
std::string quoted_char(std::string_view s, size_t pos) {
  auto byte = [&](size_t i) { return pos + i < s.size() ? static_cast<unsigned char>(s[pos + i]) : 0u; };
  const unsigned b = byte(0);
  // The sequence's length, and the range its second byte must fall in (RFC 3629: no
  // overlong forms, no surrogates, nothing past U+10FFFF).
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (b >= 0x20 && b < 0x7F) {
    n = 1;
  } else if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    lo = b == 0xE0 ? 0xA0 : 0x80;
    hi = b == 0xED ? 0x9F : 0xBF;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    lo = b == 0xF0 ? 0x90 : 0x80;
    hi = b == 0xF4 ? 0x8F : 0xBF;
  }
  bool valid = n > 0;
  for (size_t i = 1; valid && i < n; ++i) {
    const unsigned c = byte(i);
    valid = i == 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xBF;
  }
  if (valid) return std::string(s.substr(pos, n));
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<NodePtr> parse() {
    auto n = parse_or();
    if (!n) return n;
    skip();
    if (pos_ < s_.size()) return fail("unexpected \"" + std::string(s_.substr(pos_)) + "\" in select expression");
    return n;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(std::string_view tok) {
    skip();
    return s_.substr(pos_, tok.size()) == tok;
  }
  bool eat(std::string_view tok) {
    if (!peek(tok)) return false;
    pos_ += tok.size();
    return true;
  }

  // One level of nesting for the rest of the enclosing parse_*; refuses past the limit.
  class Level {
   public:
    explicit Level(int& depth) : depth_(depth) { ++depth_; }
    ~Level() { --depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    bool too_deep() const { return depth_ > kMaxNesting; }

   private:
    int& depth_;
  };

  Result<NodePtr> parse_or() {
    auto first = parse_and();
    if (!first) return first;
    ChainBuilder chain(*first);
    while (eat("||")) {
      auto r = parse_and();
      if (!r) return r;
      chain.add(Node::Op::kOr, *r);
    }
    return std::move(chain).build();
  }
  Result<NodePtr> parse_and() {
    auto first = parse_not();
    if (!first) return first;
    ChainBuilder chain(*first);
    while (eat("&&")) {
      auto r = parse_not();
      if (!r) return r;
      chain.add(Node::Op::kAnd, *r);
    }
    return std::move(chain).build();
  }
  Result<NodePtr> parse_not() {
    skip();
    if (peek("!") && !peek("!=")) {
      ++pos_;
      Level level(depth_);
      if (level.too_deep()) return fail(nests_too_deep("select[]"));
      auto n = parse_not();
      if (!n) return n;
      return make_op(Node::Kind::kNot, "!", *n, nullptr);
    }
    return parse_cmp();
  }
  Result<NodePtr> parse_cmp() {
    auto l = parse_sum();
    if (!l) return l;
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">", "="}) {
      if (eat(op)) {
        auto r = parse_sum();
        if (!r) return r;
        return make_op(Node::Kind::kBinary, op == "=" ? "==" : std::string(op), *l, *r);
      }
    }
    return l;
  }
  Result<NodePtr> parse_sum() {
    auto first = parse_product();
    if (!first) return first;
    ChainBuilder chain(*first);
    while (true) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) break;
      Node::Op op = s_[pos_++] == '+' ? Node::Op::kAdd : Node::Op::kSub;
      auto r = parse_product();
      if (!r) return r;
      chain.add(op, *r);
    }
    return std::move(chain).build();
  }
  Result<NodePtr> parse_product() {
    auto first = parse_unary();
    if (!first) return first;
    ChainBuilder chain(*first);
    while (true) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/')) break;
      Node::Op op = s_[pos_++] == '*' ? Node::Op::kMul : Node::Op::kDiv;
      auto r = parse_unary();
      if (!r) return r;
      chain.add(op, *r);
    }
    return std::move(chain).build();
  }
  Result<NodePtr> parse_unary() {
    if (eat("-")) {
      Level level(depth_);
      if (level.too_deep()) return fail(nests_too_deep("select[]"));
      auto n = parse_unary();
      if (!n) return n;
      return make_op(Node::Kind::kNeg, "-", *n, nullptr);
    }
    if (peek("!") && !peek("!=")) return parse_not();
    return parse_primary();
  }
  Result<NodePtr> parse_primary() {
    skip();
    if (pos_ >= s_.size()) return fail("select expression ends where a value is expected");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      Level level(depth_);
      if (level.too_deep()) return fail(nests_too_deep("select[]"));
      auto n = parse_or();
      if (!n) return n;
      if (!eat(")")) return fail("missing ')' in select expression");
      return n;
    }
    if (c == '"' || c == '\'') {
      size_t end = s_.find(c, pos_ + 1);
      if (end == std::string_view::npos) return fail("unterminated string in select expression");
      // A bracket would end the select[] it is printed in.
      if (s_.substr(pos_, end - pos_).find_first_of("[]") != std::string_view::npos)
        return fail("a string in a select expression cannot hold '[' or ']'");
      auto n = make_leaf(Node::Kind::kString, std::string(s_.substr(pos_ + 1, end - pos_ - 1)));
      pos_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        size_t save = pos_++;
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
          while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        } else {
          pos_ = save;
        }
      }
      // A value like `10.0.0.1` or `4x` is a name-like literal, not a number.
      if (pos_ < s_.size() && is_name_char(s_[pos_])) {
        while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
        return make_leaf(Node::Kind::kName, std::string(s_.substr(start, pos_ - start)));
      }
      auto v = parse_double(s_.substr(start, pos_ - start));
      if (!v) return fail("bad number \"" + std::string(s_.substr(start, pos_ - start)) + "\"");
      return make_leaf(Node::Kind::kNumber, std::string(s_.substr(start, pos_ - start)), *v);
    }
    if (is_name_start(c)) {
      size_t start = pos_;
      while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
      std::string name(s_.substr(start, pos_ - start));
      if (name == "defined") {
        if (!eat("(")) return fail("expected '(' after defined");
        skip();
        size_t nstart = pos_;
        while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
        std::string arg(s_.substr(nstart, pos_ - nstart));
        if (arg.empty() || !eat(")")) return fail("defined() takes one resource name");
        return make_leaf(Node::Kind::kDefined, arg);
      }
      return make_leaf(Node::Kind::kName, name);
    }
    return fail("unexpected '" + quoted_char(s_, pos_) + "' in select expression");
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// `r15m=1.5:mem=20:-ultrix`, the select syntax before LSF 6.
Result<NodePtr> parse_old_syntax(std::string_view text) {
  std::optional<ChainBuilder> all;
  auto add = [&](NodePtr n) {
    if (all)
      all->add(Node::Op::kAnd, std::move(n));
    else
      all.emplace(std::move(n));
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t colon = text.find(':', start);
    std::string term(trim(text.substr(start, colon == std::string_view::npos ? colon : colon - start)));
    start = colon == std::string_view::npos ? text.size() + 1 : colon + 1;
    if (term.empty()) return fail("empty term in \"" + std::string(text) + "\"");
    if (term == "-") {
      add(make_op(Node::Kind::kBinary, "==", make_leaf(Node::Kind::kName, "type"),
                  make_leaf(Node::Kind::kName, "any")));
      continue;
    }
    // "defined" names the function defined(r), never a resource: as a bare name it
    // would print as something that does not read back.
    auto resource_name = [](const std::string& n) { return is_name(n) && n != "defined"; };
    if (term.front() == '-') {
      if (!resource_name(term.substr(1))) return fail("bad term \"" + term + "\" in select expression");
      add(make_op(Node::Kind::kNot, "!", make_leaf(Node::Kind::kName, term.substr(1)), nullptr));
      continue;
    }
    size_t eq = term.find('=');
    if (eq == std::string::npos) {
      auto n = Parser(term).parse();
      if (!n) return n;
      add(*n);
      continue;
    }
    std::string name(trim(std::string_view(term).substr(0, eq)));
    std::string value(trim(std::string_view(term).substr(eq + 1)));
    if (!value.empty() && value.front() == '+') value.erase(0, 1);  // the new syntax has no unary +
    // The value as the new syntax reads it, which must be one name or number (negative
    // allowed): what to_string() prints must read back, with the same meaning.
    auto as_new = Parser(value).parse();
    if (!resource_name(name) || !as_new) return fail("bad term \"" + term + "\" in select expression");
    const Node& v = **as_new;
    const bool negative = v.kind == Node::Kind::kNeg && v.left->kind == Node::Kind::kNumber;
    if (v.kind != Node::Kind::kName && v.kind != Node::Kind::kNumber && !negative)
      return fail("bad term \"" + term + "\" in select expression");
    std::optional<double> number;
    if (v.kind == Node::Kind::kNumber) number = v.number;
    if (negative) number = -v.left->number;
    std::string op = "==";
    if (number) {
      auto index = find_load_index(name);
      op = index && load_index_info(*index).increasing ? "<=" : ">=";
    }
    add(make_op(Node::Kind::kBinary, op, make_leaf(Node::Kind::kName, name),
                number ? make_leaf(Node::Kind::kNumber, value, *number) : make_leaf(Node::Kind::kName, value)));
  }
  return std::move(*all).build();  // the loop adds at least one term or fails
}

struct Evaluator {
  using Kind = SelectValue::Kind;
  const SelectHost& host;
  const SelectContext& ctx;

  SelectValue value(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::kNumber:
        return SelectValue::of(n.number);
      case Node::Kind::kString:
        return SelectValue::of(std::string_view(n.text));
      case Node::Kind::kName:
        return host.value(n.text);
      case Node::Kind::kDefined:
        return SelectValue::of(host.value(n.text).kind == Kind::kNone ? 0.0 : 1.0);
      case Node::Kind::kNot:
        return SelectValue::of(truth(*n.left) ? 0.0 : 1.0);
      case Node::Kind::kNeg: {
        auto v = value(*n.left);
        if (v.kind == Kind::kNumber) return SelectValue::of(-v.number);
        return {};
      }
      case Node::Kind::kBinary:
        return binary(n);
      case Node::Kind::kChain:
        return chain(n);
    }
    return {};
  }

  // Left to right in a loop, stopping early where the outcome is known.
  SelectValue chain(const Node& n) const {
    using Op = Node::Op;
    if (n.op == Op::kAnd || n.op == Op::kOr) {
      const bool any = n.op == Op::kOr;
      for (const auto& operand : n.operands)
        if (truth(*operand) == any) return boolean(any);
      return boolean(!any);
    }
    auto acc = value(*n.operands.front());
    for (size_t i = 0; i < n.ops.size() && acc.kind == Kind::kNumber; ++i) {
      auto r = value(*n.operands[i + 1]);
      if (r.kind != Kind::kNumber) return {};
      acc = arithmetic(n.ops[i], acc.number, r.number);
    }
    return acc.kind == Kind::kNumber ? acc : SelectValue{};
  }

  static SelectValue arithmetic(Node::Op op, double a, double b) {
    switch (op) {
      case Node::Op::kAdd:
        return SelectValue::of(a + b);
      case Node::Op::kSub:
        return SelectValue::of(a - b);
      case Node::Op::kMul:
        return SelectValue::of(a * b);
      case Node::Op::kDiv:
        return b == 0 ? SelectValue{} : SelectValue::of(a / b);
      default:
        return {};
    }
  }

  bool truth(const Node& n) const {
    auto v = value(n);
    if (v.kind == Kind::kNumber) return v.number != 0;
    return v.kind == Kind::kText;  // a string resource the host has
  }

  static SelectValue boolean(bool b) { return SelectValue::of(b ? 1.0 : 0.0); }

  // A comparison.
  SelectValue binary(const Node& n) const {
    using Op = Node::Op;
    auto l = value(*n.left);
    auto r = value(*n.right);
    if (n.op == Op::kEq || n.op == Op::kNe) {
      bool eq = false;
      if (!string_equal(*n.left, l, *n.right, r, &eq)) return {};
      return boolean((n.op == Op::kEq) == eq);
    }
    if (l.kind != Kind::kNumber || r.kind != Kind::kNumber) return {};
    const double a = l.number, b = r.number;
    switch (n.op) {
      case Op::kLt:
        return boolean(a < b);
      case Op::kGt:
        return boolean(a > b);
      case Op::kLe:
        return boolean(a <= b);
      case Op::kGe:
        return boolean(a >= b);
      default:
        return {};
    }
  }

  // Equality with LSF's reading of bare words; returns false when undecidable.
  bool string_equal(const Node& ln, SelectValue l, const Node& rn, SelectValue r, bool* eq) const {
    // `type==any`, `model==any`, `type==local`, `model==local` are keywords, not values.
    if (ln.attribute && rn.keyword) {
      const auto& local = ln.text == "type" ? ctx.local_type : ctx.local_model;
      *eq = rn.text == "any" || !local || (l.kind == Kind::kText && l.text == *local);
      return true;
    }
    auto literal = [](const Node& node, SelectValue& v) {
      if (v.kind == Kind::kNone && node.kind == Node::Kind::kName) v = SelectValue::of(std::string_view(node.text));
    };
    if (l.kind == Kind::kText) literal(rn, r);
    if (r.kind == Kind::kText) literal(ln, l);
    if (l.kind == Kind::kText && r.kind == Kind::kText) {
      *eq = l.text == r.text;
      return true;
    }
    if (l.kind == Kind::kNumber && r.kind == Kind::kNumber) {
      *eq = l.number == r.number;
      return true;
    }
    return false;
  }
};

// A ResourceLookup read as a SelectHost: the values it returns are kept while the
// expression is evaluated, so views into their strings stay valid.
class LookupHost final : public SelectHost {
 public:
  explicit LookupHost(const ResourceLookup& lookup) : lookup_(lookup) {}
  SelectValue value(std::string_view name) const override {
    const ResourceValue& v = kept_.emplace_back(lookup_(name));
    if (const double* d = std::get_if<double>(&v)) return SelectValue::of(*d);
    if (const std::string* t = std::get_if<std::string>(&v)) return SelectValue::of(std::string_view(*t));
    return {};
  }

 private:
  const ResourceLookup& lookup_;
  mutable std::deque<ResourceValue> kept_;
};

int rank(Node::Op op) {
  switch (op) {
    case Node::Op::kOr:
      return 1;
    case Node::Op::kAnd:
      return 2;
    case Node::Op::kAdd:
    case Node::Op::kSub:
      return 4;
    case Node::Op::kMul:
    case Node::Op::kDiv:
      return 5;
    default:
      return 3;  // comparisons
  }
}

bool needs_parens(const Node& child, Node::Op parent) {
  if (child.kind != Node::Kind::kBinary && child.kind != Node::Kind::kChain) return false;
  return rank(child.op) < rank(parent) || (rank(child.op) == 3 && rank(parent) == 3);
}

std::string format(const Node& n);

// Within a chain of one precedence, an operand of that same precedence was written in
// parentheses; they matter after `-` and `/`.
std::string format_operand(const Node& child, Node::Op parent, bool after_minus_or_div) {
  std::string out = format(child);
  const bool same = child.kind == Node::Kind::kChain && rank(child.op) == rank(parent);
  if (needs_parens(child, parent) || (after_minus_or_div && same)) out = "(" + out + ")";
  return out;
}

std::string format(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kNumber:
      return n.text;
    case Node::Kind::kString: {
      // Written in whichever quotes it does not hold (the parser allows either).
      const char quote = n.text.find('"') == std::string::npos ? '"' : '\'';
      return quote + n.text + quote;
    }
    case Node::Kind::kName:
      return n.text;
    case Node::Kind::kDefined:
      return "defined(" + n.text + ")";
    case Node::Kind::kNot:
    case Node::Kind::kNeg: {
      std::string inner = format(*n.left);
      if (n.left->kind == Node::Kind::kBinary || n.left->kind == Node::Kind::kChain) inner = "(" + inner + ")";
      return n.text + inner;
    }
    case Node::Kind::kBinary:
      return format_operand(*n.left, n.op, false) + n.text + format_operand(*n.right, n.op, false);
    case Node::Kind::kChain: {
      std::string out = format_operand(*n.operands.front(), n.op, false);
      for (size_t i = 0; i < n.ops.size(); ++i) {
        const Node::Op op = n.ops[i];
        const bool spaced = op == Node::Op::kAnd || op == Node::Op::kOr;
        std::string text(op_text(op));
        out += spaced ? " " + text + " " : text;
        out += format_operand(*n.operands[i + 1], op, op == Node::Op::kSub || op == Node::Op::kDiv);
      }
      return out;
    }
  }
  return {};
}

void walk_names(const Node& n, const std::function<void(const std::string&)>& f) {
  if (n.kind == Node::Kind::kName || n.kind == Node::Kind::kDefined) f(n.text);
  if (n.left) walk_names(*n.left, f);
  if (n.right) walk_names(*n.right, f);
  for (const auto& operand : n.operands) walk_names(*operand, f);
}

bool is_old_syntax(std::string_view text) {
  // Old syntax uses ':' between terms and none of the new operators.
  if (text.find(':') == std::string_view::npos) return false;
  for (std::string_view op : {"&&", "||", "==", "!=", "<", ">", "(", "["})
    if (text.find(op) != std::string_view::npos) return false;
  return true;
}

}  // namespace

Result<SelectExpr> SelectExpr::parse(std::string_view text) {
  text = trim(text);
  if (text.empty()) return SelectExpr{};
  if (text.size() > kMaxExpressionBytes) return fail(too_long("select[]"));
  auto root = is_old_syntax(text) ? parse_old_syntax(text) : Parser(text).parse();
  if (!root) return fail(root.error());
  return SelectExpr(*root);
}

bool SelectExpr::matches(const ResourceLookup& lookup, const SelectContext& ctx) const {
  if (!root_) return true;
  const LookupHost host(lookup);
  return Evaluator{host, ctx}.truth(*root_);
}

bool SelectExpr::matches(const SelectHost& host, const SelectContext& ctx) const {
  if (!root_) return true;
  return Evaluator{host, ctx}.truth(*root_);
}

std::string SelectExpr::to_string() const { return root_ ? format(*root_) : std::string(); }

SelectExpr SelectExpr::both(const SelectExpr& a, const SelectExpr& b) {
  if (!a.root_) return b;
  if (!b.root_) return a;
  ChainBuilder all(a.root_);
  all.add(Node::Op::kAnd, b.root_);
  return SelectExpr(std::move(all).build());
}

void SelectExpr::for_each_name(const std::function<void(const std::string&)>& f) const {
  if (root_) walk_names(*root_, f);
}

}  // namespace lsf::config
