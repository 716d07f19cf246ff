// Binaries as input to `check` and `fix`: an executable, shared library or object file
// (their `.nv_fatbin` and `__nv_relfatbin` sections), a fat binary (`nvcc -fatbin`) or a
// cubin, told apart from PTX and CUDA source by their content, not their name. From the fat
// binary, the PTX for the architecture (what the emulator runs) and the cubin built from it
// (the SASS level); the source file the PTX's line table names supplies the source lines and
// the launch comments when it exists.
//
//   app, k.o, k.fatbin ──sass::read_cuda_elf / read_fatbin──▶ containers (one per
//   translation unit) ──select_for_arch──▶ {PTX, cubin} per unit ──the unit --kernel
//   (or a launch comment, or the only kernel) picks──▶ load_ptx ──▶ Loaded
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/driver/engine.hpp"

namespace bankcheck::driver {

enum class InputKind {
  Source,   // CUDA source, compiled with nvcc (anything not recognised below)
  Ptx,      // PTX text: named .ptx, or its first directive is .version
  Cubin,    // an ELF file for the GPU (e_machine 190, EM_CUDA): SASS only
  Fatbin,   // a fat binary container (magic 0xBA55ED50), as `nvcc -fatbin` writes it
  HostElf,  // any other ELF file: executable, shared library, object file
};

// The kind of `path`, from its first bytes (ELF magic and e_machine, fat binary magic, PTX's
// first directive) and, for PTX, its extension. A file that cannot be read is Source or Ptx by
// its name; load() then says it cannot be read.
InputKind input_kind(const std::string& path);

// Whether `check` reads it as a binary (Cubin, Fatbin, HostElf).
bool is_binary(InputKind kind);

// The code of one translation unit of a binary, for one architecture.
struct BinaryUnit {
  std::string ptx;  // the PTX a device of the architecture would compile (what is emulated)
  // The cubin of the architecture built from that PTX (the same architecture: its SASS-to-PTX
  // lines number this PTX's lines); empty when the unit has none.
  std::vector<std::uint8_t> cubin;
  // The source file the PTX was compiled from, as its .file table names it (an absolute
  // path with nvcc): the one matching the fat binary's identifier (nvcc -lineinfo or -G), else
  // its first .cu file, else its first file; empty when the PTX has no line table.
  std::string source;
  std::vector<std::string> kernels;  // the PTX's .entry names (mangled), in order
};

struct BinaryCode {
  std::vector<BinaryUnit> units;  // the units with PTX for the architecture, in file order
  // Kernels (mangled) of cubins that have no PTX for the architecture beside them: what a
  // SASS-only build holds. With `sass_only_fix`, the sentence saying what to add.
  std::vector<std::string> sass_only_kernels;
  std::string sass_only_fix;
};

// Reads the PTX and cubins a binary of `kind` carries for `arch` ("sm_90"). Throws
// DriverError: a file that cannot be read or whose fat binary is malformed ("FILE: ..."), an
// ELF file with no fat binary ("no CUDA code in FILE"), a cubin (SASS only, which bankcheck
// cannot emulate: the -gencode that adds PTX), a fat binary with no PTX for `arch` (the same).
BinaryCode read_binary(const std::string& path, InputKind kind, const std::string& arch);

// load() for a binary: the unit that holds what the options ask for (--kernel, else a launch
// comment of its source, else the only unit with kernels), parsed and decoded, its own cubin
// read for SASS (ptxas builds one from its PTX when it has none of the architecture or one
// without line tables), its source file and launch comments read when the file exists.
// Loaded::binary is `options.input`; Loaded::input the unit's source file (shown relative to
// the working directory when it lies under it), or the binary when the PTX names none.
// Throws DriverError as read_binary does, and when units cannot be told apart (several with
// kernels and nothing to choose: the kernels of each are listed).
Loaded load_binary(const CheckOptions& options, InputKind kind);

}  // namespace bankcheck::driver
