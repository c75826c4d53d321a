#include "libconfig/diagnostics.h"

namespace lsf::config {

std::string Diagnostic::to_string() const {
  std::string out = where.file;
  if (where.line > 0) out += ":" + std::to_string(where.line);
  out += ": ";
  if (severity == Severity::kWarning) out += "warning: ";
  out += message;
  return out;
}

void Diagnostics::error(const SourceLocation& where, std::string message) {
  items_.push_back({Severity::kError, where, std::move(message)});
  ++errors_;
}

void Diagnostics::warning(const SourceLocation& where, std::string message) {
  items_.push_back({Severity::kWarning, where, std::move(message)});
}

std::string Diagnostics::to_string() const {
  std::string out;
  for (const auto& d : items_) out += d.to_string() + "\n";
  return out;
}

}  // namespace lsf::config
