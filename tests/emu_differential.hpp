// The differential check of the emulator's tiers: a run with the micro-ops on and the
// same run by the reference semantics alone (Emulator::Options::fast off) must leave the
// same global memory, raise the same error, and send the same stream of access events; and
// so must the tier of launches nobody analyses (Options::execute_only, no listener) leave
// the same memory and raise the same error; and so must both tiers with native code
// (native.hpp), the analysed one sending the same events.
// Used by tests/emu_test.cpp (every launch of its kernels and its hand-written PTX) and by
// tests/emu_differential_test.cpp (every example).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/emu/emulator.hpp"

namespace bankcheck::emu::testing {

// Every access event of a run, in the order the emulator sent them within each CTA (CTAs
// may run on several threads; within one, the order is the emulator's). Lanes outside the
// mask are not part of an event: they are stored as zero.
class EventLog : public Listener {
 public:
  struct Event {
    int site, warp;
    int space, op, width;
    std::uint32_t mask;
    std::uint64_t addr[32];
    int kind, matrices;
    bool trans, bypass, src_size;
    std::uint64_t global_addr[32];
    bool operator==(const Event&) const = default;
  };
  void on_access(const AccessEvent& e) override {
    Event r{e.site,
            e.warp,
            static_cast<int>(e.space),
            static_cast<int>(e.op),
            e.width,
            e.mask,
            {},
            static_cast<int>(e.kind),
            e.matrices,
            e.trans,
            e.bypass,
            e.src_size,
            {}};
    for (int l = 0; l < 32; ++l) r.addr[l] = (e.mask >> l) & 1u ? e.addr[l] : 0;
    for (int l = 0; l < 32; ++l) r.global_addr[l] = (e.mask >> l) & 1u ? e.global_addr[l] : 0;
    std::lock_guard<std::mutex> lock(mutex_);
    by_cta_[e.cta].push_back(r);
  }
  const std::map<std::uint64_t, std::vector<Event>>& by_cta() const { return by_cta_; }
  std::size_t size() const {
    std::size_t n = 0;
    for (const auto& [cta, v] : by_cta_) n += v.size();
    return n;
  }

