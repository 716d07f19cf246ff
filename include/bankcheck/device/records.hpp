// What the GPU backend's patched instructions write, as plain records shared by the device
// code (src/device/patches.cu) and the host (NVBit's mem_trace: one record struct, no
// per-access records: one counter per SASS instruction, which the warp's leader adds to).
#pragma once

#include <cstdint>

#include "bankcheck/model/arch.hpp"

namespace bankcheck::device {

// How a shared-memory instruction is issued, from the cubin's SASS (the same forms the
// emulator's SASS step applies), in the low two bits of its form byte: its lanes' requests
// as they are, the lowest lane of each word (ATOMS.POPC.INC), one lane for the warp (a
// warp-aggregated ATOMS), or a CAS. LDGSTS adds kBypass (.BYPASS, cp.async.cg) and kZfill
// (a src-size operand).
enum class Form : std::uint8_t { Plain = 0, PopcInc = 1, Aggregated = 2, Cas = 3 };
inline constexpr unsigned char kBypass = 4, kZfill = 8;
// ATOMS.CAST.SPIN: one pass of a CAS loop (with Form::Cas).
inline constexpr unsigned char kSpin = 16;

// The kind of access a counter holds (what the instruction is, as the patch saw it). Other:
// an instruction that moves shared memory outside the LSU (its `access` an OtherKind), counted
// only as warp executions, for the report to name as not counted.
enum class Space : std::uint8_t { Shared = 0, Global = 1, Other = 2 };
enum class OtherKind : std::uint8_t { Wgmma = 0, BulkToShared = 1, BulkToGlobal = 2 };
enum class Access : std::uint8_t { Load = 0, Store = 1, Atomic = 2 };

// One SASS instruction's counts over a launch. `pc` is the instruction's address; 0 marks a
// free slot (a table of them, open addressing by pc).
struct PcCounter {
  unsigned long long pc;
  unsigned long long requests;    // warp-level executions with at least one active lane
  unsigned long long wavefronts;  // shared
  unsigned long long ideal;
  unsigned long long sectors;  // global
  unsigned long long ideal_sectors;
  unsigned int ways;  // the most of any request (shared)
  unsigned char space, access, width, form;
};

// What a kernel's analysed launches give their patched instructions
// (sanitizerSetLaunchCallbackData): one record and counter table per kernel, over all its
// analysed launches (instrumentation.hpp).
struct LaunchRecord {
  PcCounter* counters;
  unsigned int capacity;       // slots in `counters`, a power of two
  unsigned int overflowed;     // requests that found no free slot
  unsigned long long base_pc;  // the kernel's first instruction
  const unsigned char* forms;  // Form per 16-byte instruction from base_pc (may be null)
  unsigned int forms_count;
  // Threads that ran the patched code to their exit (the block-exit patch): equal to the
  // launches' threads when every one of them was counted from its start to its end.
  unsigned long long exited;
  // The device's bank rules (the GPU the launch runs on; `name` is not read on the device).
  bankcheck::model::Arch arch;
};

}  // namespace bankcheck::device
