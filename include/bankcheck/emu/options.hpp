// How an emulator runs, chosen by whoever makes it (the engine passes its options down;
// there is no process-wide setting).
#pragma once

namespace bankcheck::emu {

class Listener;

struct EmulatorOptions {
  // The micro-op tier (whole-warp handlers, src/emu/uop.hpp) where an instruction has one;
  // false: every instruction by the reference semantics, lane by lane. Memory and the
  // stream of access events are the same either way (tests/emu_differential_test.cpp).
  bool fast = true;
  // One more listener, given before any add_listener (the differential test's
  // recorder). Called from whichever thread runs the CTA.
  Listener* tap = nullptr;
};

}  // namespace bankcheck::emu
