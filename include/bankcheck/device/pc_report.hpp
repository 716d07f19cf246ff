// The GPU backend's counts turned into the report `check` and the emulator give: each SASS
// memory instruction's counters (records.hpp) become a site on the lines Nsight Compute lists
// it under (the cubin's .debug_line rows at its address), summed per line by the same
// totals. Host code, no GPU: tests/device_test.cpp feeds it counters for a real cubin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/device/records.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::device {

// One launch's counters of one kernel, with the kernel's first instruction's address.
struct KernelCounts {
  std::string mangled;
  unsigned long long base_pc = 0;
  std::vector<PcCounter> counters;  // the table's used slots, any order
};

// Adds `launch` into `into` (the same kernel's counts over its launches): counters of one pc
// add up, ways keep the most.
void merge_counts(KernelCounts& into, const KernelCounts& launch);

// The per-form table a launch of `kernel` gives its patched instructions: the form of each
// 16-byte instruction (ATOMS.POPC.INC, a warp-aggregated ATOMS, a CAS; Plain for the rest).
std::vector<unsigned char> instruction_forms(const sass::Kernel& kernel);

// The kernel's report from its counts: one site per SASS memory instruction that ran (its
// opcode as `cuobjdump -sass` prints it, its .debug_line rows as nsight_lines and its first
// row as its line), in source order, and the per-line totals. Counters whose pc lies outside
// the kernel (a called function's) are placed by the kernel that owns the pc when `module`
// has it, else left out and counted in `unplaced`.
analysis::KernelReport kernel_report(const sass::Module& module, const sass::Kernel& kernel,
                                     const KernelCounts& counts, const model::Arch& arch,
                                     std::uint64_t* unplaced = nullptr);

}  // namespace bankcheck::device
