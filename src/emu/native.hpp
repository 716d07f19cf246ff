// Native code for the fast tier: each run of consecutive micro-ops that control flow enters
// only at its first (no branch target or reconvergence point inside, but the target of an
// if it goes through: a guarded branch forward over a few micro-ops, which then run for the
// lanes that do not jump) becomes one C++ function over the warp's 32 lanes, compiled by
// the host's C++ compiler and loaded. Loads and stores run in place (in the buffer the
// instruction used last, or the CTA's shared memory) when the launch records nothing of
// them and every lane is inside; otherwise the warp loop's own code runs them. Where
// the micro-ops run each instruction as a loop over the warp's register slots, behind a
// dispatch, the function runs the whole run as one loop over the lanes: each lane's values
// stay in machine registers from one instruction to the next, and the compiler vectorizes
// the loop. Its semantics are the micro-ops' (the same per-lane functions: lane_values.hpp
// is compiled into it); tests/emu_native_test.cpp requires the same memory of both.
//
// Compiled code is kept on disk by the hash of its source and flags
// ($BANKCHECK_CACHE_DIR, else $XDG_CACHE_HOME/bankcheck, else ~/.cache/bankcheck, in
// native/), and in memory for the process. Without a compiler, or when one fails, the
// kernel runs on the micro-ops as before.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "uop.hpp"

namespace bankcheck::emu::detail {

// The runs of `c` worth native code (at least two micro-ops that compute), as the source of
// one translation unit (empty: none), with each run's entry points named bcn_full_<i> and
// bcn_some_<i>. `first[i]` is run i's first micro-op index, `len[i]` its length, `fixed[i]`
// its fixed operands in the order the source reads them. Exposed for tests.
struct NativePlan {
  std::string source;
  std::vector<std::uint32_t> first, len;
  std::vector<std::vector<const std::uint64_t*>> fixed;
};
NativePlan plan_native(const Compiled& c, std::uint32_t num_preds);

// A kernel's plan, kept from one emulator to the next (EmulatorOptions::native_memo):
// writing and hashing the source took 0.3 to 0.7 ms of every launch, twice with two threads,
// as long as a short kernel's whole execution. The micro-ops of every emulator of a kernel
// are the same but for where their fixed operands live, so each run's fixed operands are
// kept as places: (micro-op, operand: 0 to 3 its sources, 4 its base).
struct NativeMemo {
  std::mutex m;
  bool planned = false;
  std::string source;  // empty: nothing worth native code
  std::uint64_t key = 0;
  std::vector<std::uint32_t> first, len;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint8_t>>> fixed_at;
  void* lib = nullptr;  // once loaded
};

// Plans native code for `c` (or takes the plan from `memo`) and loads it: from this
// process, from the disk cache, or compiled now when the kernel's micro-ops have run at
// least `after` warp instructions in this process (note_native_work); then marks each run's
// first micro-op K::Native (`target`: its index in c.natives). Sets c.native_key. False, and
// `c` otherwise unchanged, when there is nothing to compile, it is not yet worth compiling,
// or it failed (`why` says how).
bool make_native(Compiled& c, std::uint32_t num_preds, std::uint64_t after,
                 std::string* why = nullptr, NativeMemo* memo = nullptr);

// Adds warp instructions that the micro-ops of the kernel planned as `key` ran.
void note_native_work(std::uint64_t key, std::uint64_t instructions);

}  // namespace bankcheck::emu::detail
