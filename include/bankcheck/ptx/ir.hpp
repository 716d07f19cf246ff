// The decoded program the emulator runs: per kernel a flat instruction array with
// numbered registers, resolved branch targets and reconvergence points (immediate
// post-dominators), memory operands resolved to (space, base, offset), and every
// instruction tied to a source location in the user's file.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/ptx/ast.hpp"

namespace bankcheck::ptx {

enum class Opc : std::uint8_t {
#define BANKCHECK_OPCODE(Name, mnemonic, Form) Name,
#include "bankcheck/ptx/opcodes.def"
};

// The PTX mnemonic of an opcode ("ld", "shfl", ...).
constexpr std::string_view opc_name(Opc op) {
  switch (op) {
#define BANKCHECK_OPCODE(Name, mnemonic, Form) \
  case Opc::Name:                              \
    return mnemonic;
#include "bankcheck/ptx/opcodes.def"
  }
  return "?";
}

// Scalar type of an operation: integer (signedness), float, or raw bits.
enum class Ty : std::uint8_t {
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  B8,
  B16,
  B32,
  B64,
  F16,
  F32,
  F64,
  Pred,
  None,
  // The narrow float formats (src/emu/half.cpp): bf16, the packed pairs of f16 and bf16 in
  // one 32-bit register, tf32 (an f32 pattern with 10 mantissa bits), and the packed pairs
  // of the 8-bit formats e4m3 and e5m2 in 16 bits.
  BF16,
  F16X2,
  BF16X2,
  TF32,
  E4M3X2,
  E5M2X2
};

constexpr int ty_bytes(Ty t) {
  switch (t) {
    case Ty::U8:
    case Ty::S8:
    case Ty::B8:
      return 1;
    case Ty::U16:
    case Ty::S16:
    case Ty::B16:
    case Ty::F16:
    case Ty::BF16:
    case Ty::E4M3X2:
    case Ty::E5M2X2:
      return 2;
    case Ty::U32:
    case Ty::S32:
    case Ty::B32:
    case Ty::F32:
    case Ty::F16X2:
    case Ty::BF16X2:
    case Ty::TF32:
      return 4;
    case Ty::U64:
    case Ty::S64:
    case Ty::B64:
    case Ty::F64:
      return 8;
    default:
      return 0;
  }
}
constexpr bool ty_signed(Ty t) {
  return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64;
}
constexpr bool ty_float(Ty t) {
  return t == Ty::F16 || t == Ty::F32 || t == Ty::F64 || t >= Ty::BF16;
}
// f16, bf16 and their packed pairs: the arithmetic of src/emu/half.cpp.
constexpr bool ty_half(Ty t) {
  return t == Ty::F16 || t == Ty::BF16 || t == Ty::F16X2 || t == Ty::BF16X2;
}
constexpr bool ty_packed(Ty t) {
  return t == Ty::F16X2 || t == Ty::BF16X2 || t == Ty::E4M3X2 || t == Ty::E5M2X2;
}

enum class Space : std::uint8_t { Generic, Shared, Global, Local, Param, Const };

constexpr const char* space_name(Space s) {
  switch (s) {
    case Space::Generic:
      return "generic";
    case Space::Shared:
      return "shared";
    case Space::Global:
      return "global";
    case Space::Local:
      return "local";
    case Space::Param:
      return "param";
    case Space::Const:
      return "const";
  }
  return "?";
}

enum class Cmp : std::uint8_t {
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan
};

// Special registers read per lane.
enum class Special : std::uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  Clock,
  Clock64,
  Globaltimer,
  LanemaskEq,
  LanemaskLt,
  LanemaskLe,
  LanemaskGt,
  LanemaskGe,
  DynSmemSize,
  TotalSmemSize,
  Gridid,
  // Read as constants (docs/emulator.md, "Special registers"): %envreg0-31, %pm0-7 and
  // %pm0_64-%pm7_64, %clock_hi, %aggr_smem_size and %reserved_smem_offset_*.
  Envreg,
  Pm,
  ClockHi,
  AggrSmemSize,
  ReservedSmem,
  // Thread-block clusters (emu: the launch's cluster shape; a launch without one is a
  // cluster of one CTA): the CTA's rank and position in its cluster, the cluster's shape,
  // the cluster's position in the grid and the grid in clusters.
  ClusterCtarank,
  ClusterNctarank,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterNctaidX,
  ClusterNctaidY,
  ClusterNctaidZ,
  ClusteridX,
  ClusteridY,
  ClusteridZ,
  NclusteridX,
  NclusteridY,
  NclusteridZ,
  IsExplicitCluster,
  // %envreg1 and %envreg2: the high and low words of a cooperative launch's grid-sync
  // workspace (0 otherwise); the other %envreg read as Envreg.
  Envreg1,
  Envreg2
};

