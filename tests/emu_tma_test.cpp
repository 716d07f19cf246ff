// cp.async.bulk.tensor in the emulator: a tensor map encoded by bankcheck's encoder
// (emu/tensor_map.hpp) as a __grid_constant__ parameter or in global memory, boxes of 1 to 5
// dimensions copied into shared memory (each swizzle mode, element strides, elements
// outside the tensor filled with zeros or NaN), copied back to global memory, combined by
// cp.reduce.async.bulk.tensor, and im2col boxes; each shared image compared with the one
// computed here from the tensor, the box and the swizzle's formula, and the copy's
// requests with the bytes it moves. Both tiers run each launch.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/emu/tensor_map.hpp"
#include "bankcheck/model/arch.hpp"
#include "emu_differential.hpp"

namespace analysis = bankcheck::analysis;
namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace model = bankcheck::model;
namespace ptx = bankcheck::ptx;
namespace fs = std::filesystem;

namespace {

enum class Kind { Load, Store, Reduce };

struct Case {
  Kind kind = Kind::Load;
  unsigned type = 7;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  unsigned rank = 2;
  std::vector<std::uint64_t> dim = {64, 32};
  std::vector<std::uint32_t> box = {32, 8};
  std::vector<std::uint32_t> estride = {1, 1};
  std::vector<int> coord = {0, 0};
  unsigned swizzle = 0;  // 0, 1 (32B), 2 (64B), 3 (128B)
  unsigned oob = 0;
  bool map_in_global = false;
  // im2col
  bool im2col = false;
  std::vector<int> lower, upper, offsets;
  std::uint32_t channels = 0, pixels = 0;
};

unsigned bytes_of(unsigned type) {
  return static_cast<unsigned>(emu::tensor_element_bytes(static_cast<emu::TensorDataType>(type)));
}

std::uint64_t swizzled(std::uint64_t a, unsigned b) {
  const std::uint64_t mask = (1u << b) - 1;
  return a ^ (((a >> 7) & mask) << 4);
}

// The tensor's packed global layout: strides from the dims (dimension 0 padded to 16 bytes).
std::vector<std::uint64_t> strides_of(const Case& c) {
  std::vector<std::uint64_t> s(c.rank);
  const unsigned es = bytes_of(c.type);
  s[0] = es;
  std::uint64_t next = (c.dim[0] * es + 15) / 16 * 16;
  for (unsigned d = 1; d < c.rank; ++d) {
    s[d] = next;
    next *= c.dim[d];
  }
  return s;
}
std::uint64_t tensor_bytes(const Case& c) {
  const auto s = strides_of(c);
  return c.rank == 1 ? (c.dim[0] * bytes_of(c.type) + 15) / 16 * 16
                     : s[c.rank - 1] * c.dim[c.rank - 1];
}

// The elements of the box in shared order, each its global byte offset or -1 outside.
std::vector<std::int64_t> box_elements(const Case& c) {
  const auto s = strides_of(c);
  std::vector<std::int64_t> out;
  if (c.im2col) {
    const unsigned sp = c.rank - 2;
    std::vector<std::int64_t> at(sp), lo(sp), hi(sp);
    for (unsigned i = 0; i < sp; ++i) {
      at[i] = c.coord[1 + i];
      lo[i] = c.lower[i];
      hi[i] = static_cast<std::int64_t>(c.dim[1 + i]) - 1 + c.upper[i];
    }
    std::int64_t n = c.coord[c.rank - 1];
    for (std::uint32_t p = 0; p < c.pixels; ++p) {
      for (std::uint32_t ch = 0; ch < c.channels; ++ch) {
        std::int64_t g = 0;
        bool in = true;
        const std::int64_t cc = c.coord[0] + ch;
        in = in && cc >= 0 && cc < static_cast<std::int64_t>(c.dim[0]);
        g += cc * static_cast<std::int64_t>(s[0]);
        for (unsigned i = 0; i < sp; ++i) {
          const std::int64_t x = at[i] + c.offsets[i];
          in = in && x >= 0 && x < static_cast<std::int64_t>(c.dim[1 + i]);
          g += x * static_cast<std::int64_t>(s[1 + i]);
        }
        in = in && n >= 0 && n < static_cast<std::int64_t>(c.dim[c.rank - 1]);
        g += n * static_cast<std::int64_t>(s[c.rank - 1]);
        out.push_back(in ? g : -1);
      }
      for (unsigned i = 0;; ++i) {  // W, then H, D, then N
        if (i == sp) {
          ++n;
          break;
        }
        at[i] += c.estride[1 + i];
        if (at[i] <= hi[i]) break;
        at[i] = lo[i];
      }
    }
    return out;
  }
  std::vector<std::uint64_t> count(5, 1);
  for (unsigned d = 0; d < c.rank; ++d) {
    const unsigned es = d == 0 ? 1 : c.estride[d];
    count[d] = (c.box[d] + es - 1) / es;
  }
  for (std::uint64_t i4 = 0; i4 < count[4]; ++i4)
    for (std::uint64_t i3 = 0; i3 < count[3]; ++i3)
      for (std::uint64_t i2 = 0; i2 < count[2]; ++i2)
        for (std::uint64_t i1 = 0; i1 < count[1]; ++i1)
          for (std::uint64_t i0 = 0; i0 < count[0]; ++i0) {
            const std::uint64_t idx[5] = {i0, i1, i2, i3, i4};
            std::int64_t g = 0;
            bool in = true;
            for (unsigned d = 0; d < c.rank; ++d) {
              const std::int64_t x =
                  c.coord[d] + static_cast<std::int64_t>(idx[d] * (d == 0 ? 1 : c.estride[d]));
              in = in && x >= 0 && x < static_cast<std::int64_t>(c.dim[d]);
              g += x * static_cast<std::int64_t>(s[d]);
            }
            out.push_back(in ? g : -1);
          }
  return out;
}

std::string kernel_text(const Case& c, std::uint64_t smem, std::uint64_t box_bytes) {
  const unsigned dims = c.rank;
  std::string coords;
  for (unsigned d = 0; d < dims; ++d) coords += fmt::format("{}%c{}", d ? ", " : "", d);
  std::string offs;
  for (std::size_t i = 0; i < c.offsets.size(); ++i)
    offs += fmt::format("{}%h{}", i ? ", " : "", i);
  std::string params;
  for (unsigned d = 0; d < dims; ++d) params += fmt::format(", .param .s32 q{}", d);
  for (std::size_t i = 0; i < c.offsets.size(); ++i) params += fmt::format(", .param .u16 o{}", i);
  std::string s = fmt::format(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma(.param .align 64 .b8 p_map[128], .param .u64 p_mapptr, .param .u64 p_out,
    .param .u32 p_words{})
{{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .s32 %c<6>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<16>;
  .shared .align 1024 .b8 smem[{}];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, smem;
  setp.ne.u32 %p1, %r1, 0;
)",
                              params, smem);
  for (unsigned d = 0; d < dims; ++d) s += fmt::format("  ld.param.s32 %c{}, [q{}];\n", d, d);
  for (std::size_t i = 0; i < c.offsets.size(); ++i)
    s += fmt::format("  ld.param.u16 %h{}, [o{}];\n", i, i);
  if (c.map_in_global)
    s += "  ld.param.u64 %rd2, [p_mapptr];\n";
  else
    s += "  mov.b64 %rd1, p_map;\n  cvta.param.u64 %rd2, %rd1;\n";
  s += "  ld.param.u64 %rd3, [p_out];\n  ld.param.u32 %r4, [p_words];\n";
  if (c.kind == Kind::Load) {
    s += fmt::format(R"(  @%p1 bra $L_sync;
  mbarrier.init.shared::cta.b64 [%r2], 1;
$L_sync:
  bar.sync 0;
  @%p1 bra $L_wait;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], {};
  cp.async.bulk.tensor.{}d.shared::cluster.global.{}.mbarrier::complete_tx::bytes [%r3], [%rd2, {{{}}}], [%r2]{};
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra $L_wait;
  mov.u32 %r5, %r1;
$L_copy:
  setp.ge.u32 %p3, %r5, %r4;
  @%p3 bra $L_end;
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r8;
  add.s32 %r5, %r5, 128;
  bra $L_copy;
$L_end:
  ret;
}}
)",
                     box_bytes, dims, c.im2col ? "im2col" : "tile", coords,
                     c.im2col ? fmt::format(", {{{}}}", offs) : "");
  } else {
    // Fill shared memory from p_out's first bytes, then copy (or reduce) the box out.
    s += fmt::format(
        R"(  mov.u32 %r5, %r1;
$L_fill:
  setp.ge.u32 %p3, %r5, %r4;
  @%p3 bra $L_filled;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r8, [%rd5];
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r3, %r6;
  st.shared.u32 [%r7], %r8;
  add.s32 %r5, %r5, 128;
  bra $L_fill;
$L_filled:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra $L_end;
  {}.bulk_tensor_placeholder [%rd2, {{{}}}], [%r3];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
$L_end:
  ret;
}}
)",
        c.kind == Kind::Reduce ? "cp.reduce.async.bulk.tensor" : "cp.async.bulk.tensor", coords);
    const std::string op = fmt::format("{}d.global.shared::cta{}.tile.bulk_group", dims,
                                       c.kind == Kind::Reduce ? ".add" : "");
    const std::size_t at = s.find(".bulk_tensor_placeholder");
    s.replace(at, std::string(".bulk_tensor_placeholder").size(), "." + op);
  }
  return s;
}

