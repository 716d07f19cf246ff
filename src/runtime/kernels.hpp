// What a kernel may launch with on the device: the rules cudaLaunchKernel checks before it
// runs anything, and what the occupancy functions compute, in one place (the occupancy
// model, model/occupancy.hpp, with the kernel's resources from the executor).
#pragma once

#include <string>

#include "bankcheck/model/occupancy.hpp"
#include "runtime.hpp"

namespace bankcheck::runtime {

// The most dynamic shared memory a launch of `k` may ask for: what the program set with
// cudaFuncAttributeMaxDynamicSharedMemorySize, else the 48 KB a block gets without opting in,
// less the kernel's static shared memory.
int max_dynamic_shared(const Runtime& rt, const Kernel& k, const FunctionAttributes& a);

// The most threads a block of `k` may have: what the executor read (__launch_bounds__), and
// no more than its registers allow in one block (the occupancy model's per-block register
// check), as cudaFuncGetAttributes reports it.
int max_threads_per_block(const Runtime& rt, const FunctionAttributes& a);

// The occupancy model's view of `threads`-thread blocks of `k` with `dynamic_shared` bytes.
model::Occupancy occupancy(const Runtime& rt, const Kernel& k, const FunctionAttributes& a,
                           int threads, std::size_t dynamic_shared);

struct LaunchShape {
  Dim3 grid, block, cluster;
  std::size_t dynamic_shared = 0;
  bool cooperative = false;
};

// The error the real runtime gives this launch before running it; cudaSuccess when it may
// run. Checked in this order: block shape and size, grid shape (cudaErrorInvalidConfiguration);
// threads beyond what the kernel's registers or __launch_bounds__ allow, registers per block
// (cudaErrorLaunchOutOfResources); dynamic shared memory beyond the kernel's limit
// (cudaErrorInvalidValue); a cooperative grid larger than can be resident at once
// (cudaErrorCooperativeLaunchTooLarge); a cluster that does not tile the grid or is too large
// (cudaErrorInvalidClusterSize).
cudaError_t check_launch(const Runtime& rt, const Kernel& k, const FunctionAttributes& a,
                         const LaunchShape& shape);

// "scale<float>(float*, float, int)" for "_Z5scaleIfEvPT_S0_i"; the name itself when it is
// not a mangled C++ name.
std::string readable_name(const std::string& mangled);

}  // namespace bankcheck::runtime
