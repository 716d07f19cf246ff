// The GPU backend's instrumentation, decided on the host: when each module carries bankcheck's
// patches, the analysed kernels' counter tables on the GPU, and when the tables are read back.
//
// Launches that are not analysed run the program's own code: a module is patched when it is
// loaded (the first launch of every kernel runs patched, as the default analyses it) and
// unpatched before a launch of it that is not analysed, once the instrumented launches of it
// still running have finished (the only wait, and only at such a change); a later analysed
// launch patches it again. Nothing else happens for a launch that is not analysed.
//
// An analysed kernel has one table over all its analysed launches (counters add up on the GPU,
// no launch waits for another): the table is read back as the program's next launch begins
// (read_launched: a later fault, sticky, would lose it), when the program itself synchronized
// the streams its launches ran on (at most every Options::read_interval_s), before its module
// is unloaded or its context destroyed, and at exit. Every thread of an analysed launch counts
// its exit in the table (the patched block exit), so a read that did not see every thread of
// every analysed launch run the patched code to its end is known: the kernel is named
// incomplete with the reason, never reported as whole.
//
// Host code with no CUDA: the GPU is behind DeviceApi (tool.cpp implements it with the
// compute-sanitizer API; tests/device_instrumentation_test.cpp with a fake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/device/pc_report.hpp"
#include "bankcheck/device/records.hpp"
#include "bankcheck/model/arch.hpp"

namespace bankcheck::device {

// The driver's and the sanitizer's handles, opaque here: CUcontext, CUmodule, CUfunction,
// Sanitizer_StreamHandle (null: the NULL stream), Sanitizer_LaunchHandle.
using Handle = const void*;

// What the instrumentation asks of the GPU. Each call returns "" when done, else why not.
class DeviceApi {
 public:
  virtual ~DeviceApi() = default;
  // bankcheck's patches loaded into a context (asked once per context).
  virtual std::string load_patches(Handle context) = 0;
  // The module's memory instructions and thread exits made to call the patches.
  virtual std::string patch(Handle module) = 0;
  // Whether the module's thread exits call the patches (their count tells a whole count from a
  // partial one); false where only the memory instructions could be patched.
  virtual bool exits_counted(Handle) const { return true; }
  // The module's own code back.
  virtual std::string unpatch(Handle module) = 0;
  // The address of a kernel's first instruction.
  virtual std::string function_pc(Handle module, const std::string& mangled, std::uint64_t& pc) = 0;
  virtual std::string alloc(Handle context, std::size_t bytes, void*& device) = 0;
  // Ordered on `stream` before the work enqueued after; `host` may change once it returns.
  virtual std::string zero(void* device, std::size_t bytes, Handle stream) = 0;
  virtual std::string to_device(void* device, const void* host, std::size_t bytes,
                                Handle stream) = 0;
  // After the stream's earlier work; returns when copied.
  virtual std::string to_host(void* host, const void* device, std::size_t bytes, Handle stream) = 0;
  // Returns when the stream's work enqueued so far is done.
  virtual std::string synchronize(Handle stream) = 0;
  // The launch's patches get `data` (null: they return at once).
  virtual std::string set_launch_data(Handle launch, Handle function, Handle stream,
                                      void* data) = 0;
};

// A launch as its launch callback describes it.
struct Launch {
  Handle context = nullptr, module = nullptr, function = nullptr, stream = nullptr;
  Handle handle = nullptr;  // Sanitizer_LaunchHandle
  std::string mangled;
  std::uint64_t threads = 0;  // grid x block
  bool graph_node = false;    // a kernel node of a graph being launched
};

// What an analysed kernel's table is made from, on its first analysed launch.
struct TableSetup {
  unsigned capacity = 0;             // counter slots of a shard, a power of two
  unsigned shards = 1;               // copies of the slots (records.hpp), a power of two
  unsigned probe = 0;                // LaunchRecord::probe (measurements of the patches)
  std::vector<unsigned char> forms;  // Form per 16-byte instruction (instruction_forms)
  model::Arch arch = model::kDefaultArch;
};

// One kernel's counters on the GPU over its analysed launches, and the last read of them.
struct KernelTable {
  Handle context = nullptr, module = nullptr, function = nullptr;
  std::string mangled;
  void* device = nullptr;      // LaunchRecord, the counters, the exits, the forms
  std::size_t read_bytes = 0;  // the record, the counters and the exits
  LaunchRecord record{};       // as written before the first launch
  std::vector<unsigned char> forms;
  std::uint64_t launches = 0;          // analysed launches given the table
  std::uint64_t expected_threads = 0;  // their threads
  std::set<Handle> in_flight;          // streams of those launches not known to have finished
  Handle init_stream = nullptr;        // the stream the table was written on
  Handle last_stream =
      nullptr;               // of its last analysed launch (null once destroyed: the NULL stream)
  bool initialized = false;  // that writing known to be done
  bool dirty = false;        // launches since the last read, or a read that did not see them whole
  double last_read_s = -1e9;
  double last_try_s = -1e9;  // the last attempt, read or not
  // The last read.
  KernelCounts counts;
  std::uint64_t read_launches = 0, read_expected = 0;  // launches and threads it covered
  std::uint64_t exited_threads = 0, overflowed = 0;
  bool read = false;
  bool exits_known = true;  // the exits are counted (else only the reads' coverage is known)
  std::string unreadable;   // why the last attempt to read failed
  bool retired = false;     // its module was unloaded: the last read is final

