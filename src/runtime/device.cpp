// The boards bankcheck's runtime can show a program, one per architecture, and the profile
// that joins a board with its architecture's per-SM limits from the occupancy model.
#include "bankcheck/runtime/device.hpp"

#include <array>

namespace bankcheck::runtime {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

// Each row is one deviceQuery run (CUDA samples, Samples/1_Utilities/deviceQuery) of a board
// of that architecture, as published with its driver; global memory varies a little with the
// driver's reservation. The H100 row agrees with the project's own H100 (bench/transpose/
// results/run2.txt: 132 SMs, 233472 B shared per SM, 52428800 B L2; results/earlier/
// set1_env.txt: 1980 MHz SM and 2619 MHz memory clocks from nvidia-smi). Copy engines
// (asyncEngineCount): 3 as printed for the A100 and the H100; 2 elsewhere, a placeholder no
// program's behaviour here depends on.
constexpr std::array<BoardNumbers, 7> kBoards = {{
    {"sm_70", "Tesla V100-SXM2-16GB", 80, 16945512448ull, 6 * kMiB, 1530000, 877000, 4096, 2, true,
     false, "deviceQuery, CUDA 9.0 driver"},
    {"sm_75", "Tesla T4", 40, 15843721216ull, 4 * kMiB, 1590000, 5001000, 256, 2, true, false,
     "deviceQuery, CUDA 11.2 driver"},
    {"sm_80", "NVIDIA A100-SXM4-80GB", 108, 84987740160ull, 40 * kMiB, 1410000, 1593000, 5120, 3,
     true, false, "deviceQuery, CUDA 12.2 driver"},
    {"sm_86", "NVIDIA GeForce RTX 3090", 82, 25447170048ull, 6 * kMiB, 1725000, 9751000, 384, 2,
     false, false, "deviceQuery, CUDA 11.8 driver"},
    {"sm_89", "NVIDIA GeForce RTX 4090", 128, 25250627584ull, 72 * kMiB, 2520000, 10501000, 384, 2,
     false, false, "deviceQuery, CUDA 13.0 driver"},
    {"sm_90", "NVIDIA H100 80GB HBM3", 132, 85017755648ull, 50 * kMiB, 1980000, 2619000, 5120, 3,
     true, false, "deviceQuery, CUDA 13.0 driver; the project's H100"},
    {"sm_120", "NVIDIA GeForce RTX 5090", 170, 33660534784ull, 96 * kMiB, 2407000, 14001000, 512, 2,
     false, false, "deviceQuery, CUDA 13.0 driver"},
}};

}  // namespace

std::span<const BoardNumbers> boards() { return kBoards; }

std::optional<DeviceProfile> find_device_profile(std::string_view arch) {
  const model::SmLimits sm = model::find_sm_limits(arch);
  if (!sm.known()) return std::nullopt;
  for (const BoardNumbers& b : kBoards)
    if (sm.name == std::string_view(b.arch)) return DeviceProfile{b, sm};
  return std::nullopt;
}

}  // namespace bankcheck::runtime
