// Occupancy: how many blocks of a kernel are resident on one SM, and which resource runs out
// first. A constexpr re-statement of NVIDIA's own calculator, cuda_occupancy.h (CUDA 13.0,
// cudaOccMaxActiveBlocksPerMultiprocessor), for sm_50, sm_52, sm_53, sm_60, sm_61, sm_62,
// sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_103, sm_120 and sm_121.
// tests/occupancy_cuda_test.cpp checks it against that header over a large sweep.
//
// The algorithm (cuda_occupancy.h, functions named in brackets):
//   warps   warps per block = ceil(threads / 32); blocks = max warps per SM / warps per block;
//           0 if threads > max threads per block.            [cudaOccMaxBlocksPerSMWarpsLimit]
//   blocks  the per-SM block slot count.                   [cudaOccMaxBlocksPerMultiprocessor]
//   regs    registers per warp = roundup(regs x 32, 256); a block gets that per warp. The launch
//           fails (0 blocks) when regs per thread > the per-thread maximum or when the block's
//           registers, with the warp count also rounded up to the sub-partitions (4; 2 on
//           sm_60), exceed the per-block register file limit. Otherwise each sub-partition
//           holds floor((registers per SM / sub-partitions) / registers per warp) warps, and
//           blocks = sub-partitions x that / warps per block. 0 registers: no limit. sm_60
//           (GP100) also requires the block to fit the 4 sub-partitions of its GP10x siblings
//           (cudaOccMaxActiveBlocksPerMultiprocessor's "forward compatibility within Pascal").
//                                                            [cudaOccMaxBlocksPerSMRegsLimit]
//   shared  bytes per block = roundup(static + dynamic + reserved, granule); 0 blocks if that
//           exceeds the per-block limit (opt-in maximum + reserve). The carveout (the part of the
//           unified L1/shared array given to shared memory) is the preference rounded up to the
//           next size the hardware supports: the largest for the default preference, else
//           percent x max shared per SM / 100 (integer division). If a single block does not fit
//           the preferred carveout, the driver takes the smallest carveout that holds one block.
//           blocks = carveout / bytes per block; no limit when a block needs 0 bytes (only
//           possible before sm_80, which has no reserve). Maxwell and Pascal (5.x, 6.x) have
//           shared memory of their own, not a carveout of the L1: one size, whatever the
//           preference, and 48 KB per block.                         [cudaOccSMemPreference]
//                                  [cudaOccMaxBlocksPerSMSmemLimit, cudaOccSMemPerBlock,
//                                   cudaOccSMemPreferenceVoltaPlus,
//                                   cudaOccAlignUpShmemSizeVoltaPlus]
//   result  blocks per SM = min of the four; occupancy = blocks x warps per block / max warps.
// Not modelled, because they never limit on these architectures with the defaults the CUDA
// runtime uses: block barriers (a kernel uses 1; cc 9.0 and 10.x have 2 per block slot, 12.x
// has 1, which ties with the block slots but never allows fewer blocks), partitioned global
// caching (cc 5.2/6.x only), virtual resources (cc 10.x and later; none for a kernel that
// does not ask for them).
//
// Where this calculator is stricter than cuda_occupancy.h (documented in the tests):
//   - 256 registers per thread: the header accepts 256 on cc >= 7.0; ptxas and the Programming
//     Guide cap a thread at 255, so 256 is an error here.
//   - static shared memory above 48 KB: ptxas rejects it ("uses too much shared data"); the
//     header does not know static from dynamic. Shared memory above 48 KB must be dynamic.
//
// On an H100 (CUDA 13.0 driver) the runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor gave
// the same blocks as this calculator for 66,600 launches (2 kernels, 10 carveout preferences,
// 9 block sizes, dynamic shared 0..227 KB), and measured residency (blocks spinning together,
// counted per SM) matched for the default preference, e.g. 16384 vs 16640 B -> 13 and 13,
// 512 + 16384 vs 512 + 16640 B -> 13 and 12. The carveout preference is only a hint to the
// driver, though: at small explicit preferences with little shared memory per block the real
// launch can hold more blocks than NVIDIA's calculators (and this one) predict, e.g. 32 threads,
// 1 B dynamic, 1%: 28 resident (a 32 KB carveout) against 7 predicted (8 KB); no shared memory
// at 0%: 32 resident against 8 predicted. Predictions there are a lower bound.
#pragma once

