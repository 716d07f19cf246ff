// How an emulator runs, chosen by whoever makes it (the engine passes its options down;
// there is no process-wide setting).
#pragma once

#include <cstdint>
#include <memory>

namespace bankcheck::emu {

class Listener;
class Footprint;
namespace detail {
struct NativeMemo;
}

struct EmulatorOptions {
  // The micro-op tier (whole-warp handlers, src/emu/uop.hpp) where an instruction has one;
  // false: every instruction by the reference semantics, lane by lane. Memory and the
  // stream of access events are the same either way (tests/emu_differential_test.cpp).
  bool fast = true;
  // One more listener, given before any add_listener (the differential test's
  // recorder). Called from whichever thread runs the CTA.
  Listener* tap = nullptr;
  // A global access outside every buffer but within 2 MiB of one: the GPU survives many
  // (the bytes before or after a buffer are mapped with it, in 2 MiB granules), so by
  // default the run goes on: the faulting lanes read zeros, their writes are dropped, and
  // the fault is recorded (Emulator::faults()). True: it ends the run with an EmuError, as
  // accesses far from every buffer, shared, local and misaligned faults always do.
  bool stop_on_fault = false;
  // Where every global access is marked (footprint.hpp), when given: the record of what the
  // execution read and wrote. Shared by the emulators of one execution.
  Footprint* footprint = nullptr;
  // The memory the kernel leaves, and nothing the analyses read: no record of the bytes
  // requests touched (Buffer::max_touched, read, written) or of shared bytes read before any
  // thread wrote them. For launches whose events nobody reads (bankcheck run's launches not
  // analysed); the memory is the same either way.
  bool execute_only = false;
  // The micro-ops that run the reference's own per-lane functions over resolved operands
  // (arithmetic, cvt, shfl: uop.hpp K::Lanes ...), and predicate logic; false: those take
  // the reference path, as before they had micro-ops (the throughput benchmark's baseline).
  bool lanes = true;
  // Runs of micro-ops (straight-line code and loops) as native code, compiled by the host's
  // C++ compiler and kept on disk (src/emu/native.hpp); where none can be compiled, the
  // micro-ops. Only with `fast` and `lanes`. The memory and the events are the same either
  // way (tests/emu_differential.hpp, tests/emu_native_test.cpp).
  bool native = false;
  // Compile a kernel's native code once its launches in this process have run this many
  // warp instructions on the micro-ops (compiling a kernel takes about as long as running
  // 50 to 100 M, and the code saves 10 to 25% of the rest); code an earlier run compiled
  // is used at once. $BANKCHECK_NATIVE_AFTER overrides it.
  std::uint64_t native_after = 200'000'000;
  // Where the emulators of one kernel keep its native code's plan from one to the next
  // (make_native_memo(); each launch makes an emulator per thread): one per kernel, which
  // the micro-ops and so the plan are a function of. Null: each emulator plans anew.
  std::shared_ptr<detail::NativeMemo> native_memo = nullptr;
  // Device printf's text is kept for the caller (Emulator::take_printed: bankcheck run prints
  // it on the program's standard output); false: the calls only return (bankcheck check).
  bool printf = false;
};

}  // namespace bankcheck::emu
