// An analysis as the engine runs it: a collector that makes one listener per worker thread,
// keeps the counts of each run of CTAs in a part of its own, merges the parts in the plan's
// order (the same result on any number of threads) and writes its share of the kernel's
// report. The engine knows collectors only through this interface (llvm-mca's views over
// one event stream), so an analysis is one new file and one line in the pipeline's table.
#pragma once

#include <memory>
#include <vector>

#include "bankcheck/emu/events.hpp"

namespace bankcheck::model {
struct Arch;
}
namespace bankcheck::sass {
struct Kernel;
}

namespace bankcheck::analysis {

struct KernelReport;
struct SassPlan;

// What a collector may know of the kernel it analyses. Lives as long as the collector.
struct KernelContext {
  const ptx::Program& program;
  const ptx::Kernel& kernel;
  const model::Arch& arch;
  // How SASS issues the kernel's shared sites (empty when the counts are PTX-level).
  const SassPlan& plan;
  // The kernel's SASS, and the program's file index of each of the cubin's .debug_line
  // files (-1: a file the program does not name); null and empty without SASS.
  const sass::Kernel* sass = nullptr;
  const std::vector<int>* sass_files = nullptr;
};

// The counts of one run of consecutive CTAs. Made by its collector, filled through a
// worker's listener, merged in plan order, then cleared and used again.
class Part {
 public:
  virtual ~Part() = default;
  virtual void clear() = 0;
};

// One worker thread's view of a collector: listeners that add what they see to the part
// bound to them, and whatever stays warm across the CTAs one thread runs (a verdict memo).
class Worker {
 public:
  virtual ~Worker() = default;
  virtual void bind(Part& part) = 0;
  // The requests as the cubin's SASS issues them (as the PTX states them when SASS is not
  // read); null when the collector does not read them.
  virtual emu::Listener* issued() { return nullptr; }
  // The events as the emulator sends them, one per PTX instruction; null when not read.
  virtual emu::Listener* emulated() { return nullptr; }
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::unique_ptr<Part> make_part() = 0;
  virtual std::unique_ptr<Worker> make_worker() = 0;
  // Adds a part's counts; called in the plan's order, never concurrently.
  virtual void merge(Part& part) = 0;
  // Writes what it found into the kernel's report, once, after the kernel's last launch.
  virtual void report(KernelReport& report) = 0;
  // Whether each part must hold one CTA: a collector whose part fills up within a CTA (the
  // recorder's limit) would otherwise keep other requests with another grouping.
  virtual bool one_cta_per_part() const { return false; }
};

// The collector of type T among `collectors`, or null.
template <typename T>
T* find_collector(const std::vector<std::unique_ptr<Collector>>& collectors) {
  for (const auto& c : collectors)
    if (auto* t = dynamic_cast<T*>(c.get())) return t;
  return nullptr;
}

}  // namespace bankcheck::analysis
