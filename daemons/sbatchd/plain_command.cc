#include "daemons/sbatchd/plain_command.h"

#include <algorithm>
#include <iterator>

namespace lsf::sbd {
namespace {

// Characters that mean nothing to sh inside a word. '^' is left out (a pipe to the
// old Bourne shell), as are '~' (tilde expansion), '#' (comments) and '!' (history
// and negation), besides quoting, expansion, globbing and operators.
bool plain_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '_':
    case '.':
    case '/':
    case ':':
    case ',':
    case '+':
    case '-':
    case '=':
    case '@':
    case '%':
      return true;
    default:
      return false;
  }
}

// Reserved words and builtins of dash and bash, either of which may be /bin/sh: a
// first word among them is not a program sh would look for along PATH.
constexpr std::string_view kShellWords[] = {
    ".",       ":",      "[",       "[[",     "]]",      "alias",   "bg",        "bind",     "break",    "builtin",
    "caller",  "case",   "cd",      "chdir",  "command", "compgen", "complete",  "compopt",  "continue", "declare",
    "dirs",    "disown", "do",      "done",   "echo",    "elif",    "else",      "enable",   "esac",     "eval",
    "exec",    "exit",   "export",  "false",  "fc",      "fg",      "fi",        "for",      "function", "getopts",
    "hash",    "help",   "history", "if",     "in",      "jobs",    "kill",      "let",      "local",    "logout",
    "mapfile", "popd",   "printf",  "pushd",  "pwd",     "read",    "readarray", "readonly", "return",   "select",
    "set",     "shift",  "shopt",   "source", "suspend", "test",    "then",      "time",     "times",    "trap",
    "true",    "type",   "typeset", "ulimit", "umask",   "unalias", "unset",     "until",    "wait",     "while",
    "{",       "}",
};

bool shell_word(std::string_view w) {
  return std::find(std::begin(kShellWords), std::end(kShellWords), w) != std::end(kShellWords);
}

}  // namespace

std::optional<std::vector<std::string>> plain_command_words(std::string_view command) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < command.size()) {
    if (command[i] == ' ' || command[i] == '\t') {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < command.size() && command[i] != ' ' && command[i] != '\t') {
      if (!plain_char(command[i])) return std::nullopt;
      ++i;
    }
    words.emplace_back(command.substr(start, i - start));
  }
  if (words.empty()) return std::nullopt;
  // An '=' in the first word makes it an assignment (or a name sh would parse as one).
  if (words[0].find('=') != std::string::npos || shell_word(words[0])) return std::nullopt;
  return words;
}

std::vector<std::string> program_candidates(const std::string& program, std::string_view path) {
  if (program.find('/') != std::string::npos) return {program};
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = path.find(':', start);
    std::string_view dir = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out.push_back(dir.empty() ? program : std::string(dir) + "/" + program);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace lsf::sbd