struct Result {
  emu::GlobalMemory mem;
  std::uint64_t out = 0, tensor = 0;
  std::vector<emu::AccessEvent> shared_side, global_side;
  std::size_t sites = 0;  // the kernel's
};

struct Capture : emu::Listener {
  Result* r = nullptr;
  void on_access(const emu::AccessEvent& e) override {
    if (e.kind != emu::AccessKind::Bulk) return;
    (e.space == ptx::Space::Shared ? r->shared_side : r->global_side).push_back(e);
  }
};

// Runs the case: `tensor` the global tensor's bytes, `shared` (store/reduce) the shared
// image to copy out. Returns the run (out: the shared image for a load; the tensor after).
std::unique_ptr<Result> run_case(const Case& c, const std::vector<std::uint8_t>& tensor,
                                 const std::vector<std::uint8_t>& shared_image,
                                 std::uint64_t box_bytes) {
  const std::uint64_t smem = std::max<std::uint64_t>((box_bytes + 1023) / 1024 * 1024, 1024);
  const fs::path file =
      fs::temp_directory_path() / fmt::format("bankcheck-tma-{}-{}.ptx", ::getpid(), c.rank);
  std::ofstream(file) << kernel_text(c, smem, box_bytes);
  drv::CheckOptions o;
  o.input = file.string();
  const drv::Loaded loaded = drv::load(o);
  fs::remove(file);
  if (loaded.program.kernels.size() != 1)
    throw std::runtime_error(
        loaded.program.unsupported.empty() ? "no kernel" : loaded.program.unsupported[0].reason);
  const ptx::Kernel& k = loaded.program.kernels[0];
  auto run = [&](const emu::Emulator::Options& eo) {
    auto r = std::make_unique<Result>();
    r->sites = k.sites.size();
    emu::Launch launch;
    launch.block = {128, 1, 1};
    launch.params.assign(static_cast<std::size_t>(k.param_bytes), 0);
    r->tensor = r->mem.add("tensor", tensor.size());
    std::memcpy(r->mem.find(r->tensor, 1)->data(), tensor.data(), tensor.size());
    const std::uint64_t out_bytes = c.kind == Kind::Load ? smem : shared_image.size();
    r->out = r->mem.add("out", out_bytes);
    if (c.kind != Kind::Load)
      std::memcpy(r->mem.find(r->out, 1)->data(), shared_image.data(), shared_image.size());
    alignas(64) std::uint8_t map[128];
    const auto strides = strides_of(c);
    std::vector<std::uint64_t> gs(strides.begin() + 1, strides.end());
    gs.push_back(0);
    std::string why;
    const int rc =
        c.im2col ? emu::encode_im2col(map, c.type, c.rank, r->tensor, c.dim.data(), gs.data(),
                                      c.lower.data(), c.upper.data(), c.channels, c.pixels,
                                      c.estride.data(), 0, c.swizzle, 0, c.oob, &why)
                 : emu::encode_tiled(map, c.type, c.rank, r->tensor, c.dim.data(), gs.data(),
                                     c.box.data(), c.estride.data(), 0, c.swizzle, 0, c.oob, &why);
    if (rc != emu::kTensorMapSuccess) throw std::runtime_error("encode: " + why);
    std::memcpy(launch.params.data() + k.params[0].offset, map, 128);
    if (c.map_in_global) {
      const std::uint64_t g = r->mem.add("map", 128);
      std::memcpy(r->mem.find(g, 1)->data(), map, 128);
      std::memcpy(launch.params.data() + k.params[1].offset, &g, 8);
    }
    std::memcpy(launch.params.data() + k.params[2].offset, &r->out, 8);
    const auto words = static_cast<std::uint32_t>(out_bytes / 4);
    std::memcpy(launch.params.data() + k.params[3].offset, &words, 4);
    for (unsigned d = 0; d < c.rank; ++d)
      std::memcpy(launch.params.data() + k.params[4 + d].offset, &c.coord[d], 4);
    for (std::size_t i = 0; i < c.offsets.size(); ++i) {
      const auto v = static_cast<std::uint16_t>(c.offsets[i]);
      std::memcpy(launch.params.data() + k.params[4 + c.rank + i].offset, &v, 2);
    }
    Capture cap;
    cap.r = r.get();
    emu::Emulator e(loaded.program, k, r->mem, eo);
    e.add_listener(&cap);
    e.run_cta(launch, {0, 0, 0});
    return r;
  };
  using P = std::unique_ptr<Result>;
  return emu::testing::run_both_tiers<P>("tma", run,
                                         [](P& x) -> emu::GlobalMemory& { return x->mem; });
}

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(g());
  return v;
}

