// The program's environment under `bankcheck run`: bankcheck's own environment less every
// variable of the protocol (an outer bankcheck's included), then the protocol's variables as
// one table says: the job, the backend's library and the run agent preloaded (before the
// user's own preloads, less those in a withheld directory), the library path (likewise), the
// backend's settings.
#pragma once

#include <string>
#include <vector>

namespace bankcheck::launch {

struct EnvironmentPlan {
  std::string job;                     // BANKCHECK_RUN_JOB
  std::vector<std::string> preload;    // LD_PRELOAD, in order, before the user's
  std::vector<std::string> libraries;  // LD_LIBRARY_PATH, in order, before the user's
  std::string arch;                    // BANKCHECK_ARCH (the emulator's device); empty: unset
  std::string gpu_patches;             // BANKCHECK_GPU_PATCHES; empty: unset
  std::string nvtx_injection;          // NVTX_INJECTION64_PATH; empty: the user's own stays
  // Directories of bankcheck's own libraries the program must not get from the user's
  // LD_PRELOAD and LD_LIBRARY_PATH (e.g. those of an outer `bankcheck run`): on the GPU,
  // bankcheck's CUDA driver, which would stand in for the real one.
  std::vector<std::string> withheld;
};

// `inherited`: the environment as environ holds it ("NAME=VALUE").
std::vector<std::string> program_environment(const std::vector<std::string>& inherited,
                                             const EnvironmentPlan& plan);

}  // namespace bankcheck::launch
