// `bankcheck fix` as a library: check with every shared request recorded, ptxas for the
// kernels' registers, the fix advisor per kernel, and --apply (a padded copy of the
// source, checked again).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/driver/check.hpp"

namespace bankcheck::driver {

struct FixOptions {
  CheckOptions check;
  int top = 4;             // suggestions per array
  bool apply = false;      // write a copy with declaration padding and check it
  std::string apply_to;    // where; default FILE.fixed.cu beside the input
  bool force = false;      // --force: replace an existing file or symbolic link there
};

using analysis::FixReport;

FixReport fix(const FixOptions& options);

// --apply's writing of `content` at `path`: through a temporary file beside it that `check`
// (when given) reads first, so that the path holds nothing or a copy that was checked; never
// over an existing file or through a symbolic link unless `force`. Throws DriverError.
void write_fixed_copy(const std::string& path, const std::string& content, bool force,
                      const std::function<void(const std::string& tmp)>& check = {});

}  // namespace bankcheck::driver
