// Diagnostics: every error and warning found while reading a configuration, each
// naming the file, the line and the thing (`lsb.queues:42: queue "short": ...`).
//
// Parsing never stops at the first problem; callers collect everything and decide
// at the end (an error anywhere means the configuration is not used).
#pragma once

#include <string>
#include <vector>

namespace lsf::config {

struct SourceLocation {
  std::string file;  // as shown to the admin: a file name, or an include path
  int line = 0;      // 1-based; 0 when the problem concerns the file as a whole
  bool operator==(const SourceLocation&) const = default;
};

enum class Severity { kWarning, kError };

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLocation where;
  std::string message;

  // `file:line: message` (or `file: message` when there is no line).
  std::string to_string() const;
};

class Diagnostics {
 public:
  void error(const SourceLocation& where, std::string message);
  void warning(const SourceLocation& where, std::string message);

  const std::vector<Diagnostic>& items() const { return items_; }
  int error_count() const { return errors_; }
  int warning_count() const { return static_cast<int>(items_.size()) - errors_; }
  bool has_errors() const { return errors_ > 0; }

  // Every diagnostic, one per line, errors and warnings in the order found.
  std::string to_string() const;

 private:
  std::vector<Diagnostic> items_;
  int errors_ = 0;
};

}  // namespace lsf::config