// A load: the shared image is the box's elements, in order, swizzled by 16-byte chunks;
// outside the tensor zeros (or the NaN fill); the mbarrier completes the box's bytes.
void check_load(const Case& c, unsigned seed) {
  SCOPED_TRACE(fmt::format("rank {} type {} swizzle {}{}", c.rank, c.type, c.swizzle,
                           c.im2col ? " im2col" : ""));
  const unsigned es = bytes_of(c.type);
  const std::vector<std::uint8_t> tensor = random_bytes(tensor_bytes(c), seed);
  const std::vector<std::int64_t> elems = box_elements(c);
  const std::uint64_t box_bytes = elems.size() * es;
  std::unique_ptr<Result> r = run_case(c, tensor, {}, box_bytes);
  const std::uint8_t* img = r->mem.find(r->out, 1)->data();
  const std::uint64_t nan = es == 2 ? 0x7FFF : es == 4 ? 0x7FFFFFFF : 0x7FFFFFFFFFFFFFFFull;
  int bad = 0;
  for (std::size_t i = 0; i < elems.size() && bad < 5; ++i) {
    const std::uint64_t at = swizzled(i * es, c.swizzle);
    std::uint64_t want = 0, got = 0;
    if (elems[i] >= 0)
      std::memcpy(&want, tensor.data() + elems[i], es);
    else if (c.oob)
      want = nan;
    std::memcpy(&got, img + at, es);
    if (got != want && ++bad)
      ADD_FAILURE() << "element " << i << " at shared " << at << ": 0x" << std::hex << got
                    << ", want 0x" << want;
  }
  // Requests: the shared side names every 16-byte chunk of the box where the swizzle put
  // it; the global side the chunks of the rows inside the tensor.
  std::set<std::uint64_t> chunks, want_chunks;
  for (const auto& e : r->shared_side)
    for (int l = 0; l < 32; ++l)
      if ((e.mask >> l) & 1u) chunks.insert(e.addr[l]);
  for (std::uint64_t a = 0; a < box_bytes; a += 16) want_chunks.insert(swizzled(a, c.swizzle));
  EXPECT_EQ(chunks, want_chunks);
  std::uint64_t global_lanes = 0;
  for (const auto& e : r->global_side)
    global_lanes += static_cast<std::uint64_t>(std::popcount(e.mask));
  std::uint64_t inside_chunks = 0;
  for (std::size_t i = 0; i < elems.size(); i += 16 / es) {
    bool any = false;
    for (std::size_t j = i; j < i + 16 / es && j < elems.size(); ++j) any = any || elems[j] >= 0;
    inside_chunks += any ? 1 : 0;
  }
  EXPECT_EQ(global_lanes, inside_chunks);
  // Counted as the H200 counts it (model::tma_copy): one execution of the issuing warp on each
  // side, no wavefront, no sector.
  analysis::SiteStatsListener stats(*model::find_arch("sm_90"), r->sites);
  for (const auto* side : {&r->shared_side, &r->global_side})
    for (const emu::AccessEvent& e : *side) stats.on_access(e);
  std::uint64_t requests = 0, cost = 0;
  for (const analysis::SiteStats& s : stats.sites()) {
    requests += s.requests;
    cost += s.wavefronts + s.ideal_wavefronts + s.sectors + s.ideal_sectors;
  }
  EXPECT_EQ(requests, inside_chunks ? 2u : 1u);
  EXPECT_EQ(cost, 0u);
}

}  // namespace

