// Which Executor the runtime uses: BANKCHECK_EXECUTOR names one of the table in
// executors.cpp; unset, the first that is not a test double, or none. Without an executor
// the runtime still registers, allocates and copies, and each launch fails with
// cudaErrorNotSupported and a sentence saying why.
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