 private:
  std::mutex mutex_;
  std::map<std::uint64_t, std::vector<Event>> by_cta_;
};

inline std::string describe(const EventLog::Event& e) {
  std::ostringstream s;
  s << "site " << e.site << " warp " << e.warp << " space " << e.space << " op " << e.op
    << " width " << e.width << " mask 0x" << std::hex << e.mask << " addr";
  for (int l = 0; l < 32; ++l)
    if ((e.mask >> l) & 1u) s << " " << l << ":0x" << e.addr[l];
  return s.str();
}

// Adds a failure naming the first difference between the two logs.
inline void expect_same_events(const EventLog& fast, const EventLog& ref, const std::string& what) {
  EXPECT_EQ(fast.by_cta().size(), ref.by_cta().size()) << what << ": CTAs with events";
  for (const auto& [cta, fe] : fast.by_cta()) {
    auto it = ref.by_cta().find(cta);
    if (it == ref.by_cta().end()) {
      ADD_FAILURE() << what << ": CTA " << cta << " has events only with the fast tier";
      return;
    }
    const auto& re = it->second;
    const std::size_t n = std::min(fe.size(), re.size());
    for (std::size_t i = 0; i < n; ++i)
      if (!(fe[i] == re[i])) {
        ADD_FAILURE() << what << ": CTA " << cta << " event " << i
                      << " differs\n  fast:      " << describe(fe[i])
                      << "\n  reference: " << describe(re[i]);
        return;
      }
    if (fe.size() != re.size()) {
      ADD_FAILURE() << what << ": CTA " << cta << " sends " << fe.size()
                    << " events with the fast tier, " << re.size() << " without";
      return;
    }
  }
}

// While set, expect_same_memory compares bytes only: the execute-only tier keeps no record of
// the bytes requests touched.
inline bool comparing_execute_only = false;

// Adds a failure naming the first buffer whose bytes or use differ.
inline void expect_same_memory(GlobalMemory& fast, GlobalMemory& ref, const std::string& what) {
  auto& fb = fast.buffers();
  auto& rb = ref.buffers();
  ASSERT_EQ(fb.size(), rb.size()) << what << ": buffers";
  for (std::size_t i = 0; i < fb.size(); ++i) {
    const auto& a = *fb[i];
    const auto& b = *rb[i];
    EXPECT_EQ(a.name, b.name) << what;
    EXPECT_EQ(a.base, b.base) << what << ": " << a.name;
    ASSERT_EQ(a.size, b.size) << what << ": " << a.name;
    const std::uint8_t* x = a.storage.get();
    const std::uint8_t* y = b.storage.get();
    if (std::memcmp(x, y, a.size) != 0) {
      std::uint64_t at = 0;
      while (x[at] == y[at]) ++at;
      ADD_FAILURE() << what << ": buffer " << a.name << " differs first at byte " << at
                    << " (fast 0x" << std::hex << int{x[at]} << ", reference 0x" << int{y[at]}
                    << ")";
    }
    if (comparing_execute_only) continue;
    EXPECT_EQ(a.max_touched.load(), b.max_touched.load()) << what << ": " << a.name;
    EXPECT_EQ(a.read.load(), b.read.load()) << what << ": " << a.name << " read";
    EXPECT_EQ(a.written.load(), b.written.load()) << what << ": " << a.name << " written";
  }
}

// Runs `run` with the emulator options of the fast tier, then of the reference (each with
// its own event log as the tap), compares the error (its message) and the events, and hands
// both results to `compare` (memory). Returns the fast run's result; rethrows the fast
// run's error.
template <typename R>
R run_both_tiers_with(const std::string& what,
                      const std::function<R(const Emulator::Options&)>& run,
                      const std::function<void(R&, R&)>& compare) {
  EventLog fast_log, ref_log;
  std::optional<R> fast, ref, executed;
  std::string fast_error, ref_error, executed_error;
  std::exception_ptr fast_exception;
  {
    const Emulator::Options o{.fast = true, .tap = &fast_log};
    try {
      fast.emplace(run(o));
    } catch (const std::exception& e) {
      fast_error = e.what();
      fast_exception = std::current_exception();
    }
  }
  {
    const Emulator::Options o{.fast = false, .tap = &ref_log};
    try {
      ref.emplace(run(o));
    } catch (const std::exception& e) {
      ref_error = e.what();
    }
  }
  {
    const Emulator::Options o{.fast = true, .execute_only = true};
    try {
      executed.emplace(run(o));
    } catch (const std::exception& e) {
      executed_error = e.what();
    }
  }
  // As bankcheck run runs them, with native code compiled at once (in the test run's own
  // cache, unless $BANKCHECK_CACHE_DIR says where): the launches not analysed, and the
  // analysed ones, whose events must be the reference's too.
  std::optional<R> native, native_analysed;
  std::string native_error, native_analysed_error;
  EventLog native_log;
  {
    ::setenv("BANKCHECK_CACHE_DIR", (::testing::TempDir() + "bankcheck-test-cache").c_str(), 0);
    const Emulator::Options o{
        .fast = true, .execute_only = true, .native = true, .native_after = 0};
    try {
      native.emplace(run(o));
    } catch (const std::exception& e) {
      native_error = e.what();
    }
    const Emulator::Options a{.fast = true, .tap = &native_log, .native = true, .native_after = 0};
    try {
      native_analysed.emplace(run(a));
    } catch (const std::exception& e) {
      native_analysed_error = e.what();
    }
  }
  EXPECT_EQ(fast_error, ref_error) << what << ": the error";
  EXPECT_EQ(executed_error, ref_error) << what << ": the error of the execute-only tier";
  EXPECT_EQ(native_error, ref_error) << what << ": the error of native code";
  EXPECT_EQ(native_analysed_error, ref_error) << what << ": the error of native code, analysed";
  EXPECT_EQ(native_code_failures(), 0u) << what << ": native code that did not compile (stderr)";
  if (executed && ref) {
    comparing_execute_only = true;
    compare(*executed, *ref);
    if (native) compare(*native, *ref);
    comparing_execute_only = false;
  }
  // After an error, CTAs on other threads may have run further in one run than in the
  // other: the events are compared when the run stopped in its only CTA.
  const bool comparable =
      fast_error.empty() || (fast_log.by_cta().size() <= 1 && ref_log.by_cta().size() <= 1);
  if (comparable) expect_same_events(fast_log, ref_log, what);
  if (native_analysed_error.empty() ||
      (native_log.by_cta().size() <= 1 && ref_log.by_cta().size() <= 1))
    expect_same_events(native_log, ref_log, what + " (native code)");
  if (fast && ref) compare(*fast, *ref);
  if (native_analysed && ref) compare(*native_analysed, *ref);
  if (fast_exception) std::rethrow_exception(fast_exception);
  return std::move(*fast);
}

// The same for a run in one GlobalMemory (`memory_of` finds it in the result).
template <typename R>
R run_both_tiers(const std::string& what, const std::function<R(const Emulator::Options&)>& run,
                 const std::function<GlobalMemory&(R&)>& memory_of) {
  return run_both_tiers_with<R>(what, run, [&](R& fast, R& ref) {
    expect_same_memory(memory_of(fast), memory_of(ref), what);
  });
}

}  // namespace bankcheck::emu::testing
