// SassPlan and SassRequests on hand-written PTX: which PTX sites a SASS instruction serves,
// and the requests the emulator's events become (no nvcc needed: the PTX is loaded as is).
#include "bankcheck/analysis/sass_requests.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/emu/emulator.hpp"

namespace an = bankcheck::analysis;
namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace ptx = bankcheck::ptx;
namespace fs = std::filesystem;

namespace {

struct Capture : emu::Listener {
  std::vector<emu::AccessEvent> events;
  void on_access(const emu::AccessEvent& e) override {
    if (e.space == ptx::Space::Shared) events.push_back(e);
  }
};

// A 64-thread kernel around `body`; %r2 = tid.x, %r20 = the shared array's address,
// %p1 = odd lanes.
struct Kernel {
  drv::Loaded loaded;
  const ptx::Kernel& k() const { return loaded.program.kernels.at(0); }
  // The site whose PTX text contains `needle` (the n-th such, from 0).
  int site(const std::string& needle, int n = 0) const {
    for (std::size_t s = 0; s < k().sites.size(); ++s)
      if (k().sites[s].text.find(needle) != std::string::npos && n-- == 0)
        return static_cast<int>(s);
    ADD_FAILURE() << "no site " << needle;
    return -1;
  }
  int line(const std::string& needle, int n = 0) const {
    return k().sites[static_cast<std::size_t>(site(needle, n))].ptx_line;
  }
};

Kernel load(const std::string& body) {
  static int counter = 0;
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<100>;
  .reg .f32 %f<40>;
  .shared .align 16 .b8 sh[4096];
  mov.u32 %r2, %tid.x;
  and.b32 %r6, %r2, 1;
  setp.eq.u32 %p1, %r6, 1;
  mov.u32 %r20, sh;
)" + body + "  ret;\n}\n";
  const fs::path file =
      fs::temp_directory_path() /
      ("bankcheck-sass-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".ptx");
  std::ofstream(file) << text;
  drv::CheckOptions o;
  o.input = file.string();
  Kernel k{drv::load(o)};
  fs::remove(file);
  return k;
}

std::vector<emu::AccessEvent> run(const Kernel& k, const an::SassPlan& plan) {
  emu::GlobalMemory mem;
  emu::Launch launch;
  launch.block = {64, 1, 1};
  launch.params.assign(static_cast<std::size_t>(k.k().param_bytes), 0);
  const std::uint64_t out = mem.add("out", 4096);
  std::memcpy(launch.params.data() + k.k().params[0].offset, &out, 8);
  Capture cap;
  an::SassRequests sass(plan, cap);
  emu::Emulator e(k.loaded.program, k.k(), mem);
  e.add_listener(&sass);
  e.run_cta(launch, {0, 0, 0});
  sass.finish();
  return cap.events;
}

an::SassAccess lds(int ptx_line, int width, const char* opcode) {
  an::SassAccess a;
  a.ptx_line = ptx_line;
  a.op = bankcheck::model::Op::Load;
  a.width = width;
  a.opcode = opcode;
  return a;
}

// Four scalar loads of one thread's float4 row: [r], [r+4], [r+8], [r+12].
const char* kRowLoads =
    "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n"
    "  ld.shared.f32 %f1, [%r22];\n  ld.shared.f32 %f2, [%r22+4];\n"
    "  ld.shared.f32 %f3, [%r22+8];\n  ld.shared.f32 %f4, [%r22+12];\n";

}  // namespace

TEST(SassPlan, AWiderSassInstructionWidensItsFamily) {
  const Kernel k = load(kRowLoads);
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22]"), 16, "LDS.128")});
  EXPECT_EQ(plan.families, 1);
  for (const char* s : {"[%r22]", "[%r22+4]", "[%r22+8]", "[%r22+12]"}) {
    const an::SassSite& site = plan.sites[static_cast<std::size_t>(k.site(s))];
    EXPECT_EQ(site.kind, an::SassSite::Kind::Widened) << s;
    EXPECT_EQ(site.width, 16) << s;
    EXPECT_EQ(site.family, 0) << s;
  }
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22]"))].opcodes,
            std::vector<std::string>{"LDS.128"});
  EXPECT_TRUE(plan.sites[static_cast<std::size_t>(k.site("[%r22+4]"))].opcodes.empty());
  EXPECT_TRUE(plan.unmatched_sites.empty());
}

