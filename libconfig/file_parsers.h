// One parser per configuration file. Each reads the sections of its file into the
// ClusterConfig and reports problems through the FileContext; none of them looks at
// another file (cross-file references are checked afterwards by semantic_checks).
#pragma once

#include <vector>

#include "libconfig/cluster_config.h"
#include "libconfig/parse_support.h"
#include "libconfig/section_reader.h"
#include "libconfig/source_text.h"

namespace lsf::config {

// lsf.conf has no sections: KEY=VALUE lines, shell style.
void parse_lsf_conf(const std::vector<LogicalLine>& lines, FileContext& ctx, LsfConf& out);

void parse_lsf_shared(const SectionFile& file, FileContext& ctx, ClusterConfig& out);
void parse_lsf_cluster(const SectionFile& file, FileContext& ctx, ClusterConfig& out);
void parse_lsf_task(const SectionFile& file, FileContext& ctx);
void parse_lsb_params(const SectionFile& file, FileContext& ctx, BatchParams& out);
// RESERVATION_MODEL, RUNTIME_ESTIMATE, BACKFILL_ORDER and BACKFILL_MAX_WAIT, in
// lsb.params or a queue: false when `key` is none of them.
bool parse_planning(const std::string& key, const std::string& value, const SourceLocation& where,
                    const std::string& context, FileContext& ctx, Planning& out);
void parse_lsb_queues(const SectionFile& file, FileContext& ctx, std::vector<Queue>& out);
void parse_lsb_hosts(const SectionFile& file, FileContext& ctx, ClusterConfig& out);
void parse_lsb_users(const SectionFile& file, FileContext& ctx, ClusterConfig& out);
void parse_lsb_resources(const SectionFile& file, FileContext& ctx, ClusterConfig& out);
void parse_lsb_serviceclasses(const SectionFile& file, FileContext& ctx, std::vector<ServiceClass>& out);
void parse_lsb_applications(const SectionFile& file, FileContext& ctx, std::vector<Application>& out);
void parse_lsb_modules(const SectionFile& file, FileContext& ctx, ClusterConfig& out);

}  // namespace lsf::config
