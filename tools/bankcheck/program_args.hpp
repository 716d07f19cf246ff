// Where bankcheck's words end and a program's begin, as compute-sanitizer, ncu and nsys read
// their command lines: `bankcheck run [OPTIONS] PROGRAM [ARGS...]`, the first word that is
// neither an option nor an option's value starts the program and everything after it is the
// program's (its `-h`, `--quiet`, `--n 4096` included); `--` also ends bankcheck's words.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct ProgramWords {
  int end = 0;       // argv index one past bankcheck's own words (a `--` there is not included)
  int program = -1;  // argv index of the program's first word; -1: none given
  bool after_dashes = false;  // the program came after `--`
};

// Walks argv[first..argc) with the options of subcommand `sub`: an option that takes a value
// takes the next word unless the value is attached (`--format=json`, `-ofile`); short flags
// may be bundled (`-qo FILE`). An unknown option is left for the parser to refuse.
ProgramWords find_program(const CLI::App& sub, int first, int argc, char** argv);

// Whether `word` names a program to run (as execvp finds it: a path, or a name on PATH): an
// executable file that is an ELF executable (not a shared library or an object file) or a
// script (`#!`).
bool is_program(const std::string& word);

// The words as a shell command line: each quoted where the shell would split or expand it.
std::string shell_words(const std::vector<std::string>& words);

}  // namespace bankcheck::tools