#include <cstdint>
#include <string_view>

#include "bankcheck/model/config.hpp"

namespace bankcheck::model {

// A limit that does not apply (a kernel with no registers, or no shared memory before sm_80);
// the same value as cuda_occupancy.h's INT_MAX.
inline constexpr int kOccUnlimited = 0x7fffffff;

// carveout_percent: "no preference" (cudaSharedmemCarveoutDefault).
inline constexpr int kCarveoutDefault = -1;

inline constexpr int kMaxCarveouts = 10;

// The architectures the calculator knows, by compute capability x 10.
inline constexpr int kOccupancyArchs[] = {50, 52, 53, 60, 61, 62, 70,  72,  75,
                                          80, 86, 87, 89, 90, 100, 103, 120, 121};

// Per-SM limits of one architecture. The numbers and their sources are in sm_limits() below.
struct SmLimits {
  const char* name = "";  // "sm_90"; empty when unknown
  int cc = 0;             // 90; 0 when unknown
  int warp_size = 32;
  int max_threads_per_block = 0;      // cudaDeviceProp::maxThreadsPerBlock
  int max_warps_per_sm = 0;           // maxThreadsPerMultiProcessor / 32
  int max_blocks_per_sm = 0;          // resident block slots
  int registers_per_sm = 0;           // regsPerMultiprocessor (32-bit registers)
  int max_registers_per_block = 0;    // regsPerBlock
  int max_registers_per_thread = 0;   // ptxas / Programming Guide maximum
  int register_alloc_unit = 0;        // registers are given to a warp in units of this many
  int warp_alloc_granularity = 0;     // warps rounded up to this in the per-block register check
  int sub_partitions = 0;             // SM sub-partitions (each has 1/4 of the register file)
  int l1_shared_bytes = 0;            // unified L1 / shared array per SM (information only)
  int shared_per_sm = 0;              // sharedMemPerMultiprocessor: the largest carveout
  int shared_per_block = 0;           // sharedMemPerBlock: without opt-in (48 KB)
  int shared_per_block_optin = 0;     // sharedMemPerBlockOptin
  int reserved_shared_per_block = 0;  // reservedSharedMemPerBlock (system use, cc >= 8.0)
  int shared_alloc_unit = 0;          // shared memory allocation granule, bytes
  int num_carveouts = 0;
  int carveouts[kMaxCarveouts] = {};  // the shared-memory carveouts, bytes, ascending

