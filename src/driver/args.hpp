// Argument binding: the kernel's parameters, named from the source, given values from the
// launch settings (scalars) or buffers in emulated global memory (pointers), and the
// module's variables placed in that memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/engine.hpp"

namespace bankcheck::driver {

// Parameter types from a demangled signature: "reduce(float const*, float*, int)" ->
// {"float const*", "float*", "int"}.
std::vector<std::string> signature_params(const std::string& sig);

// The kernel's parameter names from the .cu, else from the local headers it includes (a
// kernel defined in a header); empty when neither declares it with k's parameter count.
// `name`: its base name or, to tell overloads apart, its demangled signature.
std::vector<std::string> param_names(const Loaded& l, const ptx::Kernel& k, const std::string& name,
                                     const CheckOptions& o);

// Every .global variable of the program, at its address, with its initial bytes.
void place_module_variables(const ptx::Program& program, emu::GlobalMemory& mem);

struct BoundArgs {
  std::vector<analysis::ArgReport> reports;  // per parameter, in order
  std::vector<std::uint64_t> buffers;        // per parameter: buffer base, 0 for scalars
};

// Fills `params` (the kernel's parameter bytes, k.param_bytes long) from `s.args`; a
// pointer without a value gets a lazily zeroed 1 GiB buffer. `name` and `signature` are the
// kernel's base name and demangled signature. Throws DriverError naming the argument.
BoundArgs bind_arguments(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                         const std::string& name, const std::string& signature,
                         const CheckOptions& o, emu::GlobalMemory& mem,
                         std::vector<std::uint8_t>& params);

}  // namespace bankcheck::driver
