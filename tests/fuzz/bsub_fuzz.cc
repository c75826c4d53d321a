// A bsub command line and script: the words (NUL-separated in the input, as argv is),
// split into options and command, parsed, and read into the JobSpec bsub would send;
// the script's `#BSUB` lines too. A refusal is LSF's "... Job not submitted.", not a
// crash.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/bsub_options.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lsf::cli::bsub;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Up to the first "\n\n": argv words separated by NUL; after it, a script on stdin.
  const auto split = input.find("\n\n");
  const std::string_view argv = input.substr(0, split);
  const std::string script(split == std::string_view::npos ? std::string_view() : input.substr(split + 2));
  std::vector<std::string> args;
  for (std::size_t start = 0; start <= argv.size();) {
    const auto end = std::min(argv.find('\0', start), argv.size());
    args.emplace_back(argv.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> options, command;
  split_args(args, options, command);
  const std::vector<std::string> directives = script_directives(script);
  options.insert(options.begin(), directives.begin(), directives.end());
  static const lsf::config::LsfConf conf;
  try {
    const auto vm = parse_options(options);
    (void)interactive(vm);
    (void)build_spec(vm, command, script, conf, "hostA");
  } catch (const Refused&) {
  }
  return 0;
}
