// Every keyword the catalogue calls supported reaches ClusterConfig: written with two
// different values, it loads without error into two different configurations. A
// keyword the catalogue lists but no parser branch reads fails here (the parsers'
// own guard, an error for a supported keyword without a branch, fails it too).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config_tree.h"
#include "libconfig/param_catalog.h"

using namespace lsf::config;
using lsf::testing::ConfigTree;
using lsf::testing::errors_of;

namespace {

// The files ConfigTree starts from, kept so each section can be written beside them.
const std::string kLsfConf = "LSF_CONFDIR=.\nLSB_CONFDIR=lsbatch\n";
const std::string kClusterHosts =
    "Begin Host\nHOSTNAME model type server RESOURCES\n"
    "hostA Generic LINUX64 1 (fs)\nhostB Generic LINUX64 1 ()\nhostC Generic LINUX64 1 ()\nEnd Host\n";
const std::string kAdmins = "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n";
const std::string kQueues = "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n";

using Fields = std::vector<std::pair<std::string, std::string>>;

// A value that leaves the keyword out: for a keyword with one legal value (DISPATCH_ORDER =
// QUEUE), its effect is the difference from not writing it.
const std::string kAbsent = "<absent>";

// `base` with `key` set to `value` (replacing the base's own value of that key).
Fields with(Fields base, const std::string& key, const std::string& value) {
  for (auto& [k, v] : base)
    if (k == key) {
      v = value;
      return base;
    }
  base.emplace_back(key, value);
  return base;
}

std::string key_value_section(const std::string& name, const Fields& fields, const std::string& sep = " = ") {
  std::string s = "Begin " + name + "\n";
  for (const auto& [k, v] : fields)
    if (v != kAbsent) s += k + sep + v + "\n";
  return s + "End " + name + "\n";
}

std::string table_section(const std::string& name, const Fields& columns) {
  std::string head, row;
  for (const auto& [k, v] : columns) {
    head += (head.empty() ? "" : " ") + k;
    row += (row.empty() ? "" : " ") + v;
  }
  return "Begin " + name + "\n" + head + "\n" + row + "\nEnd " + name + "\n";
}

std::string shared_file(const std::string& section_text, const std::string& replaced) {
  std::map<std::string, std::string> parts{
      {"Cluster", "Begin Cluster\nClusterName\ntest\nremote1\nEnd Cluster\n"},
      {"HostType", "Begin HostType\nTYPENAME\nLINUX64\nAIX\nEnd HostType\n"},
      {"HostModel",
       "Begin HostModel\nMODELNAME CPUFACTOR ARCHITECTURE\nGeneric 1.0 (x86_64)\nFast 2.0 (x86_64)\nEnd HostModel\n"},
      {"Resource",
       "Begin Resource\nRESOURCENAME TYPE INTERVAL INCREASING DESCRIPTION\n"
       "fs Boolean () () (File server)\nlicA Numeric () N (Licence)\nlicB Numeric () N (Licence)\nEnd Resource\n"},
  };
  std::string out;
  for (const auto& [name, text] : parts) out += name == replaced ? section_text : text;
  return out;
}

// Writes the section of `spec` with `key` = `value` into `t`, the rest as ConfigTree
// has it; a section the tree does not have is added in a file of its own.
void write_section(const ConfigTree& t, const ParamSpec& spec, const std::string& key, const std::string& value) {
  const std::string file(spec.file), section(spec.section);
  // Second names for keywords whose values name things: a model, a type, a resource,
  // a queue each.
  t.write("conf/lsf.shared", shared_file("", ""));
  t.lsb("lsb.queues", kQueues + "Begin Queue\nQUEUE_NAME = short\nPRIORITY = 40\nEnd Queue\n");
  if (file == "lsf.conf") {
    t.write("conf/lsf.conf", kLsfConf + key + "=" + value + "\n");
  } else if (file == "lsf.shared") {
    Fields cols;
    if (section == "Cluster") cols = {{"CLUSTERNAME", "test"}, {"SERVERS", "hostA"}};
    if (section == "HostType") cols = {{"TYPENAME", "LINUX64"}};
    if (section == "HostModel") cols = {{"MODELNAME", "Generic"}, {"CPUFACTOR", "1.0"}, {"ARCHITECTURE", "(x86_64)"}};
    if (section == "Resource")
      cols = {{"RESOURCENAME", "licA"}, {"TYPE", "Numeric"},  {"INTERVAL", "()"},    {"INCREASING", "N"},
              {"RELEASE", "()"},        {"CONSUMABLE", "()"}, {"DESCRIPTION", "(L)"}};
    std::string text = table_section(section, with(cols, key, value));
    // The rows ConfigTree's cluster and hosts need stay.
    if (section == "Cluster") text.insert(text.find("End Cluster"), "remote1 ()\n");
    if (key == "CLUSTERNAME" && value != "test") {  // the cluster named must have its files
      t.write("conf/lsf.cluster." + value, kAdmins + kClusterHosts);
      t.write("conf/lsbatch/" + value + "/configdir/lsb.queues", kQueues);
    }
    if (section == "Resource") text.insert(text.find("End Resource"), "fs Boolean () () () () (File server)\n");
    if (section == "HostType" && value != "LINUX64") text.insert(text.find("End HostType"), "LINUX64\n");
    if (section == "HostModel" && key != "CPUFACTOR" && key != "ARCHITECTURE")
      text.insert(text.find("End HostModel"), "Generic 1.0 (x86_64)\n");
    t.write("conf/lsf.shared", shared_file(text, section));
  } else if (file == "lsf.cluster") {
    std::string text;
    if (section == "ClusterAdmins") text = key_value_section(section, {{key, value}}) + kClusterHosts;
    if (section == "ClusterManager") text = key_value_section(section, {{key, value}}) + kClusterHosts;
    if (section == "Parameters") text = kAdmins + key_value_section(section, {{key, value}}) + kClusterHosts;
    if (section == "Host") {
      Fields cols = {{"HOSTNAME", "hostA"}, {"MODEL", "Generic"}, {"TYPE", "LINUX64"}, {"SERVER", "1"}};
      text = kAdmins + table_section(section, with(cols, key, value));
    }
    if (section == "ResourceMap")
      text = kAdmins + kClusterHosts +
             table_section(section, with({{"RESOURCENAME", "licA"}, {"LOCATION", "[all]"}}, key, value));
    if (section == "RemoteClusters")
      text = kAdmins + kClusterHosts +
             table_section(section, with({{"CLUSTERNAME", "remote1"}, {"RECV_FROM", "Y"}}, key, value));
    t.write("conf/lsf.cluster.test", text);
  } else if (file == "lsb.queues") {
    t.lsb("lsb.queues", key_value_section(section, with({{"QUEUE_NAME", "normal"}, {"PRIORITY", "30"}}, key, value)) +
                            "Begin Queue\nQUEUE_NAME = short\nPRIORITY = 40\nEnd Queue\n");
  } else if (file == "lsb.params") {
    t.lsb("lsb.params", key_value_section(section, {{key, value}}));
    if (key == "DEFAULT_APPLICATION")
      t.lsb("lsb.applications", key_value_section("Application", {{"NAME", "app1"}}) +
                                    key_value_section("Application", {{"NAME", "app2"}}));
  } else if (file == "lsb.applications") {
    t.lsb("lsb.applications", key_value_section(section, with({{"NAME", "app1"}}, key, value)));
  } else if (file == "lsb.serviceclasses") {
    // A guarantee class may not set PRIORITY, USER_GROUP or CONTROL_ACTION; a velocity class may.
    const bool guarantee = key != "PRIORITY" && key != "USER_GROUP" && key != "CONTROL_ACTION";
    const std::string goals = guarantee ? "[GUARANTEE]" : "[VELOCITY 10 timeWindow ()]";
    t.lsb("lsb.serviceclasses", key_value_section(section, with({{"NAME", "sla1"}, {"GOALS", goals}}, key, value)));
  } else if (file == "lsb.modules") {
    std::string text = table_section(section, {{key, value}});
    if (value != "schmod_default") text.insert(text.find(value), "schmod_default\n");  // always listed
    t.lsb("lsb.modules", text);
  } else if (file == "lsb.users") {
    Fields cols = section == "User" ? Fields{{"USER_NAME", "default"}, {"MAX_JOBS", "4"}}
                                    : Fields{{"GROUP_NAME", "g1"}, {"GROUP_MEMBER", "(root)"}};
    t.lsb("lsb.users", table_section(section, with(cols, key, value)));
  } else if (file == "lsb.hosts") {
    std::string text;
    if (section == "Host") text = table_section(section, with({{"HOST_NAME", "hostA"}, {"MXJ", "2"}}, key, value));
    if (section == "HostGroup")
      text = table_section(section, with({{"GROUP_NAME", "hg1"}, {"GROUP_MEMBER", "(hostA)"}}, key, value));
    if (section == "HostPartition")
      text = key_value_section(
          section, with({{"HPART_NAME", "hp1"}, {"HOSTS", "hostA"}, {"USER_SHARES", "[default, 1]"}}, key, value));
    if (section == "ComputeUnit") {
      // COMPUTE_UNIT_TYPES lives in lsb.params.
      text = table_section(section, with({{"NAME", "cu1"}, {"TYPE", "enclosure"}, {"MEMBER", "(hostA)"}}, key, value));
      t.lsb("lsb.params", key_value_section("Parameters", {{"COMPUTE_UNIT_TYPES", "enclosure rack"}}));
    }
    t.lsb("lsb.hosts", text);
  } else if (file == "lsb.resources") {
    std::string text;
    if (section == "Limit") {
      // A limit needs a consumer: the keyword itself where it is one, else USERS.
      const bool consumer =
          key.rfind("PER_", 0) == 0 || key == "USERS" || key == "QUEUES" || key == "HOSTS" || key == "PROJECTS";
      Fields base{{"NAME", "l1"}, {"SLOTS", "4"}};
      if (!consumer) base.emplace_back("USERS", "all");
      text = key_value_section(section, with(base, key, value));
    }
    if (section == "GuaranteedResourcePool") {
      t.lsb("lsb.serviceclasses", key_value_section("ServiceClass", {{"NAME", "sla1"}, {"GOALS", "[GUARANTEE]"}}));
      text = key_value_section(
          section,
          with({{"NAME", "pool1"}, {"TYPE", "slots"}, {"HOSTS", "hostA"}, {"DISTRIBUTION", "[sla1, 1]"}}, key, value));
    }
    if (section == "HostExport") {
      // PER_HOST and RES_SELECT exclude each other; RES_SELECT needs NHOSTS.
      Fields base = key == "RES_SELECT" ? Fields{{"NHOSTS", "1"}} : Fields{{"PER_HOST", "hostA"}};
      base.insert(base.end(), {{"SLOTS", "1"}, {"DISTRIBUTION", "[remote1, 1]"}});
      text = key_value_section(section, with(base, key, value));
    }
    if (section == "SharedResourceExport")
      text = key_value_section(
          section, with({{"NAME", "licA"}, {"NINSTANCES", "2"}, {"DISTRIBUTION", "[remote1, 1]"}}, key, value));
    if (section == "ReservationUsage")
      text = table_section(section, with({{"RESOURCE", "licA"}, {"METHOD", "PER_JOB"}}, key, value));
    t.lsb("lsb.resources", text);
  }
}

// Values tried for every keyword, before those a keyword needs of its own.
const std::vector<std::string> kCommon = {"1", "2", "Y", "N", "hostA", "hostB", "root", "(root)", "(hostA)", "(hostB)"};

// Keywords whose values take a shape of their own: two (or more) that must both load.
const std::vector<std::string> kWindows = {"8:00-18:00", "9:00-17:00"};
const std::vector<std::string> kShares = {"[default, 1]", "[root, 2]"};
const std::map<std::string, std::vector<std::string>> kOwnValues = {
    {"lsf.conf LSF_CONFDIR", {".", "./"}},
    {"lsf.conf LSB_CONFDIR", {"lsbatch", "lsbatch/"}},
    {"lsf.conf LSF_UNIT_FOR_LIMITS", {"KB", "MB"}},
    {"lsf.conf LSB_GPU_REQ", {"num=1", "num=2:mode=exclusive_process"}},
    {"lsb.queues Queue GPU_REQ", {"num=1", "num=2:gmodel=K80#12G"}},
    {"lsb.applications Application GPU_REQ", {"num=1", "num=2/task"}},
    {"lsf.shared Cluster CLUSTERNAME", {"test", "other"}},
    {"lsf.shared Resource TYPE", {"Numeric", "String", "Boolean"}},
    {"lsf.cluster Host MODEL", {"Generic", "Fast"}},
    {"lsf.cluster Host TYPE", {"LINUX64", "AIX"}},
    {"lsf.cluster Host RESOURCES", {"(fs)", "()"}},
    {"lsf.cluster Host RUNWINDOW", kWindows},
    {"lsf.cluster ResourceMap RESOURCENAME", {"licA", "licB"}},
    {"lsf.cluster ResourceMap LOCATION", {"[all]", "2@[hostA]"}},
    {"lsb.params Parameters DEFAULT_QUEUE", {"normal", "short"}},
    {"lsb.params Parameters DEFAULT_APPLICATION", {"app1", "app2"}},
    {"lsb.params Parameters RESERVATION_MODEL", {"HOLD", "PLAN"}},
    {"lsb.params Parameters RUNTIME_ESTIMATE", {"LIMIT", "PREDICT"}},
    {"lsb.params Parameters BACKFILL_ORDER", {"FCFS", "SHORTEST"}},
    {"lsb.queues Queue RESERVATION_MODEL", {"HOLD", "PLAN"}},
    {"lsb.queues Queue RUNTIME_ESTIMATE", {"LIMIT", "PREDICT"}},
    {"lsb.queues Queue BACKFILL_ORDER", {"FCFS", "SHORTEST"}},
    {"lsb.params Parameters LOCAL_MAX_PREEXEC_RETRY_ACTION", {"SUSPEND", "EXIT"}},
    {"lsb.params Parameters MAX_JOBID", {"999999", "1000000"}},
    {"lsb.params Parameters REMOVE_HUNG_JOBS_FOR", {"host_unavail", "host_unavail,wait_time=5"}},
    {"lsb.queues Queue RUN_WINDOW", kWindows},
    {"lsb.queues Queue DISPATCH_WINDOW", kWindows},
    {"lsb.queues Queue PREEMPTION", {"PREEMPTIVE", "PREEMPTABLE"}},
    {"lsb.queues Queue SLOT_RESERVE", {"MAX_RESERVE_TIME[5]", "MAX_RESERVE_TIME[10]"}},
    {"lsb.queues Queue RESOURCE_RESERVE", {"MAX_RESERVE_TIME[5]", "MAX_RESERVE_TIME[10]"}},
    {"lsb.queues Queue TERMINATE_WHEN", {"WINDOW", "LOAD"}},
    {"lsb.queues Queue LOCAL_MAX_PREEXEC_RETRY_ACTION", {"SUSPEND", "EXIT"}},
    {"lsb.queues Queue FAIRSHARE", {"USER_SHARES[[default, 1]]", "USER_SHARES[[root, 2]]"}},
    {"lsb.queues Queue FAIRSHARE_QUEUES", {"short\nFAIRSHARE = USER_SHARES[[default, 1]]", kAbsent}},
    {"lsb.queues Queue DISPATCH_ORDER",
     {"QUEUE\nFAIRSHARE = USER_SHARES[[default, 1]]\nFAIRSHARE_QUEUES = short", kAbsent}},
    {"lsb.queues Queue SLOT_POOL", {"p1\nSLOT_SHARE = 50", "p2\nSLOT_SHARE = 50"}},
    {"lsb.queues Queue APS_PRIORITY", {"WEIGHT[[RSRC, 10]]", "WEIGHT[[RSRC, 20]]"}},
    {"lsb.hosts Host DISPATCH_WINDOW", kWindows},
    {"lsb.hosts HostPartition USER_SHARES", kShares},
    {"lsb.hosts ComputeUnit TYPE", {"enclosure", "rack"}},
    {"lsb.users UserGroup USER_SHARES", kShares},
    {"lsb.resources Limit NAME", {"l1", "l2"}},
    {"lsb.resources Limit QUEUES", {"normal", "short"}},
    {"lsb.resources Limit PER_QUEUE", {"normal", "short"}},
    {"lsb.resources Limit RESOURCE", {"[licA, 1]", "[licA, 2]"}},
    {"lsb.resources GuaranteedResourcePool TYPE", {"slots", "hosts"}},
    {"lsb.resources GuaranteedResourcePool DISTRIBUTION", {"[sla1, 1]", "[sla1, 2]"}},
    {"lsb.resources GuaranteedResourcePool LOAN_POLICIES", {"QUEUES[normal]", "QUEUES[normal] CLOSE_ON_DEMAND"}},
    {"lsb.resources HostExport RES_SELECT", {"type==LINUX64", "type==AIX"}},
    {"lsb.resources HostExport DISTRIBUTION", {"[remote1, 1]", "[remote1, 2]"}},
    {"lsb.resources HostExport TYPE", {"shared", "exclusive"}},
    {"lsb.resources SharedResourceExport NAME", {"licA", "licB"}},
    {"lsb.resources SharedResourceExport DISTRIBUTION", {"[remote1, 1]", "[remote1, 2]"}},
    {"lsb.resources ReservationUsage METHOD", {"PER_JOB", "PER_HOST"}},
    {"lsb.serviceclasses ServiceClass ACCESS_CONTROL", {"QUEUES[normal]", "USERS[root]"}},
    {"lsb.modules PluginModule SCH_PLUGIN", {"schmod_fcfs", "schmod_fairshare"}},
};

std::string label(const ParamSpec& spec) {
  return std::string(spec.file) + (spec.section.empty() ? "" : " " + std::string(spec.section)) + " " +
         std::string(spec.name);
}

}  // namespace

