// Launches whose results are already in memory, so that they need not run: the rule that
// makes skipping repeated launches invisible to the program.
//
// A launch L of kernel K need not run when an earlier execution E of K had the same launch
// (grid, block, dynamic shared memory, parameter bytes: emu::Launch's ==), and
//   - K uses nothing that varies between runs (%clock, %clock64, %globaltimer) and only
//     instructions whose global accesses the footprint records (repeatable());
//   - E ran every CTA, survived no fault, and no global granule (4 bytes) it wrote is one it
//     read: then what E did is a function of the bytes it read, whose values it never
//     changed, and atomics (which read and write the same bytes) never qualify;
//   - the bytes E read are unchanged since, and the bytes it wrote still hold what it wrote.
// Then L would read what E read, compute what E computed and write what E wrote, which is
// already there: memory after L is memory now.
//
// The last condition, per buffer E touched: the buffer is the same one (its id) and nothing
// wrote it since (its version: kernels' writes as their footprints place them, the
// runtime's copies and fills as it reports them, and the epoch for writes of unknown place),
// which costs nothing to check; or, when that cannot be known (a buffer the host writes
// through its own pointers, a runtime that does not report its writes, a write somewhere
// unknown), a hash of every granule of it that E touched equals the hash taken when E ended
// (equal bytes always hash equal; different ones collide with probability 2^-64).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/emu/emulator.hpp"
#include "bankcheck/emu/footprint.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::driver {

// Whether repeated launches of `k` can be skipped at all; else `why` says what stops it.
bool repeatable(const ptx::Kernel& k, std::string& why);

// A hash of the bytes of `ranges` (addresses in `memory`); nullopt when some range no longer
// lies inside one allocation.
std::optional<std::uint64_t> hash_ranges(const std::vector<emu::Footprint::Range>& ranges,
                                         emu::GlobalMemory& memory);

class Repeats {
 public:
  explicit Repeats(const ptx::Kernel& k);
  bool enabled() const { return enabled_; }
  const std::string& why_not() const { return why_not_; }
  // Whether `launch` need not run: an execution with the same launch left its results in
  // memory that still holds them.
  bool already_in_memory(const emu::Launch& launch, emu::GlobalMemory& memory);
  // The footprint an execution of `launch` records into, or null (not enabled).
  emu::Footprint* record(emu::GlobalMemory& memory);
  // After every execution, recorded or not: what it wrote gets new versions (every buffer,
  // through the epoch, when its writes are not known), and a recording that is `complete`
  // (every CTA run, no fault survived) is kept as the execution later launches may repeat.
  void ran(const emu::Launch& launch, emu::GlobalMemory& memory, bool complete);
  // An execution that ended in an error: its writes are unknown, nothing is kept.
  void abandon(emu::GlobalMemory& memory);

 private:
  // The granules an execution touched in one buffer, and what the buffer was then.
  struct Part {
    std::uint64_t id = 0, base = 0, version = 0;
    std::vector<emu::Footprint::Range> ranges;
    std::uint64_t hash = 0;
  };
  struct Execution {
    emu::Launch launch;
    std::uint64_t epoch = 0;
    std::vector<Part> parts;
  };
  bool unchanged(Part& part, bool same_epoch, emu::GlobalMemory& memory);
  bool enabled_ = false;
  std::string why_not_;
  std::unique_ptr<emu::Footprint> footprint_;
  std::vector<Execution> executions_;  // the latest of each launch, oldest first
  unsigned unrepeatable_ = 0;          // executions in a row that read what they wrote
};

}  // namespace bankcheck::driver
