// The GPU backend's instrumentation decisions (device/instrumentation.hpp) against a fake GPU:
// streams are queues that run when synchronized, a launch runs patched or not as its module was
// when it was enqueued, and a patched launch given a table adds its counts and its threads'
// exits to it, as bankcheck's patches do. The fake also catches a module unpatched while a
// launch of it that runs the patches is still queued.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/device/instrumentation.hpp"

namespace bd = bankcheck::device;
using bd::Handle;

namespace {

Handle h(std::uintptr_t v) { return reinterpret_cast<Handle>(v); }

struct Kernel {
  Handle module, function;
  std::string name;
};

class FakeGpu : public bd::DeviceApi {
 public:
  std::string load_patches(Handle) override {
    ++loads;
    return "";
  }
  std::string patch(Handle module) override {
    if (fail_patch) return "patching refused";
    patched.insert(module);
    ++patches;
    return "";
  }
  std::string unpatch(Handle module) override {
    if (fail_unpatch) return "unpatching refused";
    for (const auto& [s, q] : streams)
      for (const Op& op : q)
        if (op.module == module && op.patched) ++unpatched_in_flight;
    patched.erase(module);
    ++unpatches;
    return "";
  }
  bool exits_counted(Handle) const override { return !no_exits; }
  std::string function_pc(Handle, const std::string&, std::uint64_t& pc) override {
    pc = 0x1000;
    return "";
  }
  std::string alloc(Handle, std::size_t bytes, void*& device) override {
    memory.push_back(std::make_unique<unsigned char[]>(bytes));
    // Garbage until written (zeros where the writes come late: a record with no counters).
    std::memset(memory.back().get(), late_writes ? 0 : 0xab, bytes);
    device = memory.back().get();
    return "";
  }
  std::string zero(void* device, std::size_t bytes, Handle stream) override {
    enqueue(late_writes ? kCopies : stream, {[=] { std::memset(device, 0, bytes); }});
    return "";
  }
  std::string to_device(void* device, const void* host, std::size_t bytes, Handle stream) override {
    auto copy = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(host), static_cast<const unsigned char*>(host) + bytes);
    enqueue(late_writes ? kCopies : stream, {[=] { std::memcpy(device, copy->data(), bytes); }});
    return "";
  }
  std::string to_host(void* host, const void* device, std::size_t bytes, Handle stream) override {
    if (faulted) return "an unknown internal error";
    if (!fail_sync) run(stream);  // a stream that cannot be waited for: read as it is
    run(kCopies);                 // the late writes land after the launches, before a read
    std::memcpy(host, device, bytes);
    ++copies_back;
    return "";
  }
  std::string synchronize(Handle stream) override {
    ++syncs;
    if (fail_sync) return "the stream could not be synchronized";
    if (faulted) return "an unknown internal error";
    run(stream);
    if (!stream) run(kCopies);  // the whole device
    return "";
  }
  std::string set_launch_data(Handle launch, Handle, Handle, void* data) override {
    launch_data[launch] = data;
    return "";
  }

  struct Op {
    std::function<void()> run;
    Handle module = nullptr;
    bool patched = false;
  };
  void enqueue(Handle stream, Op op) { streams[stream].push_back(std::move(op)); }
  void run(Handle stream) {
    auto& q = streams[stream];
    while (!q.empty()) {
      Op op = std::move(q.front());
      q.pop_front();
      op.run();
    }
  }
  void run_all() {
    for (auto& [s, q] : streams) run(s);
  }

