// Which entries of a fat binary a device of one architecture would use: the cubin it runs
// and the PTX bankcheck emulates, or a sentence saying what the build left out and which
// -gencode adds it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bankcheck/sass/fatbin.hpp"

namespace bankcheck::sass {

struct FatbinSelection {
  // Both point into the entries given to select_for_arch; null when there is none.
  const FatbinEntry* cubin = nullptr;  // the SASS the device runs
  const FatbinEntry* ptx = nullptr;    // the PTX to emulate
  // One sentence per thing missing, each with the nvcc flag that adds it; empty when both
  // were found.
  std::vector<std::string> missing;
  // Both found, for the same architecture (compute_90 and sm_90). Only then is the PTX
  // certainly the text the cubin was built from, so that the cubin's SASS-to-PTX lines
  // (.nv_debug_line_sass) number its lines: `-gencode arch=compute_80,code=[sm_90,compute_80]`
  // builds sm_90 SASS from compute_80 PTX, and nothing in the cubin says which PTX it was
  // (its e_flags name only the SM).
  bool same_arch = false;
};

// For a device of architecture `sm` (90 for an H100):
// - cubin: a cubin for exactly that SM (sm_90 or sm_90a), or a family cubin of an earlier
//   member of its family (sm_100f for an sm_103 device). With several, the arch-specific one,
//   then the plain one, then the newest family one: which of several the CUDA driver loads is
//   not measured here, so the choice is the most specific code.
// - ptx: the newest PTX the device can compile: compute_X with X <= sm, compute_Xa with X == sm,
//   compute_Xf of sm's family with X <= sm; among equals, the one of the cubin's own
//   architecture, then the most specific.
// Example: entries {sm_90, compute_90} and sm 90 -> both, nothing missing; entries {sm_90} ->
// cubin, no PTX, missing = {"the fat binary has SASS for sm_90 but no PTX: add -gencode
// arch=compute_90,code=compute_90"}.
// `entries` are those of one translation unit: one container (FatbinEntry::container), as the
// runtime registers it. A linked `.nv_fatbin` holds one container per translation unit and,
// first, the device link's, whose cubin has no kernels in a whole-program build (it is not
// registered then; with -rdc it is the program's one linked cubin, and each object's PTX is
// in its own container of `__nv_relfatbin`): docs/fatbin.md.
FatbinSelection select_for_arch(std::span<const FatbinEntry> entries, std::uint32_t sm);

}  // namespace bankcheck::sass
