// Repeated launches that do not run (src/driver/repeats.hpp) and the footprint they rest on
// (emu/footprint.hpp). The footprint against a model of granules, over random accesses; then
// the rule against what it must never change: random sequences of launches (pure kernels,
// data-dependent reads, in-place updates, atomics, the clock, byte stores), copies the
// runtime reports and stores of the host's it does not see, run once with repeats skipped
// and once with every launch executed, leave the same bytes in every buffer after every
// step, and some launches were skipped. Needs nvcc for the kernels; skips without.
#include "../src/driver/repeats.hpp"  // repeatable(), private to the engine

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/emu/footprint.hpp"
#include "bankcheck/model/arch.hpp"
#include "require_nvcc.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace ptx = bankcheck::ptx;

namespace {

using Access = emu::Footprint::Access;
using Range = emu::Footprint::Range;

// ---------------------------------------------------------------- the footprint

// The granules a model marks, and the ranges and overlap the footprint must give for them.
struct Model {
  std::vector<bool> read, written;
  explicit Model(std::uint64_t bytes)
      : read((bytes + 3) / 4, false), written((bytes + 3) / 4, false) {}
  void mark(std::uint64_t off, std::uint64_t size, Access a) {
    for (std::uint64_t g = off / 4; g <= (off + size - 1) / 4; ++g) {
      if (a != Access::Write) read[g] = true;
      if (a != Access::Read) written[g] = true;
    }
  }
  std::vector<Range> ranges(std::uint64_t base, std::uint64_t bytes) const {
    std::vector<Range> out;
    for (std::uint64_t g = 0; g < read.size(); ++g) {
      if (!read[g] && !written[g]) continue;
      const std::uint64_t b = base + 4 * g, e = base + std::min(4 * g + 4, bytes);
      if (!out.empty() && out.back().end == b)
        out.back().end = e;
      else
        out.push_back({b, e});
    }
    return out;
  }
  bool overlap() const {
    for (std::size_t g = 0; g < read.size(); ++g)
      if (read[g] && written[g]) return true;
    return false;
  }
};

// The footprint of two buffers' requests against their models: the granules touched, and
// whether a request read what another wrote.
void expect_the_models(const emu::Footprint& fp, const Model (&model)[2],
                       const std::uint64_t (&bases)[2], const std::uint64_t (&sizes)[2],
                       int trial) {
  std::vector<Range> want = model[0].ranges(bases[0], sizes[0]);
  const std::vector<Range> second = model[1].ranges(bases[1], sizes[1]);
  want.insert(want.end(), second.begin(), second.end());
  ASSERT_EQ(fp.touched(), want) << "trial " << trial;
  ASSERT_EQ(fp.reads_what_it_writes(), model[0].overlap() || model[1].overlap())
      << "trial " << trial;
}

TEST(Footprint, GranulesOfFourBytes) {
  emu::GlobalMemory m;
  const std::uint64_t base = m.add("a", 64);
  auto& b = *m.find(base, 1);
  emu::Footprint fp(m);
  fp.mark(b, 0, 10, Access::Read);  // bytes 0..9: granules 0..2
  fp.mark(b, 16, 4, Access::Write);
  EXPECT_EQ(fp.touched(), (std::vector<Range>{{base, base + 12}, {base + 16, base + 20}}));
  EXPECT_FALSE(fp.reads_what_it_writes());
  EXPECT_EQ(fp.written_buffers(), std::vector<emu::GlobalMemory::Buffer*>{&b});
  fp.mark(b, 9, 1, Access::Write);  // a byte of a granule read
  EXPECT_TRUE(fp.reads_what_it_writes());
  EXPECT_TRUE(fp.complete());
}

// For random accesses of every width, lane by lane and as warps: the ranges are exactly the
// model's granules (clipped to the buffer's end), the overlap the model's, in two buffers.
TEST(Footprint, EqualsTheModel) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    emu::GlobalMemory m;
    const std::uint64_t sizes[2] = {1 + rng() % 3000, 1 + rng() % 700};
    const std::uint64_t bases[2] = {m.add("x", sizes[0]), m.add("y", sizes[1])};
    Model model[2] = {Model(sizes[0]), Model(sizes[1])};
    emu::Footprint fp(m);
    const int accesses = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < accesses; ++i) {
      const int which = static_cast<int>(rng() % 2);
      auto& b = *m.find(bases[which], 1);
      const auto a = static_cast<Access>(rng() % 3);
      const unsigned width = 1u << (rng() % 5);
      if (sizes[which] < width) continue;
      if (rng() % 2) {
        const std::uint64_t off = rng() % (sizes[which] - width + 1);
        fp.mark(b, off, width, a);
        model[which].mark(off, width, a);
      } else {
        std::uint64_t addrs[32];
        const std::uint32_t exec = static_cast<std::uint32_t>(rng());
        const std::uint64_t start = rng() % (sizes[which] - width + 1);
        const std::uint64_t stride = rng() % 3 == 0 ? 0 : width * (1 + rng() % 4);
        for (int l = 0; l < 32; ++l) {
          std::uint64_t off = start + l * stride;
          if (off + width > sizes[which]) off = rng() % (sizes[which] - width + 1);
          off -= off % width;
          addrs[l] = bases[which] + off;
          if ((exec >> l) & 1u) model[which].mark(off, width, a);
        }
        fp.mark_lanes(b, addrs, exec, width, a);
      }
    }
    expect_the_models(fp, model, bases, sizes, trial);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Warps' requests through runs (Footprint::Run), as the micro-ops make them: loops whose
