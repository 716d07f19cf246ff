// The emulator's own form of a kernel: one micro-op per instruction with its operands
// resolved once, when the Emulator is made, to 32-lane arrays (a register of the warp, a
// broadcast immediate, a CTA constant), and its handler chosen by operation and type, so
// that running an instruction is one jump and one loop over the lanes.
// Instructions without a handler of their own keep the interpreter's general path (Slow).
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "bankcheck/ptx/ir.hpp"
#include "native_abi.hpp"

namespace bankcheck::emu::detail {

// Handlers. Integer ALU kinds name the width of the operation (32: the result masked to
// 32 bits); every ALU handler computes all 32 lanes and writes the executing ones.
enum class K : std::uint8_t {
  Slow,  // the general interpreter (every instruction it knows)
  End,   // past the last instruction: the lanes exit
  Bra,
  Exit,  // ret, exit
  Bar,
  MbarWait,    // mbarrier.test_wait/try_wait: the warp yields until the phase can have changed
  BarCluster,  // barrier.cluster.arrive/wait: the wait yields until the cluster's phase completes
  LdPoll,      // a load another thread may change (kFlagPoll): in a group, a spinning warp yields
  Mov32,
  Mov64,
  Add32,
  Add64,
  Sub32,
  Sub64,
  And32,
  And64,
  Or32,
  Or64,
  Xor32,
  Xor64,
  Shl32,
  Shl64,
  ShrU32,
  ShrU64,
  ShrS32,
  ShrS64,
  MulLo32,
  MulLo64,
  MadLo32,
  MadLo64,
  MulWideS32,
  MulWideU32,
  MadWideS32,
  MadWideU32,
  MulHiS32,
  MulHiU32,
  MinS32,
  MaxS32,
  MinU32,
  MaxU32,
  MinS64,
  MaxS64,
  MinU64,
  MaxU64,
  Sext32,  // cvt.s64.s32 and the like: sign-extend the low 32 bits
  Selp32,
  Selp64,
  SetpS32,  // aux: the comparison (Cmp::Eq .. Cmp::Ge)
  SetpU32,
  SetpS64,
  SetpU64,
  SetpF32,  // aux: any float comparison
  AddF32,   // round to nearest, no .ftz/.sat: canonical NaN results
  SubF32,
  MulF32,
  FmaF32,     // fma.rn.f32 and mad(.rn).f32
  CvtF32S32,  // cvt.rn.f32.s32
  CvtF32U32,
  CvtF64F32,
  // Loads and stores whose space is known (not generic), of one element size; vector
  // forms by the count in `vec`.
  LdShared,
  StShared,
  LdGlobal,
  StGlobal,
  LdParam,  // ld.param without a register base: the same bytes for every lane
  // The reference's own per-lane functions over resolved operands, without its dispatch:
  // the arithmetic family (arith(): div, rem, min/max and neg of floats, ex2, rcp, ...),
  // the same under a directed rounding (its host mode set once for the warp), and cvt
  // (convert()).
  Lanes,
  LanesDirected,
  CvtLanes,
  Shfl,  // shfl.sync (shfl_lanes()); dst[1]: the predicate, or kNoDst; src[3].fixed: 64
         // words of its own (uop_run.hpp: shfl()), the source lanes of its last lane and clamp
  // and, or, xor, not, cnot and mov of predicates (registers, not immediates): aux is the
  // PredOp, with kPredNegA and kPredNegB for a source written !%p; src[i].off and dst[0]
  // are predicate indices.
  PredLogic,
  // f32 operations of the reference's own functions, inlined for the warp without its
  // dispatch (the K::Lanes they had): min, max and neg (float_min_max, canonical_f32),
  // ex2.approx (std::exp2), cvt.f32.f32 with .sat or not (aux 1: .sat), and add, sub, mul,
  // fma under .rz/.rm/.rp (aux: the DirectedOp; the host rounding mode set once for the warp).
  MinF32,
  MaxF32,
  NegF32,
  Ex2F32,
  AbsF32,
  RcpF32,       // rcp.f32 to nearest, .approx and .rn alike: 1 / a
  CopysignF32,  // copysign.f32: b with a's sign, its bits as they are
  DivF32,       // div.f32 to nearest, .full and .approx alike: a / b, NaN canonical
  Not32,        // not.b32, not.b64 (not of predicates: PredLogic)
  Not64,
  DivS32,  // div, rem of 32-bit integers (int_div, int_rem)
  DivU32,
  RemS32,
  RemU32,
  CvtF32F32,
  DirectedF32,
  // A mov of an immediate or a CTA constant whose readers read the constant's lanes instead
  // (compile(): forward_constants): it only counts as an instruction.
  Nop,
  // The first of a run of ALU micro-ops that runs as native code (native.hpp): `target` is
  // its index in Compiled::natives, whose `first` is the micro-op it replaced.
  Native,
};

enum DirectedOp : std::uint8_t { kDirectedAdd, kDirectedSub, kDirectedMul, kDirectedFma };
enum PredOp : std::uint8_t { kPredAnd, kPredOr, kPredXor, kPredNot, kPredMov };
constexpr std::uint8_t kPredNegA = 0x10, kPredNegB = 0x20;

// A source operand: `fixed` 32 lanes shared by every warp (immediates, CTA constants), or
// the register at `off` (register index * 32) in the warp's register file. For a
// predicate operand (selp), `off` is the predicate's index.
struct Src {
  const std::uint64_t* fixed = nullptr;
  std::uint32_t off = 0;
};

inline constexpr std::uint32_t kNoDst = 0xFFFFFFFFu;

struct Uop {
  K kind = K::Slow;
  std::uint8_t aux = 0;     // setp: the comparison; memory: element bytes; PredLogic: PredOp
  std::uint8_t vec = 1;     // memory: elements per lane
  std::uint8_t sign = 0;    // loads: sign-extend the element
  std::uint32_t guard = 0;  // predicate slot (unguarded: the slot that is always all-ones)
  std::uint32_t gxor = 0;   // ~0u for @!p
  std::uint32_t dst[4] = {kNoDst, kNoDst, kNoDst, kNoDst};  // register offsets or predicates
  Src src[4];
  Src base;                  // memory: the address register (or zeros)
  std::int64_t offset = 0;   // memory: constant offset
  std::int32_t target = -1;  // bra: the taken side (instruction index; End when none)
  std::int32_t reconv = -1;  // bra: -2 reconverges at exit
  std::int32_t site = -1;    // memory: the instruction's site
  std::int32_t run = -1;     // LdGlobal, StGlobal: its footprint runs' index (Emulator)
  const ptx::Instr* in = nullptr;
};

// Native code for one run of micro-ops (native.hpp, native_abi.hpp: NativeFn).
struct NativeRun {
  NativeFn full = nullptr;  // every lane active
  NativeFn some = nullptr;  // any mask
  std::uint32_t len = 0;    // the micro-ops (instructions) it runs
  Uop first;                // the run's first micro-op as compiled
  std::vector<const std::uint64_t*> fixed;
};

// Where the shared 32-lane arrays live: `cta` holds ntid.xyz, ctaid.xyz, nctaid.xyz (32
// lanes each, refilled per CTA), `laneid` 0..31. Predicates have `num_preds` slots, then
// the one that is always true.
struct Layout {
  std::uint32_t num_preds = 0;
  const std::uint64_t* cta = nullptr;
  const std::uint64_t* laneid = nullptr;
};

// Registers that are never live at the same time share a slot: nvcc's PTX names a new
// register for nearly every value (the matrix multiply declares 158), and a warp's
// register file of 32-lane slots is what the interpreter's cache holds. The warp's file
// is `slots` slots (at least 1), then tid.x, tid.y, tid.z as three more.
struct Compiled {
  std::vector<Uop> uops;         // one per instruction, then End
  std::vector<ptx::Instr> code;  // the kernel's instructions with registers renamed to slots
  std::uint32_t slots = 1;
  // Broadcast immediates, shfl caches and forwarded ld.params' lanes (never
  // reallocated after compile: micro-ops point into it).
  std::vector<std::uint64_t> imm;
  // Per 32-lane entry of `imm`: 1 where it is a constant of the kernel's code (an immediate, a
  // symbol's address, the zeros of entry 0), the same in every launch; native code writes
  // those as literals. Shfl caches and parameters' lanes change and are 0.
  std::vector<std::uint8_t> literal;
  const std::uint64_t* laneid = nullptr;  // Layout::laneid: the one fixed array not uniform
  // Per instruction (and End), the slots live into it in one thread's control flow, as
  // assign_slots found them ((slots + 63) / 64 words each; none when the kernel has no
  // registers): native code does not write back a value no later instruction reads.
  std::vector<std::uint64_t> live;
  bool live_in(std::size_t pc, std::uint32_t slot) const {
    const std::size_t words = (slots + 63) / 64;
    if (slot >= slots || (pc + 1) * words > live.size()) return true;
    return (live[pc * words + slot / 64] >> (slot % 64)) & 1u;
  }
  // ld.param of a fixed address: its value's lanes, which its readers read in place when
  // they can (compile(): forward_constants), else `keep`; bind_params() fills them for each
  // launch's parameters.
  struct ParamRead {
    std::uint32_t uop = 0;
    std::uint64_t* lanes = nullptr;                               // in imm
    std::vector<std::pair<std::uint32_t, std::uint8_t>> readers;  // (uop, src index)
    bool keep = false;  // no reader reads `lanes`: the ld.param stays (native code: a mov)
  };
  std::vector<ParamRead> params;
  std::vector<std::uint8_t> params_bound_for;
  bool params_bound = false;
  // Native code (native.hpp: make_native), planned with every ld.param forwarded; it runs
  // only while the launch's parameters keep them so (bind_params).
  std::vector<NativeRun> natives;
  bool natives_ok = false;
  std::uint64_t native_key = 0;  // the native code's hash (0: none planned)
};

// The slot of each register (kernel register index -> slot), from live ranges over the
// per-thread control-flow graph: two registers share a slot only when no instruction
// has both live (or writes one while the other is live). Registers no instruction names
// get none (~0u). Returns the number of slots.
// With `slot_live`, also each instruction's live-in slots (Compiled::live).
std::uint32_t assign_slots(const ptx::Kernel& k, std::vector<std::uint32_t>& slot_of,
                           std::vector<std::uint64_t>* slot_live = nullptr);

// The micro-ops over the reference's own per-lane functions (f32 helpers, integer division,
// `not`, conversions, directed rounding): each lane from its own lanes alone.
bool per_lane_function(K kind);

// `fast` false: only control flow gets micro-ops of its own (Bra, Exit, Bar, End); every
// other instruction is Slow, run by the reference semantics.
// `lanes` false: no K::Lanes, K::LanesDirected, K::CvtLanes, nor the kinds from K::Shfl on
// (EmulatorOptions::lanes).
Compiled compile(const ptx::Kernel& k, const Layout& layout, bool fast = true, bool lanes = true);

// The forwarded ld.params of `c` (Compiled::params) for a launch with these parameter bytes:
// each a K::Nop whose readers read its value's lanes (a kept one stays an ld.param, its
// lanes filled), or, when one of them reads past the parameters, every one an ld.param
// again (its reference path then reports it). Unchanged parameters: nothing to do.
void bind_params(Compiled& c, const std::vector<std::uint8_t>& params);

// The micro-ops of `c` as bind_params() leaves them when every ld.param is forwarded
// (their lanes unfilled), a kept one as a K::Mov64 of its lanes: what native code is
// planned from.
std::vector<Uop> forwarded_uops(const Compiled& c);

// The value an ld.param micro-op loads into every lane (its `aux` bytes at `offset`, sign-
// extended when signed); false when they are not all inside the parameters.
inline bool param_value(const Uop& u, const std::vector<std::uint8_t>& params, std::uint64_t& x) {
  const auto a = static_cast<std::uint64_t>(u.offset);
  const unsigned size = u.aux;
  if (a + size > params.size() || a + size < a) return false;
  x = 0;
  std::memcpy(&x, params.data() + a, size);
  if (u.sign && size < 8) {
    const unsigned shift = 64 - 8 * size;
    x = static_cast<std::uint64_t>(static_cast<std::int64_t>(x << shift) >> shift);
  }
  return true;
}

}  // namespace bankcheck::emu::detail
