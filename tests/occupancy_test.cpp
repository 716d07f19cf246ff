// The occupancy calculator (include/bankcheck/model/occupancy.hpp): the limits table, cases
// worked by hand, the shared-memory padding seed case, monotonicity sweeps and errors.
// Agreement with NVIDIA's cuda_occupancy.h is in occupancy_cuda_test.cpp.
#include "bankcheck/model/occupancy.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace bankcheck::model {
namespace {

constexpr OccupancyInput launch(int threads, int regs, int static_shared = 0,
                                int dynamic_shared = 0, int carveout_percent = kCarveoutDefault,
                                bool opt_in = true) {
  OccupancyInput in;
  in.threads_per_block = threads;
  in.registers_per_thread = regs;
  in.static_shared_bytes = static_shared;
  in.dynamic_shared_bytes = dynamic_shared;
  in.carveout_percent = carveout_percent;
  in.opt_in = opt_in;
  return in;
}

// Usable in constant expressions (and so at compile time in the tool and under nvcc).
static_assert(compute_occupancy(90, launch(1024, 32, 16384)).blocks_per_sm == 2);
static_assert(compute_occupancy(90, launch(1024, 32, 16384)).limiter == Limiter::Warps);
static_assert(compute_occupancy(sm_limits(80), launch(256, 64)).warps_per_sm == 32);
static_assert(find_sm_limits("sm_90").shared_per_block_optin == 232448);
static_assert(sm_limits(61).known() && !sm_limits(37).known());
static_assert(preferred_carveout(sm_limits(90), 50) == 132 * 1024);
constexpr Occupancy kConstant = compute_occupancy(75, launch(128, 32));
static_assert(kConstant.ok() && kConstant.occupancy == 1.0);

// ---------------------------------------------------------------------------------------------
// The table.

TEST(OccupancyLimits, NumbersPerArchitecture) {
  struct Row {
    int cc;
    const char* name;
    int warps, blocks, l1_kb, shared_per_sm, optin, reserved, granule, carveouts;
    int registers_per_block = 65536, sub_partitions = 4;
  };
  // Programming Guide "Technical Specifications per Compute Capability"; cudaDeviceProp of
  // V100, T4, A100, RTX 3090, Orin, L40, H100; cuda_occupancy.h for granules and carveouts.
  constexpr Row rows[] = {
      // Maxwell and Pascal: dedicated shared memory (one size), 48 KB per block; the Tegra
      // parts (5.3, 6.2) 32K registers per block; GP100 (6.0) 2 sub-partitions.
      {50, "sm_50", 64, 32, 64, 65536, 49152, 0, 256, 1},
      {52, "sm_52", 64, 32, 96, 98304, 49152, 0, 256, 1},
      {53, "sm_53", 64, 32, 64, 65536, 49152, 0, 256, 1, 32768},
      {60, "sm_60", 64, 32, 64, 65536, 49152, 0, 256, 1, 65536, 2},
      {61, "sm_61", 64, 32, 96, 98304, 49152, 0, 256, 1},
      {62, "sm_62", 64, 32, 64, 65536, 49152, 0, 256, 1, 32768},
      {70, "sm_70", 64, 32, 128, 98304, 98304, 0, 256, 6},
      {72, "sm_72", 64, 32, 128, 98304, 98304, 0, 256, 6},
      {75, "sm_75", 32, 16, 96, 65536, 65536, 0, 256, 2},
      {80, "sm_80", 64, 32, 192, 167936, 166912, 1024, 128, 8},
      {86, "sm_86", 48, 16, 128, 102400, 101376, 1024, 128, 6},
      {87, "sm_87", 48, 16, 192, 167936, 166912, 1024, 128, 8},
      {89, "sm_89", 48, 24, 128, 102400, 101376, 1024, 128, 6},
      {90, "sm_90", 64, 32, 256, 233472, 232448, 1024, 128, 10},
      // Blackwell: the tuning guide, the Programming Guide and cuda_occupancy.h (sm_limits()).
      {100, "sm_100", 64, 32, 256, 233472, 232448, 1024, 128, 10},
      {103, "sm_103", 64, 32, 256, 233472, 232448, 1024, 128, 10},
      {120, "sm_120", 48, 24, 128, 102400, 101376, 1024, 128, 6},
      {121, "sm_121", 48, 24, 128, 102400, 101376, 1024, 128, 6},
  };
  ASSERT_EQ(std::size(rows), std::size(kOccupancyArchs));
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const Row& row = rows[i];
    SCOPED_TRACE(row.name);
    EXPECT_EQ(kOccupancyArchs[i], row.cc);
    const SmLimits sm = sm_limits(row.cc);
    ASSERT_TRUE(sm.known());
    EXPECT_EQ(std::string_view(sm.name), row.name);
    EXPECT_EQ(sm.cc, row.cc);
    EXPECT_EQ(sm.warp_size, 32);
    EXPECT_EQ(sm.max_threads_per_block, 1024);
    EXPECT_EQ(sm.max_warps_per_sm, row.warps);
    EXPECT_EQ(sm.max_blocks_per_sm, row.blocks);
    EXPECT_EQ(sm.registers_per_sm, 65536);
    EXPECT_EQ(sm.max_registers_per_block, row.registers_per_block);
    EXPECT_EQ(sm.max_registers_per_thread, 255);
    EXPECT_EQ(sm.register_alloc_unit, 256);
    EXPECT_EQ(sm.warp_alloc_granularity, row.sub_partitions);
    EXPECT_EQ(sm.sub_partitions, row.sub_partitions);
    EXPECT_EQ(sm.l1_shared_bytes, row.l1_kb * 1024);
    EXPECT_EQ(sm.shared_per_sm, row.shared_per_sm);
    EXPECT_EQ(sm.shared_per_block, 49152);
    EXPECT_EQ(sm.shared_per_block_optin, row.optin);
    EXPECT_EQ(sm.reserved_shared_per_block, row.reserved);
    EXPECT_EQ(sm.shared_alloc_unit, row.granule);
    EXPECT_EQ(sm.num_carveouts, row.carveouts);
    // Carveouts ascend, the largest is the per-SM maximum, and one maximal block fits it.
    for (int c = 1; c < sm.num_carveouts; ++c) EXPECT_LT(sm.carveouts[c - 1], sm.carveouts[c]);
    EXPECT_EQ(sm.carveouts[sm.num_carveouts - 1], sm.shared_per_sm);
    EXPECT_LE(sm.shared_per_block_optin + sm.reserved_shared_per_block, sm.shared_per_sm);
    EXPECT_LE(sm.shared_per_sm, sm.l1_shared_bytes);
    // By name, with nvcc's spellings.
    EXPECT_EQ(find_sm_limits(row.name).cc, row.cc);
  }
}

