// Which Executor the driver uses: BANKCHECK_EXECUTOR names one of the table in
// executors.cpp; unset, the first that is not a test double, or none. Without an executor
// the driver still loads, allocates and copies, and each launch fails with
// CUDA_ERROR_NOT_SUPPORTED and a sentence saying why.
#pragma once

#include <memory>
#include <string>

#include "bankcheck/runtime/executor.hpp"

namespace bankcheck::runtime {

struct ExecutorChoice {
  std::unique_ptr<Executor> executor;  // null: the name is unknown (error says so)
  std::string error;
};

ExecutorChoice make_executor(const ExecutorConfig& config);

}  // namespace bankcheck::runtime
