// When a job's command needs no shell.
//
// LSF runs every job as `/bin/sh -c command`. A command made only of plain words (no
// quoting, expansion, redirection, globbing, operators, comments, assignments, keywords
// or builtins) means the same to sh as the argument vector of its words, so the job can
// be exec'd without the shell: one exec less per job. The caller still hands the
// command to sh whenever an exec of the words fails, so sh alone decides everything it
// could decide differently (a script without #!, error messages, exit codes).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lsf::sbd {

// The words of `command` when sh would run it as exactly those words; nullopt otherwise.
std::optional<std::vector<std::string>> plain_command_words(std::string_view command);

// Where sh would look for `program` along `path` (the job's PATH), in order: the
// program itself when it names a file (has a '/'), else each directory's entry (an
// empty component is the working directory).
std::vector<std::string> program_candidates(const std::string& program, std::string_view path);

}  // namespace lsf::sbd