struct Opnd {
  enum class Kind : std::uint8_t { None, Reg, Pred, Imm, Special, SymAddr };
  Kind kind = Kind::None;
  bool negate = false;    // !%p
  std::uint32_t reg = 0;  // register or predicate index, or Special
  std::uint64_t imm = 0;  // immediate bits (floats as their bit pattern of the op's type)
};

// A memory operand: [base + offset] where base is a register (then `reg_base`), or a
// symbol resolved to an address in its space (folded into `offset`).
struct MemRef {
  bool has_reg = false;
  // A 32-bit base register, or any address in the shared space: the address is computed
  // in 32 bits and wraps, as on the GPU (nvcc addresses a shared tile as [%r4+68] with %r4
  // below the tile's start, 0xFFFFFFD0 when the tile starts at 0). Every tier reads it:
  // Ctx::address_of (reference, atomics, cp.async, ldmatrix/stmatrix, wmma, mbarrier,
  // bulk copies) and the shared micro-ops (uop_run.hpp), which take the low word.
  bool wrap32 = false;
  std::uint32_t reg = 0;
  std::int64_t offset = 0;
};

struct SourcePos {
  int file = 0, line = 0, col = 0;
};

// One site: a memory instruction tied to its source location.
struct Site {
  std::uint32_t instr = 0;  // index in the kernel's instruction array
  int file = 0;             // index into Program::files
  int line = 0;
  int col = 0;
  int ptx_line = 0;
  std::string text;  // the PTX instruction, for messages
  // Its inline stack's innermost frame in each other file (an inlined header helper's line),
  // innermost first.
  std::vector<SourcePos> inlined;
  // The whole inline stack when the instruction was inlined: each frame's location,
  // innermost first (the instruction, then each inlined_at call site outwards); empty when
  // it was not inlined.
  std::vector<SourcePos> stack;
};

// Atomic operations (atom, red).
enum class AtomOp : std::uint8_t { Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
// shfl modes, vote modes.
enum class ShflMode : std::uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : std::uint8_t { All, Any, Uni, Ballot };
// suld, sust: what a coordinate outside the surface does (.trap: a fault; .clamp: the nearest
// element; .zero: a load reads zeros, a store writes nothing).
enum class SurfMode : std::uint8_t { Trap, Clamp, Zero };
// mul/mad variants.
enum class MulMode : std::uint8_t { Lo, Hi, Wide };
// Float and cvt rounding (None: the default of the operation).
enum class Round : std::uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };
// mov: a plain copy, or {a, b} packed into one register, or one register unpacked.
enum class MovForm : std::uint8_t { Plain, Pack, Unpack };
// setp/set: the predicate combined with the comparison (.and/.or/.xor).
enum class BoolOp : std::uint8_t { None, And, Or, Xor };
// shf (decoded as a Prmt variant): the funnel shift's direction and out-of-range rule.
enum class Funnel : std::uint8_t { None, LeftWrap, RightWrap, LeftClamp, RightClamp };
// testp: the class tested.
enum class FloatClass : std::uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
// bar.red: the reduction of the predicate over the CTA's threads at the barrier.
enum class BarRed : std::uint8_t { None, Popc, And, Or };
// match: .any or .all.
enum class MatchMode : std::uint8_t { Any, All };