TEST(OccupancyLimits, CarveoutLists) {
  const SmLimits v100 = sm_limits(70), t4 = sm_limits(75), h100 = sm_limits(90);
  const int v100_kb[] = {0, 8, 16, 32, 64, 96};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v100.carveouts[i], v100_kb[i] * 1024);
  EXPECT_EQ(t4.carveouts[0], 32 * 1024);  // Turing: 32 or 64 KB, no 0
  EXPECT_EQ(t4.carveouts[1], 64 * 1024);
  const int h100_kb[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // ../shared/HARDWARE.md
  for (int i = 0; i < 10; ++i) EXPECT_EQ(h100.carveouts[i], h100_kb[i] * 1024);
  EXPECT_EQ(sm_limits(86).carveouts[5], 100 * 1024);
  EXPECT_EQ(sm_limits(87).carveouts[7], 164 * 1024);
}

TEST(OccupancyLimits, LookupByName) {
  EXPECT_EQ(find_sm_limits("sm_90").cc, 90);
  EXPECT_EQ(find_sm_limits("sm_90a").cc, 90);
  EXPECT_EQ(find_sm_limits("compute_86").cc, 86);
  EXPECT_EQ(find_sm_limits("sm_75").cc, 75);
  EXPECT_EQ(find_sm_limits("sm_61").cc, 61);
  EXPECT_EQ(find_sm_limits("compute_50").cc, 50);
  EXPECT_FALSE(find_sm_limits("sm_37").known());  // Kepler: not in the calculator
  EXPECT_EQ(find_sm_limits("sm_100").cc, 100);
  EXPECT_EQ(find_sm_limits("sm_100a").cc, 100);
  EXPECT_EQ(find_sm_limits("sm_100f").cc, 100);
  EXPECT_EQ(find_sm_limits("sm_103").cc, 103);
  EXPECT_EQ(find_sm_limits("compute_120").cc, 120);
  EXPECT_EQ(find_sm_limits("sm_121a").cc, 121);
  EXPECT_FALSE(find_sm_limits("sm_110").known());  // warps per SM not documented
  EXPECT_FALSE(find_sm_limits("sm_101").known());
  EXPECT_FALSE(find_sm_limits("sm_1000").known());
  EXPECT_FALSE(find_sm_limits("sm_090").known());
  EXPECT_FALSE(find_sm_limits("sm_9").known());
  EXPECT_FALSE(find_sm_limits("90").known());
  EXPECT_FALSE(find_sm_limits("gfx90a").known());
  EXPECT_FALSE(find_sm_limits("").known());
  EXPECT_FALSE(sm_limits(0).known());
  EXPECT_FALSE(sm_limits(110).known());
}