TEST(SassPlan, OneBaseCanCarrySeveralWidths) {
  // Seven scalar loads [r+12] .. [r+36] as ptxas issues them for CUB's BlockReduce: LDS on
  // the first, LDS.128 on the second (covering +16 .. +28), LDS.64 on the sixth (+32, +36).
  // Each load without SASS joins the instruction before it: three requests a warp, where
  // giving the family the widest width left +32 and +36 to issue alone (four).
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 6;\n  add.s32 %r22, %r20, %r21;\n"
      "  ld.shared.f32 %f1, [%r22+12];\n  ld.shared.f32 %f2, [%r22+16];\n"
      "  ld.shared.f32 %f3, [%r22+20];\n  ld.shared.f32 %f4, [%r22+24];\n"
      "  ld.shared.f32 %f5, [%r22+28];\n  ld.shared.f32 %f6, [%r22+32];\n"
      "  ld.shared.f32 %f7, [%r22+36];\n");
  const an::SassPlan plan =
      an::plan_sass(k.k(), {lds(k.line("[%r22+12]"), 4, "LDS"), lds(k.line("[%r22+16]"), 16, "LDS.128"),
                            lds(k.line("[%r22+32]"), 8, "LDS.64")});
  EXPECT_EQ(plan.families, 2);
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22+12]"))].kind, an::SassSite::Kind::Same);
  for (const char* s : {"[%r22+16]", "[%r22+20]", "[%r22+28]"})
    EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site(s))].width, 16) << s;
  for (const char* s : {"[%r22+32]", "[%r22+36]"})
    EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site(s))].width, 8) << s;
  const auto events = run(k, plan);
  EXPECT_EQ(events.size(), 3u * 2);  // two warps
}

TEST(SassPlan, SitesWithoutSassAndNoWiderNeighbourAreUnmatched) {
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n  add.s32 %r23, %r20, %r21;\n"
      "  ld.shared.f32 %f1, [%r22];\n  ld.shared.f32 %f2, [%r23+4];\n"
      "  st.shared.f32 [%r22+16], %f1;\n");
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22]"), 8, "LDS.64")});
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22]"))].kind,
            an::SassSite::Kind::Widened);
  // Another base register, another operation: not of the family.
  EXPECT_EQ(plan.unmatched_sites, (std::vector<int>{k.site("[%r23+4]"), k.site("[%r22+16]")}));
}

// The PTX line of each SASS instruction, as sass::Kernel::ptx_lines lists them.
std::vector<std::uint32_t> code_lines(std::initializer_list<int> lines) {
  std::vector<std::uint32_t> out;
  for (const int l : lines) out.push_back(static_cast<std::uint32_t>(l));
  return out;
}

// s[i] = 0; if (odd lane) s[i] = v;  and a load of the tile after.
const char* kStoreThenConditionalStore =
    "  shl.b32 %r21, %r2, 2;\n  add.s32 %r22, %r20, %r21;\n  mov.u32 %r23, 0;\n"
    "  st.shared.u32 [%r22], %r23;\n  @%p1 st.shared.u32 [%r22], %r2;\n"
    "  add.s32 %r24, %r22, 4;\n  ld.shared.u32 %r25, [%r22+128];\n";