  // Every thread of every analysed launch ran the patched code to its exit, and the last read
  // saw them all.
  bool complete() const;
  // Why not (empty when complete): the words the report's note and standard error use.
  std::string incomplete_reason() const;
};

struct InstrumentationStats {
  std::uint64_t patches = 0, unpatches = 0, waits = 0, reads = 0;
  double patch_s = 0, unpatch_s = 0, wait_s = 0, read_s = 0;
};

class Instrumentation {
 public:
  struct Options {
    double read_interval_s =
        0.25;  // at the program's sync points, a table is read at most this often
    // A new table waited for and read back until it is as written before a launch is given it.
    bool check_written = true;
  };
  // `trace` (may be empty) gets one line per decision: patch, unpatch, wait, read.
  Instrumentation(DeviceApi& api, Options options,
                  std::function<void(const std::string&)> trace = {},
                  std::function<double()> clock = {});

  // A module was loaded: patched, for the first launches of its kernels. "" or why not.
  std::string module_loaded(Handle context, Handle module);
  // The module's code made right for a launch about to be made: patched for an analysed
  // launch; its own for one that is not, once the instrumented launches of it still running
  // have finished. Idempotent: called as early as the launch is known (the launch call) and
  // again when it begins. `no_wait` (inside a graph's launch, or a launch's own callback,
  // where the driver holds the launch's locks): nothing waits, so a module that is patched
  // stays patched and the launch runs it with no table (its patches return at once).
  std::string prepare(Handle module, bool analysed, bool no_wait);
  // An analysed launch begins: its kernel's table (made from setup() on the kernel's first
  // analysed launch) given to it. Null when it cannot be analysed; `error` says why.
  KernelTable* begin(const Launch& launch, const std::function<TableSetup()>& setup,
                     std::string& error);
  // A launch that is not analysed begins: where its module is patched (a graph's node, a
  // module that could not be unpatched) or was unpatched only as it began, its patches get no
  // table.
  void begin_unanalysed(const Launch& launch);
  // An analysed launch that began did not run (its launch call returned an error): its
  // threads are no longer expected in its table.
  void abandon(KernelTable& table, std::uint64_t threads);

  // As a launch begins: the tables with analysed launches not read since are read back now
  // (their streams waited for first), those last read or tried `min_age_s` ago or more, so that
  // a later fault (a sticky error) loses only the kernels that ran with it. Nothing is waited
  // for where no table has such launches. Whether a table was read.
  bool read_launched(double min_age_s);
  // Whether read_launched() may have a table to read.
  bool unread() const { return unread_; }
  // The program synchronized a stream (of `context`), or a context (every stream of it); a
  // null context: whichever context the stream is of.
  void stream_synchronized(Handle context, Handle stream);
  void context_synchronized(Handle context);
  // A stream is about to be destroyed: the analysed launches on it are waited for.
  void stream_destroying(Handle stream);
  // A module is about to be unloaded, a context destroyed: their tables read a last time.
  void module_unloading(Handle module);
  void context_destroying(Handle context);
  // At exit: the tables still live read a last time.
  void finish();

  bool patched(Handle module) const;
  // Whether some module known loaded is not patched now.
  bool any_unpatched() const;
  const std::deque<KernelTable>& tables() const { return tables_; }
  const InstrumentationStats& stats() const { return stats_; }

 private:
  struct Module {
    Handle context = nullptr;
    bool patched = false;
    bool unpatchable = false;    // unpatching failed once: it stays patched
    std::string patch_error;     // patching failed: nothing in it is analysed
    std::set<Handle> in_flight;  // streams of its instrumented launches not known finished
    std::vector<KernelTable*> tables;
  };
  std::string patch(Module& m, Handle module);
  void wait_for(const std::set<Handle>& streams);
  void finished(Handle stream);
  void read(KernelTable& t, Handle stream, const char* why);
  // A new table waited for on `stream` and read back until it is as written ("" or why not).
  std::string written(KernelTable& t, Handle stream);
  // The last read of a table (its module unloading, the exit), on its last launch's stream.
  void read_last(KernelTable& t, const char* why);
  void read_quiet(Handle context, Handle stream, bool whole_context);
  double now() const;
  void say(const std::string& line) const;

  DeviceApi& api_;
  Options options_;
  std::function<void(const std::string&)> trace_;
  std::function<double()> clock_;
  std::map<Handle, Module> modules_;
  std::set<Handle> contexts_;  // with the patches loaded
  std::map<Handle, std::string> context_errors_;
  std::map<Handle, KernelTable*> live_;  // by function
  Handle unpatched_now_ = nullptr;       // the module the last prepare() unpatched
  bool unread_ = false;  // analysed launches that read_launched() has not read (or left)
  std::deque<KernelTable> tables_;
  InstrumentationStats stats_;
};

}  // namespace bankcheck::device
