// bpeek: what a running job has written to its standard output so far.
//
//   bpeek [-f] [jobid | "jobid[index]"]
//
// Without a job, the caller's most recently submitted started job. -f follows the
// output, as tail -f, until the job ends.
#include <chrono>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("f", "")("job", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("job", 1);
  auto vm = cli::parse_options("bpeek", argc, argv, opts, pos, "Usage: bpeek [-f] [jobid | \"jobid[index]\"]\n");
  cli::Session session("bpeek");
  wire::RequestEnvelope req;
  auto* q = req.mutable_peek();
  if (vm.count("job")) {
    // One job or element: output is peeked at one job at a time, as LSF's bpeek does.
    const auto& text = vm["job"].as<std::string>();
    const auto refs = cli::job_refs(session, "bpeek", {text});
    if (refs.size() != 1) {
      std::cerr << text << ": Illegal job array index. One element only.\n";
      return 255;
    }
    *q->mutable_job() = refs.front();
  }
  bool follow = vm.count("f") > 0;
  for (bool first = true;; first = false) {
    const auto reply = cli::require_ok("bpeek", session.call(req)).peek();
    if (first) std::cout << "<< output from stdout >>\n";
    std::cout << reply.text() << std::flush;
    q->set_offset(reply.next_offset());
    if (reply.finished() || (!follow && reply.text().size() < (1u << 20))) break;
    if (reply.text().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return 0;
}