TEST(EmuTma, TwoDimensionalBoxesInEverySwizzle) {
  unsigned seed = 1;
  for (unsigned sw : {0u, 1u, 2u, 3u}) {
    Case c;
    c.type = 6;  // f16
    c.dim = {200, 40};
    c.box = {sw == 0 ? 64u : (16u << sw) / 2, 8};  // rows as wide as the swizzle allows
    c.coord = {32, 5};
    c.swizzle = sw;
    check_load(c, seed++);
  }
  Case wide;  // 128-byte rows of floats, 128-byte swizzle: the GEMM tile
  wide.dim = {256, 256};
  wide.box = {32, 64};
  wide.coord = {64, 128};
  wide.swizzle = 3;
  check_load(wide, seed++);
}

TEST(EmuTma, OutOfBoundsFillsZerosOrNaN) {
  Case c;
  c.dim = {40, 20};
  c.box = {32, 16};
  c.coord = {24, -4};  // right and top edges outside
  check_load(c, 10);
  c.oob = 1;
  check_load(c, 11);
  c.type = 6;
  c.box = {64, 4};
  c.coord = {-8, 18};
  check_load(c, 12);
}

TEST(EmuTma, OneToFiveDimensionsWithElementStrides) {
  Case c1;
  c1.rank = 1;
  c1.dim = {1000};
  c1.box = {64};
  c1.estride = {1};
  c1.coord = {100};
  check_load(c1, 20);
  Case c3;
  c3.rank = 3;
  c3.type = 0;  // u8
  c3.dim = {64, 10, 9};
  c3.box = {32, 6, 5};
  c3.estride = {1, 2, 3};
  c3.coord = {16, 1, 0};
  check_load(c3, 21);
  Case c5;
  c5.rank = 5;
  c5.type = 4;  // u64
  c5.dim = {8, 3, 4, 2, 3};
  c5.box = {4, 2, 3, 2, 2};
  c5.estride = {1, 1, 2, 1, 1};
  c5.coord = {2, 1, 1, 0, 1};
  c5.swizzle = 1;
  check_load(c5, 22);
  Case g = c3;  // the map in global memory, named by a pointer
  g.map_in_global = true;
  check_load(g, 23);
}

