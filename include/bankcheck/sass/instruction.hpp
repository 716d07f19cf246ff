// One sm_90 (Hopper) SASS instruction decoded far enough for shared-memory analysis:
// every instruction gets its opcode (so nothing else is ever taken for a shared access),
// and the shared-memory ones (LDS, STS, ATOMS, LDSM, STSM, LDGSTS) get their width,
// operation, guard predicate and address operands. docs/sass.md lists each bit field
// with the listing that verified it; the decoders, one per family, are in decoder.hpp.
//
//   low word (bits 0-63)                      high word (bits 64-127)
//   [0:9)   opcode        [9:12) operand form  [64:72) Rc / UR operand (form-dependent)
//   [12:15) guard P0-P6,PT [15]  guard negated  [73:76) width or atomic type
//   [16:24) Rd            [24:32) Ra (address)  [87:91) atomic operation
//   [32:40) Rb / UR index [40:64) signed offset [91]    address has a UR term
#pragma once

#include <cstdint>
#include <string>

namespace bankcheck::sass {

// The shared-memory instruction families; None for every other instruction.
enum class SharedOp : std::uint8_t { None, LDS, STS, ATOMS, LDSM, STSM, LDGSTS };

// Atomic operations of ATOMS (bits 87-90), plus the CAS forms of the CAS opcode.
enum class AtomOp : std::uint8_t {
  None,
  Add,
  Min,
  Max,
  Inc,
  Dec,
  And,
  Or,
  Xor,
  Exch,
  PopcInc,
  Cas,
  CasT,
  CasTSpin,
  Other
};

constexpr std::uint8_t kRZ = 255;  // register 255 reads as zero
constexpr std::uint8_t kURZ = 63;  // uniform register 63 reads as zero
constexpr std::uint8_t kPT = 7;    // predicate 7 is always true

struct Guard {
  std::uint8_t predicate = kPT;  // 0-6, or kPT
  bool negated = false;
  bool always() const { return predicate == kPT && !negated; }
  bool never() const { return predicate == kPT && negated; }  // ptxas's @!PT fillers
};

struct Instruction {
  std::uint64_t offset = 0;  // byte offset in the kernel's .text section
  std::uint64_t lo = 0, hi = 0;
  std::uint16_t opcode = 0;    // bits 0-8: the operation, whatever its operand form
  const char* mnemonic = "?";  // base mnemonic when the opcode is known, "?" otherwise
  SharedOp shared = SharedOp::None;
  Guard guard;

  // Shared-memory operands (meaningful when shared != None).
  std::uint8_t width_bytes = 0;  // bytes per lane: 1, 2, 4, 8, 16 (LDSM/STSM: 4 per matrix)
  bool sign_extend = false;      // .S8 / .S16
  AtomOp atom = AtomOp::None;
  bool atom_signed = false;            // .S32
  std::uint8_t dst = kRZ;              // loaded / returned register (LDGSTS: none)
  std::uint8_t addr = kRZ;             // shared address register
  std::uint8_t uniform = kURZ;         // UR added to the address; kURZ when none
  std::int32_t imm = 0;                // byte offset added to the address
  std::uint8_t src = kRZ;              // stored / operand register
  std::uint8_t src2 = kRZ;             // CAS: the new value
  std::uint8_t matrices = 0;           // LDSM/STSM: 1, 2 or 4
  bool transpose = false;              // LDSM/STSM .MT88
  std::uint8_t global_addr = kRZ;      // LDGSTS: the global address register pair
  bool bypass = false;                 // LDGSTS .BYPASS (cp.async.cg)
  std::uint8_t global_desc = kURZ;     // LDGSTS: the UR of the global memory descriptor
  bool zfill = false;                  // LDGSTS .ZFILL: zero-fill where `zfill_predicate` says
  std::uint8_t zfill_predicate = kPT;  // cp.async's src-size operand, as a predicate

  // wgmma (HGMMA, QGMMA, IGMMA): N, the B operand's rows (0 when not a wgmma or not known),
  // and whether A comes from registers rather than shared memory.
  std::uint16_t gmma_n = 0;
  bool gmma_a_registers = false;

  // Set by mark_aggregated() (module.hpp), not by decode(): this ATOMS performs the whole
  // warp's update from one elected lane (ptxas's warp-aggregated atomic).
  bool aggregated = false;
};

// The opcode with modifiers as `cuobjdump -sass` prints it ("LDS.U16", "STS.128",
// "ATOMS.CAST.SPIN.64", "LDSM.16.MT88.4"); for non-shared instructions the base mnemonic.
std::string opcode_text(const Instruction& inst);

// "[R2+UR4+0x10]" as cuobjdump prints the address operand of a shared instruction.
std::string address_text(const Instruction& inst);

}  // namespace bankcheck::sass