TEST(SassPlan, StoresOfOneAddressInAnotherLinesStsAreMerged) {
  const Kernel k = load(kStoreThenConditionalStore);
  an::SassAccess sts = lds(k.line("[%r22+128]") - 1, 4, "STS");  // the add.s32's line
  sts.op = bankcheck::model::Op::Store;
  const int load_line = k.line("[%r22+128]");
  const an::SassPlan plan = an::plan_sass(k.k(), {sts, lds(load_line, 4, "LDS")},
                                          code_lines({sts.ptx_line, load_line}));
  const an::SassSite& first = plan.sites[static_cast<std::size_t>(k.site("[%r22], %r23"))];
  const an::SassSite& second = plan.sites[static_cast<std::size_t>(k.site("[%r22], %r2;"))];
  EXPECT_EQ(first.kind, an::SassSite::Kind::Merged);
  EXPECT_EQ(second.kind, an::SassSite::Kind::Merged);
  EXPECT_TRUE(first.carrier);
  EXPECT_FALSE(second.carrier);
  EXPECT_EQ(first.opcodes, std::vector<std::string>{"STS"});
  EXPECT_TRUE(second.opcodes.empty());
  EXPECT_TRUE(plan.unmatched_sites.empty());
  // One request per warp for the two stores (the first one's lanes), and the load's.
  const auto events = run(k, plan);
  int stores = 0;
  for (const emu::AccessEvent& e : events)
    if (e.op == bankcheck::model::Op::Store) {
      ++stores;
      EXPECT_EQ(e.site, k.site("[%r22], %r23"));
      EXPECT_EQ(e.mask, 0xFFFFFFFFu);
    }
  EXPECT_EQ(stores, 2);
  EXPECT_EQ(events.size(), 4u);
}

TEST(SassPlan, WithoutTheLineTableNothingIsMergedOrRemoved) {
  const Kernel k = load(kStoreThenConditionalStore);
  an::SassAccess sts = lds(k.line("[%r22+128]") - 1, 4, "STS");
  sts.op = bankcheck::model::Op::Store;
  const an::SassPlan plan = an::plan_sass(k.k(), {sts});
  EXPECT_EQ(plan.unmatched_sites.size(), 3u);
  for (const an::SassSite& s : plan.sites) EXPECT_EQ(s.kind, an::SassSite::Kind::Ptx);
}

TEST(SassPlan, ASiteWithoutCodeOnItsLineIsRemoved) {
  // Two ldmatrix; ptxas kept the first (LDSM on its line) and removed the second.
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n"
      "  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r30}, [%r22];\n"
      "  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r31}, [%r22+16];\n");
  an::SassAccess ldsm = lds(k.line("[%r22];"), 4, "LDSM.16.M88");
  ldsm.unit = bankcheck::sass::SharedOp::LDSM;
  const int kept = k.line("[%r22];"), gone = k.line("[%r22+16]");
  const an::SassPlan plan = an::plan_sass(k.k(), {ldsm}, code_lines({kept}));
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22];"))].kind, an::SassSite::Kind::Same);
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22+16]"))].kind,
            an::SassSite::Kind::Removed);
  EXPECT_TRUE(plan.unmatched_sites.empty());
  const auto events = run(k, plan);
  EXPECT_EQ(events.size(), 2u);  // the kept one's, one per warp
  for (const emu::AccessEvent& e : events) EXPECT_EQ(e.site, k.site("[%r22];"));

  // Any instruction on its line, or an LDSM no site claims: it may be that, so it counts.
  const an::SassPlan coded = an::plan_sass(k.k(), {ldsm}, code_lines({kept, gone}));
  EXPECT_EQ(coded.unmatched_sites, std::vector<int>{k.site("[%r22+16]")});
  an::SassAccess elsewhere = ldsm;
  elsewhere.ptx_line = 1;
  const an::SassPlan unclaimed = an::plan_sass(k.k(), {ldsm, elsewhere}, code_lines({kept, 1}));
  EXPECT_EQ(unclaimed.unmatched_sites, std::vector<int>{k.site("[%r22+16]")});
}

TEST(SassPlan, ASiteWhoseInstructionIsOnItsNeighboursLineIsNotRemoved) {
  // s[i] += s[i + k]: two LDS of width 4, both on the first load's PTX line; the second
  // load's line has no code. One of the two LDS may be its own: it keeps its PTX count.
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n"
      "  ld.shared.f32 %f1, [%r22];\n  ld.shared.f32 %f2, [%r22+8];\n");
  const int first = k.line("[%r22];");
  const an::SassPlan plan =
      an::plan_sass(k.k(), {lds(first, 4, "LDS"), lds(first, 4, "LDS")}, code_lines({first}));
  EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site("[%r22];"))].kind, an::SassSite::Kind::Same);
  EXPECT_NE(plan.sites[static_cast<std::size_t>(k.site("[%r22+8]"))].kind,
            an::SassSite::Kind::Removed);
  EXPECT_EQ(plan.unmatched_sites, std::vector<int>{k.site("[%r22+8]")});
  EXPECT_EQ(run(k, plan).size(), 4u);  // both loads, two warps each
  // One LDS only: the second load was removed.
  const an::SassPlan one = an::plan_sass(k.k(), {lds(first, 4, "LDS")}, code_lines({first}));
  EXPECT_EQ(one.sites[static_cast<std::size_t>(k.site("[%r22+8]"))].kind,
            an::SassSite::Kind::Removed);
}

