// What Nsight Compute counts for Hopper's asynchronous data movers: warpgroup MMA (wgmma)
// reading its operands from shared memory, the tensor memory accelerator's copies (TMA:
// cp.async.bulk and cp.async.bulk.tensor) and requests to distributed shared memory (another
// CTA of the cluster through mapa). Shared by the emulator's analysis and the GPU backend's
// patches (host and device).
//
// Every rule is a measurement of the per-instruction Source Counters on an H200 (Nsight
// Compute 2025.3.1, CUDA 13.0): bench/hardware/wgmma (148 wgmma), bench/hardware/tma (80
// copies), bench/hardware/dsmem (146 request patterns); tests/hopper_corpus_test.cpp replays
// each, docs/model.md ("Hopper") tells what was measured.
//
// Worked example: wgmma.mma_async.m64n128k16.f32.f16.f16 with both operands in shared memory,
// issued by one warpgroup (four warps): the HGMMA row lists 4 executions and
// (64 x 32 + 128 x 32) / 128 = 48 shared wavefronts, ideal 48, whatever the descriptors'
// swizzle, major-ness, start offsets or leading/stride byte offsets. The same with A in
// registers: 32. A cp.async.bulk.tensor.2d of a 64 x 64 fp16 box: 0 wavefronts, 0 sectors.
#pragma once

#include <cstdint>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/config.hpp"
#include "bankcheck/model/sectors.hpp"

namespace bankcheck::model {

// ---------------------------------------------------------------------------------------
// wgmma.mma_async (SASS HGMMA for f16/bf16/tf32, QGMMA for e4m3/e5m2, IGMMA for s8/u8)

// Every dense wgmma reads 32 bytes of K per row: m64nNk16 of 2-byte types, k8 of tf32, k32 of
// 1-byte types. A is 64 rows (M), B is N rows.
inline constexpr std::uint32_t kWgmmaKBytes = 32;
inline constexpr std::uint32_t kWgmmaRowsA = 64;

// The shared-memory operands of one wgmma: A's bytes (0 when A comes from registers) and B's.
struct WgmmaOperands {
  std::uint32_t a_bytes = 0;
  std::uint32_t b_bytes = 0;
};

// N must be a multiple of 8 in [8, 256] (the s8/u8 forms allow a subset of those).
BANKCHECK_HD constexpr bool wgmma_n_valid(int n) { return n >= 8 && n <= 256 && n % 8 == 0; }

// The operand bytes of m64nNk(32 bytes) with A in shared memory or in registers.
// Pre: wgmma_n_valid(n).
BANKCHECK_HD constexpr WgmmaOperands wgmma_operands(int n, bool a_in_shared) {
  WgmmaOperands o;
  o.a_bytes = a_in_shared ? kWgmmaRowsA * kWgmmaKBytes : 0;
  o.b_bytes = static_cast<std::uint32_t>(n) * kWgmmaKBytes;
  return o;
}

// One warpgroup's execution of a wgmma, as the Source Counters list it on the GMMA row (the
// wgmma's own line): every operand byte once, 128 bytes a wavefront, and no conflict. The
// tensor cores' reads are not LSU requests: on all 148 measured instructions the count was
// (A bytes + B bytes) / 128 for every shape (N 8 to 256), type (f16 with f32 or f16
// accumulators, bf16, tf32, e4m3, e5m2, s8, u8), A from shared memory or registers, K-major or
// MN-major, swizzle (none, 32, 64, 128 bytes), start offset (16 to 512 bytes, within and
// across the swizzle atom), base-offset field and leading/stride byte offsets (16 bytes to
// 4 KiB, canonical or not), with the ideal equal. The four warps of the warpgroup each
// execute the instruction (4 executions); the wavefronts are the warpgroup's, once.
// Post: wavefronts == ideal_wavefronts; ways 1 when anything is read, else 0.
BANKCHECK_HD constexpr Verdict wgmma_request(const WgmmaOperands& o) {
  Verdict v;
  const std::uint32_t bytes = o.a_bytes + o.b_bytes;
  v.wavefronts = (bytes + 127) / 128;
  v.ideal_wavefronts = v.wavefronts;
  v.ways = bytes ? 1 : 0;
  return v;
}

// The warp executions Nsight Compute counts per warpgroup execution of a wgmma.
inline constexpr std::uint32_t kWgmmaWarps = 4;

// A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading and
// stride byte offsets (14 bits each, in 16-byte units), base offset (3 bits), swizzle mode
// (2 bits: 0 none, 1 128-byte, 2 64-byte, 3 32-byte). The count above does not depend on any
// of them; the emulator reads the operands through them.
//
//   bits  0-13 start >> 4 | 16-29 LBO >> 4 | 32-45 SBO >> 4 | 49-51 base | 62-63 swizzle
enum class WgmmaSwizzle : std::uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };

