// The command line: subcommands, exit codes (0 done, 1 threshold crossed, 2 bad input).
#pragma once

#include <stdexcept>
#include <string>

namespace bankcheck::tools {

// Bad input: the message already says what and where ("--addrs:1:9: ...").
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run(int argc, char** argv);

}  // namespace bankcheck::tools