TEST(SassPlan, WidenedSitesWithoutCodeAreNotRemoved) {
  const Kernel k = load(kRowLoads);
  const int line = k.line("[%r22]");
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(line, 16, "LDS.128")}, code_lines({line}));
  for (const char* s : {"[%r22+4]", "[%r22+8]", "[%r22+12]"})
    EXPECT_EQ(plan.sites[static_cast<std::size_t>(k.site(s))].kind, an::SassSite::Kind::Widened) << s;
}

TEST(SassPlan, AnInstructionOfAnotherKindOnTheLineIsIgnored) {
  const Kernel k = load(kRowLoads);
  an::SassAccess sts = lds(k.line("[%r22]"), 4, "STS");
  sts.op = bankcheck::model::Op::Store;
  const an::SassPlan plan = an::plan_sass(k.k(), {sts});
  EXPECT_EQ(plan.families, 0);
  EXPECT_EQ(plan.unmatched_sites.size(), 4u);
}

TEST(SassPlan, SameWidthIsSame) {
  const Kernel k = load(kRowLoads);
  const an::SassPlan plan =
      an::plan_sass(k.k(), {lds(k.line("[%r22]"), 4, "LDS"), lds(k.line("[%r22+4]"), 4, "LDS"),
                            lds(k.line("[%r22+8]"), 4, "LDS"), lds(k.line("[%r22+12]"), 4, "LDS")});
  for (const an::SassSite& s : plan.sites) EXPECT_EQ(s.kind, an::SassSite::Kind::Same);
  const auto events = run(k, plan);
  EXPECT_EQ(events.size(), 8u);
}

TEST(SassRequests, WindowsCompleteAcrossLoopIterations) {
  // ptxas unrolls the loop twice and merges [r-8], [r-4] of one iteration with those of
  // the next (r += 8) into one LDS.128: two iterations, one request per warp.
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n  add.s32 %r22, %r22, 8;\n"
      "  mov.u32 %r30, 0;\nLOOP:\n"
      "  ld.shared.f32 %f1, [%r22+-8];\n  ld.shared.f32 %f2, [%r22+-4];\n"
      "  add.s32 %r22, %r22, 8;\n  add.s32 %r30, %r30, 1;\n  setp.lt.u32 %p2, %r30, 2;\n"
      "  @%p2 bra LOOP;\n");
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22+-8]"), 16, "LDS.128")});
  const auto events = run(k, plan);
  ASSERT_EQ(events.size(), 2u);
  for (const emu::AccessEvent& e : events) {
    EXPECT_EQ(e.site, k.site("[%r22+-8]"));
    EXPECT_EQ(e.width, 16);
    for (int l = 0; l < 32; ++l) EXPECT_EQ(e.addr[l], 16u * (32u * e.warp + l)) << l;
  }
}

TEST(SassRequests, WidenedMembersBecomeOneRequestPerWarp) {
  const Kernel k = load(kRowLoads);
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22]"), 16, "LDS.128")});
  const auto events = run(k, plan);
  ASSERT_EQ(events.size(), 2u);  // one per warp
  for (const emu::AccessEvent& e : events) {
    EXPECT_EQ(e.site, k.site("[%r22]"));
    EXPECT_EQ(e.width, 16);
    EXPECT_EQ(e.mask, 0xFFFFFFFFu);
    for (int l = 0; l < 32; ++l) EXPECT_EQ(e.addr[l], 16u * (32u * e.warp + l)) << l;
  }
}