// The tensor-core data movers and mma (src/emu/matrix_ops.cpp, async_copy.cpp).
// An element type of an mma fragment: the ISA's .f16/.bf16/.tf32/.f32/.s8/.u8/.s32.
// wgmma adds the 8-bit floats .e4m3 and .e5m2.
enum class MmaElem : std::uint8_t { None, F16, BF16, TF32, F32, S8, U8, S32, E4M3, E5M2 };
// The fragment a wmma.load or wmma.store moves: wmma.load.a, .b, .c and wmma.store.d.
enum class WmmaFrag : std::uint8_t { None, A, B, C, D };
struct MatrixMods {
  std::uint8_t matrices = 0;  // ldmatrix/stmatrix: .x1/.x2/.x4
  bool trans = false;         // ldmatrix/stmatrix .trans
  std::uint8_t m = 0, n = 0, k = 0;                    // mma shape
  MmaElem a = MmaElem::None, b = MmaElem::None;        // mma input types
  MmaElem c = MmaElem::None, d = MmaElem::None;        // mma accumulator and result types
  bool satfinite = false;                              // mma .satfinite (integer: clamp)
  // mma: how many of Instr::frag each of d, a, b, c takes (in that order).
  std::uint8_t nd = 0, na = 0, nb = 0, nc = 0;
  // cp.async: .cg (L2 only, 16 bytes); a src-size operand given; wait_group's N.
  bool bypass = false;
  bool src_size = false;
  std::uint8_t wait_n = 0;
  // wmma.load/wmma.store: the fragment (its element type is `a`, `b`, `c` or `d` above),
  // and whether the matrix is stored column-major (.col) in memory. A stride operand, in
  // elements, is Instr::src[0]; without one the stride is 16.
  WmmaFrag frag = WmmaFrag::None;
  bool col = false;
};

// mbarrier and cp.async.bulk (src/emu/mbarrier.cpp, src/emu/bulk_copy.cpp).
// The mbarrier operation: init, arrive (and arrive_drop), expect_tx, complete_tx, the
// waits (Opc::MbarrierWait: test_wait, try_wait), pending_count (of a state token), inval.
enum class MbarOp : std::uint8_t {
  Init,
  Arrive,
  ExpectTx,
  CompleteTx,
  TestWait,
  TryWait,
  PendingCount,
  Inval
};
struct MbarMods {
  MbarOp op = MbarOp::Init;
  bool drop = false;         // arrive_drop: the expected count drops by the count too
  bool expect_tx = false;    // arrive.expect_tx: the tx-count grows by an operand first
  bool no_complete = false;  // arrive.noComplete: the arrival must not complete the phase
  bool parity = false;       // test_wait/try_wait.parity: an operand names the phase's parity
  // cp.async.bulk: shared::cta to global (a bulk_group copy), else global to shared
  // completing on the mbarrier at Instr::mem3.
  bool to_global = false;
  // cp.async.bulk shared::cta to shared::cluster (a copy into another CTA's shared memory,
  // completing on the mbarrier there).
  bool to_cluster = false;
  // .multicast::cluster: the copy lands in every CTA of src[0]'s mask, at the same offset,
  // completing on each one's mbarrier at the same offset.
  bool multicast = false;
  // cp.async.bulk.tensor: the tensor's dimensions (1-5; 0: not a tensor copy), im2col mode
  // (else tile), and how many im2col offsets follow the coordinates in Instr::frag; the
  // tensor map's address is Instr::mem2.
  std::uint8_t tensor_dims = 0;
  bool im2col = false;
  std::uint8_t im2col_offsets = 0;
  // cp.reduce.async.bulk(.tensor): the reduction and its element type.
  bool reduce = false;
  AtomOp reduce_op = AtomOp::Add;
  Ty reduce_type = Ty::None;
};

// wgmma (src/ptx/decode_wgmma.cpp, src/emu/wgmma.cpp): the warpgroup's matrix multiply
// m64nNkK and its fence, commit_group and wait_group. The operands: Instr::frag holds D's
// registers twice (written, then read: the accumulator is both), then A's four registers
// when A comes from registers; src[0] is A's descriptor (when A comes from shared memory),
// src[1] B's descriptor, src[2] scale-d (a predicate or an immediate: false gives D = A*B).
enum class WgmmaOp : std::uint8_t { Mma, Fence, Commit, Wait };
struct WgmmaMods {
  WgmmaOp op = WgmmaOp::Mma;
  std::uint16_t n = 0;  // 8..256
  std::uint8_t k = 0;   // 8 (tf32), 16 (f16, bf16), 32 (e4m3, e5m2, s8, u8)
  MmaElem a = MmaElem::None, b = MmaElem::None, d = MmaElem::None;
  std::uint8_t nd = 0;      // D's registers: N/2 (f32, s32) or N/4 (f16 pairs)
  bool a_regs = false;      // A from registers (four per thread) instead of a descriptor
  bool trans_a = false;     // imm-trans-a: A is M-major (16-bit types only)
  bool trans_b = false;     // imm-trans-b: B is N-major
  bool neg_a = false;       // imm-scale-a -1
  bool neg_b = false;       // imm-scale-b -1
  bool satfinite = false;   // integer: clamp instead of wrapping
  std::uint8_t wait_n = 0;  // wait_group N
};

