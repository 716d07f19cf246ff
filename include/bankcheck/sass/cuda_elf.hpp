// What a host ELF file (executable, shared library or object) carries for CUDA: its fat
// binaries and how it reaches the CUDA runtime, so that `bankcheck run` can read the program's
// PTX and SASS before running it and say at once when the program cannot use bankcheck's
// runtime (it was linked with the static one, nvcc's default, not `-cudart shared`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bankcheck/sass/result.hpp"

namespace bankcheck::sass {

enum class CudaRuntimeLink {
  None,      // no fat binary and no libcudart: not a CUDA program (or one that dlopens it)
  Shared,    // DT_NEEDED libcudart.so.*: `-cudart shared`
  Static,    // the runtime is inside the file (nvcc's default, `-cudart static`)
  Unlinked,  // an object file (ET_REL): the link decides
};

struct CudaElf {
  std::uint16_t elf_type = 0;  // e_type: 1 object, 2 executable, 3 shared object (and PIE)
  // The `.nv_fatbin` section: one container per translation unit (whole-program builds),
  // plus the device-link step's container. Empty when there is none.
  std::vector<std::uint8_t> fatbin;
  // The `__nv_relfatbin` section: the containers of objects built with -rdc=true, which the
  // device link turned into the one linked cubin in `.nv_fatbin`. An -rdc program's PTX is
  // only here; at run time the registered wrapper (version 2) lists these containers in its
  // `filename_or_fatbins` (a null-terminated array of pointers).
  std::vector<std::uint8_t> relocatable_fatbin;
  std::string cudart_needed;    // "libcudart.so.13" when a DT_NEEDED entry names it
  bool defines_cudart = false;  // __cudaRegisterFatBinary or cudaLaunchKernel defined here
  CudaRuntimeLink runtime = CudaRuntimeLink::None;
};

// Reads the ELF (read_elf's checks), its fat binary sections, its dynamic section's
// DT_NEEDED names and its symbol tables. `runtime`:
//   Shared   a DT_NEEDED entry starts with "libcudart.so";
//   Static   otherwise, when the runtime's entry points are defined in the file, or when an
//            executable or shared object has a fat binary but no libcudart (a stripped one);
//   Unlinked for an object; None otherwise.
// Errors: those of read_elf, a dynamic section whose string table or names lie outside it.
Result<CudaElf> read_cuda_elf(std::span<const std::uint8_t> file);

}  // namespace bankcheck::sass