  // What a launch does on the GPU: patched with a table, each of its instructions (pcs
  // 0x1010, 0x1020) counts one request per warp and 2 wavefronts, and each thread its exit;
  // `exiting` of the threads get to their exit patched (the rest ran the module's own code).
  void kernel(Handle stream, Handle module, Handle handle, std::uint64_t threads,
              std::uint64_t exiting) {
    const bool p = patched.count(module);
    void* data = p ? launch_data[handle] : nullptr;
    launch_data.erase(handle);
    if (p) ++ran_patched;
    // The launch's warps add to the shard of "their SM": the launches in turn.
    const unsigned sm = static_cast<unsigned>(ran_patched);
    enqueue(stream, {[=] {
                       if (!data) return;
                       auto* r = static_cast<bd::LaunchRecord*>(data);
                       const unsigned shard = sm & (r->shards - 1);
                       bd::PcCounter* table = r->counters + shard * r->capacity;
                       for (unsigned long long pc : {0x1010ull, 0x1020ull}) {
                         bd::PcCounter* c = nullptr;
                         for (unsigned i = 0; i < r->capacity && !c; ++i)
                           if (table[i].pc == pc || table[i].pc == 0) c = &table[i];
                         if (!c) continue;
                         c->pc = pc;
                         c->space = 0;
                         c->requests += threads / 32;
                         c->wavefronts += 2 * (threads / 32);
                         c->ideal += threads / 32;
                         c->ways = std::max(c->ways, 2u + shard);
                       }
                       (r->exits ? r->exits[shard * bd::kExitStride] : r->exited) += exiting;
                     },
                     module, p});
  }

  std::map<Handle, std::deque<Op>> streams;
  std::set<Handle> patched;
  std::map<Handle, void*> launch_data;
  std::vector<std::unique_ptr<unsigned char[]>> memory;
  int loads = 0, patches = 0, unpatches = 0, syncs = 0, copies_back = 0;
  int unpatched_in_flight = 0, ran_patched = 0;
  bool fail_patch = false, fail_unpatch = false, fail_sync = false, no_exits = false;
  bool faulted = false;  // a kernel faulted: the error is sticky, every copy and wait fails
  // The writes to the GPU are not ordered before the launches made after them on the stream
  // (they land when the whole device is waited for).
  bool late_writes = false;
  static inline const Handle kCopies = reinterpret_cast<Handle>(std::uintptr_t{0xc0});
};

// The tool's side: the launch call prepares the module, the launch callback begins it, the
// GPU queues it.
struct Harness {
  FakeGpu gpu;
  double clock = 0;
  std::vector<std::string> trace;
  // The tables' writing checked only where a test says so (it adds a wait and a read).
  explicit Harness(bool check = false) : check_written(check) {}
  bool check_written;
  unsigned shards = 1;
  bd::Instrumentation in{gpu, bd::Instrumentation::Options{0.25, check_written},
                         [this](const std::string& s) { trace.push_back(s); },
                         [this] { return clock; }};
  std::uintptr_t next_launch = 1000;
  int setups = 0;

  bd::KernelTable* launch(const Kernel& k, Handle stream, bool analysed,
                          std::uint64_t threads = 1024, std::uint64_t exiting = ~0ull,
                          bool graph = false) {
    bd::Launch l;
    l.context = h(1);
    l.module = k.module;
    l.function = k.function;
    l.stream = stream;
    l.handle = h(++next_launch);
    l.mangled = k.name;
    l.threads = threads;
    l.graph_node = graph;
    in.prepare(k.module, analysed, graph);
    bd::KernelTable* t = nullptr;
    if (analysed) {
      std::string error;
      t = in.begin(
          l,
          [&] {
            ++setups;
            bd::TableSetup s;
            s.capacity = 64;
            s.shards = shards;
            return s;
          },
          error);
      if (!t) last_error = error;
    } else {
      in.begin_unanalysed(l);
    }
    gpu.kernel(stream, k.module, l.handle, threads, exiting == ~0ull ? threads : exiting);
    return t;
  }
  std::string last_error;
};

std::uint64_t requests(const bd::KernelTable& t) {
  std::uint64_t n = 0;
  for (const auto& c : t.counts.counters) n += c.requests;
  return n;
}

const Kernel kA{h(10), h(100), "_Z1aPf"};
const Kernel kB{h(10), h(101), "_Z1bPf"};  // same module as kA
const Kernel kC{h(20), h(200), "_Z1cPf"};  // another module
const Handle s1 = h(7), s2 = h(8);