TEST(OccupancyLimits, PreferredCarveout) {
  const SmLimits h100 = sm_limits(90);
  // Default: the largest. A percentage p asks for p x 233472 / 100 bytes, rounded up to a
  // supported carveout: 50% = 116736 -> 132 KB, 25% = 58368 -> 64 KB, 1% = 2334 -> 8 KB.
  EXPECT_EQ(preferred_carveout(h100, kCarveoutDefault), 228 * 1024);
  EXPECT_EQ(preferred_carveout(h100, 100), 228 * 1024);
  EXPECT_EQ(preferred_carveout(h100, 50), 132 * 1024);
  EXPECT_EQ(preferred_carveout(h100, 25), 64 * 1024);
  EXPECT_EQ(preferred_carveout(h100, 1), 8 * 1024);
  EXPECT_EQ(preferred_carveout(h100, 0), 0);
  EXPECT_EQ(preferred_carveout(h100, 101), -1);
  EXPECT_EQ(preferred_carveout(h100, -2), -1);
  // Turing: 0% still gives 32 KB, its smallest carveout.
  EXPECT_EQ(preferred_carveout(sm_limits(75), 0), 32 * 1024);
  EXPECT_EQ(preferred_carveout(sm_limits(75), 51), 64 * 1024);
  EXPECT_EQ(carveout_round_up(h100, 228 * 1024 + 1), -1);
}

// ---------------------------------------------------------------------------------------------
// Worked by hand.

TEST(OccupancyHand, H100FullBlocks) {
  // sm_90, 1024 threads, 32 registers, 16 KB static shared:
  //   warps:     32 warps per block; 64 / 32 = 2 blocks
  //   registers: 32 x 32 = 1024 per warp (a multiple of 256); 16384 per sub-partition / 1024
  //              = 16 warps; 4 x 16 = 64 warps; 64 / 32 = 2 blocks
  //   shared:    16384 + 1024 reserve = 17408 (= 136 x 128); 233472 / 17408 = 13.4 -> 13
  //   blocks:    32
  // -> 2 blocks, 64 warps, 100%; warps and registers tie, warps is named.
  const Occupancy r = compute_occupancy(90, launch(1024, 32, 16384));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.blocks_per_sm, 2);
  EXPECT_EQ(r.warps_per_sm, 64);
  EXPECT_EQ(r.max_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_EQ(r.limiter, Limiter::Warps);
  EXPECT_EQ(r.limiter_mask, limiter_bit(Limiter::Warps) | limiter_bit(Limiter::Registers));
  EXPECT_TRUE(r.limited_by(Limiter::Registers));
  EXPECT_FALSE(r.limited_by(Limiter::SharedMemory));
  EXPECT_EQ(r.limit_warps, 2);
  EXPECT_EQ(r.limit_registers, 2);
  EXPECT_EQ(r.limit_shared, 13);
  EXPECT_EQ(r.limit_blocks, 32);
  EXPECT_EQ(r.warps_per_block, 32);
  EXPECT_EQ(r.registers_per_warp, 1024);
  EXPECT_EQ(r.registers_per_block, 32768);
  EXPECT_EQ(r.shared_bytes_per_block, 17408);
  EXPECT_EQ(r.carveout_bytes, 233472);
  EXPECT_EQ(r.preferred_carveout_bytes, 233472);
  EXPECT_STREQ(limiter_name(r.limiter), "warps");
}

TEST(OccupancyHand, RegisterLimited) {
  // sm_90, 256 threads, 64 registers, no shared memory:
  //   registers: 64 x 32 = 2048 per warp; 16384 / 2048 = 8 warps per sub-partition; 32 warps;
  //              32 / 8 warps per block = 4 blocks
  //   warps: 64 / 8 = 8; shared: 1024 B (the reserve alone) -> 228 blocks; blocks: 32
  // -> 4 blocks, 32 warps, 50%, registers.
  const Occupancy r = compute_occupancy(90, launch(256, 64));
  EXPECT_EQ(r.blocks_per_sm, 4);
  EXPECT_EQ(r.warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  EXPECT_EQ(r.limiter, Limiter::Registers);
  EXPECT_EQ(r.limiter_mask, limiter_bit(Limiter::Registers));
  EXPECT_EQ(r.limit_shared, 228);
  EXPECT_EQ(r.shared_bytes_per_block, 1024);
}

TEST(OccupancyHand, RegistersPerSubPartition) {
  // sm_90, 96 threads (3 warps), 40 registers:
  //   40 x 32 = 1280 per warp (5 x 256). Per sub-partition 16384 / 1280 = 12.8 -> 12 warps,
  //   4 x 12 = 48 warps, 48 / 3 = 16 blocks. (The whole register file, 65536 / 1280 = 51 warps,
  //   would give 17: the split into four sub-partitions costs a block.)
  //   warps: 64 / 3 = 21; blocks: 32
  // -> 16 blocks, 48 warps, 75%, registers.
  const Occupancy r = compute_occupancy(90, launch(96, 40));
  EXPECT_EQ(r.registers_per_warp, 1280);
  EXPECT_EQ(r.limit_registers, 16);
  EXPECT_EQ(r.limit_warps, 21);
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.75);
  EXPECT_EQ(r.limiter, Limiter::Registers);
}

