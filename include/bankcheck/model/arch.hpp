// Architectures: how many banks, how wide, which serving rule a GPU generation follows, and
// which SASS decoder reads the cubins ptxas builds for it.
//
// Rules and where they come from:
//   Tesla   (cc 1.x)  16 banks x 4 B; a warp request is split into half-warps; each pass
//                     serves one broadcast word plus one lane per other bank; accesses wider
//                     than 4 B are split into 4-byte accesses.  (CUDA C Programming Guide 2.x)
//   Fermi   (cc 2.x)  32 banks x 4 B; whole-warp multicast; 64-bit: half-warps; 128-bit:
//                     "one more than the most threads of a quarter-warp hitting different
//                     addresses of one bank".                         (Guide 3.x/4.x, cc 2.x)
//   Kepler  (cc 3.x)  32 banks delivering 8 B per clock; 4-byte mode (default): words i and
//                     i+32 of one 64-word segment share a bank row; 8-byte mode: successive
//                     8-byte words map to successive banks.                (Guide, cc 3.x)
//   Maxwell (cc 5.0+) 32 banks x 4 B; 1/2/4-byte accesses in one whole-warp phase, 8-byte in
//                     half-warps, 16-byte in quarter-warps; same word broadcast. Shared atomics
//                     serve one lane per bank per wavefront (no broadcast); CAS costs two.
//                     From sm_70 on, 64/128-bit loads pair their phases when every active lane
//                     pair (n, n^1), or every pair (n, n^2), shares an address.
//                     All measured on an H100: bench/hardware/measured/patterns*/ (docs/model.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "bankcheck/model/config.hpp"
#include "bankcheck/model/sass_family.hpp"

namespace bankcheck::model {

enum class BankRule : std::uint8_t { Tesla, Fermi, Kepler, Maxwell };

struct Arch {
  const char* name;  // "sm_90"
  int cc;            // compute capability x 10: 90
  BankRule rule;
  int banks;               // 16 (Tesla) or 32
  int bank_bytes;          // bytes a bank delivers per pass: 4, or 8 (Kepler)
  bool kepler_8byte_mode;  // Kepler only: cudaSharedMemBankSizeEightByte
  bool load_pair_merge;    // 64/128-bit loads pair phases (sm_70 and later)
  bool atomics_modelled;   // shared atomics have a rule here (sm_50 and later)
  // The encoding of the SASS ptxas builds for it, where bankcheck has its decoder (only
  // Hopper's so far; elsewhere shared requests are counted at PTX level).
  SassFamily sass;
};

namespace detail {
BANKCHECK_HD constexpr Arch tesla(const char* n, int cc) {
  return {n, cc, BankRule::Tesla, 16, 4, false, false, false, SassFamily::None};
}
BANKCHECK_HD constexpr Arch fermi(const char* n, int cc) {
  return {n, cc, BankRule::Fermi, 32, 4, false, false, false, SassFamily::None};
}
BANKCHECK_HD constexpr Arch kepler(const char* n, int cc, bool eight) {
  return {n, cc, BankRule::Kepler, 32, 8, eight, false, false, SassFamily::None};
}
BANKCHECK_HD constexpr Arch maxwell(const char* n, int cc, SassFamily sass = SassFamily::None) {
  return {n, cc, BankRule::Maxwell, 32, 4, false, cc >= 70, true, sass};
}
}  // namespace detail

// Every architecture bankcheck knows, by the name nvcc uses. Kepler's 8-byte bank mode is
// selected with the suffix "-8byte" (sm_35-8byte); without it the default 4-byte mode.
inline constexpr Arch kArchs[] = {
    detail::tesla("sm_10", 10),
    detail::tesla("sm_11", 11),
    detail::tesla("sm_12", 12),
    detail::tesla("sm_13", 13),
    detail::fermi("sm_20", 20),
    detail::fermi("sm_21", 21),
    detail::kepler("sm_30", 30, false),
    detail::kepler("sm_32", 32, false),
    detail::kepler("sm_35", 35, false),
    detail::kepler("sm_37", 37, false),
    detail::kepler("sm_30-8byte", 30, true),
    detail::kepler("sm_32-8byte", 32, true),
    detail::kepler("sm_35-8byte", 35, true),
    detail::kepler("sm_37-8byte", 37, true),
    detail::maxwell("sm_50", 50),
    detail::maxwell("sm_52", 52),
    detail::maxwell("sm_53", 53),
    detail::maxwell("sm_60", 60),
    detail::maxwell("sm_61", 61),
    detail::maxwell("sm_62", 62),
    detail::maxwell("sm_70", 70),
    detail::maxwell("sm_72", 72),
    detail::maxwell("sm_75", 75),
    detail::maxwell("sm_80", 80),
    detail::maxwell("sm_86", 86),
    detail::maxwell("sm_87", 87),
    detail::maxwell("sm_89", 89),
    detail::maxwell("sm_90", 90, SassFamily::Hopper),
    detail::maxwell("sm_100", 100),
    detail::maxwell("sm_101", 101),
    detail::maxwell("sm_103", 103),
    detail::maxwell("sm_110", 110),
    detail::maxwell("sm_120", 120),
    detail::maxwell("sm_121", 121),
};

// The architecture the hardware measurements were taken on. The function form works in
// device code, where the host table kArchs cannot be read.
BANKCHECK_HD constexpr Arch default_arch() {
  return detail::maxwell("sm_90", 90, SassFamily::Hopper);
}
inline constexpr const Arch& kDefaultArch = kArchs[27];
static_assert(kDefaultArch.cc == 90, "kDefaultArch must be sm_90");
static_assert(kDefaultArch.sass == default_arch().sass, "default_arch() must be kDefaultArch");

// Looks an architecture up by name; accepts nvcc's feature suffixes ("sm_90a",
// "sm_100f") and "compute_90". Returns nullptr for an unknown name.
constexpr const Arch* find_arch(std::string_view name) {
  if (name.starts_with("compute_"))
    name.remove_prefix(8);
  else if (name.starts_with("sm_"))
    name.remove_prefix(3);
  else
    return nullptr;
  if (!name.empty() && (name.back() == 'a' || name.back() == 'f')) name.remove_suffix(1);
  for (const Arch& a : kArchs) {
    std::string_view n = a.name;
    n.remove_prefix(3);
    if (n == name) return &a;
  }
  return nullptr;
}

}  // namespace bankcheck::model