// What PTX writes as opcode modifiers beyond the types and the state space. Each field
// is read only by the opcodes named beside it.
struct Modifiers {
  Round round = Round::None;               // float arithmetic (mul and mad included), cvt
  MulMode mul = MulMode::Lo;               // mul, mad (integer)
  AtomOp atom = AtomOp::Add;               // atom, red, redux (add, min, max, and, or, xor)
  bool hi = false;                         // dp2a.hi: the high two bytes of b
  BarRed barred = BarRed::None;            // bar (bar.red.popc/and/or)
  // bar/barrier: .arrive (the warp counts itself in and goes on); with `bar_count`, src[1]
  // is the number of threads the barrier src[0] waits for (named barriers, 0 to 15).
  bool bar_arrive = false, bar_count = false;
  ShflMode shfl = ShflMode::Up;            // shfl
  VoteMode vote = VoteMode::All;           // vote
  MovForm mov = MovForm::Plain;            // mov
  BoolOp boolop = BoolOp::None;            // setp, set
  Funnel funnel = Funnel::None;            // prmt (shf)
  FloatClass fclass = FloatClass::Finite;  // testp
  MatchMode match = MatchMode::Any;        // match
  bool to_space = false;                   // cvta.to: generic to the space (else the reverse)
  bool shiftamt = false;                   // bfind.shiftamt
  bool clamp = false;                      // bmsk.clamp (else .wrap)
  SurfMode surf = SurfMode::Trap;          // suld, sust: outside the surface
  std::uint8_t geom = 0;                   // suld, sust: 1, 2 or 3 coordinates
  bool layered = false;                    // tex, suld, sust .a1d/.a2d: src[3] is the layer
  bool assert_fail = false;                // trap: the call to __assertfail of a failed assert()
  // assert_fail with its parameters: mem, mem2 and mem3 the message's, file's and function's
  // pointers, src[0] (an immediate) the line's depot offset (call parameters, Space::Local).
  bool assert_text = false;
  bool printf_returns = false;             // printf: the call has a return slot (mem3)
  MatrixMods mx;                           // ldmatrix, stmatrix, mma, cp.async, wmma
  bool nan = false;                        // min/max.NaN: a NaN operand gives NaN
  bool relu = false;                       // cvt, fma, min/max .relu: negative results give 0
  bool satfinite = false;                  // cvt .satfinite: out of range gives the largest finite
  MbarMods mbar;                           // mbarrier, mbarrier waits, cp.async.bulk
  WgmmaMods wg;                            // wgmma
  bool evict_first = false;                // ld/st .cs (__ldcs, __stcs): evict-first
};

struct Instr {
  Opc op = Opc::Nop;
  Ty type = Ty::None;   // the operation's type (ld/st: element type)
  Ty type2 = Ty::None;  // cvt: source type; setp/set: compare type is `type`, set: result type
  Space space = Space::Generic;
  Cmp cmp = Cmp::Eq;
  std::uint8_t vec = 1;  // ld/st .v2/.v4
  std::uint8_t nsrc = 0, ndst = 0;
  Modifiers mod;            // the opcode's own modifiers, one typed field per meaning
  std::uint8_t flags = 0;   // kFlag* below
  std::int16_t guard = -1;  // predicate index, -1 when unguarded
  bool guard_neg = false;
  Opnd dst[4];
  Opnd src[4];
  MemRef mem;                // ld/st/atom/red/cvta-of-symbol
  std::int32_t target = -1;  // bra: instruction index
  std::int32_t reconv = -1;  // bra: immediate post-dominator (instruction index), -1 = exit
  std::int32_t site = -1;    // memory instructions: index into Kernel::sites
  std::int32_t loc = -1;     // index into Kernel::locs
  // Tensor-core operands (ldmatrix, stmatrix, mma, wmma): their register lists in order; the
  // first frag_defs are written, the rest read. cp.async: the global source (`mem` is the
  // shared destination) and the site of its global side (`site` is the shared side).
  std::vector<Opnd> frag;
  std::uint8_t frag_defs = 0;
  MemRef mem2;
  std::int32_t site2 = -1;
  MemRef mem3;  // cp.async.bulk with .mbarrier::complete_tx::bytes: the mbarrier
};