TEST(OccupancyHand, RegisterAllocationUnit) {
  // 33 registers: 33 x 32 = 1056 -> 1280 per warp, the same as 40 registers.
  const Occupancy a = compute_occupancy(90, launch(96, 33));
  const Occupancy b = compute_occupancy(90, launch(96, 40));
  EXPECT_EQ(a.registers_per_warp, 1280);
  EXPECT_EQ(a.blocks_per_sm, b.blocks_per_sm);
  // 32 registers: 1024 per warp -> 16 warps per sub-partition -> 64 warps -> 21 blocks of 3
  // warps, then the warp limit, 64 / 3 = 21, too.
  EXPECT_EQ(compute_occupancy(90, launch(96, 32)).blocks_per_sm, 21);
}

TEST(OccupancyHand, PartialWarp) {
  // 33 threads take 2 warps: 64 / 2 = 32 blocks = the block limit; 64 warps, 100%.
  const Occupancy r = compute_occupancy(90, launch(33, 32));
  EXPECT_EQ(r.warps_per_block, 2);
  EXPECT_EQ(r.blocks_per_sm, 32);
  EXPECT_EQ(r.warps_per_sm, 64);
  EXPECT_EQ(r.limiter, Limiter::Warps);
  EXPECT_TRUE(r.limited_by(Limiter::Blocks));
}

