// bsub's command line read without submitting (cli/bsub_options): refusals are LSF's
// "Bad argument" with the parser's words, whatever the words given.
#include <gtest/gtest.h>

#include "cli/bsub_options.h"

using namespace lsf::cli::bsub;

namespace {

std::string refusal_detail(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const Refused& r) {
    EXPECT_EQ(r.why, "Bad argument");
    return r.detail;
  }
  return "(accepted)";
}

TEST(BsubOptions, UnknownOptionIsRefusedWithTheParsersWords) {
  EXPECT_EQ(refusal_detail({"-zz"}), "bsub: unrecognised option '-zz'");
}

TEST(BsubOptions, PlaceholderInAnOptionIsRefusedNotLoopedOn) {
  // Found by tests/fuzz (corpus/bsub/crash-*): boost fills %original_token% with the
  // word given, which holds it again, for ever. bsub hung.
  EXPECT_EQ(refusal_detail({"--)%original_token%"}), "bsub: invalid option");
  EXPECT_EQ(refusal_detail({"-%option%"}), "bsub: invalid option");
}

TEST(BsubOptions, OptionsAndCommandSplitWhereTheCommandStarts) {
  std::vector<std::string> options, command;
  split_args({"-q", "normal", "-x", "sleep", "-q", "10"}, options, command);
  EXPECT_EQ(options, (std::vector<std::string>{"-q", "normal", "-x"}));
  EXPECT_EQ(command, (std::vector<std::string>{"sleep", "-q", "10"}));
  EXPECT_EQ(script_directives("#!/bin/sh\n#BSUB -n 2 -J \"a b\"\necho\n"),
            (std::vector<std::string>{"-n", "2", "-J", "a b"}));
}

// LSF: the command line wins over #BSUB, option by option, and a list is replaced whole.
TEST(BsubOptions, TheCommandLineWinsOverTheScriptsDirectives) {
  auto vm = parse_with_directives({"-q", "short", "-J", "scripted", "-m", "hostA hostB", "-n", "4"},
                                  {"-q", "normal", "-m", "hostC"});
  EXPECT_EQ(vm["q"].as<std::vector<std::string>>(), std::vector<std::string>{"normal"});
  EXPECT_EQ(vm["J"].as<std::string>(), "scripted");
  EXPECT_EQ(vm["n"].as<std::string>(), "4");
  EXPECT_EQ(vm["m"].as<std::vector<std::string>>(), std::vector<std::string>{"hostC"});
}

}  // namespace