TEST(ConfigKeywords, EverySupportedKeywordChangesClusterConfig) {
  std::vector<std::string> failed;
  for (const auto& spec : param_catalog()) {
    if (spec.support != Support::kSupported) continue;
    const std::string key = spec.name == "<load index>" ? "r1m" : std::string(spec.name);
    std::vector<std::string> values;
    if (auto it = kOwnValues.find(label(spec)); it != kOwnValues.end())
      values = it->second;
    else
      values = kCommon;
    std::optional<ClusterConfig> first;
    bool changed = false;
    std::string why;
    ConfigTree t;  // one tree: its paths are part of the configuration
    for (const auto& value : values) {
      write_section(t, spec, key, value);
      auto r = t.load();
      if (!r.usable() || !errors_of(r).empty()) {
        if (why.empty()) why = value + ": " + errors_of(r);
        continue;
      }
      if (!first) {
        first = *r.config;
      } else if (!(*first == *r.config)) {
        changed = true;
        break;
      }
    }
    if (!changed) failed.push_back(label(spec) + (first ? " (one value loaded)" : " (none loaded: " + why + ")"));
  }
  std::string all;
  for (const auto& f : failed) all += f + "\n";
  EXPECT_TRUE(failed.empty()) << failed.size() << " supported keywords did not change ClusterConfig:\n" << all;
}
