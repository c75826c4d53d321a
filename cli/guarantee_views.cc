#include "cli/guarantee_views.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/output_format.h"

namespace lsf::cli {
namespace {

std::string status_of(const wire::GuaranteePoolInfo& p) { return p.overcommitted() ? "overcommitted" : "ok"; }

// What the pool's owners are guaranteed, and the part of it their jobs use.
std::pair<int, int> guarantees(const wire::GuaranteePoolInfo& p) {
  int config = 0, used = 0;
  for (const auto& o : p.owners()) {
    config += o.guaranteed();
    used += std::min(o.used(), o.guaranteed());
  }
  return {config, used};
}

// "package[slots=1:mem=1000]" -> "package": the one-line view's TYPE column.
std::string kind_of(const std::string& type) { return type.substr(0, type.find('[')); }

std::string memory(double mb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fG", mb / 1024);
  return buf;
}

__attribute__((format(printf, 1, 2))) std::string line(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

}  // namespace

void print_guarantee_pools(std::ostream& out, const wire::GuaranteePoolsReply& reply, bool long_form, bool hosts) {
  if (!long_form) {
    out << "POOL_NAME            TYPE       STATUS            TOTAL      FREE  GUAR_CONFIG  GUAR_USED\n";
    for (const auto& p : reply.pools()) {
      auto [config, used] = guarantees(p);
      out << line("%-20s %-10s %-13s %9d %9d %12d %10d\n", p.name().c_str(), kind_of(p.type()).c_str(),
                  status_of(p).c_str(), p.total(), p.free(), config, used);
    }
    return;
  }
  bool first = true;
  for (const auto& p : reply.pools()) {
    if (!first) out << "\n";
    first = false;
    out << "GUARANTEED RESOURCE POOL: " << p.name() << "\n";
    if (!p.description().empty()) out << p.description() << "\n";
    out << "\nTYPE: " << p.type() << "\nDISTRIBUTION: " << p.distribution() << "\n";
    if (!p.loan_policies().empty()) out << "LOAN_POLICIES: " << p.loan_policies() << "\n";
    std::string names;
    for (const auto& h : p.hosts())
      if (h.available()) names += (names.empty() ? "" : " ") + h.name();
    out << "HOSTS: " << names << "\nSTATUS: " << status_of(p) << "\n\nRESOURCE SUMMARY:\n";
    out << line("%-30s %10s %10s %10s\n", "", "slots", "mem", "packages");
    out << line("%-30s %10d %10s %10d\n", "TOTAL", p.slots_total(), memory(p.mem_total_mb()).c_str(), p.total());
    out << line("%-30s %10d %10s %10d\n", "FREE", p.slots_free(), memory(p.mem_free_mb()).c_str(), p.free());
    const int config = guarantees(p).first;
    // What `packages` guaranteed packages come to in slots and memory; "-" for the part
    // the package does not have.
    auto slots_of = [&](int packages) {
      return p.package_slots() > 0 ? std::to_string(packages * p.package_slots()) : std::string("-");
    };
    auto mem_of = [&](int packages) {
      return p.package_mem_mb() > 0 ? memory(static_cast<double>(packages * p.package_mem_mb())) : std::string("-");
    };
    out << "\n"
        << line("%-30s %10s %10s %10d\n", "ALLOCATED", slots_of(config).c_str(), mem_of(config).c_str(), config)
        << "\n";
    for (const auto& [label, u] :
         {std::pair{"OWNER USE", &p.owner_use()}, {"LOAN USE", &p.loan_use()}, {"OTHER USE", &p.other_use()}})
      out << line("%-30s %10d %10s %10s\n", label, u->slots(), memory(u->mem_mb()).c_str(), "-");
    out << "\n"
        << line("%-32s %8s %10s %10s %10s %10s\n", "", "", "", "OWNER", "LOAN", "OTHER")
        << line("%-32s %8s %10s %10s %10s %10s\n", "OWNER", "RESOURCE", "ALLOCATED", "USE", "USE", "USE");
    for (const auto& o : p.owners()) {
      out << line("%-32s %8s %10s %10d %10d %10d\n", o.service_class().c_str(), "slots",
                  slots_of(o.guaranteed()).c_str(), o.use().slots(), p.loan_use().slots(), p.other_use().slots());
      if (p.package_mem_mb() > 0)
        out << line("%-32s %8s %10s %10s %10s %10s\n", "", "mem", mem_of(o.guaranteed()).c_str(),
                    memory(o.use().mem_mb()).c_str(), memory(p.loan_use().mem_mb()).c_str(),
                    memory(p.other_use().mem_mb()).c_str());
      out << line("%-32s %8s %10d %10d %10s %10s\n", "", "packages", o.guaranteed(), o.used(), "-", "-");
    }
    if (hosts) {
      out << "\n" << line("%-30s %-13s %10s %10s\n", "HOST", "STATUS", "TOTAL", "FREE");
      for (const auto& h : p.hosts())
        out << line("%-30s %-13s %10d %10d\n", h.name().c_str(), h.available() ? "ok" : "unavail", h.total(), h.free());
    }
  }
}

void print_guarantee_pools_json(std::ostream& out, const wire::GuaranteePoolsReply& reply) {
  static constexpr FieldDef kFields[] = {
      {"pool_name", "", 0},   {"type", "", 0},      {"status", "", 0},       {"total", "", 0},         {"free", "", 0},
      {"guar_config", "", 0}, {"guar_used", "", 0}, {"distribution", "", 0}, {"loan_policies", "", 0}, {"hosts", "", 0},
  };
  OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<Row> rows;
  for (const auto& p : reply.pools()) {
    auto [config, used] = guarantees(p);
    std::string names;
    for (const auto& h : p.hosts())
      if (h.available()) names += (names.empty() ? "" : " ") + h.name();
    rows.push_back({p.name(), p.type(), status_of(p), std::to_string(p.total()), std::to_string(p.free()),
                    std::to_string(config), std::to_string(used), p.distribution(), p.loan_policies(), names});
  }
  print_json(out, format, kFields, rows, "bresources", "POOLS");
}

void print_service_classes(std::ostream& out, const wire::GuaranteePoolsReply& reply) {
  bool first = true;
  for (const auto& c : reply.classes()) {
    if (!first) out << "\n";
    first = false;
    out << "SERVICE CLASS NAME:  " << c.name() << "\n";
    if (!c.description().empty()) out << " -- " << c.description() << "\n";
    if (!c.access_control().empty()) out << "ACCESS CONTROL:      " << c.access_control() << "\n";
    out << "AUTO ATTACH:         " << (c.auto_attach() ? "Y" : "N") << "\n\nGOAL:                " << c.goals()
        << "\n\n";
    out << line("%-20s %-10s %10s %10s\n", "POOL NAME", "TYPE", "GUARANTEED", "USED");
    for (const auto& p : reply.pools())
      for (const auto& o : p.owners())
        if (o.service_class() == c.name())
          out << line("%-20s %-10s %10d %10d\n", p.name().c_str(), kind_of(p.type()).c_str(), o.guaranteed(), o.used());
    out << "\n" << line("%6s %6s %6s %6s\n", "NJOBS", "PEND", "RUN", "SUSP");
    out << line("%6d %6d %6d %6d\n", c.pending() + c.running() + c.suspended(), c.pending(), c.running(),
                c.suspended());
  }
}

void print_service_classes_json(std::ostream& out, const wire::GuaranteePoolsReply& reply) {
  static constexpr FieldDef kFields[] = {
      {"service_class_name", "", 0},
      {"goal", "", 0},
      {"access_control", "", 0},
      {"auto_attach", "", 0},
      {"description", "", 0},
      {"pools", "", 0},
      {"njobs", "", 0},
      {"pend", "", 0},
      {"run", "", 0},
      {"susp", "", 0},
  };
  OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<Row> rows;
  for (const auto& c : reply.classes()) {
    std::string pools;  // pool:guaranteed/used ...
    for (const auto& p : reply.pools())
      for (const auto& o : p.owners())
        if (o.service_class() == c.name())
          pools += (pools.empty() ? "" : " ") + p.name() + ":" + std::to_string(o.guaranteed()) + "/" +
                   std::to_string(o.used());
    rows.push_back({c.name(), c.goals(), c.access_control(), c.auto_attach() ? "Y" : "N", c.description(), pools,
                    std::to_string(c.pending() + c.running() + c.suspended()), std::to_string(c.pending()),
                    std::to_string(c.running()), std::to_string(c.suspended())});
  }
  print_json(out, format, kFields, rows, "bsla", "SERVICE_CLASSES");
}

}  // namespace lsf::cli
