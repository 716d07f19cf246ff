// The occupancy calculator against NVIDIA's own: cuda_occupancy.h from the CUDA toolkit
// (header-only, host code, no GPU needed), fed device properties typed in by hand from real
// devices. Built only where the header is found (tests/CMakeLists.txt).
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <vector>

#include "bankcheck/model/occupancy.hpp"

namespace bankcheck::model {
namespace {

// cudaDeviceProp fields cuda_occupancy.h reads, as cudaGetDeviceProperties reports them on one
// device of each architecture (deviceQuery output; sharedMemPerMultiprocessor and
// sharedMemPerBlockOptin also in the Programming Guide's "Technical Specifications per Compute
// Capability" table as "maximum amount of shared memory per SM / per thread block").
// Typed here independently of sm_limits(), so that a slip in either shows.
cudaOccDeviceProp device(int cc) {
  cudaOccDeviceProp p;
  p.computeMajor = cc / 10;
  p.computeMinor = cc % 10;
  p.maxThreadsPerBlock = 1024;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 49152;
  switch (cc) {
    // Maxwell and Pascal: 48 KB per block, no opt-in above it (sharedMemPerBlockOptin is
    // sharedMemPerBlock); the Tegra parts have 32K registers per block.
    case 50:  // GeForce GTX 750 Ti
    case 52:  // GeForce GTX 980
    case 53:  // Jetson TX1
    case 60:  // Tesla P100
    case 61:  // GeForce GTX 1080
    case 62:  // Jetson TX2
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = cc == 52 || cc == 61 ? 98304 : 65536;
      p.sharedMemPerBlockOptin = 49152;
      p.reservedSharedMemPerBlock = 0;
      if (cc == 53 || cc == 62) p.regsPerBlock = 32768;
      p.numSms = cc == 50 ? 5 : cc == 52 ? 16 : cc == 60 ? 56 : cc == 61 ? 20 : 2;
      break;
    case 72:  // Jetson AGX Xavier
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = 98304;
      p.sharedMemPerBlockOptin = 98304;
      p.reservedSharedMemPerBlock = 0;
      p.numSms = 8;
      break;
    case 70:  // Tesla V100-SXM2
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = 98304;
      p.sharedMemPerBlockOptin = 98304;
      p.reservedSharedMemPerBlock = 0;
      p.numSms = 80;
      break;
    case 75:  // Tesla T4
      p.maxThreadsPerMultiprocessor = 1024;
      p.sharedMemPerMultiprocessor = 65536;
      p.sharedMemPerBlockOptin = 65536;
      p.reservedSharedMemPerBlock = 0;
      p.numSms = 40;
      break;
    case 80:  // A100-SXM4
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = 167936;
      p.sharedMemPerBlockOptin = 166912;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 108;
      break;
    case 86:  // GeForce RTX 3090
      p.maxThreadsPerMultiprocessor = 1536;
      p.sharedMemPerMultiprocessor = 102400;
      p.sharedMemPerBlockOptin = 101376;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 82;
      break;
    case 87:  // Jetson AGX Orin
      p.maxThreadsPerMultiprocessor = 1536;
      p.sharedMemPerMultiprocessor = 167936;
      p.sharedMemPerBlockOptin = 166912;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 16;
      break;
    case 89:  // L40
      p.maxThreadsPerMultiprocessor = 1536;
      p.sharedMemPerMultiprocessor = 102400;
      p.sharedMemPerBlockOptin = 101376;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 142;
      break;
    case 90:  // H100 SXM5 (../shared/HARDWARE.md)
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = 233472;
      p.sharedMemPerBlockOptin = 232448;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 132;
      break;
    // Blackwell: the per-SM figures as the Blackwell Tuning Guide and the Programming Guide
    // state them (not read from a device here); numSms does not enter the per-SM result.
    case 100:  // B200
    case 103:  // B300
      p.maxThreadsPerMultiprocessor = 2048;
      p.sharedMemPerMultiprocessor = 233472;
      p.sharedMemPerBlockOptin = 232448;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = 148;
      break;
    case 120:  // GeForce RTX 5090
    case 121:  // GB10
      p.maxThreadsPerMultiprocessor = 1536;
      p.sharedMemPerMultiprocessor = 102400;
      p.sharedMemPerBlockOptin = 101376;
      p.reservedSharedMemPerBlock = 1024;
      p.numSms = cc == 120 ? 170 : 48;
      break;
    default:
      ADD_FAILURE() << "no device for cc " << cc;
  }
  return p;
}

// A kernel as cudaFuncGetAttributes describes it (the cudaOccFuncAttributes(cudaFuncAttributes)
// constructor: opt-in config, one block barrier), after cudaFuncSetAttribute raised
// cudaFuncAttributeMaxDynamicSharedMemorySize to the most the device allows (opt-in), or left
// it at its default, 48 KB - static (no opt-in).
cudaOccFuncAttributes kernel(const cudaOccDeviceProp& p, const OccupancyInput& in) {
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = 1024;
  a.numRegs = in.registers_per_thread;
  a.sharedSizeBytes = static_cast<size_t>(in.static_shared_bytes);
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.numBlockBarriers = 1;
  a.virtualResourceCount = 0;
  if (in.opt_in) {
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin - a.sharedSizeBytes;
  } else {
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
    a.maxDynamicSharedSizeBytes = p.sharedMemPerBlock - a.sharedSizeBytes;
  }
  return a;
}

struct Theirs {
  cudaOccError status;
  cudaOccResult result;
};

Theirs nvidia(const cudaOccDeviceProp& p, const OccupancyInput& in) {
  const cudaOccFuncAttributes a = kernel(p, in);
  cudaOccDeviceState s;
  s.cacheConfig = CACHE_PREFER_NONE;
  s.carveoutConfig = in.carveout_percent;  // SHAREDMEM_CARVEOUT_DEFAULT is -1, like ours
  Theirs t{};
  t.status = cudaOccMaxActiveBlocksPerMultiprocessor(&t.result, &p, &a, &s, in.threads_per_block,
                                                     static_cast<size_t>(in.dynamic_shared_bytes));
  return t;
}

// cudaOccLimitingFactor bits of our limiter mask.
unsigned their_mask(unsigned ours) {
  unsigned m = 0;
  if (ours & limiter_bit(Limiter::Warps)) m |= OCC_LIMIT_WARPS;
  if (ours & limiter_bit(Limiter::Registers)) m |= OCC_LIMIT_REGISTERS;
  if (ours & limiter_bit(Limiter::SharedMemory)) m |= OCC_LIMIT_SHARED_MEMORY;
  if (ours & limiter_bit(Limiter::Blocks)) m |= OCC_LIMIT_BLOCKS;
  return m;
}

unsigned their_bit(Limiter l) { return their_mask(limiter_bit(l)); }

// From cc 9.0 cuda_occupancy.h also counts block barriers (a kernel uses one): 2 per block slot
// on 9.0 and 10.x, never binding; 1 per slot on 12.x, a tie with the block slots whenever
// those bind, which it names beside them (OCC_LIMIT_BARRIERS). The calculator leaves barriers
// out: they never change the number of blocks.
unsigned barrier_tie(int cc, const Occupancy& o) {
  return cc >= 120 && o.ok() && (o.limiter_mask & limiter_bit(Limiter::Blocks)) != 0
             ? static_cast<unsigned>(OCC_LIMIT_BARRIERS)
             : 0u;
}

OccupancyInput launch(int threads, int regs, int static_shared = 0, int dynamic_shared = 0,
                      int carveout_percent = kCarveoutDefault, bool opt_in = true) {
  OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = regs;
  in.static_shared_bytes = static_shared;
  in.dynamic_shared_bytes = dynamic_shared;
  in.carveout_percent = carveout_percent;
  in.opt_in = opt_in;
  return in;
}

// One comparison; returns false (after recording a failure) on disagreement.
bool agree(int cc, const SmLimits& sm, const cudaOccDeviceProp& p, const OccupancyInput& in) {
  const Occupancy ours = compute_occupancy(sm, in);
  const Theirs theirs = nvidia(p, in);
  const cudaOccResult& t = theirs.result;
  const bool same =
      theirs.status == CUDA_OCC_SUCCESS && ours.error != OccupancyError::InvalidInput &&
      ours.error != OccupancyError::InvalidCarveout && ours.error != OccupancyError::UnknownArch &&
      ours.blocks_per_sm == t.activeBlocksPerMultiprocessor &&
      (ours.blocks_per_sm == 0) == !ours.ok() && ours.limit_warps == t.blockLimitWarps &&
      ours.limit_registers == t.blockLimitRegs && ours.limit_shared == t.blockLimitSharedMem &&
      ours.limit_blocks == t.blockLimitBlocks &&
      // the named limiter is one NVIDIA names, and the tie sets are equal
      (their_bit(ours.limiter) & t.limitingFactors) != 0 &&
      (their_mask(ours.limiter_mask) | barrier_tie(cc, ours)) == t.limitingFactors &&
      static_cast<size_t>(ours.shared_bytes_per_block) == t.allocatedSharedMemPerBlock &&
      ours.registers_per_block == t.allocatedRegistersPerBlock;
  if (!same) {
    ADD_FAILURE() << "sm_" << cc << " threads " << in.threads_per_block << " regs "
                  << in.registers_per_thread << " static " << in.static_shared_bytes << " dynamic "
                  << in.dynamic_shared_bytes << " carveout " << in.carveout_percent << " opt-in "
                  << in.opt_in << "\n  ours:   " << occupancy_error_name(ours.error) << ", "
                  << ours.blocks_per_sm << " blocks (warps " << ours.limit_warps << ", regs "
                  << ours.limit_registers << ", shared " << ours.limit_shared << ", blocks "
                  << ours.limit_blocks << "), mask " << their_mask(ours.limiter_mask) << ", "
                  << ours.shared_bytes_per_block << " B, " << ours.registers_per_block
                  << " regs\n  NVIDIA: status " << theirs.status << ", "
                  << t.activeBlocksPerMultiprocessor << " blocks (warps " << t.blockLimitWarps
                  << ", regs " << t.blockLimitRegs << ", shared " << t.blockLimitSharedMem
                  << ", blocks " << t.blockLimitBlocks << "), mask " << t.limitingFactors << ", "
                  << t.allocatedSharedMemPerBlock << " B, " << t.allocatedRegistersPerBlock
                  << " regs";
  }
  return same;
}

TEST(OccupancyVsCuda, DevicePropertiesMatchTheTable) {
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    const cudaOccDeviceProp p = device(cc);
    SCOPED_TRACE(sm.name);
    EXPECT_EQ(p.maxThreadsPerBlock, sm.max_threads_per_block);
    EXPECT_EQ(p.maxThreadsPerMultiprocessor, sm.max_warps_per_sm * 32);
    EXPECT_EQ(p.regsPerMultiprocessor, sm.registers_per_sm);
    EXPECT_EQ(p.regsPerBlock, sm.max_registers_per_block);
    EXPECT_EQ(p.sharedMemPerBlock, static_cast<size_t>(sm.shared_per_block));
    EXPECT_EQ(p.sharedMemPerMultiprocessor, static_cast<size_t>(sm.shared_per_sm));
    EXPECT_EQ(p.sharedMemPerBlockOptin, static_cast<size_t>(sm.shared_per_block_optin));
    EXPECT_EQ(p.reservedSharedMemPerBlock, static_cast<size_t>(sm.reserved_shared_per_block));
  }
}

// The worked examples of occupancy_test.cpp, against NVIDIA.
TEST(OccupancyVsCuda, HandCases) {
  struct Case {
    int cc;
    OccupancyInput in;
    int blocks;
  };
  const Case cases[] = {
      {90, launch(1024, 32, 16384), 2},
      {90, launch(256, 64), 4},
      {90, launch(96, 40), 16},
      {90, launch(33, 32), 32},
      {89, launch(32, 16), 24},
      {86, launch(32, 16), 16},
      {86, launch(512, 32), 3},
      {75, launch(1024, 64), 1},
      {70, launch(256, 32, 100), 8},
      {90, launch(256, 32, 0, 40960), 5},
      {90, launch(256, 32, 0, 40960, 50), 3},
      {90, launch(256, 32, 8192, 0, 0), 1},
      {90, launch(32, 16, 0, 0, 0), 8},
      {70, launch(32, 16, 0, 0, 0), 32},
      {90, launch(128, 32, 16384), 13},
      {90, launch(128, 32, 16640), 13},
      {90, launch(128, 32, 512, 16384), 13},
      {90, launch(128, 32, 512, 16640), 12},
      {70, launch(128, 32, 16384), 6},
      {70, launch(128, 32, 16640), 5},
      {75, launch(128, 32, 16384), 4},
      {75, launch(128, 32, 16640), 3},
      {90, launch(128, 32, 0, 232448), 1},
      {90, launch(128, 32, 0, 232449), 0},
      {90, launch(1025, 32), 0},
      {90, launch(1024, 65), 0},
      {90, launch(800, 80), 0},
      {90, launch(257, 255), 0},
      // Maxwell and Pascal: the whole 64 or 96 KB whatever the preference, 48 KB per block.
      {50, launch(256, 32, 16384), 4},
      {52, launch(256, 32, 16384, 0, 0), 6},
      {61, launch(128, 32, 0, 49152), 2},
      {61, launch(128, 32, 0, 49153), 0},
      {53, launch(1024, 40), 0},  // 32K registers per block on the Tegra part
      {60, launch(1024, 32), 2},
      {72, launch(256, 32, 100), 8},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(agree(c.cc, sm_limits(c.cc), device(c.cc), c.in));
    EXPECT_EQ(nvidia(device(c.cc), c.in).result.activeBlocksPerMultiprocessor, c.blocks);
  }
}

// Where the two disagree, on purpose (see occupancy.hpp).
TEST(OccupancyVsCuda, KnownDifferences) {
  // 256 registers per thread: cuda_occupancy.h allows 256 on cc >= 7.0
  // (cudaOccRegAllocationMaxPerThread); ptxas stops at 255.
  const Theirs t = nvidia(device(90), launch(128, 256));
  EXPECT_EQ(t.status, CUDA_OCC_SUCCESS);
  EXPECT_EQ(t.result.activeBlocksPerMultiprocessor, 2);  // 8192 regs per warp: 8 warps per SM
  EXPECT_EQ(compute_occupancy(90, launch(128, 256)).error,
            OccupancyError::TooManyRegistersPerThread);
  // Static shared memory over 48 KB: fine for cuda_occupancy.h, a ptxas error.
  const Theirs s = nvidia(device(90), launch(128, 32, 65536));
  EXPECT_EQ(s.result.activeBlocksPerMultiprocessor, 3);
  EXPECT_EQ(compute_occupancy(90, launch(128, 32, 65536)).error,
            OccupancyError::StaticSharedTooLarge);
}

TEST(OccupancyVsCuda, InvalidInputsAreErrorsOnBothSides) {
  const cudaOccDeviceProp p = device(90);
  for (const OccupancyInput& in : {launch(0, 32), launch(-1, 32), launch(128, -1),
                                   launch(128, 32, 0, 0, 101), launch(128, 32, 0, 0, -2)}) {
    EXPECT_EQ(nvidia(p, in).status, CUDA_OCC_ERROR_INVALID_INPUT);
    const OccupancyError e = compute_occupancy(90, in).error;
    EXPECT_TRUE(e == OccupancyError::InvalidInput || e == OccupancyError::InvalidCarveout);
  }
  // An architecture neither knows.
  cudaOccDeviceProp kepler = device(90);
  kepler.computeMajor = 4;
  cudaOccResult r;
  cudaOccFuncAttributes a = kernel(kepler, launch(128, 32));
  cudaOccDeviceState s;
  EXPECT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &kepler, &a, &s, 128, 0),
            CUDA_OCC_ERROR_UNKNOWN_DEVICE);
  EXPECT_EQ(compute_occupancy(40, launch(128, 32)).error, OccupancyError::UnknownArch);
}