TEST(DeviceInstrumentation, ValidateThenBenchmarkPatchesOnceAndUnpatchesOnce) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true);  // the first launch: analysed
  ASSERT_NE(t, nullptr);
  for (int i = 0; i < 1000; ++i) x.launch(kA, s1, false);  // the timing loop
  x.gpu.run_all();
  x.in.finish();
  EXPECT_EQ(x.gpu.loads, 1);
  EXPECT_EQ(x.gpu.patches, 1);    // at load
  EXPECT_EQ(x.gpu.unpatches, 1);  // before the first launch not analysed
  EXPECT_EQ(x.gpu.syncs, 1);      // waiting for the analysed launch, once
  EXPECT_EQ(x.gpu.ran_patched, 1);
  EXPECT_EQ(x.gpu.unpatched_in_flight, 0);
  EXPECT_EQ(requests(*t), 2u * 1024 / 32);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

TEST(DeviceInstrumentation, AnAnalysedLaunchAfterUnanalysedOnesPatchesAgain) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true);
  x.launch(kA, s1, false);
  x.launch(kA, s1, false);
  EXPECT_FALSE(x.in.patched(kA.module));
  EXPECT_EQ(x.launch(kA, s1, true, 2048), t);  // a new configuration: the same table
  EXPECT_TRUE(x.in.patched(kA.module));
  x.in.finish();
  EXPECT_EQ(x.gpu.patches, 2);
  EXPECT_EQ(x.gpu.ran_patched, 2);
  EXPECT_EQ(x.setups, 1);
  EXPECT_EQ(t->launches, 2u);
  EXPECT_EQ(requests(*t), 2u * (1024 + 2048) / 32);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
  EXPECT_EQ(x.gpu.unpatched_in_flight, 0);
}

TEST(DeviceInstrumentation, EveryLaunchAnalysedNeverWaitsAndAddsUpOnTheGpu) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = nullptr;
  for (int i = 0; i < 500; ++i) {
    t = x.launch(kA, i % 2 ? s1 : s2, true);
    x.launch(kB, s2, true);
  }
  // The table was written on s2, the first launch's; s1's first launch waited for it once.
  EXPECT_EQ(x.gpu.syncs, 1);
  EXPECT_EQ(x.gpu.unpatches, 0);
  EXPECT_EQ(x.gpu.copies_back, 0);  // nothing read while the program runs without syncing
  x.in.finish();
  EXPECT_EQ(x.gpu.copies_back, 2);  // one read per kernel, at the end
  EXPECT_EQ(t->launches, 500u);
  EXPECT_EQ(requests(*t), 500u * 2 * 1024 / 32);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

// The warps of different SMs add to their own shard of the table; a read adds the shards up:
// one counter per instruction, the requests and wavefronts summed, the worst N-way the most
// of any shard, the exits of every shard counted.
TEST(DeviceInstrumentation, TheShardsOfATableAddUpToOneCounterPerInstruction) {
  Harness x;
  x.shards = 4;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = nullptr;
  for (int i = 0; i < 6; ++i) t = x.launch(kA, s1, true);
  x.gpu.run_all();
  x.in.finish();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->record.shards, 4u);
  ASSERT_EQ(t->counts.counters.size(), 2u);
  for (const bd::PcCounter& c : t->counts.counters) {
    EXPECT_EQ(c.requests, 6u * 1024 / 32);
    EXPECT_EQ(c.wavefronts, 2u * 6 * 1024 / 32);
    EXPECT_EQ(c.ways, 2u + 3);  // shard 3's
  }
  EXPECT_EQ(t->exited_threads, 6u * 1024);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

TEST(DeviceInstrumentation, NoModuleIsUnpatchedUnderARunningInstrumentedLaunch) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  x.in.module_loaded(h(1), kC.module);
  x.launch(kA, s1, true);   // queued on s1, not run
  x.launch(kC, s2, false);  // another module: unpatched at once, no wait
  EXPECT_EQ(x.gpu.syncs, 0);
  EXPECT_FALSE(x.in.patched(kC.module));
  x.launch(kB, s2, false);  // kA's module: waits for s1 first
  EXPECT_EQ(x.gpu.syncs, 1);
  EXPECT_FALSE(x.in.patched(kA.module));
  EXPECT_EQ(x.gpu.unpatched_in_flight, 0);
  x.launch(kB, s2, false);  // already unpatched: nothing more
  EXPECT_EQ(x.gpu.syncs, 1);
  EXPECT_EQ(x.gpu.unpatches, 2);
}