TEST(OccupancyHand, BlockSlots) {
  // One-warp blocks, few registers: the block slots limit.
  //   sm_89: 24 slots -> 24 warps of 48 = 50%;  sm_86: 16 -> 16 of 48 = 33%;
  //   sm_90: 32 -> 32 of 64 = 50%;              sm_75: 16 -> 16 of 32 = 50%.
  const Occupancy ada = compute_occupancy(89, launch(32, 16));
  EXPECT_EQ(ada.blocks_per_sm, 24);
  EXPECT_DOUBLE_EQ(ada.occupancy, 0.5);
  EXPECT_EQ(ada.limiter, Limiter::Blocks);
  const Occupancy ga102 = compute_occupancy(86, launch(32, 16));
  EXPECT_EQ(ga102.blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(ga102.occupancy, 1.0 / 3.0);
  EXPECT_EQ(compute_occupancy(90, launch(32, 16)).blocks_per_sm, 32);
  EXPECT_EQ(compute_occupancy(75, launch(32, 16)).blocks_per_sm, 16);
}

TEST(OccupancyHand, SmallerSms) {
  // sm_86, 512 threads, 32 registers: warps 48 / 16 = 3; registers 64 warps / 16 = 4 -> 3
  // blocks, 48 warps, 100%.
  const Occupancy ga102 = compute_occupancy(86, launch(512, 32));
  EXPECT_EQ(ga102.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(ga102.occupancy, 1.0);
  EXPECT_EQ(ga102.limiter, Limiter::Warps);
  // sm_75, 1024 threads, 64 registers: 2048 per warp x 32 warps = 65536, exactly the register
  // file -> 1 block; 32 warps of 32, 100%. No shared memory and no reserve before sm_80:
  // the shared-memory limit does not apply.
  const Occupancy t4 = compute_occupancy(75, launch(1024, 64));
  EXPECT_EQ(t4.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(t4.occupancy, 1.0);
  EXPECT_EQ(t4.limit_shared, kOccUnlimited);
  EXPECT_EQ(t4.shared_bytes_per_block, 0);
  // sm_70: 100 bytes of shared memory are allocated as one 256-byte granule.
  const Occupancy v100 = compute_occupancy(70, launch(256, 32, 100));
  EXPECT_EQ(v100.shared_bytes_per_block, 256);
  EXPECT_EQ(v100.limit_shared, 98304 / 256);
  EXPECT_EQ(v100.blocks_per_sm, 8);
}

TEST(OccupancyHand, NoRegisters) {
  const Occupancy r = compute_occupancy(90, launch(256, 0));
  EXPECT_EQ(r.limit_registers, kOccUnlimited);
  EXPECT_EQ(r.blocks_per_sm, 8);
}

TEST(OccupancyHand, Granules) {
  // sm_90: 1 byte of static shared memory: 1 + 1024 = 1025 -> 1152 (9 x 128).
  EXPECT_EQ(compute_occupancy(90, launch(64, 32, 1)).shared_bytes_per_block, 1152);
  // 128 bytes -> 1152; 129 -> 1280.
  EXPECT_EQ(compute_occupancy(90, launch(64, 32, 128)).shared_bytes_per_block, 1152);
  EXPECT_EQ(compute_occupancy(90, launch(64, 32, 129)).shared_bytes_per_block, 1280);
  // sm_75: 257 bytes -> 512 (2 x 256).
  EXPECT_EQ(compute_occupancy(75, launch(64, 32, 257)).shared_bytes_per_block, 512);
}

TEST(OccupancyHand, ExplicitCarveout) {
  // sm_90, 256 threads, 32 registers, 40 KB dynamic: 40960 + 1024 = 41984 per block.
  //   default: 228 KB = 233472 / 41984 = 5.56 -> 5 blocks (40 warps, 62.5%)
  //   50%:     116736 -> 132 KB = 135168 / 41984 = 3.2 -> 3 blocks (24 warps, 37.5%)
  const Occupancy def = compute_occupancy(90, launch(256, 32, 0, 40960));
  EXPECT_EQ(def.blocks_per_sm, 5);
  EXPECT_DOUBLE_EQ(def.occupancy, 0.625);
  EXPECT_EQ(def.limiter, Limiter::SharedMemory);
  const Occupancy half = compute_occupancy(90, launch(256, 32, 0, 40960, 50));
  EXPECT_EQ(half.carveout_bytes, 135168);
  EXPECT_EQ(half.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(half.occupancy, 0.375);
  EXPECT_EQ(half.limiter, Limiter::SharedMemory);
}

TEST(OccupancyHand, CarveoutTooSmallForOneBlock) {
  // sm_90, 0% (maximum L1), 8 KB static: 9216 B per block does not fit the 0 KB preference, so
  // the launch gets the smallest carveout holding one block, 16 KB -> 1 block.
  const Occupancy r = compute_occupancy(90, launch(256, 32, 8192, 0, 0));
  EXPECT_EQ(r.preferred_carveout_bytes, 0);
  EXPECT_EQ(r.carveout_bytes, 16384);
  EXPECT_EQ(r.blocks_per_sm, 1);
  EXPECT_EQ(r.limiter, Limiter::SharedMemory);
  // Even a kernel without shared memory needs the 1 KB reserve from sm_80 on: at 0% it gets
  // the 8 KB carveout, 8 blocks.
  const Occupancy none = compute_occupancy(90, launch(32, 16, 0, 0, 0));
  EXPECT_EQ(none.carveout_bytes, 8192);
  EXPECT_EQ(none.blocks_per_sm, 8);
  EXPECT_EQ(none.limiter, Limiter::SharedMemory);
  // Before sm_80 there is no reserve: such a kernel is not limited at all.
  const Occupancy v100 = compute_occupancy(70, launch(32, 16, 0, 0, 0));
  EXPECT_EQ(v100.carveout_bytes, 0);
  EXPECT_EQ(v100.limit_shared, kOccUnlimited);
  EXPECT_EQ(v100.blocks_per_sm, 32);
}

TEST(OccupancyHand, OptInLimits) {
  // sm_90: 227 KB per block with opt-in: 232448 + 1024 = 233472 = the 228 KB carveout, 1 block.
  const Occupancy max = compute_occupancy(90, launch(128, 32, 0, 232448));
  EXPECT_TRUE(max.ok());
  EXPECT_EQ(max.blocks_per_sm, 1);
  EXPECT_EQ(max.carveout_bytes, 233472);
  EXPECT_EQ(compute_occupancy(90, launch(128, 32, 0, 232449)).error,
            OccupancyError::TooMuchSharedMemory);
  // Without opt-in, 48 KB.
  EXPECT_TRUE(compute_occupancy(90, launch(128, 32, 16384, 32768, kCarveoutDefault, false)).ok());
  EXPECT_EQ(compute_occupancy(90, launch(128, 32, 16384, 32769, kCarveoutDefault, false)).error,
            OccupancyError::TooMuchSharedMemory);
  // sm_75: 64 KB, no reserve; sm_86: 99 KB.
  EXPECT_TRUE(compute_occupancy(75, launch(128, 32, 0, 65536)).ok());
  EXPECT_FALSE(compute_occupancy(75, launch(128, 32, 0, 65537)).ok());
  EXPECT_TRUE(compute_occupancy(86, launch(128, 32, 0, 101376)).ok());
  EXPECT_FALSE(compute_occupancy(86, launch(128, 32, 0, 101377)).ok());
}

// ---------------------------------------------------------------------------------------------
// The seed case: a 64 x 64 float tile (16384 B) padded to 64 x 65 (16640 B) against bank
// conflicts.

TEST(OccupancySeed, SixteenKilobytesAgainstSixteenAndAQuarter) {
  // sm_90, 128 threads, 32 registers (warps 16, registers 16, slots 32 blocks: shared decides).
  //   16384 + 1024 = 17408 B;  233472 / 17408 = 13.41 -> 13 blocks, 52 warps, 81.25%
  //   16640 + 1024 = 17664 B;  233472 / 17664 = 13.22 -> 13 blocks, 52 warps, 81.25%
  // The padding costs nothing here: the 1 KB reserve already spoils the exact fit.
  const Occupancy plain = compute_occupancy(90, launch(128, 32, 16384));
  const Occupancy padded = compute_occupancy(90, launch(128, 32, 16640));
  EXPECT_EQ(plain.shared_bytes_per_block, 17408);
  EXPECT_EQ(padded.shared_bytes_per_block, 17664);
  EXPECT_EQ(plain.blocks_per_sm, 13);
  EXPECT_EQ(padded.blocks_per_sm, 13);
  EXPECT_DOUBLE_EQ(plain.occupancy, 0.8125);
  EXPECT_DOUBLE_EQ(padded.occupancy, 0.8125);
  EXPECT_EQ(plain.limiter, Limiter::SharedMemory);
  EXPECT_EQ(padded.limiter, Limiter::SharedMemory);
}

TEST(OccupancySeed, PaddingAloneNeverCostsABlockOnH100) {
  // With the tile as the block's only shared memory, no carveout preference, block size or
  // register count on sm_90 loses a block to the padding: for every carveout C and k,
  // 17408 k <= C implies 17664 k <= C as well (C / 17408 and C / 17664 floor alike).
  const SmLimits h100 = sm_limits(90);
  for (int pct = kCarveoutDefault; pct <= 100; ++pct)
    for (int threads = 32; threads <= 1024; threads += 32)
      for (int regs : {16, 32, 64, 128, 255}) {
        const Occupancy a = compute_occupancy(h100, launch(threads, regs, 16384, 0, pct));
        const Occupancy b = compute_occupancy(h100, launch(threads, regs, 16640, 0, pct));
        ASSERT_EQ(a.blocks_per_sm, b.blocks_per_sm) << pct << " " << threads << " " << regs;
      }
  // Before sm_80 (no reserve) it does: 16384 divides the carveouts exactly.
  //   sm_70: 98304 / 16384 = 6, 98304 / 16640 = 5.9 -> 5;  sm_75: 65536 -> 4 and 3.
  EXPECT_EQ(compute_occupancy(70, launch(128, 32, 16384)).blocks_per_sm, 6);
  EXPECT_EQ(compute_occupancy(70, launch(128, 32, 16640)).blocks_per_sm, 5);
  EXPECT_EQ(compute_occupancy(75, launch(128, 32, 16384)).blocks_per_sm, 4);
  EXPECT_EQ(compute_occupancy(75, launch(128, 32, 16640)).blocks_per_sm, 3);
}

// The configuration where the padding costs occupancy on sm_90: the tile plus 512 B of other
// shared memory (a 128-float reduction buffer), 128 threads, 32 registers, default carveout.
//   unpadded: 512 + 16384 + 1024 = 17920 (140 x 128); 233472 / 17920 = 13.03 -> 13 blocks
//   padded:   512 + 16640 + 1024 = 18176 (142 x 128); 233472 / 18176 = 12.85 -> 12 blocks
// 52 -> 48 warps, 81.25% -> 75%. Any extra between 257 and 512 bytes does it; 513 and more
// (up to the next window) do not.
constexpr int kSeedThreads = 128, kSeedRegs = 32, kSeedExtra = 512;
static_assert(
    compute_occupancy(90, launch(kSeedThreads, kSeedRegs, kSeedExtra, 16384)).blocks_per_sm == 13);
static_assert(
    compute_occupancy(90, launch(kSeedThreads, kSeedRegs, kSeedExtra, 16640)).blocks_per_sm == 12);

TEST(OccupancySeed, PaddingCostsABlockOnH100) {
  const Occupancy plain = compute_occupancy(90, launch(kSeedThreads, kSeedRegs, kSeedExtra, 16384));
  const Occupancy padded =
      compute_occupancy(90, launch(kSeedThreads, kSeedRegs, kSeedExtra, 16640));
  EXPECT_EQ(plain.shared_bytes_per_block, 17920);
  EXPECT_EQ(padded.shared_bytes_per_block, 18176);
  EXPECT_EQ(plain.blocks_per_sm, 13);
  EXPECT_EQ(padded.blocks_per_sm, 12);
  EXPECT_EQ(plain.warps_per_sm, 52);
  EXPECT_EQ(padded.warps_per_sm, 48);
  EXPECT_DOUBLE_EQ(plain.occupancy, 0.8125);
  EXPECT_DOUBLE_EQ(padded.occupancy, 0.75);
  EXPECT_EQ(padded.limiter, Limiter::SharedMemory);
  EXPECT_EQ(padded.limiter_mask, limiter_bit(Limiter::SharedMemory));
  // The window of extra bytes where it happens.
  for (int extra = 0; extra <= 1024; ++extra) {
    const bool costs =
        compute_occupancy(90, launch(kSeedThreads, kSeedRegs, extra, 16640)).blocks_per_sm <
        compute_occupancy(90, launch(kSeedThreads, kSeedRegs, extra, 16384)).blocks_per_sm;
    EXPECT_EQ(costs, extra > 256 && extra <= 512) << extra;
  }
}

// ---------------------------------------------------------------------------------------------
// Properties.

constexpr int kRegSteps[] = {0,  1,  8,  16, 24, 32,  33,  40,  48,
                             56, 64, 72, 80, 96, 128, 168, 200, 255};

TEST(OccupancyProperties, MoreRegistersNeverHelp) {
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    for (int threads = 1; threads <= 1024; threads += 7)
      for (int shared : {0, 4096, 40000}) {
        int prev_blocks = kOccUnlimited;
        double prev_occ = 2.0;
        for (int regs = 0; regs <= 255; ++regs) {
          const Occupancy r = compute_occupancy(sm, launch(threads, regs, 0, shared));
          ASSERT_LE(r.blocks_per_sm, prev_blocks) << cc << " " << threads << " " << regs;
          ASSERT_LE(r.occupancy, prev_occ);
          prev_blocks = r.blocks_per_sm;
          prev_occ = r.occupancy;
        }
      }
  }
}

TEST(OccupancyProperties, MoreSharedMemoryNeverHelps) {
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    for (int pct : {kCarveoutDefault, 0, 25, 50, 100})
      for (int threads : {32, 96, 128, 256, 1000})
        for (int regs : {16, 32, 64}) {
          int prev_blocks = kOccUnlimited;
          double prev_occ = 2.0;
          for (int shared = 0; shared <= sm.shared_per_block_optin + 4096; shared += 61) {
            const Occupancy r = compute_occupancy(sm, launch(threads, regs, 0, shared, pct));
            ASSERT_LE(r.blocks_per_sm, prev_blocks) << cc << " " << pct << " " << shared;
            ASSERT_LE(r.occupancy, prev_occ);
            // The allocation covers the request and the reserve, in whole granules.
            if (r.ok()) {
              ASSERT_GE(r.shared_bytes_per_block, shared + sm.reserved_shared_per_block);
              ASSERT_EQ(r.shared_bytes_per_block % sm.shared_alloc_unit, 0);
              ASSERT_GE(r.carveout_bytes, r.shared_bytes_per_block);
            }
            prev_blocks = r.blocks_per_sm;
            prev_occ = r.occupancy;
          }
        }
  }
}

TEST(OccupancyProperties, LargerBlocksNeverGetMoreBlocks) {
  // Resident blocks never rise with the block size. (Resident warps can: sm_90, 32 threads:
  // 32 blocks = 32 warps, 50%; 64 threads: 32 blocks = 64 warps, 100%.)
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    for (int regs : kRegSteps)
      for (int shared : {0, 1000, 20000}) {
        int prev = kOccUnlimited;
        for (int threads = 1; threads <= 1056; ++threads) {
          const Occupancy r = compute_occupancy(sm, launch(threads, regs, shared));
          ASSERT_LE(r.blocks_per_sm, prev) << cc << " " << regs << " " << threads;
          prev = r.blocks_per_sm;
        }
      }
  }
  EXPECT_DOUBLE_EQ(compute_occupancy(90, launch(32, 32)).occupancy, 0.5);
  EXPECT_DOUBLE_EQ(compute_occupancy(90, launch(64, 32)).occupancy, 1.0);
}

TEST(OccupancyProperties, LargerCarveoutNeverHurts) {
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    for (int shared = 0; shared <= sm.shared_per_block_optin; shared += 997) {
      int prev = 0;
      for (int pct = 0; pct <= 100; ++pct) {
        const Occupancy r = compute_occupancy(sm, launch(128, 32, 0, shared, pct));
        ASSERT_GE(r.blocks_per_sm, prev) << cc << " " << shared << " " << pct;
        prev = r.blocks_per_sm;
      }
      // The default is the largest carveout, i.e. 100%.
      EXPECT_EQ(compute_occupancy(sm, launch(128, 32, 0, shared)).blocks_per_sm, prev);
    }
  }
}

