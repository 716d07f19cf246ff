// The command line: subcommands, exit codes (0 done, 1 threshold crossed, 2 bad input).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace bankcheck::tools {

// Bad input: the message already says what and where ("--addrs:1:9: ...").
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run(int argc, char** argv);

// What `bankcheck: error: ` is followed by for a failure: its located message (with the
// source line and a caret where there is one). Used for the run's error and for each
// file's error in a run over several files.
std::string error_message(const std::exception_ptr& failure);

}  // namespace bankcheck::tools