TEST(SassRequests, MembersThatCannotMergeGoOnAsTheyCame) {
  // A guard on one member: the lanes differ, so no single request can serve them.
  const Kernel k = load(
      "  shl.b32 %r21, %r2, 3;\n  add.s32 %r22, %r20, %r21;\n"
      "  ld.shared.f32 %f1, [%r22];\n  @%p1 ld.shared.f32 %f2, [%r22+4];\n");
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22]"), 8, "LDS.64")});
  ASSERT_EQ(plan.families, 1);
  const auto events = run(k, plan);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].width, 4);
  EXPECT_EQ(events[1].mask, 0xAAAAAAAAu);
}

TEST(SassRequests, MisalignedBasesAreNotMerged) {
  // Rows 12 bytes apart: the 8-byte pairs are not 8-byte aligned in every lane.
  const Kernel k = load(
      "  mul.lo.s32 %r21, %r2, 12;\n  add.s32 %r22, %r20, %r21;\n"
      "  ld.shared.f32 %f1, [%r22];\n  ld.shared.f32 %f2, [%r22+4];\n");
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("[%r22]"), 8, "LDS.64")});
  const auto events = run(k, plan);
  EXPECT_EQ(events.size(), 4u);
  for (const auto& e : events) EXPECT_EQ(e.width, 4);
}

TEST(SassRequests, PopcIncMergesLanesOnOneWord) {
  // Lanes 0-15 on word 0, lanes 16-31 on word 32 (the same bank): two updates, not 32.
  const Kernel k = load(
      "  shr.u32 %r21, %r2, 4;\n  and.b32 %r21, %r21, 1;\n  shl.b32 %r21, %r21, 7;\n"
      "  add.s32 %r22, %r20, %r21;\n  atom.shared.add.u32 %r23, [%r22], 1;\n");
  an::SassAccess a = lds(k.line("atom.shared"), 4, "ATOMS.POPC.INC.32");
  a.op = bankcheck::model::Op::Atomic;
  a.form = an::SassAccess::Form::AtomPopcInc;
  const auto events = run(k, an::plan_sass(k.k(), {a}));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].mask, 0x00010001u);
}

TEST(SassRequests, AggregatedAtomicIsOneLane) {
  const Kernel k = load("  atom.shared.add.u32 %r23, [%r20+64], 1;\n");
  an::SassAccess a = lds(k.line("atom.shared"), 4, "ATOMS.ADD");
  a.op = bankcheck::model::Op::Atomic;
  a.form = an::SassAccess::Form::AtomAggregated;
  const auto events = run(k, an::plan_sass(k.k(), {a}));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].mask, 1u);
}

TEST(SassRequests, SpinLoopAtomicIsCas) {
  // atomicAdd on a shared float: ptxas 13.0 issues LDS + ATOMS.CAST.SPIN, whose passes cost
  // as one CAS of the warp's lanes, twice a plain ATOMS.
  const Kernel k = load("  atom.shared.add.f32 %f1, [%r20], 0f3F800000;\n");
  an::SassAccess a = lds(k.line("atom.shared"), 4, "ATOMS.CAST.SPIN");
  a.op = bankcheck::model::Op::AtomicCas;
  a.form = an::SassAccess::Form::AtomSpinLoop;
  const an::SassPlan plan = an::plan_sass(k.k(), {a});
  EXPECT_TRUE(an::rewritten(plan, k.site("atom.shared")));
  const auto events = run(k, plan);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].op, bankcheck::model::Op::AtomicCas);
  EXPECT_EQ(events[0].mask, 0xFFFFFFFFu);
}