TEST(DeviceInstrumentation, TablesAreReadAtTheProgramsSyncPointsAtMostSoOften) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* a = x.launch(kA, s1, true);
  bd::KernelTable* b = x.launch(kB, s2, true);
  x.gpu.run(s1);
  x.in.stream_synchronized(h(1), s1);  // the program's cudaStreamSynchronize(s1)
  EXPECT_TRUE(a->read);
  EXPECT_TRUE(a->complete());
  EXPECT_FALSE(b->read);  // its launch is on s2, not known finished
  x.launch(kA, s1, true);
  x.gpu.run(s1);
  x.clock = 0.1;
  x.in.stream_synchronized(h(1), s1);
  EXPECT_EQ(a->read_launches, 1u);  // read 0.1 s ago: not yet
  x.clock = 0.3;
  x.gpu.run(s2);
  x.in.context_synchronized(h(1));
  EXPECT_EQ(a->read_launches, 2u);
  EXPECT_TRUE(b->read);
  EXPECT_TRUE(a->complete() && b->complete());
}

TEST(DeviceInstrumentation, TheNextLaunchCallReadsTheTablesSoALaterFaultLosesOnlyItsKernel) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  x.in.module_loaded(h(1), kC.module);
  bd::KernelTable* a = x.launch(kA, s1, true);
  x.in.read_launched(0);  // kC's launch begins
  EXPECT_EQ(x.gpu.copies_back, 1);
  bd::KernelTable* c = x.launch(kC, s1, true);
  x.gpu.faulted = true;  // kC faults
  x.in.context_synchronized(h(1));
  x.in.finish();
  EXPECT_TRUE(a->complete()) << a->incomplete_reason();
  EXPECT_EQ(requests(*a), 2u * 1024 / 32);
  EXPECT_FALSE(c->complete());
  EXPECT_NE(c->incomplete_reason().find("could not be read back"), std::string::npos);
  x.in.read_launched(0);  // nothing launched since: nothing read
  EXPECT_EQ(x.gpu.copies_back, 1);
}

TEST(DeviceInstrumentation, WithEveryLaunchAnalysedTheLaunchCallsReadAtMostSoOften) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = nullptr;
  for (int i = 0; i < 100; ++i) {
    x.clock = i * 0.01;
    x.in.read_launched(0.25);
    t = x.launch(kA, s1, true);
  }
  // At 0.01 s (the first launch never read), then at most every 0.25 s: no launch waits for
  // the one before.
  EXPECT_GE(x.gpu.copies_back, 3);
  EXPECT_LE(x.gpu.copies_back, 5);
  x.in.finish();
  EXPECT_EQ(t->launches, 100u);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

TEST(DeviceInstrumentation, AReadThatSawEveryLaunchButNotEveryExitIsTakenAgainAtTheEnd) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true, 1024, 0);
  x.in.stream_synchronized(h(1), s1);  // read: none of the threads seen at their exit
  EXPECT_TRUE(t->read);
  EXPECT_FALSE(t->complete());
  // The threads' exits land after that read (it came too early).
  x.gpu.enqueue(s1, {[t] { static_cast<bd::LaunchRecord*>(t->device)->exited += 1024; }});
  const int reads = x.gpu.copies_back;
  x.in.read_launched(0);  // a launch does not wait for that
  EXPECT_EQ(x.gpu.copies_back, reads);
  const int syncs = x.gpu.syncs;
  x.in.finish();  // waits for the launch's stream this time
  EXPECT_EQ(x.gpu.syncs, syncs + 1);
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

TEST(DeviceInstrumentation, ATableIsOnTheGpuAsWrittenBeforeALaunchIsGivenIt) {
  for (const bool check : {false, true}) {
    Harness x(check);
    x.gpu.late_writes = true;
    x.in.module_loaded(h(1), kA.module);
    bd::KernelTable* t = x.launch(kA, s1, true);
    ASSERT_NE(t, nullptr) << x.last_error;
    x.in.finish();
    x.gpu.run_all();
    // Unchecked, the launch ran before the table's writing, which then wrote over its counts.
    EXPECT_EQ(t->complete(), check) << t->incomplete_reason();
    EXPECT_EQ(requests(*t), check ? 2u * 1024 / 32 : 0u);
  }
}