TEST(OccupancyProperties, Invariants) {
  for (int cc : kOccupancyArchs) {
    const SmLimits sm = sm_limits(cc);
    for (int threads = 1; threads <= 1024; threads += 13)
      for (int regs : kRegSteps)
        for (int shared = 0; shared <= sm.shared_per_block_optin; shared += 4099) {
          const Occupancy r = compute_occupancy(sm, launch(threads, regs, 0, shared));
          if (!r.ok()) {
            ASSERT_EQ(r.blocks_per_sm, 0);
            continue;
          }
          ASSERT_GE(r.blocks_per_sm, 1);
          ASSERT_LE(r.warps_per_sm, sm.max_warps_per_sm);
          ASSERT_LE(r.blocks_per_sm, sm.max_blocks_per_sm);
          ASSERT_EQ(r.warps_per_sm, r.blocks_per_sm * r.warps_per_block);
          ASSERT_LE(static_cast<long long>(r.blocks_per_sm) * r.registers_per_block,
                    sm.registers_per_sm);
          ASSERT_LE(static_cast<long long>(r.blocks_per_sm) * r.shared_bytes_per_block,
                    r.carveout_bytes);
          ASSERT_NE(r.limiter, Limiter::None);
          ASSERT_TRUE(r.limited_by(r.limiter));
        }
  }
}