// lanes advance by one step (forwards, backwards, by less than the width, by nothing, rows
// of a column walk), runs broken by another buffer, mask, width or access, lanes not
// executing, a whole warp of consecutive lanes; after the flush, exactly the model's
// granules, and nothing marked before it.
TEST(Footprint, RunsEqualTheModel) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    emu::GlobalMemory m;
    const std::uint64_t sizes[2] = {64 + rng() % 40000, 64 + rng() % 3000};
    const std::uint64_t bases[2] = {m.add("x", sizes[0]), m.add("y", sizes[1])};
    Model model[2] = {Model(sizes[0]), Model(sizes[1])};
    emu::Footprint fp(m);
    emu::Footprint::Run runs[2];
    const int loops = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < loops; ++i) {
      const int which = static_cast<int>(rng() % 2);
      emu::Footprint::Run& run = runs[rng() % 2];
      auto& b = *m.find(bases[which], 1);
      const auto a = static_cast<Access>(rng() % 3);
      const unsigned width = 1u << (rng() % 5);
      const std::uint32_t exec = rng() % 3 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rng());
      const std::int64_t steps[] = {0,   4,
                                    16,  -16,
                                    1,   static_cast<std::int64_t>(width),
                                    256, static_cast<std::int64_t>(width) * 3};
      const std::int64_t step = steps[rng() % 8];
      const std::uint64_t pitch = rng() % 4 == 0 ? width : width * (1 + rng() % 200);
      const int requests = 1 + static_cast<int>(rng() % 60);
      const std::uint64_t start = rng() % sizes[which];
      for (int r = 0; r < requests; ++r) {
        std::uint64_t addrs[32];
        for (int l = 0; l < 32; ++l) {
          std::uint64_t off = start + l * pitch + static_cast<std::uint64_t>(step * r);
          // Past either end, or now and then: a lane elsewhere, which breaks the run.
          if (rng() % 500 == 0 || off >= sizes[which] || off + width > sizes[which])
            off = rng() % (sizes[which] - width + 1);
          off -= off % width;
          addrs[l] = bases[which] + off;
          if ((exec >> l) & 1u) model[which].mark(off, width, a);
        }
        fp.mark_lanes(run, b, addrs, exec, width, a);
      }
    }
    for (auto& r : runs) fp.flush(r);
    expect_the_models(fp, model, bases, sizes, trial);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A run holds its requests until it is flushed (or broken), and is empty after.