struct MatrixDescriptor {
  std::uint32_t start = 0;  // byte address in the shared window (a multiple of 16)
  std::uint32_t lbo = 0;    // leading dimension byte offset
  std::uint32_t sbo = 0;    // stride dimension byte offset
  std::uint8_t base_offset = 0;
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;
};

BANKCHECK_HD constexpr MatrixDescriptor decode_descriptor(std::uint64_t d) {
  MatrixDescriptor m;
  m.start = static_cast<std::uint32_t>(d & 0x3FFF) << 4;
  m.lbo = static_cast<std::uint32_t>((d >> 16) & 0x3FFF) << 4;
  m.sbo = static_cast<std::uint32_t>((d >> 32) & 0x3FFF) << 4;
  m.base_offset = static_cast<std::uint8_t>((d >> 49) & 7);
  m.swizzle = static_cast<WgmmaSwizzle>((d >> 62) & 3);
  return m;
}

// Pre: every field fits its bits (start, lbo, sbo < 256 KiB, multiples of 16; base < 8).
BANKCHECK_HD constexpr std::uint64_t encode_descriptor(const MatrixDescriptor& m) {
  return static_cast<std::uint64_t>((m.start >> 4) & 0x3FFF) |
         static_cast<std::uint64_t>((m.lbo >> 4) & 0x3FFF) << 16 |
         static_cast<std::uint64_t>((m.sbo >> 4) & 0x3FFF) << 32 |
         static_cast<std::uint64_t>(m.base_offset & 7) << 49 |
         static_cast<std::uint64_t>(m.swizzle) << 62;
}

// The bytes of one swizzle row (the atom is 8 of them): 0 for no swizzle.
BANKCHECK_HD constexpr std::uint32_t swizzle_bytes(WgmmaSwizzle s) {
  return s == WgmmaSwizzle::B128  ? 128
         : s == WgmmaSwizzle::B64 ? 64
         : s == WgmmaSwizzle::B32 ? 32
                                  : 0;
}

// ---------------------------------------------------------------------------------------
// TMA: cp.async.bulk, cp.async.bulk.tensor, cp.reduce.async.bulk(.tensor), their prefetches

// The copies of the tensor memory accelerator (SASS UTMALDG, UTMASTG, UTMAREDG, UTMAPF,
// UBLKCP, UBLKPF) list their row in the Source Counters (space "Global,Shared", one
// execution per issuing warp) with 0 shared wavefronts, 0 ideal, 0 global sectors and 0
// ideal sectors: on all 80 measured copies (tensor loads 1D to 5D, 1- to 8-byte elements,
// boxes of 16 bytes to 32 KiB, element strides, every swizzle, interleaved layouts, boxes
// partly or wholly out of bounds with zero or NaN fill, multicast to a cluster; tensor
// stores, a reduction, a prefetch; bulk copies global to shared of 16 bytes to 16 KiB at
// 16-byte offsets, multicast, shared to global, shared::cta to shared::cluster, L2 prefetch).
// Their mbarrier operations (SYNCS) list no memory column at all.
BANKCHECK_HD constexpr Verdict tma_copy() { return Verdict{}; }
BANKCHECK_HD constexpr SectorCount tma_copy_sectors() { return SectorCount{}; }

// ---------------------------------------------------------------------------------------
// Distributed shared memory: .shared::cluster addresses (mapa), generic ones through mapa.u64

// A request to the shared memory of CTA `target` of the cluster made by CTA `own`. ptxas
// issues ld/st/atom/red.shared::cluster as generic LD/ST/ATOM (st.async as STAS). To another
// CTA, the Source Counters list the row (space "Global,Shared") with 0 wavefronts, 0 ideal
// and 0 sectors whatever the lanes' addresses (4-, 8- and 16-byte loads, 4- and 16-byte
// stores, atom, red, st.async, generic loads: 102 patterns); to the CTA itself through the
// cluster window, the request is an ordinary shared request, costed by analyze() (22 patterns
// of 4- and 16-byte loads, each costing what an LDS of the same lanes costs).
BANKCHECK_HD constexpr bool cluster_request_counted(std::uint32_t own, std::uint32_t target) {
  return own == target;
}

}  // namespace bankcheck::model