inline constexpr std::uint8_t kFlagSat = 1, kFlagFtz = 2, kFlagUni = 4, kFlagVolatile = 8,
                              kFlagCc = 16, kFlagAligned = 32;
// A shared access of the .shared::cluster space (ld, st, atom, red, mbarrier, the bulk
// copies' shared side): its address may name another CTA of the cluster (mapa).
inline constexpr std::uint8_t kFlagCluster = 64;
// A load another thread may be changing while this one waits (ld.volatile, ld.acquire and
// ld.relaxed of gpu or sys scope on global or generic addresses): the emulator lets a warp
// that spins on one yield to the CTAs that run with it (cooperative grid sync, flags).
inline constexpr std::uint8_t kFlagPoll = 128;

struct KernelParam {
  std::string name;  // PTX name (_Z6reducePKfPfi_param_0)
  int size = 0;      // bytes
  int align = 0;
  int offset = 0;                 // in the param buffer
  bool is_pointer_sized = false;  // .u64/.b64/.s64 (a pointer candidate)
  std::string type;               // as written
};

struct SharedVar {
  std::string name;
  std::uint64_t offset = 0;  // in the CTA's shared window
  std::uint64_t bytes = 0;   // 0 for extern (dynamic)
  int align = 0;
  bool is_extern = false;
};

struct Kernel {
  std::string name;  // mangled
  std::vector<KernelParam> params;
  int param_bytes = 0;
  std::uint32_t num_regs = 0;  // 64-bit register slots per lane
  std::uint32_t num_preds = 0;
  std::vector<std::string> reg_names, pred_names;
  std::vector<SharedVar> shared;  // static shared variables, then the extern one(s)
  std::uint64_t static_shared_bytes = 0;
  std::uint64_t dynamic_shared_offset = 0;  // where extern .shared arrays start
  std::uint64_t local_bytes = 0;            // per-thread .local depot
  // .reqnctapercluster X, Y, Z (what __cluster_dims__ compiles to): the cluster shape every
  // launch of the kernel has; 0, 0, 0 when the kernel names none. .explicitcluster.
  std::uint32_t cluster[3] = {0, 0, 0};
  bool explicit_cluster = false;
  std::vector<Instr> code;
  std::vector<Site> sites;
  std::vector<SourcePos> locs;     // per instruction (Instr::loc)
  std::vector<int> ptx_lines;      // per instruction
  std::vector<std::string> texts;  // per instruction, as written
};

// Emulated address windows. Generic addresses in these ranges refer to the CTA's shared
// memory and the thread's local memory; module variables and kernel buffers live above.
inline constexpr std::uint64_t kSharedWindow = 0x0000010000000000ull;  // + shared offset
inline constexpr std::uint64_t kLocalWindow = 0x0000020000000000ull;   // + local offset
inline constexpr std::uint64_t kParamWindow = 0x0000030000000000ull;   // + param offset
inline constexpr std::uint64_t kWindowSize = 0x0000000100000000ull;
// A shared address of the cluster (shared::cluster): the low 24 bits are the offset in a
// CTA's shared memory, the bits above name the CTA, its rank in the cluster plus one; 0
// names the executing CTA itself (every shared::cta address is a shared::cluster address of
// its own CTA). mapa makes them; bankcheck's own encoding, as the ISA leaves it open.
inline constexpr unsigned kClusterRankShift = 24;
inline constexpr std::uint32_t kClusterOffsetMask = (1u << kClusterRankShift) - 1;
inline constexpr std::uint64_t kGlobalVarBase = 0x0000100000000000ull;
inline constexpr std::uint64_t kBufferBase = 0x0000200000000000ull;

// Module-scope data: .global and .const variables with their initial bytes.
struct GlobalVar {
  std::string name;
  std::uint64_t address = 0;  // emulated address: kGlobalVarBase + its offset
  Space space = Space::Global;
  std::uint64_t bytes = 0;
  int align = 0;
  std::vector<std::uint8_t> init;
};