TEST(Footprint, RunMarksWhenFlushed) {
  emu::GlobalMemory m;
  const std::uint64_t base = m.add("a", 8192);
  auto& b = *m.find(base, 1);
  emu::Footprint fp(m);
  emu::Footprint::Run run;
  std::uint64_t addrs[32];
  for (std::uint64_t r = 0; r < 3; ++r) {  // lanes 256 B apart, each advancing 8 B: a column walk
    for (std::uint64_t l = 0; l < 32; ++l) addrs[l] = base + 256 * l + 8 * r;
    fp.mark_lanes(run, b, addrs, 0xFFFFFFFFu, 4, Access::Read);
  }
  EXPECT_TRUE(fp.touched().empty());
  fp.flush(run);
  std::vector<Range> want;
  for (std::uint64_t l = 0; l < 32; ++l)
    for (std::uint64_t r = 0; r < 3; ++r)
      want.push_back({base + 256 * l + 8 * r, base + 256 * l + 8 * r + 4});
  EXPECT_EQ(fp.touched(), want);
  EXPECT_FALSE(fp.reads_what_it_writes());
  fp.flush(run);  // empty now: nothing more
  EXPECT_EQ(fp.touched(), want);
}

// A buffer added after the record began is one it cannot place: the record is incomplete.
TEST(Footprint, UnknownBufferMakesItIncomplete) {
  emu::GlobalMemory m;
  m.add("a", 64);
  emu::Footprint fp(m);
  auto& late = *m.find(m.add("late", 64), 1);
  late.footprint = 7;
  fp.mark(late, 0, 4, Access::Read);
  EXPECT_FALSE(fp.complete());
}

// ---------------------------------------------------------------- the rule

const drv::Loaded& kernels() {
  static const drv::Loaded loaded = [] {
    drv::CheckOptions o;
    o.input = std::string(BANKCHECK_SOURCE_DIR) + "/tests/data/repeats/kernels.cu";
    o.arch = "sm_90";
    return drv::load(o);
  }();
  return loaded;
}

const ptx::Kernel& kernel(const std::string& base) {
  for (const auto& k : kernels().program.kernels)
    if (k.name.find(base) != std::string::npos) return k;
  throw std::runtime_error("no kernel " + base);
}

constexpr int kN = 1000;  // elements: the last CTA of 256 threads is partial

// Buffers: A, B device memory; C host-writable (managed); I indices; K a counter; F bytes.
enum Buf { A, B, C, I, K, F, kBuffers };

struct Launch {
  const char* kernel;
  std::vector<int> args;  // buffers, then n
};
const std::vector<Launch>& menu() {
  static const std::vector<Launch> m = {
      {"scale2", {B, A}},    {"scale2", {A, C}},     {"scale2", {C, B}}, {"gather", {B, A, I}},
      {"gather", {A, C, I}}, {"odd_from_even", {A}}, {"axpy", {B, A}},   {"bump", {K}},
      {"clocked", {B, A}},   {"flags", {F, C}},
  };
  return m;
}

struct Step {
  enum Kind { Run, RuntimeWrite, HostWrite } kind = Run;
  int launch = 0;  // Run: the menu entry
  int buffer = 0;  // writes: which buffer, where, what
  std::uint64_t offset = 0, value = 0;
};

// The steps of one random sequence: mostly launches, often the one just before.
std::vector<Step> sequence(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Step> steps;
  int last = 0;
  for (int i = 0; i < 60; ++i) {
    Step s;
    const unsigned r = rng() % 10;
    if (r < 4) {
      s.launch = last;
    } else if (r < 8) {
      s.launch = last = static_cast<int>(rng() % menu().size());
    } else {
      s.kind = r == 8 ? Step::RuntimeWrite : Step::HostWrite;
      s.buffer = r == 8 ? static_cast<int>(rng() % kBuffers) : C;
      s.offset = rng() % (kN / 2);
      s.value = rng() % 3 == 0 ? 0 : rng();  // zeros may equal what is there
    }
    steps.push_back(s);
  }
  return steps;
}

