#include "cli/bhosts_exports.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/output_format.h"

namespace lsf::cli {
namespace {

std::string megabytes_or_dash(std::int64_t mb) { return mb > 0 ? std::to_string(mb) + "M" : "-"; }

// How the consumer holds what it gets: some slots of a host, a whole host, or slots that
// float between the clusters (TYPE=shared).
std::string lease_type(const wire::ExportedHost& h) {
  if (h.shared()) return "shared";
  return h.whole_host() ? "host" : "slots";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void print_host_json(const wire::ExportsReply& reply) {
  static constexpr FieldDef kFields[] = {{"host_name", "", 0}, {"consumer", "", 0}, {"type", "", 0},  {"slots", "", 0},
                                         {"mem", "", 0},       {"swp", "", 0},      {"status", "", 0}};
  OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<Row> rows;
  for (const auto& h : reply.hosts())
    rows.push_back({h.host(), h.consumer(), lease_type(h), std::to_string(h.slots()), megabytes_or_dash(h.mem_mb()),
                    megabytes_or_dash(h.swp_mb()), h.status()});
  print_json(std::cout, format, kFields, rows, "bhosts", "HOSTS");
}

void print_resource_json(const wire::ExportsReply& reply) {
  static constexpr FieldDef kFields[] = {
      {"resource", "", 0}, {"consumer", "", 0}, {"instances", "", 0}, {"status", "", 0}};
  OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<Row> rows;
  for (const auto& r : reply.resources()) rows.push_back({r.name(), r.consumer(), number(r.instances()), r.status()});
  print_json(std::cout, format, kFields, rows, "bhosts", "RESOURCES");
}

}  // namespace

int print_exports(Session& session, bool resources, bool json) {
  wire::RequestEnvelope req;
  req.mutable_exports();
  const auto reply = require_ok("bhosts", session.call(req)).exports();
  if (json) {
    resources ? print_resource_json(reply) : print_host_json(reply);
    return 0;
  }
  if (resources) {
    if (reply.resources().empty()) {
      std::fprintf(stderr, "No resources exported to other clusters\n");
      return 255;
    }
    std::printf("RESOURCE             CONSUMER              INSTANCES STATUS\n");
    for (const auto& r : reply.resources())
      std::printf("%-20s %-20s %10s %s\n", r.name().c_str(), r.consumer().c_str(), number(r.instances()).c_str(),
                  r.status().c_str());
    return 0;
  }
  if (reply.hosts().empty()) {
    std::fprintf(stderr, "No hosts exported to other clusters\n");
    return 255;
  }
  std::printf("HOST_NAME          CONSUMER             TYPE     SLOTS      MEM      SWP STATUS\n");
  for (const auto& h : reply.hosts())
    std::printf("%-18s %-20s %-6s %7d %8s %8s %s\n", h.host().c_str(), h.consumer().c_str(), lease_type(h).c_str(),
                h.slots(), megabytes_or_dash(h.mem_mb()).c_str(), megabytes_or_dash(h.swp_mb()).c_str(),
                h.status().c_str());
  return 0;
}

}  // namespace lsf::cli
