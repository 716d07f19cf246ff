// What the emulator tells the analysis: one AccessEvent per warp-wide execution of a
// memory instruction, sent to Listeners, and the launch shape (Dim3) the events belong
// to. The analysis depends on this header only, never on the emulator itself.
#pragma once

#include <cstdint>

#include "bankcheck/model/access.hpp"
#include "bankcheck/model/dims.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu {

using Dim3 = model::Dim3;

// What kind of request an event is: an ordinary one (ld/st/atom, wmma.load/store's 32- and
// 64-bit requests), an ldmatrix/stmatrix or a wmma.load of A or B from shared memory
// (LDSM; analysed by model::analyze_matrix: lane 8m+r's addr is row r of
// matrix m), or either side of a cp.async (LDGSTS: the shared side is analysed by
// model::analyze_ldgsts, global_addr holding the lanes' global sources, and carries the
// global side's sectors too, model::ldgsts_sectors; the global-side event only counts
// the request), or either side of a cp.async.bulk or cp.async.bulk.tensor, which the TMA
// unit moves and not the LSU (Bulk: 16 bytes per lane, below). The emulator sends the
// others; the SASS step (analysis/sass_requests) marks 64-bit shared atomics as the cubin
// issues them: one ATOMS.EXCH.64 or ATOMS.CAS.64 (Atomic64, model::atomic64), or an LDS.64 +
// ATOMS.CAST.SPIN.64 loop (CasLoop64, model::atomic64_spin on the event's `values`).
//
// Wgmma: the reads of a wgmma.mma_async's operands in shared memory, as the matrix
// descriptors place them (src/emu/wgmma.cpp): 32 lanes of 16 bytes each, lane 8m + r the
// address of row r of core matrix m (an 8x16-byte block), `operand` 0 for A (each warp its
// 16 rows) or 1 for B (sent once per warpgroup, by its first warp). Their cost is the
// measured one (model::wgmma_request, docs/model.md "Hopper"): each warp's execution is one
// request, and the warpgroup's first warp carries the operand bytes (wgmma_a_bytes,
// wgmma_b_bytes) whose wavefronts the warpgroup's execution costs; the rows only say where
// the tile is (a warp with no rows to send, A from registers, sends one event of no lane).
// Bulk: a tensor copy's or bulk copy's sides (the TMA unit: model::tma_copy, no wavefront and
// no sector); the global side of a copy is a Bulk event in the global space on Instr::site2.
// An instruction whose events continue a warp's execution (`continues`: a copy of 2 KiB is 4
// events, several lanes issue copies of their own) is still one request, as Nsight Compute
// lists one execution per warp.
// Another CTA's shared memory (distributed shared memory) comes as Shared events whose
// addresses carry the CTA's rank above bit 24 (ptx::kClusterRankShift); such a request costs
// nothing (model::cluster_request_counted), one to the CTA's own shared memory is an ordinary
// shared request.
enum class AccessKind : std::uint8_t { Plain, Matrix, Ldgsts, Bulk, Atomic64, CasLoop64, Wgmma };

// What an 8-byte shared atom/red works on, lane by lane: a CAS loop's passes depend on it.
struct AtomicValues {
  ptx::AtomOp op = ptx::AtomOp::Add;
  ptx::Ty type = ptx::Ty::U64;
  std::uint64_t operand[model::kWarpSize] = {};  // each lane's source operand
  std::uint64_t word[model::kWarpSize] = {};     // each lane's word before the instruction
};

// One warp-wide execution of one memory instruction.
struct AccessEvent {
  AccessKind kind = AccessKind::Plain;
  std::uint8_t matrices = 0;  // Matrix: 1, 2 or 4 (width 16: one row per lane)
  bool trans = false;         // Matrix: .trans (charged the same)
  bool bypass = false;        // Ldgsts: .cg
  bool src_size = false;      // Ldgsts: a src-size operand given
  std::uint32_t reads = 0;    // Ldgsts: the lanes that read global memory (src-size not 0)
  int global_site = -1;       // Ldgsts: the site of its global side (its sectors go there)
  std::uint8_t operand = 0;   // Wgmma: 0 A, 1 B
  // Bulk of a tensor copy, and Wgmma: the layout's swizzle mode (model::TmaSwizzle: 0 none,
  // 1 32B, 2 64B, 3 128B); -1 where there is none (cp.async.bulk without a tensor map).
  std::int8_t swizzle = -1;
  std::uint16_t row_bytes = 0;  // Bulk of a tensor copy: the box's row (inner dimension) bytes
  // Wgmma and Bulk: a further event of the same warp's execution of the instruction (the
  // first one counts the request).
  bool continues = false;
  // Wgmma, on the first event of a warpgroup's first warp: the operand bytes the warpgroup
  // reads from shared memory (model::wgmma_operands); 0 on every other event.
  std::uint16_t wgmma_a_bytes = 0;
  std::uint16_t wgmma_b_bytes = 0;
  std::uint64_t global_addr[model::kWarpSize] = {};  // Ldgsts: the global sources
  int site = -1;                          // index into Kernel::sites
  std::uint64_t cta = 0;                  // linear CTA index in the grid
  int warp = 0;                           // warp index in the CTA
  ptx::Space space = ptx::Space::Shared;  // resolved: Shared, Global or Local
  model::Op op = model::Op::Load;
  std::uint8_t width = 4;                     // bytes per lane (vector accesses: the whole vector)
  std::uint32_t mask = 0;                     // lanes that access
  std::uint64_t addr[model::kWarpSize] = {};  // shared: window offset; else emulated address
  // 8-byte shared atom/red: the emulator's record of the values (null otherwise), valid
  // during on_access only.
  const AtomicValues* values = nullptr;
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_access(const AccessEvent& e) = 0;
};

}  // namespace bankcheck::emu
