// The CPU emulator: runs one CTA of a decoded kernel at a time, warps of 32 lanes with
// SIMT divergence and immediate-post-dominator reconvergence, bar.sync across warps, and
// the memories of a CUDA thread. It never prints: every memory instruction becomes an
// AccessEvent sent to the listeners; problems become EmuError (with the instruction).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bankcheck/emu/events.hpp"
#include "bankcheck/emu/options.hpp"
#include "bankcheck/emu/texture.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu {

// Something the kernel did that has no defined result, or that bankcheck cannot do.
struct EmuError : std::runtime_error {
  enum class Kind { OutOfBounds, Misaligned, Budget, Unsupported, Trap, Assert, Barrier };
  EmuError(Kind kind, const std::string& message, int instr)
      : std::runtime_error(message), kind(kind), instr(instr) {}
  Kind kind;
  int instr = -1;  // index of the instruction (Kernel::code), -1 if none
  // The access that faulted, when one did (what compute-sanitizer reports of it).
  struct Access {
    bool known = false;
    ptx::Space space = ptx::Space::Global;
    enum class Op : std::uint8_t { Read, Write, Atomic } op = Op::Read;
    unsigned size = 0;
    std::uint64_t address = 0;
    int warp = 0, lane = 0;
  } access;
  // The CTA the error happened in, when several ran together (Emulator::run_ctas).
  bool in_group = false;
  Dim3 cta;
  // What the GPU's driver prints to standard error for it (a failed assert()'s lines).
  std::string device_text;
};

// A global access outside every buffer that the run went on after (EmulatorOptions::
// stop_on_fault off): one per instruction and kind of access, with the first lane that
// made it (the lowest CTA, then thread, of those this emulator ran) and how many lanes did.
struct SurvivedFault {
  int instr = -1;
  EmuError::Access access;
  Dim3 block, thread;       // the first faulting lane's
  std::uint64_t cta = 0;    // its CTA's linear index
  std::uint64_t lanes = 0;  // faulting lanes, all CTAs
};

// Adds `more` to `into`, one fault per instruction and kind of access, lanes summed. The
// first lane kept: the lowest CTA's (CTAs of one launch, whatever the threads' timing), or
// with `keep_earlier` the one already in `into` (faults of later launches).
void merge_faults(std::vector<SurvivedFault>& into, const std::vector<SurvivedFault>& more,
                  bool keep_earlier = false);

// A warning that does not stop the run (a barrier under divergence, ...).
struct Note {
  int instr = -1;
  std::string message;
};

// Global memory: kernel buffers and module variables, each a registered range of
// emulated addresses. Accesses outside every range are errors, never host accesses.
class GlobalMemory {
 public:
  // Storage comes from calloc (a large buffer costs only the pages the kernel touches), or
  // is the caller's (add_external: a running program's own allocation, at its own address).
  struct Buffer {
    std::string name;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::unique_ptr<std::uint8_t, void (*)(void*)> storage{nullptr, std::free};
    std::atomic<bool> read{false}, written{false};
    std::atomic<std::uint64_t> max_touched{0};  // one past the highest byte accessed (offset)
    std::uint32_t footprint = 0;  // its number in the Footprint being recorded (footprint.hpp)
    // What tells a later launch whether its bytes may have changed (driver/repeats.hpp):
    // `id` is unique among every buffer ever added; `version` counts the writes reported to
    // it (written(), and kernels' writes); a buffer the host may write without a call
    // (managed, pinned or registered host memory, variables) is `host_writable`.
    std::uint64_t id = 0;
    std::uint64_t version = 0;
    bool host_writable = true;
    std::uint8_t* data() { return storage.get(); }
  };
  // Returns the base address of a new zeroed buffer of `bytes` (at least 1).
  std::uint64_t add(const std::string& name, std::uint64_t bytes, std::uint64_t base = 0);
  // Registers `bytes` (at least 1) of the caller's memory at `data`, whose address is also
  // its emulated address; the caller keeps it alive until remove(). Pre: it overlaps no
  // buffer and neither address window (ptx::kSharedWindow, kLocalWindow).
  void add_external(const std::string& name, void* data, std::uint64_t bytes);
  // Forgets the buffer based at `base` (false: none). Not while kernels run.
  bool remove(std::uint64_t base);
  // How many buffers remove() has forgotten: a pointer to a buffer kept since it last
  // changed is still good.
  std::uint64_t removals() const { return removals_; }
  // The buffer holding [addr, addr+size), or nullptr.
  Buffer* find(std::uint64_t addr, std::uint64_t size);
  // Whether addr lies within `distance` bytes of a buffer (before its start or past its end).
  bool near(std::uint64_t addr, std::uint64_t distance) const;
  // [addr, addr + bytes) was written by someone other than a kernel (a copy, a fill): every
  // buffer it overlaps gets a new version.
  void written(std::uint64_t addr, std::uint64_t bytes);
  // Writes of unknown place (a kernel whose writes were not recorded) move the epoch.
  std::uint64_t epoch = 0;
  // Whether every write other than kernels' is reported through written() (a runtime that
  // says so); otherwise a buffer's version says nothing and its bytes must be compared.
  bool writes_reported = false;
  // In the order they were added.
  std::vector<std::unique_ptr<Buffer>>& buffers() { return buffers_; }
  std::mutex atomic_mutex;  // serializes global atomics across CTAs run in parallel
  // Texture objects by handle (the driver's cuTexObjectCreate); read by `tex`, changed only
  // between launches.
  std::unordered_map<std::uint64_t, Texture> textures;
  // Surface objects by handle (cuSurfObjectCreate): the array each one reads and writes.
  std::unordered_map<std::uint64_t, Texture> surfaces;
  // Whether a running program's driver makes them (bankcheck run); `check` has none.
  bool program_objects = false;

