// The modules a running program (or a library in it) loads, as the emulator needs them: each
// image's fat binary entries read when first used (cuBLAS loads hundreds of modules and uses
// a few), the PTX to emulate loaded like `check` loads a file, its module variables placed in
// host memory of their own (so the address a kernel uses is the address the driver copies
// to), its SASS from the module's own cubin for the architecture. A module with a cubin for
// the architecture and no PTX (a library's SASS-only code) has kernels that exist and cannot
// run here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/runtime/executor.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/sass/fatbin.hpp"

namespace bankcheck::runtime {

// One translation unit's PTX, loaded: a module has one, or one per object file for a
// program linked with -rdc=true.
struct RunUnit {
  const void* data = nullptr;  // its one container (entries read when first used)
  std::size_t bytes = 0;       // 0: from the container's header
  std::vector<sass::FatbinEntry> entries;
  driver::CheckOptions options;            // input named after it; what its analyses take
  std::unique_ptr<driver::Loaded> loaded;  // null until loaded, or when it cannot be
  std::string why_not;                     // why it cannot be loaded
  // The kernels of its cubin for the architecture when it has no PTX: they exist, and have
  // no code the emulator runs (a library's SASS-only kernels), with their registers.
  std::map<std::string, std::uint32_t, std::less<>> sass_only;
  // Its cubin's variables when it has no PTX (__device__ and __constant__ symbols, with their
  // initial bytes), each in host memory of its own: the program's CUDA runtime asks for them
  // when it starts.
  std::vector<ptx::GlobalVar> sass_variables;
  std::vector<std::unique_ptr<std::uint8_t[]>> sass_storage;
  // Its module variables' memory (host memory at the addresses kernels use), and their
  // initial bytes for cudaDeviceReset.
  std::unique_ptr<std::uint8_t, void (*)(void*)> globals{nullptr, std::free};
  std::uint64_t globals_bytes = 0;
  std::vector<std::uint8_t> initial;
  // -rdc=true, before it loads: its PTX parsed, for the other units to link against
  // (ptx::link_functions); empty without PTX, or when it does not parse (load says why).
  std::optional<ptx::Module> parsed;
};

struct RunModule {
  ModuleId id = 0;
  ImageKind kind = ImageKind::Fatbin;
  std::string origin;  // the file that loaded it (a library's name; empty: the program)
  bool library = false;
  std::string read_error;  // the fat binary could not be read
  std::vector<std::unique_ptr<RunUnit>> units;
  bool loaded = false;  // load() ran
};

// A kernel or a variable found in a module: the unit that defines it.
struct Found {
  RunUnit* unit = nullptr;
  const ptx::Kernel* kernel = nullptr;                  // a kernel the emulator can run
  const ptx::UnsupportedKernel* unsupported = nullptr;  // a kernel it refused
  const ptx::GlobalVar* variable = nullptr;
  bool sass_only = false;       // a kernel of its cubin, with no PTX to emulate
  std::uint32_t registers = 0;  // a SASS-only kernel's
};

class RunModules {
 public:
  RunModules(const RunOptions& options, const std::string& arch, std::uint32_t sm,
             emu::GlobalMemory& memory);
  void add(ModuleId id, const ModuleImage& image);
  void remove(ModuleId id);
  // The module, loaded (every unit tried once); null for an id never registered.
  RunModule* get(ModuleId id);
  // The unit that defines `name` (a kernel's mangled name or a variable's), or why none does
  // in `why` (empty: not there at all; set: the module could not be read, so it may).
  Found kernel(ModuleId id, const std::string& name, std::string& why);
  Found variable(ModuleId id, const std::string& name, std::string& why);
  // Every variable back to its initial bytes.
  void reset_variables();
  // Every kernel the module defines, emulated or not.
  std::vector<std::string> kernel_names(ModuleId id);
  std::vector<RunModule*> all();
  // Device printf's text since the last call, in execution order (the kernels' own output,
  // which the GPU's driver prints when the program synchronizes).
  std::string take_device_output();

 private:
  void load(RunModule& m);
  void load(RunUnit& u, const RunModule& m, std::size_t index);
  // -rdc=true: `u`'s parsed PTX with the device functions other units define (src.module),
  // and the variables they define at their addresses (src.external_globals).
  void link(RunUnit& u, const RunModule& m, driver::PtxSource& src);
  void place_cubin_variables(RunUnit& u, std::span<const std::uint8_t> cubin);

  const RunOptions& options_;
  std::string arch_;
  std::uint32_t sm_;
  emu::GlobalMemory& memory_;
  std::map<ModuleId, std::unique_ptr<RunModule>> modules_;
  std::mutex output_mutex_;
  std::string device_output_;
};

}  // namespace bankcheck::runtime
