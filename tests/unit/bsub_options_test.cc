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

}  // namespace