// atomicAdd on a shared unsigned long long: ptxas 13.0 issues LDS.64 + ATOMS.CAST.SPIN.64
// on the atomic's line. The site is the 64-bit loop with both instructions, and its
// requests carry what atomic64_spin needs: each lane's operand and its word before the
// instruction, lanes on one word alike (the emulator updates them in lane order).
TEST(SassRequests, SpinLoop64CarriesTheValues) {
  const Kernel k = load(
      "  .reg .b64 %rd<4>;\n  and.b32 %r21, %r2, 7;\n  shl.b32 %r22, %r21, 3;\n"
      "  add.s32 %r23, %r20, %r22;\n  cvt.u64.u32 %rd1, %r2;\n"
      "  atom.shared.add.u64 %rd2, [%r23], %rd1;\n");
  an::SassAccess cas = lds(k.line("atom.shared"), 8, "ATOMS.CAST.SPIN.64");
  cas.op = bankcheck::model::Op::AtomicCas;
  cas.form = an::SassAccess::Form::AtomSpinLoop;
  const an::SassPlan plan = an::plan_sass(k.k(), {lds(k.line("atom.shared"), 8, "LDS.64"), cas});
  const an::SassSite& site = plan.sites[static_cast<std::size_t>(k.site("atom.shared"))];
  EXPECT_EQ(site.kind, an::SassSite::Kind::SpinLoop64);
  EXPECT_EQ(site.opcodes, (std::vector<std::string>{"LDS.64", "ATOMS.CAST.SPIN.64"}));
  EXPECT_FALSE(an::rewritten(plan, k.site("atom.shared")));

  struct Values : emu::Listener {
    std::vector<emu::AtomicValues> seen;
    void on_access(const emu::AccessEvent& e) override {
      EXPECT_EQ(e.kind, emu::AccessKind::CasLoop64);
      ASSERT_NE(e.values, nullptr);
      seen.push_back(*e.values);
    }
  } values;
  emu::GlobalMemory mem;
  emu::Launch launch;
  launch.block = {64, 1, 1};
  launch.params.assign(static_cast<std::size_t>(k.k().param_bytes), 0);
  an::SassRequests sass(plan, values);
  emu::Emulator e(k.loaded.program, k.k(), mem);
  e.add_listener(&sass);
  e.run_cta(launch, {0, 0, 0});
  ASSERT_EQ(values.seen.size(), 2u);  // one per warp
  for (int w = 0; w < 2; ++w)
    for (int l = 0; l < 32; ++l) {
      const emu::AtomicValues& v = values.seen[static_cast<std::size_t>(w)];
      EXPECT_EQ(v.op, ptx::AtomOp::Add);
      EXPECT_EQ(v.type, ptx::Ty::U64);
      EXPECT_EQ(v.operand[l], static_cast<std::uint64_t>(32 * w + l));
      // Warp 1 finds each word j holding warp 0's four adds: j + (j+8) + (j+16) + (j+24).
      EXPECT_EQ(v.word[l], w == 0 ? 0u : 4u * static_cast<std::uint64_t>(l % 8) + 48u) << l;
    }
}

