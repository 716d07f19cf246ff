// The executor of `bankcheck run` on any machine: each kernel the program launches runs in
// bankcheck's emulator, on the program's own memory (every device pointer is a host
// address, every module variable lives in memory of this executor's), and the launches the
// options pick go through the same analyses as `check`. One report at exit.
//
//   register_module ──▶ RunModule (the fat binary's entries, decoded; loaded on first use:
//                       PTX parsed and decoded with its variables placed in host memory, the
//                       program's own cubin read for SASS)
//   launch ──▶ the kernel's KernelAnalysis (one per kernel, over all its launches): analysed
//              (every CTA counted) for the first launches of each configuration, executed
//              only after that; a fault reported as compute-sanitizer reports it
//   finish ──▶ one CheckReport per module, the views, the gates, the status file
#pragma once

#include <memory>

#include "bankcheck/runtime/executor.hpp"

namespace bankcheck::runtime {

std::unique_ptr<Executor> make_emulating_executor(const ExecutorConfig& config);

}  // namespace bankcheck::runtime