 private:
  void index(Buffer* b);
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::map<std::uint64_t, Buffer*> by_base_;
  std::uint64_t next_ = ptx::kBufferBase;
  std::uint64_t next_id_ = 1;
  std::uint64_t removals_ = 0;
};

struct Launch {
  Dim3 grid, block;
  std::uint64_t dynamic_smem = 0;
  std::vector<std::uint8_t> params;    // the kernel's param buffer
  std::uint64_t budget = 200'000'000;  // warp instructions per CTA
  // The cluster shape (cudaLaunchAttributeClusterDimension); 1,1,1 takes the kernel's own
  // (.reqnctapercluster), a kernel without one runs in clusters of one CTA. The CTAs of a
  // cluster run together (Emulator::run_ctas).
  Dim3 cluster{1, 1, 1};
  // A cooperative launch (cudaLaunchCooperativeKernel): every CTA is resident, so the
  // grid's CTAs run together and cooperative groups' grid.sync() works; its workspace is
  // a buffer of `memory` the emulator adds once.
  bool cooperative = false;
  // Every field: two equal launches of a kernel run the same (driver/repeats.hpp).
  bool operator==(const Launch&) const = default;
};

// The cluster shape a launch of `kernel` has: the launch's, else the kernel's own, else one
// CTA.
Dim3 cluster_shape(const ptx::Kernel& kernel, const Launch& launch);

// How many kernels' native code (EmulatorOptions::native) failed to compile or load in this
// process: their launches ran on the micro-ops.
std::uint64_t native_code_failures();

// A kernel's EmulatorOptions::native_memo.
std::shared_ptr<detail::NativeMemo> make_native_memo();

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
  // Runs the `count` CTAs at `ctaids` together, to completion: each runs until its warps
  // wait, then the next; a barrier of a cluster (barrier.cluster), an mbarrier that
  // another CTA completes, or a grid synchronization (a load spinning on memory another
  // CTA writes) is where they take turns. Pass whole clusters: a CTA's cluster members
  // that are not among them cannot be reached (their shared memory, their arrivals).
  // Throws EmuError (a deadlock names the wait and what it waits for).
  void run_ctas(const Launch& launch, const Dim3* ctaids, std::size_t count);
  std::uint64_t executed() const { return executed_; }  // warp instructions so far
  const std::vector<Note>& notes() const { return notes_; }
  // The sites (Kernel::sites) of the loads that read shared bytes no thread of their CTA
  // had written before (the emulator reads them as zero), each once, in the order found.
  // A read counts when its bytes were never written in that CTA, whatever the barriers
  // in between: the record is of bytes, not of races.
  const std::vector<int>& unwritten_shared_reads() const { return unwritten_sites_; }
  // The global faults survived so far (stop_on_fault off), one per instruction and kind.
  const std::vector<SurvivedFault>& faults() const { return faults_; }
  std::vector<SurvivedFault> take_faults() { return std::exchange(faults_, {}); }
  // Device printf's text since the last take (EmulatorOptions::printf), in execution order.
  std::string take_printed() { return std::exchange(printed_, {}); }

 private:
  struct State;
  // The CTAs of a group: set up CTA `i` (emulator.cpp); run it until no warp of it can run
  // (`alone`: the only CTA, which ends in a deadlock error or done); true if it ran.
  void setup_cta(const Launch& launch, std::size_t i, Dim3 ctaid);
  bool step(const Launch& launch, std::size_t i, bool alone, bool release);
  [[noreturn]] void deadlock(std::size_t i);
  std::uint64_t grid_workspace_ = 0;  // a cooperative launch's grid-sync workspace buffer
  const ptx::Program& program_;
  const ptx::Kernel& kernel_;
  GlobalMemory& memory_;
  Options options_;
  std::vector<Listener*> listeners_;
  std::uint64_t executed_ = 0;
  std::vector<Note> notes_;
  std::vector<std::uint8_t> read_unwritten_;  // per site: in unwritten_sites_
  std::vector<int> unwritten_sites_;
  std::vector<SurvivedFault> faults_;
  std::string printed_;
  std::unique_ptr<State> state_;
};

}  // namespace bankcheck::emu