// sass_accesses() on forms.cu's cubin (tests/data/sass): the warp-uniform atomicAdd is
// ptxas's elected one-lane ATOMS.ADD, `atomicAdd(p, 1)` unused is POPC.INC, the plain
// 32-bit atomics keep their lanes, and float adds are CAS loops.
TEST(SassAccesses, AtomicFormsOfFormsCu) {
  std::ifstream f(fs::path(BANKCHECK_SOURCE_DIR) / "tests/data/sass/forms_ptxas.cubin",
                  std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
  auto m = bankcheck::sass::read_module(bytes, &bankcheck::sass::decode_hopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto forms = [&](const char* kernel, bankcheck::model::Op op = bankcheck::model::Op::Atomic) {
    std::vector<an::SassAccess::Form> out;
    const bankcheck::sass::Kernel* k = m.value().find(kernel);
    if (k)
      for (const an::SassAccess& a : an::sass_accesses(*k))
        if (a.op == op) out.push_back(a.form);
    return out;
  };
  using F = an::SassAccess::Form;
  EXPECT_EQ(forms("_Z13atoms_uniformPjj"), std::vector<F>{F::AtomAggregated});
  EXPECT_EQ(forms("_Z14atoms_popc_incPjPKj"), std::vector<F>{F::AtomPopcInc});
  const auto plain = forms("_Z8atoms_32Pjj");
  EXPECT_EQ(plain.size(), 12u);  // 13 ATOMS, one of them CAS
  for (F f : plain) EXPECT_EQ(f, F::Plain);
  // f32 and f64 add: CAS loops.
  EXPECT_EQ(forms("_Z11atoms_floatPff", bankcheck::model::Op::AtomicCas),
            (std::vector<F>{F::AtomSpinLoop, F::AtomSpinLoop}));
}

// plan_sass() on forms.cu's 64-bit atomics (the cubin ptxas built from forms.ptx): add, min,
// max, and and or are LDS.64 + ATOMS.CAST.SPIN.64 loops, both instructions on the
// atomic's PTX line; exch and cas are single ATOMS.EXCH.64 and ATOMS.CAS.64.
TEST(SassPlan, SixtyFourBitAtomicsOfFormsCu) {
  const fs::path dir = fs::path(BANKCHECK_SOURCE_DIR) / "tests/data/sass";
  std::ifstream f(dir / "forms_ptxas.cubin", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
  auto m = bankcheck::sass::read_module(bytes, &bankcheck::sass::decode_hopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const bankcheck::sass::Kernel* sk = m.value().find("_Z8atoms_64Pyy");
  ASSERT_NE(sk, nullptr);
  drv::CheckOptions o;
  o.input = (dir / "forms.ptx").string();
  const drv::Loaded loaded = drv::load(o);
  const ptx::Kernel* k = nullptr;
  for (const ptx::Kernel& x : loaded.program.kernels)
    if (x.name == "_Z8atoms_64Pyy") k = &x;
  ASSERT_NE(k, nullptr);
  const an::SassPlan plan = an::plan_sass(*k, an::sass_accesses(*sk));
  std::vector<std::vector<std::string>> loops, native;
  for (const an::SassSite& s : plan.sites) {
    if (s.kind == an::SassSite::Kind::SpinLoop64) loops.push_back(s.opcodes);
    if (s.kind == an::SassSite::Kind::Atomic64) native.push_back(s.opcodes);
  }
  ASSERT_EQ(loops.size(), 5u);
  for (const auto& ops : loops)
    EXPECT_EQ(ops, (std::vector<std::string>{"LDS.64", "ATOMS.CAST.SPIN.64"}));
  EXPECT_EQ(native, (std::vector<std::vector<std::string>>{{"ATOMS.EXCH.64"}, {"ATOMS.CAS.64"}}));
}

// cp.async.cg with a src-size register: its requests go on in the form of its LDGSTS
// (AccessEvent::src_size, which analyze_ldgsts costs as .ZFILL or not), not its PTX's.
TEST(SassRequests, AsyncCopyTakesItsLdgstsForm) {
  const Kernel k = load(
      "  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [p_out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  shl.b32 %r21, %r2, 4;\n  add.s32 %r22, %r20, %r21;\n  cvt.u64.u32 %rd3, %r21;\n"
      "  add.s64 %rd3, %rd2, %rd3;\n  mov.u32 %r23, 16;\n"
      "  cp.async.cg.shared.global [%r22], [%rd3], 16, %r23;\n  cp.async.wait_all;\n");
  const int line = k.line("cp.async.cg");
  an::SassAccess plain = lds(line, 16, "LDGSTS.E.BYPASS.128");
  plain.op = bankcheck::model::Op::Store;
  plain.unit = bankcheck::sass::SharedOp::LDGSTS;
  an::SassAccess zfill = plain;
  zfill.opcode = "LDGSTS.E.BYPASS.128.ZFILL";
  zfill.zfill = true;
  using Fill = an::SassSite::CopyFill;
  struct Case {
    std::vector<an::SassAccess> sass;
    Fill fill;
    bool src_size;
  };
  const Case cases[] = {{{plain}, Fill::Plain, false},
                        {{zfill}, Fill::ZeroFill, true},
                        {{plain, zfill}, Fill::Unknown, true},  // they disagree: the PTX's
                        {{}, Fill::Unknown, true}};             // no SASS: the PTX's
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sass.size());
    const an::SassPlan plan = an::plan_sass(k.k(), c.sass);
    const std::size_t site = static_cast<std::size_t>(k.site("cp.async.cg"));
    ASSERT_LT(site, plan.sites.size());
    EXPECT_EQ(plan.sites[site].copy_fill, c.fill);
    const auto events = run(k, plan);
    ASSERT_EQ(events.size(), 2u);  // one per warp
    for (const emu::AccessEvent& e : events) {
      EXPECT_EQ(e.kind, emu::AccessKind::Ldgsts);
      EXPECT_EQ(e.src_size, c.src_size);
      EXPECT_EQ(e.reads, 0xFFFFFFFFu);
    }
  }
}
