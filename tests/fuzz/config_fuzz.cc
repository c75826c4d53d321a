// One configuration file of any kind, the kind picked by the first byte, read as the
// loader reads it: preprocessing (#if, #INCLUDE, continuations), sections, the file's
// own parser, then the cross-file checks over what it gave.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libconfig/file_parsers.h"
#include "libconfig/semantic_checks.h"

namespace {

using namespace lsf::config;

constexpr std::string_view kKinds[] = {"lsf.conf",      "lsf.shared",         "lsf.cluster",      "lsf.task",
                                       "lsb.params",    "lsb.queues",         "lsb.hosts",        "lsb.users",
                                       "lsb.resources", "lsb.serviceclasses", "lsb.applications", "lsb.modules"};

void parse(std::string_view kind, const std::vector<LogicalLine>& lines, Diagnostics& diags, ClusterConfig& cfg) {
  FileContext ctx{kind, diags};
  if (kind == "lsf.conf") return parse_lsf_conf(lines, ctx, cfg.lsf_conf);
  const SectionFile file = read_sections(lines, diags);
  if (kind == "lsf.shared") return parse_lsf_shared(file, ctx, cfg);
  if (kind == "lsf.cluster") return parse_lsf_cluster(file, ctx, cfg);
  if (kind == "lsf.task") return parse_lsf_task(file, ctx);
  if (kind == "lsb.params") return parse_lsb_params(file, ctx, cfg.params);
  if (kind == "lsb.queues") return parse_lsb_queues(file, ctx, cfg.queues);
  if (kind == "lsb.hosts") return parse_lsb_hosts(file, ctx, cfg);
  if (kind == "lsb.users") return parse_lsb_users(file, ctx, cfg);
  if (kind == "lsb.resources") return parse_lsb_resources(file, ctx, cfg);
  if (kind == "lsb.serviceclasses") return parse_lsb_serviceclasses(file, ctx, cfg.service_classes);
  if (kind == "lsb.applications") return parse_lsb_applications(file, ctx, cfg.applications);
  return parse_lsb_modules(file, ctx, cfg);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view kind = kKinds[data[0] % std::size(kKinds)];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  Diagnostics diags;
  // #INCLUDE paths are taken from a directory that does not exist.
  const auto lines = preprocess_config_text(text, std::string(kind), "/nonexistent", WeekInstant{3, 12, 0}, diags);
  ClusterConfig cfg;
  parse(kind, lines, diags, cfg);
  check_cluster_config(cfg, {}, diags);
  (void)diags.to_string();
  return 0;
}
