// A cubin as the analysis needs it: its kernels, each with its register count and its
// decoded instructions, every instruction tagged with the PTX line it came from.
//
// Flow: bankcheck writes the PTX of a compile, runs
//   ptxas -arch=sm_90 -lineinfo file.ptx -o file.cubin
// on that same PTX, and reads the cubin here; `ptx_line` then numbers lines of
// file.ptx, whose `.loc` directives give the source lines and inline frames.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/instruction.hpp"
#include "bankcheck/sass/result.hpp"

namespace bankcheck::sass {

struct Kernel {
  std::string name;             // mangled, as in the PTX `.entry`
  std::uint32_t registers = 0;  // per thread, as `ptxas -v` reports ("Used N registers")
  std::vector<Instruction> instructions;
  std::vector<std::uint32_t> ptx_lines;  // parallel to instructions; 0 = no line
  // Parallel to instructions: the CUDA lines `.debug_line` gives the instruction's address
  // (every row at the last address at or before it; several when rows share an address),
  // as (index into Module::source_files, line). They are where Nsight Compute lists it.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> source_lines;
};

struct Module {
  std::uint32_t sm = 0;        // e.g. 90, from the ELF flags
  bool has_line_info = false;  // the cubin had .nv_debug_line_sass (-lineinfo)
  std::vector<std::string> source_files;  // .debug_line's file names, directory joined
  std::vector<Kernel> kernels;
  const Kernel* find(std::string_view name) const;
};

// Reads every `.text.<kernel>` of a cubin, its instructions with `decode`, the decoder of
// the family of the architecture it was built for (decoder_for); nullptr: the kernels'
// names and registers without their instructions. Errors: anything read_elf rejects, a
// .text size that is not a whole number of 16-byte instructions, a corrupt line table.
Result<Module> read_module(std::span<const std::uint8_t> cubin, Decoder decode);

// Marks each ATOMS that ptxas issues for the whole warp from one elected lane: guarded by
// a predicate that an `ISETP.EQ.U32 P, PT, Rlane, URleader` set, Rlane from
// `S2R SR_LANEID` and URleader from `UFLO.U32` of a `VOTEU.ANY` mask, all in the same
// straight-line stretch before the ATOMS. That is what ptxas 13.0 emits for an atomic on
// a warp-uniform address (atomics corpus: add_uniform_param_val, forms.cu: atoms_uniform);
// the value it adds is the warp's REDUX.SUM or the vote's UPOPC times the operand.
// read_module() calls it on every kernel.
void mark_aggregated(Kernel& kernel);

// The shared-memory instructions of one PTX line, in SASS order.
struct LineAccesses {
  std::uint32_t ptx_line = 0;
  std::vector<const Instruction*> instructions;
};

// A kernel's shared-memory instructions grouped by PTX line (ascending; line 0 last
// holds those without one). Instructions with guard @!PT never execute (ptxas emits
// them as fillers, e.g. before LDGSTS) and are left out.
std::vector<LineAccesses> shared_by_ptx_line(const Kernel& kernel);

// The byte offsets of the kernel's memory instructions (generic, global and shared loads,
// stores and atomics; wgmma's GMMA, the TMA unit's copies, STAS) that the line table ties to
// one PTX line, in SASS order.
std::vector<std::uint32_t> memory_instructions_at(const Kernel& kernel, std::uint32_t ptx_line);

}  // namespace bankcheck::sass
