// bgadd, bgdel and bgmod: one source, built three times with JOB_GROUP_OP set.
//
//   bgadd [-L limit] /job_group      bgdel /job_group      bgmod [-L limit | -Ln] /job_group
#include <iostream>
#include <limits>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  const std::string command = JOB_GROUP_COMMAND;
  const auto op = static_cast<wire::JobGroupOp>(JOB_GROUP_OP);
  po::options_description opts;
  opts.add_options()("group", po::value<std::vector<std::string>>(), "");
  if (op != wire::JGRP_DEL) opts.add_options()("L", po::value<std::string>(), "");
  if (op == wire::JGRP_MOD) opts.add_options()("Ln", "");
  po::positional_options_description pos;
  pos.add("group", -1);
  const std::string usage = "Usage: " + command +
                            (op == wire::JGRP_ADD   ? " [-L limit]"
                             : op == wire::JGRP_MOD ? " [-L limit | -Ln]"
                                                    : "") +
                            " job_group_name\n";
  auto vm = cli::parse_options(command, argc, argv, opts, pos, usage);
  if (!vm.count("group") || vm["group"].as<std::vector<std::string>>().size() != 1 ||
      (op == wire::JGRP_MOD && vm.count("L") == vm.count("Ln"))) {
    std::cerr << usage;
    return 255;
  }
  const std::string path = vm["group"].as<std::vector<std::string>>().front();
  int limit = -1;
  if (vm.count("L")) {
    auto n = config::parse_int(vm["L"].as<std::string>());
    if (!n || *n < 0 || *n > std::numeric_limits<int>::max()) {
      std::cerr << command << ": -L " << vm["L"].as<std::string>() << ": the limit is a number from 0 to "
                << std::numeric_limits<int>::max() << "\n";
      return 255;
    }
    limit = static_cast<int>(*n);
  }
  cli::Session session(command);
  wire::RequestEnvelope req;
  auto* q = req.mutable_job_group_control();
  q->set_op(op);
  q->set_path(path);
  q->set_limit(limit);
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    return 255;
  }
  cli::require_ok(command, result);
  // LSF's wording, each as LSF prints it.
  if (op == wire::JGRP_ADD)
    std::cout << "Job group <" << path << "> was added.\n";
  else if (op == wire::JGRP_MOD)
    std::cout << "Job group " << path << " is modified.\n";
  else
    std::cout << "Job group " << path << " is deleted.\n";
  return 0;
}
