// The device bankcheck's CUDA runtime shows a program: one GPU of the architecture named by
// BANKCHECK_ARCH (sm_90, an H100 SXM5, when unset), with the numbers a real board of that
// architecture reports through cudaGetDeviceProperties and cudaDeviceGetAttribute.
//
// Per-SM limits (threads, blocks, registers, shared memory and its carveouts) come from the
// occupancy model (model/occupancy.hpp, which names its sources); the board's own numbers
// (name, SM count, memory, L2, clocks, bus width) from the table in src/runtime/device.cpp,
// each row naming where it comes from. An architecture the occupancy model knows but no row
// describes has no profile: the runtime refuses it rather than invent a board.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "bankcheck/model/occupancy.hpp"

namespace bankcheck::runtime {

// What one real board of an architecture reports (cudaDeviceProp of a deviceQuery run).
struct BoardNumbers {
  const char* arch = "";           // "sm_90"
  const char* name = "";           // cudaDeviceProp::name, "NVIDIA H100 80GB HBM3"
  int sm_count = 0;                // multiProcessorCount
  std::uint64_t global_bytes = 0;  // totalGlobalMem
  int l2_bytes = 0;                // l2CacheSize
  int clock_khz = 0;               // cudaDevAttrClockRate: peak SM clock
  int memory_clock_khz = 0;        // cudaDevAttrMemoryClockRate
  int memory_bus_bits = 0;         // memoryBusWidth
  int copy_engines = 0;            // asyncEngineCount
  bool ecc = false;                // ECCEnabled
  bool integrated = false;         // integrated (shares host memory)
  const char* source = "";         // where the numbers were read
};

// The device: the board plus the architecture's per-SM limits.
struct DeviceProfile {
  BoardNumbers board;
  model::SmLimits sm;  // threads, blocks, registers, shared memory per SM and per block
  int major() const { return sm.cc / 10; }
  int minor() const { return sm.cc % 10; }
  int max_threads_per_sm() const { return sm.max_warps_per_sm * sm.warp_size; }
};

// The architecture used when BANKCHECK_ARCH is unset.
inline constexpr std::string_view kDefaultDeviceArch = "sm_90";

// Every board the runtime can show, in ascending compute capability.
std::span<const BoardNumbers> boards();

// The profile of an architecture by nvcc's name ("sm_90", also "sm_90a" and "compute_90");
// nullopt when no board of that architecture is in the table.
std::optional<DeviceProfile> find_device_profile(std::string_view arch);

}  // namespace bankcheck::runtime