TEST(EmuTma, Im2col) {
  Case c;
  c.im2col = true;
  c.rank = 4;  // NHWC
  c.type = 6;
  c.dim = {32, 6, 5, 2};  // C, W, H, N
  c.lower = {-1, -1};
  c.upper = {-1, -1};  // a 3x3 filter with padding 1: the box of output pixels
  c.channels = 32;
  c.pixels = 40;
  c.estride = {1, 1, 1, 1};
  c.coord = {0, -1, -1, 0};
  c.offsets = {1, 2};
  check_load(c, 30);
  c.swizzle = 3;
  c.offsets = {0, 0};
  c.coord = {0, 2, 1, 1};
  check_load(c, 31);
}

TEST(EmuTma, StoreAndReduceWriteTheBoxInsideTheTensor) {
  for (Kind kind : {Kind::Store, Kind::Reduce}) {
    Case c;
    c.kind = kind;
    c.type = 3;  // s32
    c.dim = {50, 30};
    c.box = {32, 8};
    c.coord = {24, 26};  // partly outside
    c.swizzle = 3;
    const std::vector<std::uint8_t> tensor = random_bytes(tensor_bytes(c), 40);
    const std::vector<std::int64_t> elems = box_elements(c);
    const std::vector<std::uint8_t> shared =
        random_bytes((elems.size() * 4 + 1023) / 1024 * 1024, 41);
    std::unique_ptr<Result> r = run_case(c, tensor, shared, elems.size() * 4);
    std::vector<std::uint8_t> want = tensor;
    for (std::size_t i = 0; i < elems.size(); ++i) {
      if (elems[i] < 0) continue;
      std::int32_t s, g;
      std::memcpy(&s, shared.data() + swizzled(i * 4, c.swizzle), 4);
      std::memcpy(&g, want.data() + elems[i], 4);
      const std::int32_t v = kind == Kind::Reduce
                                 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(g) +
                                                             static_cast<std::uint32_t>(s))
                                 : s;
      std::memcpy(want.data() + elems[i], &v, 4);
    }
    const std::uint8_t* got = r->mem.find(r->tensor, 1)->data();
    EXPECT_EQ(std::memcmp(got, want.data(), want.size()), 0)
        << (kind == Kind::Store ? "store" : "reduce");
  }
}

// A map the encoder never wrote is refused by name at the copy's line.
TEST(EmuTma, AMapNotEncodedHereIsRefused) {
  Case c;
  const std::string text = kernel_text(c, 1024, 1024);
  const fs::path file =
      fs::temp_directory_path() / fmt::format("bankcheck-tma-bad-{}.ptx", ::getpid());
  std::ofstream(file) << text;
  drv::CheckOptions o;
  o.input = file.string();
  const drv::Loaded loaded = drv::load(o);
  fs::remove(file);
  const ptx::Kernel& k = loaded.program.kernels.at(0);
  emu::GlobalMemory mem;
  emu::Launch launch;
  launch.block = {128, 1, 1};
  launch.params.assign(static_cast<std::size_t>(k.param_bytes), 0);
  const std::uint64_t out = mem.add("out", 1024);
  std::memcpy(launch.params.data() + k.params[2].offset, &out, 8);
  emu::Emulator e(loaded.program, k, mem);
  try {
    e.run_cta(launch, {0, 0, 0});
    ADD_FAILURE() << "no error";
  } catch (const emu::EmuError& err) {
    EXPECT_NE(std::string(err.what()).find("cuTensorMapEncodeTiled"), std::string::npos)
        << err.what();
  }
}
