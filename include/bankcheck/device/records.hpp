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
// wgmma (HGMMA, QGMMA, IGMMA): kGmma, N / 8 - 1 in bits 0-4, kGmmaARegisters when A comes from
// registers. A wgmma whose N the SASS does not give has no form: the patch costs the operand
// sizes the sanitizer hands it instead.
inline constexpr unsigned char kGmma = 0x80, kGmmaARegisters = 0x40;

BANKCHECK_HD constexpr unsigned char gmma_form(int n, bool a_registers) {
  return static_cast<unsigned char>(kGmma | (a_registers ? kGmmaARegisters : 0) |
                                    ((n / 8 - 1) & 0x1f));
}
BANKCHECK_HD constexpr int gmma_form_n(unsigned form) {
  return static_cast<int>((form & 0x1f) + 1) * 8;
}

// The kind of access a counter holds (what the instruction is, as the patch saw it). Other:
// an instruction whose row Nsight Compute lists with no shared wavefront and no sector (its
// `access` an OtherKind): a TMA copy, or a request to another CTA's shared memory, counted as
// warp executions. A wgmma is a Shared counter: its operand reads are costed.
enum class Space : std::uint8_t { Shared = 0, Global = 1, Other = 2 };
enum class OtherKind : std::uint8_t {
  BulkToShared = 1,   // cp.async.bulk global to shared (UBLKCP.S.G), multicast or not
  BulkToGlobal = 2,   // cp.async.bulk shared to global (UBLKCP.G.S), bulk reductions
  BulkToCluster = 3,  // cp.async.bulk shared::cta to another CTA's shared::cluster (UBLKCP.S.S)
  RemoteShared = 4,   // ld/st/atom to another CTA's shared memory (generic LD/ST/ATOM)
  AsyncStore = 5,     // st.async (STAS)
};
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

// Thread exits of one shard, on a 128-byte line of their own.
inline constexpr unsigned kExitStride = 16;  // unsigned long long per shard

// What a kernel's analysed launches give their patched instructions
// (sanitizerSetLaunchCallbackData): one record and counter table per kernel, over all its
// analysed launches (instrumentation.hpp).
//
// The table is `shards` copies of `capacity` slots: a warp adds to the copy of its SM
// (%smid modulo shards), so that the warps of different SMs do not queue on the same
// addresses' atomics (every warp of every CTA executes the same instructions; with one copy
// a kernel's requests were serialised on a few L2 lines). The host adds the copies up.
struct LaunchRecord {
  PcCounter* counters;         // shards x capacity slots: shard s at counters + s * capacity
  unsigned int capacity;       // slots in a shard, a power of two
  unsigned int overflowed;     // requests that found no free slot
  unsigned long long base_pc;  // the kernel's first instruction
  const unsigned char* forms;  // Form per 16-byte instruction from base_pc (may be null)
  unsigned int forms_count;
  // Threads that ran the patched code to their exit (the block-exit patch): equal to the
  // launches' threads when every one of them was counted from its start to its end.
  unsigned long long exited;
  // The same per shard, at exits[s * kExitStride] (null: all in `exited`).
  unsigned long long* exits;
  unsigned int shards;  // a power of two, at least 1
  // For measuring the patches' own cost (BANKCHECK_GPU_PROBE; 0 in every report's run): 1
  // returns at once, 2 after the lanes' addresses are gathered (global requests; shared ones
  // take their fast path), 3 after the request is costed, without counting; 4 counts every
  // global request through the model (no fast path; shared requests have no other path).
  unsigned int probe;
  // The device's bank rules (the GPU the launch runs on; `name` is not read on the device).
  bankcheck::model::Arch arch;
};

}  // namespace bankcheck::device
