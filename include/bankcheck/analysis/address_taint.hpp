// Which loaded values a memory site's address depends on: a taint over the PTX's registers
// from the loads of input data (global and generic loads), carrying with it where the
// pointer of each such load was read (a kernel parameter's bytes, a module variable). The fix
// advisor reads it to tell a data-dependent layout problem from a fixable one; `check` reads
// it to say when such an address ran on a buffer of zeros.
#pragma once

#include <cstdint>
#include <vector>

#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::analysis {

// Where a pointer was read, as the kernel reads it: a `ld.param` of the parameter bytes at
// `offset` (Space::Param), or a load of the module variable at emulated address `offset`
// (Space::Const or Space::Global, the variable's address plus the byte read).
struct PointerSource {
  ptx::Space space = ptx::Space::Param;
  std::uint64_t offset = 0;
  friend bool operator==(const PointerSource&, const PointerSource&) = default;
};

// One site's (Kernel::sites index) dependence on loaded data.
struct AddressInputs {
  // The site of a load of input data whose value reaches the address, -1 for none.
  int origin = -1;
  // Where the pointers of those loads were read, in the kernel's order of first read; empty
  // when none is known (a pointer the kernel computed from other loaded data).
  std::vector<PointerSource> pointers;
};

// Per site: which input loads reach its address, through registers, predicates and values
// stored to shared or local memory and read back. Flow-insensitive: a register is tainted
// when any of its definitions is. Shared and global sites alike.
// Example: `bins[data[i]]` (bins in shared): the atom.shared site has origin = the site of
// the ld.global of data[i], pointers = {Param, the offset of `data` in the parameters}.
std::vector<AddressInputs> address_inputs(const ptx::Kernel& k);

// The shared sites' origins of address_inputs (-1 for every other site), as the fix advisor
// reads them.
std::vector<int> address_origins(const ptx::Kernel& k);

}  // namespace bankcheck::analysis
