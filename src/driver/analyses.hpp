// The analyses a run makes, assembled in one place from the options.
#pragma once

#include <memory>
#include <vector>

#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/driver/check.hpp"

namespace bankcheck::driver {

// The collectors for one kernel, in the order their shares of the report are written: the
// per-site statistics always, the recorder with CheckOptions::record_shared, then each
// analysis CheckOptions::analyses names. Throws DriverError for a name never registered.
std::vector<std::unique_ptr<analysis::Collector>> make_collectors(
    const analysis::KernelContext& context, const CheckOptions& options);

}  // namespace bankcheck::driver