// ---------------------------------------------------------------------------------------------
// Errors.

TEST(OccupancyErrors, InvalidInputs) {
  auto error = [](int cc, OccupancyInput in) { return compute_occupancy(cc, in).error; };
  EXPECT_EQ(error(37, launch(128, 32)), OccupancyError::UnknownArch);
  EXPECT_EQ(error(90, launch(0, 32)), OccupancyError::InvalidInput);
  EXPECT_EQ(error(90, launch(-32, 32)), OccupancyError::InvalidInput);
  EXPECT_EQ(error(90, launch(128, -1)), OccupancyError::InvalidInput);
  EXPECT_EQ(error(90, launch(128, 32, -1)), OccupancyError::InvalidInput);
  EXPECT_EQ(error(90, launch(128, 32, 0, -1)), OccupancyError::InvalidInput);
  EXPECT_EQ(error(90, launch(128, 32, 0, 0, 101)), OccupancyError::InvalidCarveout);
  EXPECT_EQ(error(90, launch(128, 32, 0, 0, -2)), OccupancyError::InvalidCarveout);
  EXPECT_EQ(error(90, launch(1024, 32)), OccupancyError::None);
  EXPECT_EQ(error(90, launch(1025, 32)), OccupancyError::TooManyThreads);
  EXPECT_EQ(error(90, launch(128, 255)), OccupancyError::None);
  EXPECT_EQ(error(90, launch(128, 256)), OccupancyError::TooManyRegistersPerThread);
  // 1024 threads x 65 registers: 2080 -> 2304 per warp x 32 = 73728 > 65536.
  EXPECT_EQ(error(90, launch(1024, 65)), OccupancyError::TooManyRegistersPerBlock);
  EXPECT_EQ(error(90, launch(1024, 64)), OccupancyError::None);
  // 255 registers: 8192 per warp; 8 warps fill the register file, 9 do not fit.
  EXPECT_EQ(error(90, launch(256, 255)), OccupancyError::None);
  EXPECT_EQ(error(90, launch(257, 255)), OccupancyError::TooManyRegistersPerBlock);
  // 800 threads x 80 registers: 25 x 2560 = 64000 fits, but the check with the warps rounded
  // up to 4 sub-partitions (28 x 2560 = 71680) fails.
  EXPECT_EQ(error(90, launch(800, 80)), OccupancyError::TooManyRegistersPerBlock);
  EXPECT_EQ(error(90, launch(128, 32, 49152)), OccupancyError::None);
  EXPECT_EQ(error(90, launch(128, 32, 49153)), OccupancyError::StaticSharedTooLarge);
  EXPECT_EQ(error(90, launch(128, 32, 49152, 232448 - 49152)), OccupancyError::None);
  EXPECT_EQ(error(90, launch(128, 32, 49152, 232448 - 49151)), OccupancyError::TooMuchSharedMemory);
  // The first error in the enum's order wins.
  EXPECT_EQ(error(90, launch(2048, 300, 0, 1 << 20)), OccupancyError::TooManyThreads);
  EXPECT_EQ(error(90, launch(64, 300, 0, 1 << 20)), OccupancyError::TooManyRegistersPerThread);
}

