// A kernel fault as compute-sanitizer's memcheck reports it (the access, its size, the
// kernel, the source line, the thread and block, the address and the nearest allocation),
// on standard error, and what the program then gets from the runtime: the GPU's sticky error
// for the fault (an illegal or misaligned address, a failed assert, a trap); a launch that
// the emulator could not finish for its own reasons (its instruction budget, a barrier no
// thread can pass) is refused as not supported instead.
#pragma once

#include <string>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/runtime/executor.hpp"

namespace bankcheck::runtime {

LaunchResult fault_result(const driver::EmulationError& e, const ptx::Kernel& kernel,
                          const driver::Loaded& loaded, const LaunchRequest& request,
                          emu::GlobalMemory& memory, const std::string& kernel_name);

// The report's lines (without the trailing newline), for tests.
std::string fault_lines(const driver::EmulationError& e, const ptx::Kernel& kernel,
                        const driver::Loaded& loaded, const LaunchRequest& request,
                        emu::GlobalMemory& memory);

}  // namespace bankcheck::runtime
