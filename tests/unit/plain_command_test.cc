#include "daemons/sbatchd/plain_command.h"

#include <gtest/gtest.h>

using lsf::sbd::plain_command_words;
using lsf::sbd::program_candidates;
using Words = std::vector<std::string>;

TEST(PlainCommand, PlainWordsAreExecdWithoutTheShell) {
  EXPECT_EQ(plain_command_words("/bin/true"), Words({"/bin/true"}));
  EXPECT_EQ(plain_command_words("  sleep\t60 "), Words({"sleep", "60"}));
  EXPECT_EQ(plain_command_words("./a.out -n 4 --x=y a,b user@host 50% +1 a:b"),
            Words({"./a.out", "-n", "4", "--x=y", "a,b", "user@host", "50%", "+1", "a:b"}));
}

TEST(PlainCommand, AnythingTheShellWouldReadDifferentlyGoesToTheShell) {
  for (const char* c : {"echo $HOME", "ls *.c", "a > out", "a < in",  "a | b", "a; b",     "a && b", "a &",
                        "(a)",        "`a`",    "a 'b c'", "a \"b\"", "a\\ b", "a # note", "~/prog", "a ~",
                        "a b?",       "a [x]",  "a {b,c}", "a !b",    "a ^ b", "a\nb",     "",       "   "})
    EXPECT_FALSE(plain_command_words(c)) << c;
}

TEST(PlainCommand, AssignmentsKeywordsAndBuiltinsGoToTheShell) {
  for (const char* c : {"X=1 prog",  "true",      "exit 3",    "cd /tmp",  "echo hi",  "if",        "for",
                        "while",     "exec prog", "test -f x", "[ -f x ]", ". script", ": nothing", "ulimit -c 0",
                        "umask 077", "wait",      "time a",    "source x", "kill 1",   "printf x",  "read x"})
    EXPECT_FALSE(plain_command_words(c)) << c;
  // A builtin's name as a path is the program, as sh takes it.
  EXPECT_EQ(plain_command_words("/bin/echo hi"), Words({"/bin/echo", "hi"}));
}

TEST(PlainCommand, CandidatesFollowPathAsTheShellSearchesIt) {
  EXPECT_EQ(program_candidates("./run", "/usr/bin:/bin"), Words({"./run"}));
  EXPECT_EQ(program_candidates("sleep", "/usr/local/bin:/usr/bin:/bin"),
            Words({"/usr/local/bin/sleep", "/usr/bin/sleep", "/bin/sleep"}));
  // An empty component is the working directory.
  EXPECT_EQ(program_candidates("prog", "/opt/bin::/bin"), Words({"/opt/bin/prog", "prog", "/bin/prog"}));
  EXPECT_EQ(program_candidates("prog", ""), Words({"prog"}));
}