TEST(OccupancyErrors, ZeroBlocksAndTheResponsibleResource) {
  const Occupancy threads = compute_occupancy(90, launch(1025, 32));
  EXPECT_EQ(threads.blocks_per_sm, 0);
  EXPECT_EQ(threads.warps_per_sm, 0);
  EXPECT_DOUBLE_EQ(threads.occupancy, 0.0);
  EXPECT_EQ(threads.limiter, Limiter::Warps);
  EXPECT_EQ(threads.limit_warps, 0);
  EXPECT_EQ(threads.limit_registers, 1);  // the other limits are still computed
  const Occupancy regs = compute_occupancy(90, launch(1024, 65));
  EXPECT_EQ(regs.blocks_per_sm, 0);
  EXPECT_EQ(regs.limiter, Limiter::Registers);
  const Occupancy shared = compute_occupancy(90, launch(128, 32, 0, 300000));
  EXPECT_EQ(shared.blocks_per_sm, 0);
  EXPECT_EQ(shared.limiter, Limiter::SharedMemory);
  const Occupancy unknown = compute_occupancy(sm_limits(35), launch(128, 32));
  EXPECT_EQ(unknown.blocks_per_sm, 0);
  EXPECT_EQ(unknown.limiter, Limiter::None);
}

TEST(OccupancyErrors, Names) {
  EXPECT_STREQ(limiter_name(Limiter::None), "none");
  EXPECT_STREQ(limiter_name(Limiter::Warps), "warps");
  EXPECT_STREQ(limiter_name(Limiter::Registers), "registers");
  EXPECT_STREQ(limiter_name(Limiter::SharedMemory), "shared memory");
  EXPECT_STREQ(limiter_name(Limiter::Blocks), "blocks");
  EXPECT_STREQ(occupancy_error_name(OccupancyError::None), "none");
  EXPECT_STREQ(occupancy_error_name(OccupancyError::TooManyThreads), "too many threads per block");
  EXPECT_STREQ(occupancy_error_name(OccupancyError::TooManyRegistersPerThread),
               "too many registers per thread");
  EXPECT_STREQ(occupancy_error_name(OccupancyError::TooMuchSharedMemory),
               "too much shared memory per block");
  for (int e = 0; e <= static_cast<int>(OccupancyError::TooMuchSharedMemory); ++e)
    EXPECT_STRNE(occupancy_error_name(static_cast<OccupancyError>(e)), "?");
}

}  // namespace
}  // namespace bankcheck::model
