// What a kernel may launch with on the device: the rules cuLaunchKernel checks before it runs
// anything, and what the occupancy functions compute, in one place (the occupancy model,
// model/occupancy.hpp, with the function's resources from the executor).
#pragma once

#include <string>

#include "bankcheck/model/occupancy.hpp"
#include "driver.hpp"

namespace bankcheck::runtime {

// The function's resources as the executor read them; none known: no registers, no static
// shared memory, 1024 threads.
FunctionAttributes attributes_of(const Function& f);

// The most dynamic shared memory a launch of `f` may ask for: what the program set with
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, else the 48 KB a block gets without opting
// in, less the function's static shared memory.
int max_dynamic_shared(const Driver& d, const Function& f);

// The most threads a block of `f` may have: what the executor read (__launch_bounds__), and
// no more than its registers allow in one block (the occupancy model's per-block register
// check), as CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK reports it.
int max_threads_per_block(const Driver& d, const Function& f);

// The occupancy model's view of `threads`-thread blocks of `f` with `dynamic_shared` bytes.
model::Occupancy occupancy(const Driver& d, const Function& f, int threads,
                           std::size_t dynamic_shared);

struct LaunchShape {
  Dim3 grid, block, cluster;
  std::size_t dynamic_shared = 0;
  bool cooperative = false;
};

// The error the real driver gives this launch before running it; CUDA_SUCCESS when it may
// run. Checked in this order: block shape and size, grid shape (kInvalidConfiguration);
// threads beyond what the function's registers or __launch_bounds__ allow, registers per block
// (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); dynamic shared memory beyond the function's limit
// (CUDA_ERROR_INVALID_VALUE); a cooperative grid larger than can be resident at once
// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE); a cluster that does not tile the grid or is too
// large (CUDA_ERROR_INVALID_CLUSTER_SIZE).
CUresult check_launch(const Driver& d, const Function& f, const LaunchShape& shape);

// "scale<float>(float*, float, int)" for "_Z5scaleIfEvPT_S0_i"; the name itself when it is
// not a mangled C++ name.
std::string readable_name(const std::string& mangled);

}  // namespace bankcheck::runtime
