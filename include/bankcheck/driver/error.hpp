// The driver's one error type.
#pragma once

#include <stdexcept>

namespace bankcheck::driver {

// Every driver error. The message already says where: `FILE:LINE:COL: message` when it
// comes from a file, `--flag: message` when it comes from a flag; print it as is after
// `bankcheck: error: `.
struct DriverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace bankcheck::driver
