// The record executor: the test double of the Executor seam. It runs nothing; it writes one
// line per call it receives (modules, functions and variables looked up, allocations,
// launches with their argument bytes), reads a module's functions and variables from its
// PTX (variables zero-filled), and fails launches where asked, so that the driver's own
// behaviour can be tested without the emulator.
//
// Selected with BANKCHECK_EXECUTOR=record. Its settings:
//   BANKCHECK_RECORD=FILE            where the lines go (default: standard error, each line
//                                    prefixed "bankcheck: record: ")
//   BANKCHECK_RECORD_FAULT=TEXT      launches of kernels whose mangled name contains TEXT fault
//                                    (an illegal address)
//   BANKCHECK_RECORD_UNSUPPORTED=TEXT  launches of such kernels are not supported
//   BANKCHECK_RECORD_ATTRS=TEXT:KEY=N[,KEY=N...][;TEXT:...]  the attributes of kernels whose
//                                    name contains TEXT; keys regs, shared, local, const,
//                                    threads (the defaults: 32 registers, nothing else, 1024)
#pragma once

#include <memory>

#include "bankcheck/runtime/executor.hpp"

namespace bankcheck::runtime {

std::unique_ptr<Executor> make_record_executor(const ExecutorConfig& config);

}  // namespace bankcheck::runtime