  BANKCHECK_HD constexpr bool known() const { return cc != 0; }
};

namespace occ_detail {

BANKCHECK_HD constexpr long long ceil_div(long long x, long long y) { return (x + y - 1) / y; }
BANKCHECK_HD constexpr long long round_up(long long x, long long y) { return ceil_div(x, y) * y; }
BANKCHECK_HD constexpr int min_int(int a, int b) { return b < a ? b : a; }

struct Common {
  int max_warps, max_blocks, l1_kb, shared_kb, optin_kb, reserved, unit;
};

BANKCHECK_HD constexpr SmLimits make(const char* name, int cc, Common c, int n,
                                     const int (&carveouts_kb)[kMaxCarveouts]) {
  SmLimits s;
  s.name = name;
  s.cc = cc;
  s.warp_size = 32;
  s.max_threads_per_block = 1024;
  s.max_warps_per_sm = c.max_warps;
  s.max_blocks_per_sm = c.max_blocks;
  s.registers_per_sm = 65536;
  s.max_registers_per_block = 65536;
  s.max_registers_per_thread = 255;
  s.register_alloc_unit = 256;
  s.warp_alloc_granularity = 4;
  s.sub_partitions = 4;
  s.l1_shared_bytes = c.l1_kb * 1024;
  s.shared_per_sm = c.shared_kb * 1024;
  s.shared_per_block = 48 * 1024;
  s.shared_per_block_optin = c.optin_kb * 1024;
  s.reserved_shared_per_block = c.reserved;
  s.shared_alloc_unit = c.unit;
  s.num_carveouts = n;
  for (int i = 0; i < kMaxCarveouts; ++i) s.carveouts[i] = i < n ? carveouts_kb[i] * 1024 : 0;
  return s;
}

// Maxwell and Pascal: 64 warps and 32 blocks per SM, dedicated shared memory (one
// "carveout", its whole size), 48 KB per block, no reserve, 256-byte granule.
BANKCHECK_HD constexpr SmLimits make_dedicated(const char* name, int cc, int shared_kb,
                                               int registers_per_block, int sub_partitions) {
  const int one[kMaxCarveouts] = {shared_kb};
  SmLimits s = make(name, cc, {64, 32, shared_kb, shared_kb, 48, 0, 256}, 1, one);
  s.max_registers_per_block = registers_per_block;
  s.sub_partitions = sub_partitions;
  s.warp_alloc_granularity = sub_partitions;
  return s;
}

}  // namespace occ_detail

// The limits of an architecture by compute capability x 10 (kOccupancyArchs); known() is
// false for any other number.
//
// Sources. Common to all: 1024 threads per block, 64K 32-bit registers per SM and per
// block, 255 registers per thread (CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability"); registers allocated per warp in units of 256, 4 sub-partitions, warp
// count rounded up to 4 in the per-block register check, 48 KB per block without opt-in
// (cuda_occupancy.h: cudaOccRegAllocationGranularity, cudaOccSubPartitionsPerMultiprocessor,
// cudaOccMaxBlocksPerSMRegsLimit; cudaDeviceProp::sharedMemPerBlock).
// Per architecture:
//   warps / blocks per SM        Programming Guide table; block slots also
//   cudaOccMaxBlocksPerMultiprocessor shared per SM / per block    Programming Guide table
//   ("maximum amount of shared memory per
//                                SM / per thread block") = cudaDeviceProp
//                                sharedMemPerMultiprocessor / sharedMemPerBlockOptin of V100, T4,
//                                A100, RTX 3090, Orin, L40, H100
//   reserved per block           cudaDeviceProp::reservedSharedMemPerBlock: 0 before cc 8.0, 1 KB
//   after
//                                (Programming Guide, compute capability 8.x / 9.0 sections)
//   shared allocation granule    cuda_occupancy.h cudaOccSMemAllocationGranularity: 256 B on 7.x,
//   128 B on 8.x/9.x carveouts                    cuda_occupancy.h
//   cudaOccAlignUpShmemSizeVoltaPlus, which agrees with the
//                                Programming Guide's lists (7.0: 0/8/16/32/64/96 KB; 7.5: 32/64 KB;
//                                8.0/8.7: up to 164 KB; 8.6/8.9: up to 100 KB; 9.0: up to 228 KB)
//   L1 + shared per SM           Programming Guide (7.0: 128 KB, 7.5: 96 KB, 8.0/8.7: 192 KB,
//                                8.6/8.9: 128 KB, 9.0: 256 KB); not used by the calculation
// Blackwell (10.0 and 10.3: B200, B300; 12.0 and 12.1: RTX 50xx, RTX PRO, GB10):
//   warps per SM                 Blackwell Tuning Guide 1.4.1.1 "Occupancy": 64 for 10.0, 48 for
//                                12.0 (2048 and 1536 threads per SM); 10.3 as 10.0 and 12.1 as
//                                12.0 (cuda_occupancy.h gives each pair the same limits)
//   registers                    the same guide: 64K 32-bit registers per SM, 255 per thread
//   shared per SM / per block    the same guide: 228 KB and 227 KB for 10.0, and 128 KB of
//                                unified L1 + shared per SM for 12.0, of which a carveout gives
//                                shared memory at most 100 KB (cuda_occupancy.h
//                                cudaOccAlignUpShmemSizeVoltaPlus: 10.x 0 ... 228 KB as 9.0,
//                                12.x 0 ... 100 KB as 8.6/8.9) and a block 99 KB (Programming
//                                Guide table, "maximum amount of shared memory per thread block")
//   blocks per SM                cuda_occupancy.h (CUDA 13.0) cudaOccMaxBlocksPerMultiprocessor:
//                                32 for 10.0/10.3, 24 for 12.x. (The tuning guide's prose says
//                                32 for 12.0 too; the calculator the runtime ships is followed.)
//   reserve, granule             1 KB per block (reservedSharedMemPerBlock from cc 8.0), 128 B
//                                (cudaOccSMemAllocationGranularity for cc 8 to 12)
// 11.0 (Jetson Thor, formerly 10.1) is left out: its warps per SM are not in these sources.
// Maxwell and Pascal (5.x, 6.x), from cuda_occupancy.h (CUDA 13.0, which still has their
// rules) and the Programming Guide's table:
//   shared per SM                64 KB (5.0, 5.3, 6.0, 6.2) or 96 KB (5.2, 6.1), dedicated
//                                (cudaOccSMemPreference: "Maxwell and Pascal have dedicated
//                                shared memory"); 48 KB per block, no opt-in
//                                (cudaOccSMemPerBlock returns sharedMemPerBlock)
//   registers per block          64K, but 32K on the Tegra parts 5.3 (TX1) and 6.2 (TX2)
//   sub-partitions               4, but 2 on 6.0 (cudaOccSubPartitionsPerMultiprocessor)
//   warps / blocks per SM        64 / 32 (cudaOccMaxBlocksPerMultiprocessor)
//   granule                      256 B (cudaOccSMemAllocationGranularity)
//   L1 + shared                  the shared memory alone (L1 is the texture cache's, apart)
// 7.2 (Jetson AGX Xavier) as 7.0 (cuda_occupancy.h gives 7.x other than 7.5 Volta's rules).
// Partitioned global caching (5.2, 5.3, 6.1, 6.2) is off unless a kernel asks for it, as the
// runtime's default; with it on, a block would be held to half an SM.
BANKCHECK_HD constexpr SmLimits sm_limits(int cc) {
  using occ_detail::make;
  using occ_detail::make_dedicated;
  //                                 warps blocks L1KB shKB optinKB reserve granule
  switch (cc) {
    case 50:  // Maxwell (GTX 750 Ti)
      return make_dedicated("sm_50", 50, 64, 65536, 4);
    case 52:  // Maxwell (GTX 980, Titan X)
      return make_dedicated("sm_52", 52, 96, 65536, 4);
    case 53:  // Maxwell (Jetson TX1)
      return make_dedicated("sm_53", 53, 64, 32768, 4);
    case 60:  // Pascal GP100 (P100)
      return make_dedicated("sm_60", 60, 64, 65536, 2);
    case 61:  // Pascal GP10x (GTX 1080, P40)
      return make_dedicated("sm_61", 61, 96, 65536, 4);
    case 62:  // Pascal (Jetson TX2)
      return make_dedicated("sm_62", 62, 64, 32768, 4);
    case 70:  // Volta (V100)
      return make("sm_70", 70, {64, 32, 128, 96, 96, 0, 256}, 6, {0, 8, 16, 32, 64, 96});
    case 72:  // Volta (Jetson AGX Xavier)
      return make("sm_72", 72, {64, 32, 128, 96, 96, 0, 256}, 6, {0, 8, 16, 32, 64, 96});
    case 75:  // Turing (T4, RTX 20xx)
      return make("sm_75", 75, {32, 16, 96, 64, 64, 0, 256}, 2, {32, 64});
    case 80:  // Ampere GA100 (A100)
      return make("sm_80", 80, {64, 32, 192, 164, 163, 1024, 128}, 8,
                  {0, 8, 16, 32, 64, 100, 132, 164});
    case 86:  // Ampere GA10x (RTX 30xx, A40)
      return make("sm_86", 86, {48, 16, 128, 100, 99, 1024, 128}, 6, {0, 8, 16, 32, 64, 100});
    case 87:  // Ampere GA10B (Jetson AGX Orin)
      return make("sm_87", 87, {48, 16, 192, 164, 163, 1024, 128}, 8,
                  {0, 8, 16, 32, 64, 100, 132, 164});
    case 89:  // Ada (L40, RTX 40xx)
      return make("sm_89", 89, {48, 24, 128, 100, 99, 1024, 128}, 6, {0, 8, 16, 32, 64, 100});
    case 90:  // Hopper (H100)
      return make("sm_90", 90, {64, 32, 256, 228, 227, 1024, 128}, 10,
                  {0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    case 100:  // Blackwell (B200)
      return make("sm_100", 100, {64, 32, 256, 228, 227, 1024, 128}, 10,
                  {0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    case 103:  // Blackwell Ultra (B300)
      return make("sm_103", 103, {64, 32, 256, 228, 227, 1024, 128}, 10,
                  {0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    case 120:  // Blackwell (RTX 50xx, RTX PRO)
      return make("sm_120", 120, {48, 24, 128, 100, 99, 1024, 128}, 6, {0, 8, 16, 32, 64, 100});
    case 121:  // Blackwell (GB10)
      return make("sm_121", 121, {48, 24, 128, 100, 99, 1024, 128}, 6, {0, 8, 16, 32, 64, 100});
    default:
      return SmLimits{};
  }
}

// Host only: by nvcc's name, "sm_90" or "sm_120"; also "sm_90a", "sm_100f" and "compute_90".
// known() is false for anything else.
constexpr SmLimits find_sm_limits(std::string_view name) {
  if (name.starts_with("compute_"))
    name.remove_prefix(8);
  else if (name.starts_with("sm_"))
    name.remove_prefix(3);
  else
    return SmLimits{};
  if (!name.empty() && (name.back() == 'a' || name.back() == 'f')) name.remove_suffix(1);
  if (name.size() < 2 || name.size() > 3 || name[0] == '0') return SmLimits{};
  int cc = 0;
  for (const char c : name) {
    if (c < '0' || c > '9') return SmLimits{};
    cc = cc * 10 + (c - '0');
  }
  return sm_limits(cc);
}

// The smallest carveout of at least `bytes`; -1 if none is that large.
BANKCHECK_HD constexpr int carveout_round_up(const SmLimits& sm, long long bytes) {
  for (int i = 0; i < sm.num_carveouts; ++i)
    if (sm.carveouts[i] >= bytes) return sm.carveouts[i];
  return -1;
}

// The carveout a preference asks for: kCarveoutDefault -> the largest; a percentage p ->
// p x shared_per_sm / 100 rounded up to a supported carveout. -1 for a percentage outside
// 0..100 or an unknown architecture.
BANKCHECK_HD constexpr int preferred_carveout(const SmLimits& sm, int percent) {
  if (!sm.known() || percent < kCarveoutDefault || percent > 100) return -1;
  const long long want = percent == kCarveoutDefault
                             ? sm.shared_per_sm
                             : static_cast<long long>(percent) * sm.shared_per_sm / 100;
  return carveout_round_up(sm, want);
}

// What is launched.
struct OccupancyInput {
  int threads_per_block = 0;
  int registers_per_thread = 0;             // as ptxas reports; 0 means no register limit
  int static_shared_bytes = 0;              // __shared__ arrays (at most 48 KB)
  int dynamic_shared_bytes = 0;             // the launch's third <<<>>> argument
  int carveout_percent = kCarveoutDefault;  // cudaFuncAttributePreferredSharedMemoryCarveout
  // The kernel raised cudaFuncAttributeMaxDynamicSharedMemorySize as needed, so a block may use
  // up to shared_per_block_optin; false: at most shared_per_block (48 KB).
  bool opt_in = true;
};

// The resource that limits resident blocks. With ties the first in this order is named
// (warps, registers, shared memory, blocks); limiter_mask has every tied one.
enum class Limiter : std::uint8_t { None, Warps, Registers, SharedMemory, Blocks };

BANKCHECK_HD constexpr const char* limiter_name(Limiter l) {
  switch (l) {
    case Limiter::None:
      return "none";
    case Limiter::Warps:
      return "warps";
    case Limiter::Registers:
      return "registers";
    case Limiter::SharedMemory:
      return "shared memory";
    case Limiter::Blocks:
      return "blocks";
  }
  return "?";
}

BANKCHECK_HD constexpr unsigned limiter_bit(Limiter l) { return 1u << static_cast<unsigned>(l); }

// Why a configuration cannot launch. The first applicable one, in this order, is reported.
enum class OccupancyError : std::uint8_t {
  None,
  UnknownArch,                // sm_limits() does not know the architecture
  InvalidInput,               // threads <= 0, or a negative register or byte count
  InvalidCarveout,            // carveout_percent outside -1..100
  TooManyThreads,             // threads per block > max_threads_per_block
  TooManyRegistersPerThread,  // registers per thread > max_registers_per_thread (255)
  TooManyRegistersPerBlock,   // the block's registers exceed the per-block register limit
  StaticSharedTooLarge,       // static shared memory > 48 KB (ptxas rejects it)
  TooMuchSharedMemory,        // static + dynamic + reserve > the per-block limit
};

BANKCHECK_HD constexpr const char* occupancy_error_name(OccupancyError e) {
  switch (e) {
    case OccupancyError::None:
      return "none";
    case OccupancyError::UnknownArch:
      return "unknown architecture";
    case OccupancyError::InvalidInput:
      return "invalid input";
    case OccupancyError::InvalidCarveout:
      return "invalid carveout preference";
    case OccupancyError::TooManyThreads:
      return "too many threads per block";
    case OccupancyError::TooManyRegistersPerThread:
      return "too many registers per thread";
    case OccupancyError::TooManyRegistersPerBlock:
      return "too many registers per block";
    case OccupancyError::StaticSharedTooLarge:
      return "static shared memory over 48 KB";
    case OccupancyError::TooMuchSharedMemory:
      return "too much shared memory per block";
  }
  return "?";
}

struct Occupancy {
  OccupancyError error = OccupancyError::None;
  int blocks_per_sm = 0;  // resident blocks; 0 when the launch cannot run
  int warps_per_sm = 0;   // blocks_per_sm x warps_per_block
  int max_warps_per_sm = 0;
  double occupancy = 0.0;  // warps_per_sm / max_warps_per_sm
  Limiter limiter = Limiter::None;
  unsigned limiter_mask = 0;  // limiter_bit() of every resource whose limit is blocks_per_sm
  // Blocks per SM each resource alone allows (kOccUnlimited where it does not apply; 0 where the
  // block does not fit at all).
  int limit_warps = 0;
  int limit_blocks = 0;
  int limit_registers = 0;
  int limit_shared = 0;
  int warps_per_block = 0;
  int registers_per_warp = 0;        // allocated: roundup(registers x 32, 256)
  int registers_per_block = 0;       // allocated: registers_per_warp x warps_per_block
  int shared_bytes_per_block = 0;    // allocated: roundup(static + dynamic + reserve, granule)
  int preferred_carveout_bytes = 0;  // what carveout_percent asks for
  int carveout_bytes = 0;            // the carveout the launch gets (>= one block's shared memory)

  BANKCHECK_HD constexpr bool ok() const { return error == OccupancyError::None; }
  BANKCHECK_HD constexpr bool limited_by(Limiter l) const {
    return (limiter_mask & limiter_bit(l)) != 0;
  }
};

// Resident blocks of `in` on one SM of `sm`; never throws, errors are in the result.
BANKCHECK_HD constexpr Occupancy compute_occupancy(const SmLimits& sm, const OccupancyInput& in) {
  using occ_detail::round_up;
  Occupancy r;
  if (!sm.known()) {
    r.error = OccupancyError::UnknownArch;
    return r;
  }
  r.max_warps_per_sm = sm.max_warps_per_sm;
  if (in.threads_per_block <= 0 || in.registers_per_thread < 0 || in.static_shared_bytes < 0 ||
      in.dynamic_shared_bytes < 0) {
    r.error = OccupancyError::InvalidInput;
    return r;
  }
  const int preferred = preferred_carveout(sm, in.carveout_percent);
  if (preferred < 0) {
    r.error = OccupancyError::InvalidCarveout;
    return r;
  }
  r.preferred_carveout_bytes = preferred;

  // Each limit is computed on its own, as cuda_occupancy.h does; a resource that cannot hold
  // one block gives 0 and the first such error is kept.
  OccupancyError err = OccupancyError::None;

  // Warps.
  const long long warps = occ_detail::ceil_div(in.threads_per_block, sm.warp_size);
  r.warps_per_block = static_cast<int>(warps);
  if (in.threads_per_block > sm.max_threads_per_block) {
    r.limit_warps = 0;
    err = OccupancyError::TooManyThreads;
  } else {
    r.limit_warps = static_cast<int>(sm.max_warps_per_sm / warps);
  }

  // Block slots.
  r.limit_blocks = sm.max_blocks_per_sm;

  // Registers.
  const long long regs_per_warp = round_up(
      static_cast<long long>(in.registers_per_thread) * sm.warp_size, sm.register_alloc_unit);
  const long long regs_per_block = regs_per_warp * warps;
  const long long regs_checked = regs_per_warp * round_up(warps, sm.warp_alloc_granularity);
  r.registers_per_warp = static_cast<int>(regs_per_warp);
  r.registers_per_block =
      regs_per_block > kOccUnlimited ? kOccUnlimited : static_cast<int>(regs_per_block);
  if (in.registers_per_thread > sm.max_registers_per_thread) {
    r.limit_registers = 0;
    if (err == OccupancyError::None) err = OccupancyError::TooManyRegistersPerThread;
  } else if (regs_per_block > sm.max_registers_per_block ||
             regs_checked > sm.max_registers_per_block) {
    r.limit_registers = 0;
    if (err == OccupancyError::None) err = OccupancyError::TooManyRegistersPerBlock;
  } else if (regs_per_warp == 0) {
    r.limit_registers = kOccUnlimited;
  } else {
    const long long warps_per_sub = (sm.registers_per_sm / sm.sub_partitions) / regs_per_warp;
    r.limit_registers = static_cast<int>(warps_per_sub * sm.sub_partitions / warps);
    // GP100 runs only what its 4-sub-partition GP10x siblings run.
    if (sm.cc == 60 && r.limit_registers > 0) {
      const long long per_sub = (sm.registers_per_sm / 4) / regs_per_warp;
      if (regs_per_warp * round_up(warps, 4) > sm.max_registers_per_block || per_sub * 4 / warps == 0) {
        r.limit_registers = 0;
        if (err == OccupancyError::None) err = OccupancyError::TooManyRegistersPerBlock;
      }
    }
  }

  // Shared memory.
  const long long total = static_cast<long long>(in.static_shared_bytes) + in.dynamic_shared_bytes +
                          sm.reserved_shared_per_block;
  const long long alloc = round_up(total, sm.shared_alloc_unit);
  const long long per_block_limit =
      static_cast<long long>(in.opt_in ? sm.shared_per_block_optin : sm.shared_per_block) +
      sm.reserved_shared_per_block;
  r.shared_bytes_per_block = alloc > kOccUnlimited ? kOccUnlimited : static_cast<int>(alloc);
  r.carveout_bytes = preferred;
  if (in.static_shared_bytes > sm.shared_per_block) {
    r.limit_shared = 0;
    if (err == OccupancyError::None) err = OccupancyError::StaticSharedTooLarge;
  } else if (alloc > per_block_limit) {
    r.limit_shared = 0;
    if (err == OccupancyError::None) err = OccupancyError::TooMuchSharedMemory;
  } else {
    // The preference holds unless one block does not fit in it; then the smallest carveout
    // that holds one block (never -1: alloc <= optin + reserve <= the largest carveout).
    if (alloc > preferred) r.carveout_bytes = carveout_round_up(sm, alloc);
    r.limit_shared = alloc > 0 ? static_cast<int>(r.carveout_bytes / alloc) : kOccUnlimited;
  }

  // Overall.
  r.error = err;
  const int blocks = occ_detail::min_int(occ_detail::min_int(r.limit_warps, r.limit_registers),
                                         occ_detail::min_int(r.limit_shared, r.limit_blocks));
  r.blocks_per_sm = blocks;
  const Limiter order[] = {Limiter::Warps, Limiter::Registers, Limiter::SharedMemory,
                           Limiter::Blocks};
  const int limits[] = {r.limit_warps, r.limit_registers, r.limit_shared, r.limit_blocks};
  for (int i = 0; i < 4; ++i) {
    if (limits[i] != blocks) continue;
    r.limiter_mask |= limiter_bit(order[i]);
    if (r.limiter == Limiter::None) r.limiter = order[i];
  }
  r.warps_per_sm = blocks * r.warps_per_block;
  r.occupancy = static_cast<double>(r.warps_per_sm) / sm.max_warps_per_sm;
  return r;
}

// The same, by compute capability x 10 (UnknownArch for any other number).
BANKCHECK_HD constexpr Occupancy compute_occupancy(int cc, const OccupancyInput& in) {
  return compute_occupancy(sm_limits(cc), in);
}

}  // namespace bankcheck::model