// Runs the steps on fresh memory; the bytes of every buffer after every step, and how many
// launches did not run.
std::vector<std::vector<std::uint8_t>> play(const std::vector<Step>& steps, bool skip,
                                            std::uint64_t& skipped) {
  emu::GlobalMemory m;
  m.writes_reported = true;
  std::uint64_t base[kBuffers];
  const std::uint64_t bytes[kBuffers] = {4 * kN, 4 * kN, 4 * kN, 4 * kN, 4, kN};
  std::mt19937_64 fill(11);
  for (int b = 0; b < kBuffers; ++b) {
    base[b] = m.add("b" + std::to_string(b), bytes[b]);
    emu::GlobalMemory::Buffer& buf = *m.find(base[b], 1);
    buf.host_writable = b == C;
    for (std::uint64_t i = 0; i + 4 <= bytes[b]; i += 4) {
      const std::uint32_t index = static_cast<std::uint32_t>(fill() % (3 * kN));
      const float value = static_cast<float>(fill() % 1000) / 8.0f - 60.0f;
      if (b == I)
        std::memcpy(buf.data() + i, &index, 4);
      else
        std::memcpy(buf.data() + i, &value, 4);
    }
  }
  drv::CheckOptions o;
  o.arch = "sm_90";
  o.threads = 2;
  o.skip_repeats = skip;
  const auto& arch = *bankcheck::model::find_arch("sm_90");
  std::map<std::string, std::unique_ptr<drv::KernelAnalysis>> analyses;
  std::vector<std::vector<std::uint8_t>> after;
  skipped = 0;
  for (const Step& s : steps) {
    if (s.kind == Step::Run) {
      const Launch& l = menu()[static_cast<std::size_t>(s.launch)];
      const ptx::Kernel& k = kernel(l.kernel);
      auto& a = analyses[l.kernel];
      const bool first = !a;
      if (!a) a = std::make_unique<drv::KernelAnalysis>(kernels(), k, arch, o);
      drv::KernelLaunch kl;
      kl.kernel = &k;
      kl.launch.grid = {(kN + 255) / 256, 1, 1};
      kl.launch.block = {256, 1, 1};
      kl.launch.params.assign(static_cast<std::size_t>(k.param_bytes), 0);
      for (std::size_t p = 0; p < k.params.size(); ++p) {
        const std::uint64_t v = p < l.args.size() ? base[l.args[p]] : kN;
        std::memcpy(kl.launch.params.data() + k.params[p].offset, &v,
                    static_cast<std::size_t>(k.params[p].size));
      }
      kl.blocks = "all";
      kl.memory = &m;
      if (!a->run(kl, /*analyse=*/first)) ++skipped;
    } else {
      emu::GlobalMemory::Buffer& buf = *m.find(base[s.buffer], 1);
      const std::uint64_t off = std::min<std::uint64_t>(s.offset, buf.size - 1);
      const std::uint64_t n = std::min<std::uint64_t>(8, buf.size - off);
      std::memcpy(buf.data() + off, &s.value, n);
      if (s.kind == Step::RuntimeWrite) m.written(base[s.buffer] + off, n);
    }
    std::vector<std::uint8_t> snapshot;
    for (int b = 0; b < kBuffers; ++b) {
      const auto& buf = *m.find(base[b], 1);
      snapshot.insert(snapshot.end(), buf.storage.get(), buf.storage.get() + buf.size);
    }
    after.push_back(std::move(snapshot));
  }
  return after;
}

TEST(Repeats, SkippingLeavesTheSameMemory) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  std::uint64_t skipped_in_all = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const std::vector<Step> steps = sequence(seed);
    std::uint64_t skipped = 0, none = 0;
    const auto skipping = play(steps, true, skipped);
    const auto executing = play(steps, false, none);
    EXPECT_EQ(none, 0u);
    for (std::size_t i = 0; i < steps.size(); ++i)
      ASSERT_TRUE(skipping[i] == executing[i]) << "seed " << seed << ", step " << i;
    skipped_in_all += skipped;
  }
  EXPECT_GT(skipped_in_all, 50u);  // the sequences exercise the rule
}

// Which kernels can repeat at all.
TEST(Repeats, KernelsThatCanRepeat) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc found";
  std::string why;
  EXPECT_TRUE(drv::repeatable(kernel("scale2"), why));
  EXPECT_TRUE(drv::repeatable(kernel("bump"), why));  // its atomics read what they write
  EXPECT_FALSE(drv::repeatable(kernel("clocked"), why));
  EXPECT_EQ(why, "it reads a clock");
}

}  // namespace