// The sweep: every architecture x block sizes x register counts x shared sizes x carveout
// preferences (default and three rotating explicit ones per case) x opt-in, requiring identical
// blocks per SM, per-resource limits, limiting factors and allocations.
TEST(OccupancyVsCuda, Sweep) {
  std::vector<int> threads;
  for (int t = 32; t <= 1024; t += 32) threads.push_back(t);
  for (int t : {1, 31, 33, 65, 100, 257, 500, 777, 1000, 1023, 1025, 1056, 2048})
    threads.push_back(t);

  std::vector<int> regs = {0, 1};
  for (int r = 16; r <= 255; r += 8) regs.push_back(r);
  for (int r : {17, 33, 63, 65, 127, 129, 255}) regs.push_back(r);

  const int carveouts[] = {kCarveoutDefault, 0, 1, 10, 25, 33, 50, 66, 75, 100};

  long long cases = 0, mismatches = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    const cudaOccDeviceProp p = device(cc);
    const int unit = sm.shared_alloc_unit;

    // Shared bytes per block (static + dynamic): a coarse walk from 0 past the opt-in maximum,
    // granule edges (one byte short of, at and just over a granule), and the exact limits.
    std::vector<int> shared;
    for (int s = 0; s <= sm.shared_per_block_optin + 2 * unit; s += sm.shared_per_block_optin / 23)
      shared.push_back(s);
    for (int base : {0, 1024, 4096, 16384, 16640, 40960, 49152, 65536, 100000, 163840, 200000}) {
      for (int d : {-1, 0, 1, unit - 1, unit, unit + 1})
        shared.push_back(base + d > 0 ? base + d : 0);
    }
    for (int s : {sm.shared_per_block - 1, sm.shared_per_block, sm.shared_per_block + 1,
                  sm.shared_per_block_optin - 1, sm.shared_per_block_optin,
                  sm.shared_per_block_optin + 1, sm.shared_per_sm})
      shared.push_back(s);

    for (std::size_t ti = 0; ti < threads.size(); ++ti)
      for (std::size_t ri = 0; ri < regs.size(); ++ri)
        for (std::size_t si = 0; si < shared.size(); ++si) {
          const int total = shared[si];
          // Alternate how the bytes are split: all static (where ptxas allows it), all dynamic,
          // or a third static; static never above 48 KB.
          const int split = static_cast<int>((ti + ri + si) % 3);
          int st = split == 0 ? total : split == 1 ? 0 : total / 3;
          if (st > sm.shared_per_block) st = sm.shared_per_block;
          const int dyn = total - st;
          // The default preference always; three of the nine explicit ones, rotating.
          const std::size_t rot = ti * 7 + ri * 3 + si;
          const int pcts[] = {carveouts[0], carveouts[1 + rot % 9], carveouts[1 + (rot + 3) % 9],
                              carveouts[1 + (rot + 6) % 9]};
          for (int pct : pcts) {
            // Both opt-in settings for one case in four, opt-in for the rest.
            const bool both = (ti + ri + si + static_cast<std::size_t>(pct + 1)) % 4 == 0;
            for (int opt = 1; opt >= (both ? 0 : 1); --opt) {
              ++cases;
              if (!agree(cc, sm, p, launch(threads[ti], regs[ri], st, dyn, pct, opt == 1)) &&
                  ++mismatches >= 20)
                FAIL() << "stopping after 20 mismatches";
            }
          }
        }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("occupancy sweep: %lld cases, %lld mismatches, %.2f s\n", cases, mismatches, seconds);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(cases, 5000000);
}

// Every carveout percentage and shared sizes in steps of about a granule, on every
// architecture, one block shape: the carveout choice in detail.
TEST(OccupancyVsCuda, CarveoutsInDetail) {
  long long cases = 0, mismatches = 0;
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    const cudaOccDeviceProp p = device(cc);
    const int step = sm.shared_alloc_unit;
    for (int pct = kCarveoutDefault; pct <= 100; ++pct)
      for (int s = 0; s <= sm.shared_per_block_optin + 2 * step; s += step + (s % 3)) {
        ++cases;
        if (!agree(cc, sm, p, launch(128, 32, 0, s, pct)) && ++mismatches >= 20)
          FAIL() << "stopping after 20 mismatches";
      }
  }
  std::printf("carveout detail: %lld cases, %lld mismatches\n", cases, mismatches);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace bankcheck::model
