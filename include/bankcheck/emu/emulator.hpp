// The CPU emulator: runs one CTA of a decoded kernel at a time, warps of 32 lanes with
// SIMT divergence and immediate-post-dominator reconvergence, bar.sync across warps, and
// the memories of a CUDA thread. It never prints: every memory instruction becomes an
// AccessEvent sent to the listeners; problems become EmuError (with the instruction).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "bankcheck/emu/events.hpp"
#include "bankcheck/emu/options.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu {

// Something the kernel did that has no defined result, or that bankcheck cannot do.
struct EmuError : std::runtime_error {
  enum class Kind { OutOfBounds, Misaligned, Budget, Unsupported, Trap, Barrier };
  EmuError(Kind kind, const std::string& message, int instr)
      : std::runtime_error(message), kind(kind), instr(instr) {}
  Kind kind;
  int instr = -1;  // index of the instruction (Kernel::code), -1 if none
};

// A warning that does not stop the run (a barrier under divergence, ...).
struct Note {
  int instr = -1;
  std::string message;
};

// Global memory: kernel buffers and module variables, each a registered range of
// emulated addresses. Accesses outside every range are errors, never host accesses.
class GlobalMemory {
 public:
  // Storage comes from calloc: a large buffer costs only the pages the kernel touches.
  struct Buffer {
    std::string name;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::unique_ptr<std::uint8_t, void (*)(void*)> storage{nullptr, std::free};
    std::atomic<bool> read{false}, written{false};
    std::atomic<std::uint64_t> max_touched{0};  // one past the highest byte accessed (offset)
    std::uint8_t* data() { return storage.get(); }
  };
  // Returns the base address of a new zeroed buffer of `bytes` (at least 1).
  std::uint64_t add(const std::string& name, std::uint64_t bytes, std::uint64_t base = 0);
  // The buffer holding [addr, addr+size), or nullptr.
  Buffer* find(std::uint64_t addr, std::uint64_t size);
  std::vector<std::unique_ptr<Buffer>>& buffers() { return buffers_; }
  std::mutex atomic_mutex;  // serializes global atomics across CTAs run in parallel

 private:
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::uint64_t next_ = ptx::kBufferBase;
};

struct Launch {
  Dim3 grid, block;
  std::uint64_t dynamic_smem = 0;
  std::vector<std::uint8_t> params;    // the kernel's param buffer
  std::uint64_t budget = 200'000'000;  // warp instructions per CTA
};

class Emulator {
 public:
  using Options = EmulatorOptions;

  Emulator(const ptx::Program& program, const ptx::Kernel& kernel, GlobalMemory& memory,
           const Options& options = {});
  ~Emulator();
  void add_listener(Listener* l) { listeners_.push_back(l); }
  const Options& options() const { return options_; }
  // Runs CTA `ctaid` of the launch to completion. Throws EmuError.
  void run_cta(const Launch& launch, Dim3 ctaid);
  std::uint64_t executed() const { return executed_; }  // warp instructions so far
  const std::vector<Note>& notes() const { return notes_; }
  // The sites (Kernel::sites) of the loads that read shared bytes no thread of their CTA
  // had written before (the emulator reads them as zero), each once, in the order found.
  // A read counts when its bytes were never written in that CTA, whatever the barriers
  // in between: the record is of bytes, not of races.
  const std::vector<int>& unwritten_shared_reads() const { return unwritten_sites_; }

 private:
  struct State;
  const ptx::Program& program_;
  const ptx::Kernel& kernel_;
  GlobalMemory& memory_;
  Options options_;
  std::vector<Listener*> listeners_;
  std::uint64_t executed_ = 0;
  std::vector<Note> notes_;
  std::vector<std::uint8_t> read_unwritten_;  // per site: in unwritten_sites_
  std::vector<int> unwritten_sites_;
  std::unique_ptr<State> state_;
};

}  // namespace bankcheck::emu