// One family of instructions a refused kernel uses and the emulator does not run: the
// mnemonic with the modifiers that say what it does (`wgmma.mma_async`,
// `cp.async.bulk.tensor`, `bar.sync`, `atom.add.noftz`; types, state spaces, shapes and
// `.sync.aligned` left out), how many of the kernel's instructions are of it, and the first.
struct RefusedFamily {
  std::string family;
  std::string reason;  // the first instruction's
  int count = 0;
  int ptx_line = 0;
  std::string ptx;
  SourcePos pos;  // from the PTX's .loc: the header's file when it came from one
};

// A kernel the decoder refused: its name, why, and where (the PTX line and, from the
// instruction's .loc, the source line). The file's other kernels are still decoded.
struct UnsupportedKernel {
  std::string name;    // mangled
  std::string reason;  // what is not supported (the first refused instruction's)
  int ptx_line = 0;    // 0: not tied to an instruction
  std::string ptx;     // the PTX instruction, as written
  SourcePos pos;       // line 0: no source location
  // Every unsupported family the kernel uses, in order of first appearance; empty when
  // the refusal is not an instruction's (a declaration).
  std::vector<RefusedFamily> families;
};

struct Program {
  std::vector<Kernel> kernels;
  std::vector<UnsupportedKernel> unsupported;  // kernels refused, in PTX order
  std::vector<std::string> skipped;  // kernels whose bodies were not read (ParseOptions)
  std::vector<GlobalVar> globals;
  std::vector<std::string> files;  // index -> path
  int main_file = 0;               // the user's file (locations are resolved into it)
};

// An unsupported or malformed construct found while decoding: names the PTX line.
struct DecodeError : std::runtime_error {
  DecodeError(const std::string& message, std::string source, int line, std::string text)
      : std::runtime_error(message), source(std::move(source)), line(line), text(std::move(text)) {}
  std::string source;
  int line = 0;
  std::string text;
  SourcePos pos;  // the instruction's source location (line 0: none)
  std::vector<RefusedFamily> families;  // a kernel's every refused instruction, grouped
};

// The family of an instruction as a refusal names it (RefusedFamily): `opcode` and the
// parser's modifiers, e.g. ("wgmma", {".mma_async", ".sync", ".aligned", ".m64n128k16",
// ".f32", ".bf16", ".bf16"}) -> "wgmma.mma_async".
std::string instruction_family(const std::string& opcode, const std::vector<std::string>& mods);

// Decodes the parsed module. `main_file_hint`: path (or file name) of the user's .cu,
// used to resolve inlined_at chains to the user's file; empty: outermost location.
// Module variables are laid out from `global_base` (globals_extent() bytes from there):
// check's programs at kGlobalVarBase, a running program's in memory of its own.
// `external`: module-scope variables another module defines (-rdc=true: `.extern .global`,
// and those of functions link_functions copied in), by name, at their addresses there: not
// laid out here.
Program decode(const Module& m, std::string_view source, std::string_view main_file_hint,
               std::uint64_t global_base = kGlobalVarBase,
               const std::map<std::string, std::uint64_t>* external = nullptr);

// A device function's address as the emulator gives it (a function pointer's value: `mov`
// of the function's name, an initializer `= {f1, f2}`): the same for one name in every
// module, never inside a buffer; the inliner calls through it by comparing (inline_calls).
constexpr std::uint64_t function_address(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return 0x7ff0000000000000ull | (h & 0x000ffffffffffff0ull);
}

// -rdc=true: the device functions `m` calls that another translation unit of the program
// defines (nvcc leaves them `.extern .func`), copied in from the first of `others` that
// defines each, with what they call in turn, so that the inliner finds their bodies; their
// source locations are added to `m`'s file table. A function that names a module-scope
// variable `m` defines too (another file's `static` of that name) is not copied: the name
// would mean `m`'s own. Returns the names of the variables of `others` that the copies use
// (decode()'s `external`).
std::set<std::string> link_functions(Module& m, const std::vector<const Module*>& others);

// The bytes the module's .global and .const variables take, laid out as decode() does
// (each aligned to at least 256 bytes).
std::uint64_t globals_extent(const Module& m);

}  // namespace bankcheck::ptx