TEST(DeviceInstrumentation, ThreadsThatDidNotRunThePatchesToTheirExitMakeTheKernelIncomplete) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true, 262144, 197632);  // 772 of 1024 CTAs of 256
  x.in.finish();
  EXPECT_FALSE(t->complete());
  EXPECT_NE(t->incomplete_reason().find("197632 of the 262144 threads"), std::string::npos)
      << t->incomplete_reason();
}

TEST(DeviceInstrumentation, WhereExitsAreNotCountedOnlyTheReadsCoverageIsKnown) {
  Harness x;
  x.gpu.no_exits = true;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true, 1024, 0);  // no exit counted
  x.launch(kA, s1, true);
  EXPECT_FALSE(t->exits_known);
  x.in.finish();
  EXPECT_TRUE(t->complete()) << t->incomplete_reason();
}

TEST(DeviceInstrumentation, ACountReadBeforeTheLaunchEndedIsNotWhole) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true);
  x.gpu.fail_sync = true;  // the end never waited for: the counters are read as they are
  x.launch(kB, s1, false);
  EXPECT_TRUE(x.in.patched(kA.module));  // not unpatched under the running launch
  EXPECT_EQ(x.gpu.unpatched_in_flight, 0);
  x.in.finish();
  EXPECT_FALSE(t->complete());
  EXPECT_FALSE(t->incomplete_reason().empty());
}

TEST(DeviceInstrumentation, AnUnloadedModulesTablesAreFinalAndItsHandlesFree) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true);
  x.in.module_unloading(kA.module);
  EXPECT_TRUE(t->retired);
  EXPECT_TRUE(t->complete());
  x.in.module_loaded(h(1), kA.module);  // the same handles, a new module
  bd::KernelTable* again = x.launch(kA, s1, true);
  EXPECT_NE(again, t);
  x.in.finish();
  EXPECT_EQ(t->launches, 1u);
  EXPECT_EQ(again->launches, 1u);
}

TEST(DeviceInstrumentation, InsideAGraphsLaunchAPatchedModuleStaysPatched) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  x.launch(kA, s1, true);
  x.launch(kB, s1, false, 1024, ~0ull, /*graph=*/true);
  EXPECT_TRUE(x.in.patched(kA.module));
  EXPECT_EQ(x.gpu.syncs, 0);
  EXPECT_EQ(x.gpu.ran_patched, 2);  // the node ran the patches, with no table
  x.in.finish();
  EXPECT_EQ(x.in.tables().size(), 1u);
  EXPECT_EQ(requests(x.in.tables().front()), 2u * 1024 / 32);
}

TEST(DeviceInstrumentation, AModuleThatCannotBePatchedAnalysesNothing) {
  Harness x;
  x.gpu.fail_patch = true;
  EXPECT_FALSE(x.in.module_loaded(h(1), kA.module).empty());
  EXPECT_EQ(x.launch(kA, s1, true), nullptr);
  EXPECT_NE(x.last_error.find("patching refused"), std::string::npos);
  x.gpu.fail_patch = false;  // not asked again
  EXPECT_EQ(x.launch(kA, s1, true), nullptr);
  EXPECT_EQ(x.gpu.patches, 0);
}

TEST(DeviceInstrumentation, AModuleThatCannotBeUnpatchedRunsItsPatchesWithNoTable) {
  Harness x;
  x.in.module_loaded(h(1), kA.module);
  bd::KernelTable* t = x.launch(kA, s1, true);
  x.gpu.fail_unpatch = true;
  for (int i = 0; i < 10; ++i) x.launch(kA, s1, false);
  x.in.finish();
  EXPECT_EQ(x.gpu.ran_patched, 11);
  EXPECT_EQ(t->launches, 1u);
  EXPECT_EQ(requests(*t), 2u * 1024 / 32);  // the others counted nothing
  EXPECT_TRUE(t->complete());
}

}  // namespace
