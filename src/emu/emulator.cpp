// The interpreter: registers as structure-of-arrays (one 64-bit slot per lane),
// predicates as lane masks, a SIMT stack per warp reconverging at immediate
// post-dominators, warps of a CTA run until a barrier, then released together.
#include "bankcheck/emu/emulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bankcheck/emu/lanes.hpp"
#include "uop.hpp"

namespace bankcheck::emu {

using ptx::Instr;
using ptx::Opc;
using ptx::Opnd;
using ptx::Space;
using ptx::Ty;

// ---------------------------------------------------------------- global memory

std::uint64_t GlobalMemory::add(const std::string& name, std::uint64_t bytes, std::uint64_t base) {
  auto b = std::make_unique<Buffer>();
  b->name = name;
  if (base == 0) {
    base = next_;
    next_ += (std::max<std::uint64_t>(bytes, 1) + 0xFFFFFull) & ~0xFFFFull;  // 64 KiB apart
    next_ += 0x10000;  // a gap: running off the end of one buffer never reaches the next
  }
  b->base = base;
  b->size = std::max<std::uint64_t>(bytes, 1);
  b->storage.reset(static_cast<std::uint8_t*>(std::calloc(b->size, 1)));
  if (!b->storage)
    throw EmuError(EmuError::Kind::Unsupported,
                   "cannot allocate " + std::to_string(b->size) + " bytes for " + name, -1);
  buffers_.push_back(std::move(b));
  return base;
}

GlobalMemory::Buffer* GlobalMemory::find(std::uint64_t addr, std::uint64_t size) {
  for (auto& b : buffers_)
    if (addr >= b->base && addr - b->base + size <= b->size && addr + size >= addr) return b.get();
  return nullptr;
}

// ---------------------------------------------------------------- helpers

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

std::uint64_t mask_of(Ty t) {
  const int b = ptx::ty_bytes(t);
  return b >= 8 || b == 0 ? ~0ull : ((1ull << (8 * b)) - 1);
}
std::int64_t sext(std::uint64_t v, Ty t) {
  switch (ptx::ty_bytes(t)) {
    case 1:
      return static_cast<std::int8_t>(v);
    case 2:
      return static_cast<std::int16_t>(v);
    case 4:
      return static_cast<std::int32_t>(v);
    default:
      return static_cast<std::int64_t>(v);
  }
}
float as_f32(std::uint64_t v) {
  const std::uint32_t b = static_cast<std::uint32_t>(v);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double as_f64(std::uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
std::uint64_t from_f32(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
std::uint64_t from_f64(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
// IEEE half from a double (exact for f32 and f16 sources), rounded by `r` (.rn when none).
std::uint16_t to_half(double v, ptx::Round r) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7e00);
  if (std::isinf(v)) return static_cast<std::uint16_t>(sign | 0x7c00);
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int E = std::max(e - 1, -14);      // the half exponent (subnormals: -14)
  const double t = std::ldexp(a, 10 - E);  // a in units of the last place: exact
  double m = std::floor(t);
  const double frac = t - m;
  bool up;
  switch (r) {
    case ptx::Round::Rz:
      up = false;
      break;
    case ptx::Round::Rm:
      up = frac > 0 && sign;
      break;
    case ptx::Round::Rp:
      up = frac > 0 && !sign;
      break;
    default:
      up = frac > 0.5 || (frac == 0.5 && std::fmod(m, 2.0) != 0);
      break;
  }
  if (up) m += 1;
  // ((E + 14) << 10) + m encodes normals (m in [1024, 2048], a carry bumps the exponent)
  // and, for E == -14, subnormals (m < 1024).
  const double bits = std::ldexp(static_cast<double>(E + 14), 10) + m;
  if (bits >= 0x7c00) {
    const bool inf = r == ptx::Round::Rn || r == ptx::Round::None ||
                     (r == ptx::Round::Rp && !sign) || (r == ptx::Round::Rm && sign);
    return static_cast<std::uint16_t>(sign | (inf ? 0x7c00 : 0x7bff));
  }
  return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(bits));
}
// The host rounding mode for a PTX rounding modifier (.rn and none: to nearest).
int fe_mode(ptx::Round r) {
  switch (r) {
    case ptx::Round::Rz:
      return FE_TOWARDZERO;
    case ptx::Round::Rm:
      return FE_DOWNWARD;
    case ptx::Round::Rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}
// Runs `f` under the host rounding mode `mode`. `f` must read its operands through
// volatile and return through volatile, so that the compiler cannot move the arithmetic
// out from between the mode changes.
template <typename F>
auto with_rounding(int mode, F f) {
  if (mode == FE_TONEAREST) return f();
  std::fesetround(mode);
  auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
double round_mode(double v, ptx::Round r) {
  switch (r) {
    case ptx::Round::Rni:
    case ptx::Round::Rn:
      return std::nearbyint(v);
    case ptx::Round::Rzi:
    case ptx::Round::Rz:
      return std::trunc(v);
    case ptx::Round::Rmi:
    case ptx::Round::Rm:
      return std::floor(v);
    case ptx::Round::Rpi:
    case ptx::Round::Rp:
      return std::ceil(v);
    default:
      return std::trunc(v);
  }
}

// The rounding modifier of a float operation.
ptx::Round float_round(const Instr& in) { return in.mod.round; }
bool directed_round(const Instr& in) {
  const ptx::Round r = float_round(in);
  return r == ptx::Round::Rz || r == ptx::Round::Rm || r == ptx::Round::Rp;
}

// NaN results as sm_90 gives them (measured on the GPU): f32 arithmetic returns the
// canonical NaN 0x7fffffff whatever the operands' payloads.
constexpr std::uint64_t kQuietF64 = 0x0008000000000000ull;
std::uint64_t canonical_f32(float r) { return r != r ? std::uint64_t{0x7fffffffu} : from_f32(r); }
// .sat: clamps to [+0.0, 1.0]; NaN and -0.0 give +0.0.
template <typename T>
T saturate(const Instr& in, T r) {
  if (!(in.flags & ptx::kFlagSat)) return r;
  return (std::isnan(r) || r <= T(0)) ? T(0) : std::min(r, T(1));
}
// min/max.f32/f64: a NaN operand gives the other operand; -0.0 is below +0.0; two NaNs
// give the canonical NaN (f32) or the second operand quieted (f64), as measured.
std::uint64_t float_min_max(bool max, bool f64, std::uint64_t a, std::uint64_t b) {
  const double x = f64 ? as_f64(a) : as_f32(a), y = f64 ? as_f64(b) : as_f32(b);
  if (std::isnan(x) && std::isnan(y)) return f64 ? (b | kQuietF64) : 0x7fffffffu;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == y && x == 0) return (std::signbit(x) != max) ? a : b;  // min: the negative zero
  return (max ? x > y : x < y) ? a : b;
}

model::Op access_op(const Instr& in) {
  if (in.op == Opc::Ld) return model::Op::Load;
  if (in.op == Opc::St) return model::Op::Store;
  return in.mod.atom == ptx::AtomOp::Cas ? model::Op::AtomicCas : model::Op::Atomic;
}

// Records that a request reached bytes up to offset `top` (0: nothing new) of buffer `b`
// and whether it read or wrote it, for the report of what the CTAs used. Every global
// access ends here, whichever tier ran it. Atomics count as writes.
void touch(GlobalMemory::Buffer& b, std::uint64_t top, bool load) {
  std::uint64_t seen = b.max_touched.load(std::memory_order_relaxed);
  while (top > seen && !b.max_touched.compare_exchange_weak(seen, top, std::memory_order_relaxed)) {
  }
  std::atomic<bool>& flag = load ? b.read : b.written;
  if (!flag.load(std::memory_order_relaxed)) flag.store(true, std::memory_order_relaxed);
}

}  // namespace

// ---------------------------------------------------------------- CTA state

struct Emulator::State {
  // Thread indices of the block shape last set up (unchanged between CTAs of a launch).
  std::uint32_t tid_dims[3] = {0, 0, 0};
  struct Entry {
    int pc;
    std::uint32_t mask;
    int rpc;  // pop when pc reaches it; -2: never (reconverges at exit)
  };
  struct Warp {
    int id = 0;
    std::uint32_t lanes = 0;  // lanes that exist
    std::uint32_t exited = 0;
    std::vector<Entry> stack;
    bool at_barrier = false, done = false;
    int barrier_instr = -1;
  };
  std::vector<std::uint64_t> regs;    // [warp][reg][lane]
  std::vector<std::uint32_t> preds;   // [warp][pred]
  std::vector<std::uint32_t> tid[3];  // per thread
  std::vector<std::uint8_t> shared;
  std::vector<std::uint8_t> local;  // [thread][local_bytes]
  std::vector<Warp> warps;
  // The kernel as micro-ops (uop.hpp) and the 32-lane arrays they read: broadcast
  // immediates, the CTA's ntid/ctaid/nctaid (refilled per CTA) and lane numbers.
  detail::Compiled compiled;
  std::uint64_t cta_consts[9 * 32] = {};
  // The block shape and register file size the tid slots were last filled for (nothing
  // writes them, so they stay valid between CTAs of a launch).
  std::size_t tid_regs_for = 0;
  std::uint32_t tid_regs_dims[3] = {0, 0, 0};
  std::uint64_t laneids[32] = {};
  std::vector<GlobalMemory::Buffer*> buffer_of;  // per instruction (run_cta)
};

Emulator::Options& Emulator::default_options() {
  static Options options;
  return options;
}

Emulator::Emulator(const ptx::Program& program, const ptx::Kernel& kernel, GlobalMemory& memory,
                   const Options& options)
    : program_(program),
      kernel_(kernel),
      memory_(memory),
      options_(options),
      state_(std::make_unique<State>()) {
  if (options.tap) listeners_.push_back(options.tap);
  for (int l = 0; l < 32; ++l) state_->laneids[l] = static_cast<std::uint64_t>(l);
  detail::Layout layout;
  layout.num_preds = std::max<std::uint32_t>(kernel.num_preds, 1);
  layout.cta = state_->cta_consts;
  layout.laneid = state_->laneids;
  state_->compiled = detail::compile(kernel, layout, options.fast);
}
Emulator::~Emulator() = default;

namespace {

struct Ctx {
  const ptx::Kernel& k;
  GlobalMemory& mem;
  const Launch& launch;
  Dim3 ctaid;
  std::uint64_t cta_linear;
  std::vector<Listener*>& listeners;
  std::uint64_t& executed;
  std::vector<Note>& notes;
  std::vector<std::uint64_t>& regs;
  std::vector<std::uint32_t>& preds;
  std::vector<std::uint32_t>* tid;
  std::vector<std::uint8_t>& shared;
  std::vector<std::uint8_t>& local;
  std::uint32_t nregs, npreds, nwarps;
  const std::uint64_t* used = nullptr;  // warp instructions run in this CTA so far
  bool has_listeners = !listeners.empty();

  std::uint64_t& R(int w, std::uint32_t r, int lane) {
    return regs[(static_cast<std::size_t>(w) * nregs + r) * 32 + static_cast<std::size_t>(lane)];
  }
  std::uint32_t& P(int w, std::uint32_t p) {
    return preds[static_cast<std::size_t>(w) * npreds + p];
  }

  [[noreturn]] void fail(EmuError::Kind kind, int pc, const std::string& msg) {
    throw EmuError(kind, msg, pc);
  }

  std::uint64_t special(ptx::Special s, int w, int lane) {
    const std::size_t t = static_cast<std::size_t>(w) * 32 + static_cast<std::size_t>(lane);
    switch (s) {
      case ptx::Special::TidX:
        return tid[0][t];
      case ptx::Special::TidY:
        return tid[1][t];
      case ptx::Special::TidZ:
        return tid[2][t];
      case ptx::Special::NtidX:
        return launch.block.x;
      case ptx::Special::NtidY:
        return launch.block.y;
      case ptx::Special::NtidZ:
        return launch.block.z;
      case ptx::Special::CtaidX:
        return ctaid.x;
      case ptx::Special::CtaidY:
        return ctaid.y;
      case ptx::Special::CtaidZ:
        return ctaid.z;
      case ptx::Special::NctaidX:
        return launch.grid.x;
      case ptx::Special::NctaidY:
        return launch.grid.y;
      case ptx::Special::NctaidZ:
        return launch.grid.z;
      case ptx::Special::Laneid:
        return static_cast<std::uint64_t>(lane);
      case ptx::Special::Warpid:
        return static_cast<std::uint64_t>(w);
      case ptx::Special::Nwarpid:
        return nwarps;
      case ptx::Special::Smid:
        return 0;
      case ptx::Special::Nsmid:
        return 132;
      case ptx::Special::Clock:
      case ptx::Special::Clock64:
      case ptx::Special::Globaltimer:
        return executed + (used ? *used : 0);
      case ptx::Special::LanemaskEq:
        return 1ull << lane;
      case ptx::Special::LanemaskLt:
        return (1ull << lane) - 1;
      case ptx::Special::LanemaskLe:
        return (2ull << lane) - 1;
      case ptx::Special::LanemaskGt:
        return static_cast<std::uint32_t>(~((2ull << lane) - 1));
      case ptx::Special::LanemaskGe:
        return static_cast<std::uint32_t>(~((1ull << lane) - 1));
      case ptx::Special::DynSmemSize:
        return launch.dynamic_smem;
      case ptx::Special::TotalSmemSize:
        return shared.size();
      case ptx::Special::Gridid:
        return 0;
    }
    return 0;
  }

  std::uint64_t val(const Opnd& o, int w, int lane) {
    switch (o.kind) {
      case Opnd::Kind::Reg:
        return R(w, o.reg, lane);
      case Opnd::Kind::Imm:
      case Opnd::Kind::SymAddr:
        return o.imm;
      case Opnd::Kind::Special:
        return special(static_cast<ptx::Special>(o.reg), w, lane);
      case Opnd::Kind::Pred:
        return ((P(w, o.reg) >> lane) & 1u) ^ (o.negate ? 1u : 0u);
      case Opnd::Kind::None:
        return 0;
    }
    return 0;
  }
  void set(const Opnd& o, int w, int lane, std::uint64_t v, Ty t) {
    if (o.kind == Opnd::Kind::Reg)
      R(w, o.reg, lane) = v & mask_of(t);
    else if (o.kind == Opnd::Kind::Pred) {
      std::uint32_t& p = P(w, o.reg);
      p = (v & 1) ? (p | (1u << lane)) : (p & ~(1u << lane));
    }
  }
  std::uint32_t pred_mask(const Opnd& o, int w, std::uint32_t within) {
    if (o.kind == Opnd::Kind::Pred) return (o.negate ? ~P(w, o.reg) : P(w, o.reg)) & within;
    std::uint32_t m = 0;
    for (int l = 0; l < 32; ++l)
      if (((within >> l) & 1u) && (val(o, w, l) & 1)) m |= 1u << l;
    return m;
  }

  // ---------------------------------------------------------------- memory

  std::uint64_t address(const Instr& in, int w, int lane) {
    std::uint64_t a = static_cast<std::uint64_t>(in.mem.offset);
    if (in.mem.has_reg) a += R(w, in.mem.reg, lane);
    return a;
  }

  // Resolves a lane's address to (space, host pointer), checking bounds.
  std::uint8_t* resolve(const Instr& in, int pc, Space space, std::uint64_t a, unsigned size, int w,
                        int lane, Space& actual) {
    if (space == Space::Generic) {
      if (a >= ptx::kSharedWindow && a < ptx::kSharedWindow + ptx::kWindowSize) {
        space = Space::Shared;
        a -= ptx::kSharedWindow;
      } else if (a >= ptx::kLocalWindow && a < ptx::kLocalWindow + ptx::kWindowSize) {
        space = Space::Local;
        a -= ptx::kLocalWindow;
      } else {
        space = Space::Global;
      }
    }
    actual = space;
    if (size > 1 && a % size != 0 && space != Space::Param)
      fail(
          EmuError::Kind::Misaligned, pc,
          fmt::format(
              "misaligned {}-byte {} access at address 0x{:x} (lane {} of warp {}); the GPU faults "
              "here with 'misaligned address'",
              size, ptx::space_name(space), a, lane, w));
    switch (space) {
      case Space::Shared:
        if (a + size > shared.size() || a + size < a)
          fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format(
                   "shared memory access out of bounds: bytes [{}, {}) of a {}-byte shared window "
                   "(lane {} of warp {})",
                   a, a + size, shared.size(), lane, w));
        return shared.data() + a;
      case Space::Local: {
        const std::uint64_t per = k.local_bytes;
        if (a + size > per)
          fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("local memory access out of bounds at offset {} (lane {} of warp {})", a,
                           lane, w));
        return local.data() +
               (static_cast<std::size_t>(w) * 32 + static_cast<std::size_t>(lane)) * per + a;
      }
      case Space::Param:
        if (a + size > launch.params.size())
          fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("kernel parameter read out of bounds at {}", a));
        return const_cast<std::uint8_t*>(launch.params.data()) + a;
      default: {
        GlobalMemory::Buffer* b = mem.find(a, size);
        if (!b)
          fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("global memory access outside every buffer: {} bytes at 0x{:x} (lane {} "
                           "of warp {})",
                           size, a, lane, w));
        const std::uint64_t off = a - b->base;
        touch(*b, off + size, in.op == Opc::Ld);
        return b->data() + off;
      }
    }
  }

  AccessEvent event = {};  // reused: constructing one per request cleared 256 bytes each time

  void emit(const Instr& in, int w, std::uint32_t exec, Space space, const std::uint64_t* addrs,
            unsigned width) {
    if (listeners.empty() || !exec) return;
    AccessEvent& e = event;
    e.site = in.site;
    e.cta = cta_linear;
    e.warp = w;
    e.space = space;
    e.op = access_op(in);
    e.width = static_cast<std::uint8_t>(width);
    e.mask = exec;
    if (addrs != e.addr) std::memcpy(e.addr, addrs, sizeof e.addr);
    for (Listener* li : listeners) li->on_access(e);
  }

  void load_store(const Instr& in, int pc, int w, std::uint32_t exec) {
    const unsigned esize = static_cast<unsigned>(ptx::ty_bytes(in.type));
    const unsigned width = esize * in.vec;
    std::uint64_t addrs[32] = {};
    std::uint32_t by_space[6] = {};
    for (int l = 0; l < 32; ++l) {
      if (!((exec >> l) & 1u)) continue;
      const std::uint64_t a = address(in, w, l);
      Space actual;
      std::uint8_t* p = resolve(in, pc, in.space, a, width, w, l, actual);
      by_space[static_cast<int>(actual)] |= 1u << l;
      addrs[l] = actual == Space::Shared || actual == Space::Local
                     ? (in.space == Space::Generic
                            ? a - (actual == Space::Shared ? ptx::kSharedWindow : ptx::kLocalWindow)
                            : a)
                     : a;
      for (unsigned v = 0; v < in.vec; ++v) {
        std::uint8_t* q = p + v * esize;
        if (in.op == Opc::Ld) {
          std::uint64_t x = 0;
          std::memcpy(&x, q, esize);
          if (ptx::ty_signed(in.type)) x = static_cast<std::uint64_t>(sext(x, in.type));
          if (in.ndst > v && in.dst[v].kind != Opnd::Kind::None) {
            // Loads of 8/16-bit integers into wider registers: the register keeps the
            // (sign- or zero-) extended value.
            const Opnd& d = in.dst[v];
            if (d.kind == Opnd::Kind::Reg)
              R(w, d.reg, l) = ptx::ty_signed(in.type) ? x : (x & mask_of(in.type));
            else
              set(d, w, l, x, in.type);
          }
        } else {
          const std::uint64_t x = in.nsrc > v ? val(in.src[v], w, l) : 0;
          std::memcpy(q, &x, esize);
        }
      }
    }
    for (Space s : {Space::Shared, Space::Global, Space::Local}) {
      const std::uint32_t m = by_space[static_cast<int>(s)];
      if (m && in.site >= 0) emit(in, w, m, s, addrs, width);
    }
  }

  void atomic(const Instr& in, int pc, int w, std::uint32_t exec) {
    const unsigned size = static_cast<unsigned>(ptx::ty_bytes(in.type));
    std::uint64_t addrs[32] = {};
    std::uint32_t by_space[6] = {};
    const auto op = in.mod.atom;
    for (int l = 0; l < 32; ++l) {  // lane order, as one serialization of the warp
      if (!((exec >> l) & 1u)) continue;
      const std::uint64_t a = address(in, w, l);
      Space actual;
      std::uint8_t* p = resolve(in, pc, in.space, a, size, w, l, actual);
      by_space[static_cast<int>(actual)] |= 1u << l;
      addrs[l] =
          (actual == Space::Shared && in.space == Space::Generic) ? a - ptx::kSharedWindow : a;
      std::unique_lock<std::mutex> lock(mem.atomic_mutex, std::defer_lock);
      if (actual == Space::Global) lock.lock();
      std::uint64_t old = 0;
      std::memcpy(&old, p, size);
      const std::uint64_t b = val(in.src[0], w, l);
      std::uint64_t nv = old;
      const Ty t = in.type;
      const bool f = ptx::ty_float(t), s = ptx::ty_signed(t);
      switch (op) {
        case ptx::AtomOp::Add:
          nv = f ? (size == 4 ? from_f32(as_f32(old) + as_f32(b))
                              : from_f64(as_f64(old) + as_f64(b)))
                 : old + b;
          break;
        case ptx::AtomOp::Min:
          nv = f   ? (size == 4 ? from_f32(std::fmin(as_f32(old), as_f32(b)))
                                : from_f64(std::fmin(as_f64(old), as_f64(b))))
               : s ? (sext(old, t) < sext(b, t) ? old : b)
                   : ((old & mask_of(t)) < (b & mask_of(t)) ? old : b);
          break;
        case ptx::AtomOp::Max:
          nv = f   ? (size == 4 ? from_f32(std::fmax(as_f32(old), as_f32(b)))
                                : from_f64(std::fmax(as_f64(old), as_f64(b))))
               : s ? (sext(old, t) > sext(b, t) ? old : b)
                   : ((old & mask_of(t)) > (b & mask_of(t)) ? old : b);
          break;
        case ptx::AtomOp::Inc:
          nv = (old & mask_of(t)) >= (b & mask_of(t)) ? 0 : old + 1;
          break;
        case ptx::AtomOp::Dec:
          nv = ((old & mask_of(t)) == 0 || (old & mask_of(t)) > (b & mask_of(t))) ? b : old - 1;
          break;
        case ptx::AtomOp::And:
          nv = old & b;
          break;
        case ptx::AtomOp::Or:
          nv = old | b;
          break;
        case ptx::AtomOp::Xor:
          nv = old ^ b;
          break;
        case ptx::AtomOp::Exch:
          nv = b;
          break;
        case ptx::AtomOp::Cas:
          nv = (old & mask_of(t)) == (b & mask_of(t)) ? val(in.src[1], w, l) : old;
          break;
      }
      std::memcpy(p, &nv, size);
      if (in.op == Opc::Atom) set(in.dst[0], w, l, old, t);
    }
    for (Space sp : {Space::Shared, Space::Global, Space::Local}) {
      const std::uint32_t m = by_space[static_cast<int>(sp)];
      if (m && in.site >= 0) emit(in, w, m, sp, addrs, size);
    }
  }
};

// One correctly rounded float operation in type F. Operands and result pass through
// volatile so the compiler cannot move the arithmetic out from between the rounding-mode
// changes of with_rounding().
template <typename F>
F directed_op(Opc op, F a, F b, F c) {
  volatile F x = a, y = b, z = c;
  volatile F v;
  switch (op) {
    case Opc::Add:
      v = x + y;
      break;
    case Opc::Sub:
      v = x - y;
      break;
    case Opc::Mul:
      v = x * y;
      break;
    case Opc::Div:
      v = x / y;
      break;
    case Opc::Rcp:
      v = F(1) / x;
      break;
    case Opc::Sqrt:
      v = std::sqrt(static_cast<F>(x));
      break;
    default:
      v = std::fma(static_cast<F>(x), static_cast<F>(y), static_cast<F>(z));
      break;
  }
  return static_cast<F>(v);
}

// The correctly rounded float operations under .rz/.rm/.rp: the host's arithmetic in that
// rounding mode.
std::uint64_t arith_directed(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const int mode = fe_mode(float_round(in));
  if (in.type == Ty::F64) {
    const double r = with_rounding(
        mode, [&] { return directed_op<double>(in.op, as_f64(a), as_f64(b), as_f64(c)); });
    return from_f64(saturate(in, r));
  }
  const float r = with_rounding(
      mode, [&] { return directed_op<float>(in.op, as_f32(a), as_f32(b), as_f32(c)); });
  return canonical_f32(saturate(in, r));
}

// Integer and float arithmetic for one lane.
std::uint64_t arith(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const Ty t = in.type;
  const std::uint64_t m = mask_of(t);
  if (ptx::ty_float(t)) {
    const bool d = t == Ty::F64;
    // f64 NaN operands as sm_90 propagates them (measured): add, mul and fma give the
    // second operand's NaN (quieted) when it is one, else the first's (the host prefers
    // the first); neg and abs give the operand's NaN quieted, sign unchanged.
    if (d && (in.op == Opc::Add || in.op == Opc::Mul || in.op == Opc::Fma || in.op == Opc::Mad)) {
      if (std::isnan(as_f64(b))) return from_f64(saturate(in, as_f64(b | kQuietF64)));
      if (std::isnan(as_f64(a))) return from_f64(saturate(in, as_f64(a | kQuietF64)));
    }
    if (d && (in.op == Opc::Neg || in.op == Opc::Abs) && std::isnan(as_f64(a)))
      return a | kQuietF64;
    if (directed_round(in)) {
      switch (in.op) {
        case Opc::Add:
        case Opc::Sub:
        case Opc::Mul:
        case Opc::Div:
        case Opc::Mad:
        case Opc::Fma:
        case Opc::Rcp:
        case Opc::Sqrt:
          return arith_directed(in, a, b, c);
        default:
          break;
      }
    }
    auto F = [&](std::uint64_t x) { return d ? as_f64(x) : static_cast<double>(as_f32(x)); };
    auto out = [&](double r) { return from_f64(saturate(in, r)); };
    auto outf = [&](float r) { return canonical_f32(saturate(in, r)); };
    switch (in.op) {
      case Opc::Add:
        return d ? out(as_f64(a) + as_f64(b)) : outf(as_f32(a) + as_f32(b));
      case Opc::Sub:
        return d ? out(as_f64(a) - as_f64(b)) : outf(as_f32(a) - as_f32(b));
      case Opc::Mul:
        return d ? out(as_f64(a) * as_f64(b)) : outf(as_f32(a) * as_f32(b));
      case Opc::Div:
        return d ? out(as_f64(a) / as_f64(b)) : outf(as_f32(a) / as_f32(b));
      case Opc::Mad:
      case Opc::Fma:
        return d ? out(std::fma(as_f64(a), as_f64(b), as_f64(c)))
                 : outf(std::fma(as_f32(a), as_f32(b), as_f32(c)));
      case Opc::Min:
      case Opc::Max:
        return float_min_max(in.op == Opc::Max, d, a, b);
      // f32 abs/neg return the canonical NaN for a NaN (as measured); f64 ones flip bits.
      case Opc::Abs:
        return d ? from_f64(std::fabs(F(a))) : canonical_f32(std::fabs(as_f32(a)));
      case Opc::Neg:
        return d ? from_f64(-F(a)) : canonical_f32(-as_f32(a));
      case Opc::Rcp:
        return d ? out(1.0 / F(a)) : outf(1.0f / as_f32(a));
      case Opc::Sqrt:
        return d ? out(std::sqrt(F(a))) : outf(std::sqrt(as_f32(a)));
      case Opc::Rsqrt:
        return d ? out(1.0 / std::sqrt(F(a))) : outf(1.0f / std::sqrt(as_f32(a)));
      case Opc::Ex2:
        return d ? out(std::exp2(F(a))) : outf(std::exp2(as_f32(a)));
      case Opc::Lg2:
        return d ? out(std::log2(F(a))) : outf(std::log2(as_f32(a)));
      case Opc::Sin:
        return d ? out(std::sin(F(a))) : outf(std::sin(as_f32(a)));
      case Opc::Cos:
        return d ? out(std::cos(F(a))) : outf(std::cos(as_f32(a)));
      case Opc::Tanh:
        return d ? out(std::tanh(F(a))) : outf(std::tanh(as_f32(a)));
      case Opc::Copysign:
        return d ? from_f64(std::copysign(F(b), F(a)))
                 : from_f32(std::copysign(as_f32(b), as_f32(a)));
      default:
        return 0;
    }
  }
  const bool s = ptx::ty_signed(t);
  const int bits = ptx::ty_bytes(t) * 8;
  switch (in.op) {
    case Opc::Add:
      if ((in.flags & ptx::kFlagSat) && t == Ty::S32) {
        const std::int64_t r = sext(a, t) + sext(b, t);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & m;
      }
      return (a + b) & m;
    case Opc::Sub:
      if ((in.flags & ptx::kFlagSat) && t == Ty::S32) {
        const std::int64_t r = sext(a, t) - sext(b, t);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & m;
      }
      return (a - b) & m;
    case Opc::Mul:
    case Opc::Mad: {
      const auto mode = in.mod.mul;
      std::uint64_t r;
      if (mode == ptx::MulMode::Lo) {
        r = (a * b) & m;
        if (in.op == Opc::Mad) r = (r + c) & m;
        return r;
      }
      if (mode == ptx::MulMode::Wide) {
        const std::uint64_t wm = bits == 32 ? ~0ull : 0xFFFFFFFFull;
        r = s ? static_cast<std::uint64_t>(sext(a, t) * sext(b, t)) : (a & m) * (b & m);
        if (in.op == Opc::Mad) r += c;
        return r & wm;
      }
      // Hi
      if (bits == 64) {
        if (s)
          r = static_cast<std::uint64_t>((static_cast<i128>(static_cast<std::int64_t>(a)) *
                                          static_cast<i128>(static_cast<std::int64_t>(b))) >>
                                         64);
        else
          r = static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
      } else {
        if (s)
          r = static_cast<std::uint64_t>((sext(a, t) * sext(b, t)) >> bits);
        else
          r = ((a & m) * (b & m)) >> bits;
      }
      if (in.op == Opc::Mad) r += c;
      return r & m;
    }
    case Opc::Div:
      if ((b & m) == 0) return m;  // the GPU's all-ones result
      if (s) {
        if (sext(a, t) == (bits == 64 ? INT64_MIN : -(1ll << (bits - 1))) && sext(b, t) == -1)
          return a & m;
        return static_cast<std::uint64_t>(sext(a, t) / sext(b, t)) & m;
      }
      return ((a & m) / (b & m)) & m;
    case Opc::Rem:
      if ((b & m) == 0) return a & m;
      if (s) {
        if (sext(b, t) == -1) return 0;
        return static_cast<std::uint64_t>(sext(a, t) % sext(b, t)) & m;
      }
      return ((a & m) % (b & m)) & m;
    case Opc::Min:
      return s ? (sext(a, t) < sext(b, t) ? a : b) & m : ((a & m) < (b & m) ? a : b) & m;
    case Opc::Max:
      return s ? (sext(a, t) > sext(b, t) ? a : b) & m : ((a & m) > (b & m) ? a : b) & m;
    case Opc::Abs:
      return static_cast<std::uint64_t>(std::llabs(sext(a, t))) & m;
    case Opc::Neg:
      return (0 - a) & m;
    case Opc::And:
      return (a & b) & m;
    case Opc::Or:
      return (a | b) & m;
    case Opc::Xor:
      return (a ^ b) & m;
    case Opc::Not:
      return (~a) & m;
    case Opc::CNot:
      return (a & m) == 0 ? 1 : 0;
    case Opc::Shl:
      return (b & 0xffffffffu) >= static_cast<std::uint64_t>(bits) ? 0 : (a << b) & m;
    case Opc::Shr:
      if (s) {
        const std::uint64_t sh =
            std::min<std::uint64_t>(b & 0xffffffffu, static_cast<std::uint64_t>(bits - 1));
        return static_cast<std::uint64_t>(sext(a, t) >> sh) & m;
      }
      return (b & 0xffffffffu) >= static_cast<std::uint64_t>(bits) ? 0 : ((a & m) >> b) & m;
    case Opc::Popc:
      return static_cast<std::uint64_t>(std::popcount(a & m));
    case Opc::Clz:
      return static_cast<std::uint64_t>(
          bits == 64 ? std::countl_zero(a) : std::countl_zero(static_cast<std::uint32_t>(a)));
    case Opc::Brev: {
      std::uint64_t r = 0;
      for (int i = 0; i < bits; ++i)
        if ((a >> i) & 1) r |= 1ull << (bits - 1 - i);
      return r;
    }
    case Opc::Bfind: {
      std::uint64_t x = a & m;
      if (s && sext(a, t) < 0) x = ~x & m;
      if (x == 0) return 0xFFFFFFFFu;
      const int pos = 63 - std::countl_zero(x);
      return in.mod.shiftamt ? static_cast<std::uint64_t>(bits - 1 - pos)
                             : static_cast<std::uint64_t>(pos);
    }
    default:
      return 0;
  }
}

bool compare(ptx::Cmp c, Ty t, std::uint64_t a, std::uint64_t b) {
  if (ptx::ty_float(t)) {
    const double x = t == Ty::F64 ? as_f64(a) : as_f32(a), y = t == Ty::F64 ? as_f64(b) : as_f32(b);
    const bool nan = std::isnan(x) || std::isnan(y);
    switch (c) {
      case ptx::Cmp::Eq:
        return !nan && x == y;
      case ptx::Cmp::Ne:
        return !nan && x != y;
      case ptx::Cmp::Lt:
        return !nan && x < y;
      case ptx::Cmp::Le:
        return !nan && x <= y;
      case ptx::Cmp::Gt:
        return !nan && x > y;
      case ptx::Cmp::Ge:
        return !nan && x >= y;
      case ptx::Cmp::Equ:
        return nan || x == y;
      case ptx::Cmp::Neu:
        return nan || x != y;
      case ptx::Cmp::Ltu:
        return nan || x < y;
      case ptx::Cmp::Leu:
        return nan || x <= y;
      case ptx::Cmp::Gtu:
        return nan || x > y;
      case ptx::Cmp::Geu:
        return nan || x >= y;
      case ptx::Cmp::Num:
        return !nan;
      case ptx::Cmp::Nan:
        return nan;
      default:
        return false;
    }
  }
  const std::uint64_t m = mask_of(t);
  const bool s = ptx::ty_signed(t);
  const std::int64_t sa = sext(a, t), sb = sext(b, t);
  const std::uint64_t ua = a & m, ub = b & m;
  switch (c) {
    case ptx::Cmp::Eq:
      return ua == ub;
    case ptx::Cmp::Ne:
      return ua != ub;
    case ptx::Cmp::Lt:
      return s ? sa < sb : ua < ub;
    case ptx::Cmp::Le:
      return s ? sa <= sb : ua <= ub;
    case ptx::Cmp::Gt:
      return s ? sa > sb : ua > ub;
    case ptx::Cmp::Ge:
      return s ? sa >= sb : ua >= ub;
    case ptx::Cmp::Lo:
      return ua < ub;
    case ptx::Cmp::Ls:
      return ua <= ub;
    case ptx::Cmp::Hi:
      return ua > ub;
    case ptx::Cmp::Hs:
      return ua >= ub;
    default:
      return false;
  }
}

std::uint64_t convert(const Instr& in, std::uint64_t x) {
  const Ty d = in.type, s = in.type2;
  const auto rnd = in.mod.round;
  const bool sat = in.flags & ptx::kFlagSat;
  if (!ptx::ty_float(s) && !ptx::ty_float(d)) {
    std::uint64_t v = ptx::ty_signed(s) ? static_cast<std::uint64_t>(sext(x, s)) : (x & mask_of(s));
    if (sat) {
      const int db = ptx::ty_bytes(d) * 8;
      if (ptx::ty_signed(d)) {
        const std::int64_t lo = db == 64 ? INT64_MIN : -(1ll << (db - 1)),
                           hi = db == 64 ? INT64_MAX : (1ll << (db - 1)) - 1;
        std::int64_t sv = ptx::ty_signed(s) ? static_cast<std::int64_t>(v)
                                            : static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                  v, static_cast<std::uint64_t>(INT64_MAX)));
        v = static_cast<std::uint64_t>(std::clamp(sv, lo, hi));
      } else {
        const std::uint64_t hi = mask_of(d);
        if (ptx::ty_signed(s) && static_cast<std::int64_t>(v) < 0)
          v = 0;
        else
          v = std::min(v, hi);
      }
    }
    if (ptx::ty_signed(d)) return static_cast<std::uint64_t>(sext(v, d)) & mask_of(d);
    return v & mask_of(d);
  }
  double f;
  if (s == Ty::F32)
    f = as_f32(x);
  else if (s == Ty::F64)
    f = as_f64(x);
  else if (s == Ty::F16)
    f = half_to_float(static_cast<std::uint16_t>(x));
  else
    f = ptx::ty_signed(s) ? static_cast<double>(sext(x, s)) : static_cast<double>(x & mask_of(s));
  if (ptx::ty_float(d)) {
    if (ptx::ty_float(s) && rnd >= ptx::Round::Rni) f = round_mode(f, rnd);
    const int mode = fe_mode(rnd);  // .rn/.rz/.rm/.rp (none: to nearest)
    if (d == Ty::F16) {
      f = saturate(in, f);
      // A NaN: from f64 the sign and top payload bits are kept, from f32 the canonical
      // 0x7fff (as measured).
      if (std::isnan(f))
        return s == Ty::F64 ? ((x >> 48) & 0x8000) | 0x7e00 | ((x >> 42) & 0x3ff) : 0x7fff;
      return to_half(f, rnd);
    }
    const bool from_int = !ptx::ty_float(s);
    const bool from_signed = ptx::ty_signed(s);
    const std::uint64_t bits =
        from_signed ? static_cast<std::uint64_t>(sext(x, s)) : (x & mask_of(s));
    if (d == Ty::F32) {
      // From the exact integer or double, rounded once in the instruction's mode.
      float r = with_rounding(mode, [&] {
        volatile std::uint64_t vi = bits;
        volatile double vf = f;
        volatile float o = !from_int     ? static_cast<float>(static_cast<double>(vf))
                           : from_signed ? static_cast<float>(static_cast<std::int64_t>(vi))
                                         : static_cast<float>(static_cast<std::uint64_t>(vi));
        return static_cast<float>(o);
      });
      r = saturate(in, r);
      // NaNs from f32/f16 sources come out canonical; from f64 with their payload.
      return s == Ty::F64 ? from_f32(r) : canonical_f32(r);
    }
    double r = !from_int ? f : with_rounding(mode, [&] {
      volatile std::uint64_t vi = bits;
      volatile double o = from_signed ? static_cast<double>(static_cast<std::int64_t>(vi))
                                      : static_cast<double>(static_cast<std::uint64_t>(vi));
      return static_cast<double>(o);
    });
    return from_f64(saturate(in, r));
  }
  // float to integer: rounded, then saturated to the destination's range (NaN: 0). The
  // bounds are compared as powers of two: 2^63 and 2^64 are not below INT64_MAX/UINT64_MAX
  // as doubles, and casting them is undefined.
  const int db = ptx::ty_bytes(d) * 8;
  // A NaN gives 0 from f32/f16 into 32 bits or fewer; from f64, or into 64 bits, the
  // type's sign bit alone (0x80000000, 0x8000000000000000), as measured.
  if (std::isnan(f)) return (s == Ty::F64 || db == 64) ? (1ull << (db - 1)) : 0;
  f = round_mode(f, rnd == ptx::Round::None ? ptx::Round::Rzi : rnd);
  if (ptx::ty_signed(d)) {
    const double lim = std::ldexp(1.0, db - 1);
    if (f >= lim) return mask_of(d) >> 1;         // the largest value
    if (f <= -lim) return (mask_of(d) >> 1) + 1;  // the smallest value
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(f)) & mask_of(d);
  }
  if (f <= 0) return 0;
  if (f >= std::ldexp(1.0, db)) return mask_of(d);
  return static_cast<std::uint64_t>(f) & mask_of(d);
}

// The general interpreter: every instruction the emulator knows, lane by lane (with
// vector paths for common integer and f32 forms). Micro-ops of kind Slow come here.
void general(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, std::uint32_t active) {
  if (in.op == Opc::Trap) {
    if (exec)
      c.fail(EmuError::Kind::Trap, pc,
             in.mod.assert_fail ? "assertion failed (assert() in the kernel)"
                                : "the kernel executed trap");
    return;
  }
  if (!exec && in.op != Opc::Activemask) return;

  switch (in.op) {
    case Opc::Ld:
    case Opc::St:
      c.load_store(in, pc, w, exec);
      break;
    case Opc::Atom:
    case Opc::Red:
      c.atomic(in, pc, w, exec);
      break;
    case Opc::Mov:
      if (in.mod.mov == ptx::MovForm::Pack) {
        const int pb = ptx::ty_bytes(in.type2) * 8;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          std::uint64_t v = 0;
          for (int i = 0; i < in.nsrc; ++i)
            v |= (c.val(in.src[i], w, l) & mask_of(in.type2)) << (i * pb);
          c.set(in.dst[0], w, l, v, in.type);
        }
      } else if (in.mod.mov == ptx::MovForm::Unpack) {
        const int pb = ptx::ty_bytes(in.type2) * 8;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const std::uint64_t v = c.val(in.src[0], w, l);
          for (int i = 0; i < in.ndst; ++i) c.set(in.dst[i], w, l, v >> (i * pb), in.type2);
        }
      } else if (in.dst[0].kind == Opnd::Kind::Pred) {
        const std::uint32_t m = c.pred_mask(in.src[0], w, exec);
        std::uint32_t& p = c.P(w, in.dst[0].reg);
        p = (p & ~exec) | m;
      } else {
        for (int l = 0; l < 32; ++l)
          if ((exec >> l) & 1u) c.set(in.dst[0], w, l, c.val(in.src[0], w, l), in.type);
      }
      break;
    case Opc::Setp:
    case Opc::Set: {
      const Ty t = in.type;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        bool r = compare(in.cmp, t, c.val(in.src[0], w, l), c.val(in.src[1], w, l));
        bool r2 = !r;
        if (in.mod.boolop != ptx::BoolOp::None) {
          const bool p = c.val(in.src[2], w, l) & 1;
          if (in.mod.boolop == ptx::BoolOp::And) {
            r = r && p;
            r2 = r2 && p;
          }
          if (in.mod.boolop == ptx::BoolOp::Or) {
            r = r || p;
            r2 = r2 || p;
          }
          if (in.mod.boolop == ptx::BoolOp::Xor) {
            r = r != p;
            r2 = r2 != p;
          }
        }
        if (in.op == Opc::Setp) {
          c.set(in.dst[0], w, l, r, Ty::Pred);
          if (in.ndst > 1) c.set(in.dst[1], w, l, r2, Ty::Pred);
        } else {
          const Ty dt = in.type2;
          const std::uint64_t v =
              ptx::ty_float(dt) ? (r ? from_f32(1.0f) : 0) : (r ? mask_of(dt) : 0);
          c.set(in.dst[0], w, l, v, dt);
        }
      }
      break;
    }
    case Opc::Selp:
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u)
          c.set(in.dst[0], w, l,
                (c.val(in.src[2], w, l) & 1) ? c.val(in.src[0], w, l) : c.val(in.src[1], w, l),
                in.type);
      break;
    case Opc::Slct:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t cv = c.val(in.src[2], w, l);
        const bool ge = in.type2 == Ty::F32 ? as_f32(cv) >= 0.f : sext(cv, Ty::S32) >= 0;
        c.set(in.dst[0], w, l, ge ? c.val(in.src[0], w, l) : c.val(in.src[1], w, l), in.type);
      }
      break;
    case Opc::Cvt:
      for (int l = 0; l < 32; ++l)
        if ((exec >> l) & 1u) c.set(in.dst[0], w, l, convert(in, c.val(in.src[0], w, l)), in.type);
      break;
    case Opc::Cvta:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint64_t v = c.val(in.src[0], w, l);
        const std::uint64_t base = in.space == Space::Shared  ? ptx::kSharedWindow
                                   : in.space == Space::Local ? ptx::kLocalWindow
                                                              : 0;
        v = in.mod.to_space ? v - base : v + base;
        c.set(in.dst[0], w, l, v, in.type);
      }
      break;
    case Opc::Isspacep:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t v = c.val(in.src[0], w, l);
        const bool sh = v >= ptx::kSharedWindow && v < ptx::kSharedWindow + ptx::kWindowSize;
        const bool lo = v >= ptx::kLocalWindow && v < ptx::kLocalWindow + ptx::kWindowSize;
        const bool r = in.space == Space::Shared  ? sh
                       : in.space == Space::Local ? lo
                                                  : (!sh && !lo);
        c.set(in.dst[0], w, l, r, Ty::Pred);
      }
      break;
    case Opc::And:
    case Opc::Or:
    case Opc::Xor:
    case Opc::Not:
    case Opc::CNot:
      if (in.type == Ty::Pred) {
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const bool a = c.val(in.src[0], w, l) & 1,
                     b = in.nsrc > 1 ? (c.val(in.src[1], w, l) & 1) : false;
          const bool r = in.op == Opc::And   ? (a && b)
                         : in.op == Opc::Or  ? (a || b)
                         : in.op == Opc::Xor ? (a != b)
                                             : !a;
          c.set(in.dst[0], w, l, r, Ty::Pred);
        }
        break;
      }
      [[fallthrough]];
    case Opc::Add:
    case Opc::Sub:
    case Opc::Mul:
    case Opc::Mad:
    case Opc::Div:
    case Opc::Rem:
    case Opc::Min:
    case Opc::Max:
    case Opc::Abs:
    case Opc::Neg:
    case Opc::Shl:
    case Opc::Shr:
    case Opc::Popc:
    case Opc::Clz:
    case Opc::Brev:
    case Opc::Fma:
    case Opc::Rcp:
    case Opc::Sqrt:
    case Opc::Rsqrt:
    case Opc::Ex2:
    case Opc::Lg2:
    case Opc::Sin:
    case Opc::Cos:
    case Opc::Tanh:
    case Opc::Copysign:
    case Opc::Bfind: {
      Ty dt = in.type;
      if (in.op == Opc::Popc || in.op == Opc::Clz || in.op == Opc::Bfind) dt = Ty::U32;
      if ((in.op == Opc::Mul || in.op == Opc::Mad) && in.mod.mul == ptx::MulMode::Wide)
        dt = ptx::ty_bytes(in.type) == 4 ? Ty::U64 : Ty::U32;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t a = c.val(in.src[0], w, l);
        const std::uint64_t b = in.nsrc > 1 ? c.val(in.src[1], w, l) : 0;
        const std::uint64_t cc = in.nsrc > 2 ? c.val(in.src[2], w, l) : 0;
        c.set(in.dst[0], w, l, arith(in, a, b, cc), dt);
      }
      break;
    }
    case Opc::Bfe:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const int bits = ptx::ty_bytes(in.type) * 8;
        const std::uint64_t a = c.val(in.src[0], w, l);
        const unsigned pos = static_cast<unsigned>(c.val(in.src[1], w, l) & 0xff);
        const unsigned len = static_cast<unsigned>(c.val(in.src[2], w, l) & 0xff);
        std::uint64_t r = 0;
        const bool s = ptx::ty_signed(in.type);
        const unsigned msb = pos + len - 1;
        const bool sbit =
            s ? (len == 0 ? false
                          : ((a >> std::min<unsigned>(msb, static_cast<unsigned>(bits - 1))) & 1))
              : false;
        for (int i = 0; i < bits; ++i) {
          bool bit;
          if (static_cast<unsigned>(i) < len &&
              pos + static_cast<unsigned>(i) <= static_cast<unsigned>(bits - 1))
            bit = (a >> (pos + static_cast<unsigned>(i))) & 1;
          else
            bit = sbit;
          if (bit) r |= 1ull << i;
        }
        c.set(in.dst[0], w, l, r, in.type);
      }
      break;
    case Opc::Bfi:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const int bits = ptx::ty_bytes(in.type) * 8;
        const std::uint64_t a = c.val(in.src[0], w, l), b = c.val(in.src[1], w, l);
        const unsigned pos = static_cast<unsigned>(c.val(in.src[2], w, l) & 0xff);
        const unsigned len = static_cast<unsigned>(c.val(in.src[3], w, l) & 0xff);
        std::uint64_t r = b;
        for (unsigned i = 0; i < len && pos + i < static_cast<unsigned>(bits); ++i) {
          r &= ~(1ull << (pos + i));
          r |= ((a >> i) & 1) << (pos + i);
        }
        c.set(in.dst[0], w, l, r, in.type);
      }
      break;
    case Opc::Prmt:
      if (in.mod.funnel != ptx::Funnel::None) {  // shf.{l,r}.{wrap,clamp}.b32: {b, a} shifted
        const bool right =
            in.mod.funnel == ptx::Funnel::RightWrap || in.mod.funnel == ptx::Funnel::RightClamp;
        const bool clamp =
            in.mod.funnel == ptx::Funnel::LeftClamp || in.mod.funnel == ptx::Funnel::RightClamp;
        for (int l = 0; l < 32; ++l) {
          if (!((exec >> l) & 1u)) continue;
          const std::uint64_t ab = (c.val(in.src[0], w, l) & 0xffffffffu) |
                                   ((c.val(in.src[1], w, l) & 0xffffffffu) << 32);
          const std::uint32_t cv = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
          const std::uint32_t n = clamp ? std::min<std::uint32_t>(cv, 32) : (cv & 31);
          const std::uint64_t r = right ? (ab >> n) : ((ab << n) >> 32);
          c.set(in.dst[0], w, l, r & 0xffffffffu, Ty::B32);
        }
        break;
      }
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t bytes =
            (c.val(in.src[0], w, l) & 0xffffffffu) | ((c.val(in.src[1], w, l) & 0xffffffffu) << 32);
        const std::uint32_t sel = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
        std::uint32_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const unsigned s = (sel >> (4 * i)) & 0xf;
          std::uint32_t byte = static_cast<std::uint32_t>((bytes >> (8 * (s & 7))) & 0xff);
          if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        c.set(in.dst[0], w, l, r, Ty::B32);
      }
      break;
    case Opc::Lop3:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t a = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
        const std::uint32_t b = static_cast<std::uint32_t>(c.val(in.src[1], w, l));
        const std::uint32_t cc = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
        const std::uint32_t lut = static_cast<std::uint32_t>(c.val(in.src[3], w, l));
        std::uint32_t r = 0;
        for (int i = 0; i < 32; ++i) {
          const unsigned idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((cc >> i) & 1);
          r |= ((lut >> idx) & 1) << i;
        }
        c.set(in.dst[0], w, l, r, Ty::B32);
      }
      break;
    case Opc::Testp:
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint64_t v = c.val(in.src[0], w, l);
        const double x = in.type == Ty::F64 ? as_f64(v) : as_f32(v);
        bool r = false;
        switch (in.mod.fclass) {
          case ptx::FloatClass::Finite:
            r = std::isfinite(x);
            break;
          case ptx::FloatClass::Infinite:
            r = std::isinf(x);
            break;
          case ptx::FloatClass::Number:
            r = !std::isnan(x);
            break;
          case ptx::FloatClass::NotANumber:
            r = std::isnan(x);
            break;
          // f32 values classified as float (a subnormal float is a normal double);
          // .normal holds for zeros too (as measured): finite and not subnormal.
          case ptx::FloatClass::Normal:
            r = std::isfinite(x) &&
                (in.type == Ty::F64 ? std::fpclassify(x)
                                    : std::fpclassify(static_cast<float>(x))) != FP_SUBNORMAL;
            break;
          case ptx::FloatClass::Subnormal:
            r = (in.type == Ty::F64 ? std::fpclassify(x)
                                    : std::fpclassify(static_cast<float>(x))) == FP_SUBNORMAL;
            break;
        }
        c.set(in.dst[0], w, l, r, Ty::Pred);
      }
      break;
    case Opc::Shfl: {
      std::uint32_t vals[32];
      for (int l = 0; l < 32; ++l) vals[l] = static_cast<std::uint32_t>(c.val(in.src[0], w, l));
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        const std::uint32_t bv = static_cast<std::uint32_t>(c.val(in.src[1], w, l)) & 0x1f;
        const std::uint32_t cv = static_cast<std::uint32_t>(c.val(in.src[2], w, l));
        const std::uint32_t seg = (cv >> 8) & 0x1f, clamp = cv & 0x1f;
        const std::uint32_t lane = static_cast<std::uint32_t>(l);
        const std::uint32_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
        std::int32_t j = 0;
        bool ok = false;
        switch (in.mod.shfl) {
          case ptx::ShflMode::Up:
            j = static_cast<std::int32_t>(lane) - static_cast<std::int32_t>(bv);
            ok = j >= static_cast<std::int32_t>(max_lane);
            break;
          case ptx::ShflMode::Down:
            j = static_cast<std::int32_t>(lane + bv);
            ok = j <= static_cast<std::int32_t>(max_lane);
            break;
          case ptx::ShflMode::Bfly:
            j = static_cast<std::int32_t>(lane ^ bv);
            ok = j <= static_cast<std::int32_t>(max_lane);
            break;
          case ptx::ShflMode::Idx:
            j = static_cast<std::int32_t>(min_lane | (bv & ~seg));
            ok = j <= static_cast<std::int32_t>(max_lane);
            break;
        }
        if (!ok) j = static_cast<std::int32_t>(lane);
        c.set(in.dst[0], w, l, vals[j & 31], Ty::B32);
        if (in.ndst > 1) c.set(in.dst[1], w, l, ok, Ty::Pred);
      }
      break;
    }
    case Opc::Vote: {
      const std::uint32_t p = c.pred_mask(in.src[0], w, exec);
      const auto mode = in.mod.vote;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint64_t r = 0;
        if (mode == ptx::VoteMode::All)
          r = p == exec;
        else if (mode == ptx::VoteMode::Any)
          r = p != 0;
        else if (mode == ptx::VoteMode::Uni)
          r = p == 0 || p == exec;
        else
          r = p;
        c.set(in.dst[0], w, l, r, mode == ptx::VoteMode::Ballot ? Ty::B32 : Ty::Pred);
      }
      break;
    }
    case Opc::Match: {
      std::uint64_t vals[32];
      for (int l = 0; l < 32; ++l)
        vals[l] = (exec >> l) & 1u ? c.val(in.src[0], w, l) & mask_of(in.type) : 0;
      bool all_same = true;
      int first = std::countr_zero(exec);
      for (int l = 0; l < 32; ++l)
        if (((exec >> l) & 1u) && vals[l] != vals[first]) all_same = false;
      for (int l = 0; l < 32; ++l) {
        if (!((exec >> l) & 1u)) continue;
        std::uint32_t m = 0;
        if (in.mod.match == ptx::MatchMode::Any) {
          for (int j = 0; j < 32; ++j)
            if (((exec >> j) & 1u) && vals[j] == vals[l]) m |= 1u << j;
        } else {
          m = all_same ? exec : 0;
        }
        c.set(in.dst[0], w, l, m, Ty::B32);
        if (in.ndst > 1) c.set(in.dst[1], w, l, all_same, Ty::Pred);
      }
      break;
    }
    case Opc::Activemask:
      for (int l = 0; l < 32; ++l)
        if ((active >> l) & 1u) c.set(in.dst[0], w, l, active, Ty::B32);
      break;
    case Opc::Nop:
      break;
    default:
      c.fail(EmuError::Kind::Unsupported, pc, "instruction not supported by the emulator");
  }
}

// ---------------------------------------------------------------- micro-op handlers
// Each computes all 32 lanes into a temporary (operands may be the destination), then
// writes the executing lanes: whole-warp loops the compiler vectorizes.

using detail::K;
using detail::Uop;

constexpr std::uint64_t kLow32 = 0xFFFFFFFFull;

inline const std::uint64_t* src_lanes(const detail::Src& s, const std::uint64_t* wr) {
  return s.fixed ? s.fixed : wr + s.off;
}

[[gnu::always_inline]] inline void put(std::uint64_t* d, std::uint32_t exec,
                                       const std::uint64_t* r) {
  if (exec == 0xFFFFFFFFu) {
    std::memcpy(d, r, 32 * sizeof(std::uint64_t));
  } else {
    for (int l = 0; l < 32; ++l) d[l] = ((exec >> l) & 1u) ? r[l] : d[l];
  }
}

// Two lanes as one SSE2 register (GCC/Clang vector extension): element-wise operators
// compile to paddq, pand, psllq, ...
using V2 = std::uint64_t __attribute__((vector_size(16)));
[[gnu::always_inline]] inline V2 load2(const std::uint64_t* p) {
  V2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store2(std::uint64_t* p, V2 v) { std::memcpy(p, &v, sizeof v); }
inline V2 splat2(std::uint64_t x) { return V2{x, x}; }
// (u64)(u32)a * (u64)(u32)b per lane: pmuludq.
[[gnu::always_inline]] inline V2 mul_wide_u32(V2 a, V2 b) {
#if defined(__SSE2__)
  return reinterpret_cast<V2>(
      _mm_mul_epu32(reinterpret_cast<__m128i>(a), reinterpret_cast<__m128i>(b)));
#else
  return (a & 0xFFFFFFFFull) * (b & 0xFFFFFFFFull);
#endif
}

// f over the operands' lanes into d, two lanes at a time. With every lane executing,
// straight into d (an operand that is also the destination is read before it is written,
// pair for pair); otherwise through a temporary, keeping the idle lanes.
template <typename F>
[[gnu::always_inline]] inline void vlanes(std::uint64_t* d, std::uint32_t exec,
                                          const std::uint64_t* a, const std::uint64_t* b,
                                          const std::uint64_t* c, F f) {
  if (exec == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; l += 2) store2(d + l, f(load2(a + l), load2(b + l), load2(c + l)));
    return;
  }
  std::uint64_t r[32];
  for (int l = 0; l < 32; l += 2) store2(r + l, f(load2(a + l), load2(b + l), load2(c + l)));
  for (int l = 0; l < 32; ++l) d[l] = ((exec >> l) & 1u) ? r[l] : d[l];
}
// The same with f on one lane at a time, for operations without a vector form.
template <typename F>
[[gnu::always_inline]] inline void slanes(std::uint64_t* d, std::uint32_t exec,
                                          const std::uint64_t* a, const std::uint64_t* b,
                                          const std::uint64_t* c, F f) {
  if (exec == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) d[l] = f(a[l], b[l], c[l]);
    return;
  }
  std::uint64_t r[32];
  for (int l = 0; l < 32; ++l) r[l] = f(a[l], b[l], c[l]);
  for (int l = 0; l < 32; ++l) d[l] = ((exec >> l) & 1u) ? r[l] : d[l];
}

template <typename F>
[[gnu::always_inline]] inline void vec1(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  vlanes(wr + u.dst[0], exec, a, a, a, [f](V2 x, V2, V2) { return f(x); });
}
template <typename F>
[[gnu::always_inline]] inline void vec2(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  vlanes(wr + u.dst[0], exec, a, b, b, [f](V2 x, V2 y, V2) { return f(x, y); });
}
template <typename F>
[[gnu::always_inline]] inline void vec3(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  vlanes(wr + u.dst[0], exec, src_lanes(u.src[0], wr), src_lanes(u.src[1], wr),
         src_lanes(u.src[2], wr), f);
}
template <typename F>
[[gnu::always_inline]] inline void alu1(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  slanes(wr + u.dst[0], exec, a, a, a,
         [f](std::uint64_t x, std::uint64_t, std::uint64_t) { return f(x); });
}
template <typename F>
[[gnu::always_inline]] inline void alu2(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  slanes(wr + u.dst[0], exec, a, b, b,
         [f](std::uint64_t x, std::uint64_t y, std::uint64_t) { return f(x, y); });
}
template <typename F>
[[gnu::always_inline]] inline void alu3(const Uop& u, std::uint64_t* wr, std::uint32_t exec, F f) {
  slanes(wr + u.dst[0], exec, src_lanes(u.src[0], wr), src_lanes(u.src[1], wr),
         src_lanes(u.src[2], wr), f);
}

// 32 comparison results as a lane mask.
template <typename T, typename F>
inline std::uint32_t lane_mask(const T* x, const T* y, F f) {
  std::uint8_t v[32];
  for (int l = 0; l < 32; ++l) v[l] = f(x[l], y[l]) ? 1 : 0;
  std::uint64_t w[4];
  std::memcpy(w, v, 32);
  std::uint32_t r = 0;
  // Gathers the low bit of each byte: multiplying by this constant moves bit 8k to 56+k.
  for (int i = 0; i < 4; ++i)
    r |= static_cast<std::uint32_t>(((w[i] * 0x0102040810204080ull) >> 56) & 0xFF) << (8 * i);
  return r;
}

template <typename T>
inline std::uint32_t int_compare(ptx::Cmp c, const T* x, const T* y) {
  switch (c) {
    case ptx::Cmp::Eq:
      return lane_mask(x, y, [](T p, T q) { return p == q; });
    case ptx::Cmp::Ne:
      return lane_mask(x, y, [](T p, T q) { return p != q; });
    case ptx::Cmp::Lt:
      return lane_mask(x, y, [](T p, T q) { return p < q; });
    case ptx::Cmp::Le:
      return lane_mask(x, y, [](T p, T q) { return p <= q; });
    case ptx::Cmp::Gt:
      return lane_mask(x, y, [](T p, T q) { return p > q; });
    default:
      return lane_mask(x, y, [](T p, T q) { return p >= q; });
  }
}

// PTX float comparisons: the ordered ones are false with a NaN, the unordered (..u) true.
inline std::uint32_t float_compare(ptx::Cmp c, const float* x, const float* y) {
  using C = ptx::Cmp;
  switch (c) {
    case C::Eq:
      return lane_mask(x, y, [](float p, float q) { return p == q; });
    case C::Ne:
      return lane_mask(x, y, [](float p, float q) { return p < q || p > q; });
    case C::Lt:
      return lane_mask(x, y, [](float p, float q) { return p < q; });
    case C::Le:
      return lane_mask(x, y, [](float p, float q) { return p <= q; });
    case C::Gt:
      return lane_mask(x, y, [](float p, float q) { return p > q; });
    case C::Ge:
      return lane_mask(x, y, [](float p, float q) { return p >= q; });
    case C::Equ:
      return lane_mask(x, y, [](float p, float q) { return !(p < q || p > q); });
    case C::Neu:
      return lane_mask(x, y, [](float p, float q) { return p != q; });
    case C::Ltu:
      return lane_mask(x, y, [](float p, float q) { return !(p >= q); });
    case C::Leu:
      return lane_mask(x, y, [](float p, float q) { return !(p > q); });
    case C::Gtu:
      return lane_mask(x, y, [](float p, float q) { return !(p <= q); });
    case C::Geu:
      return lane_mask(x, y, [](float p, float q) { return !(p < q); });
    case C::Num:
      return lane_mask(x, y, [](float p, float q) { return p == p && q == q; });
    case C::Nan:
      return lane_mask(x, y, [](float p, float q) { return p != p || q != q; });
    default:
      return 0;
  }
}

void set_preds(const Uop& u, std::uint32_t* wp, std::uint32_t exec, std::uint32_t r) {
  std::uint32_t& p = wp[u.dst[0]];
  p = (p & ~exec) | (r & exec);
  if (u.dst[1] != detail::kNoDst) {
    std::uint32_t& q = wp[u.dst[1]];
    q = (q & ~exec) | (~r & exec);
  }
}

void setp(const Uop& u, std::uint64_t* wr, std::uint32_t* wp, std::uint32_t exec) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  const auto c = static_cast<ptx::Cmp>(u.aux);
  std::uint32_t r;
  switch (u.kind) {
    case K::SetpS32:
    case K::SetpU32: {
      // The low 32 bits, as signed or as unsigned values.
      std::int32_t xs[32], ys[32];
      std::uint32_t xu[32], yu[32];
      if (u.kind == K::SetpS32) {
        for (int l = 0; l < 32; ++l) {
          xs[l] = static_cast<std::int32_t>(a[l]);
          ys[l] = static_cast<std::int32_t>(b[l]);
        }
        r = int_compare(c, xs, ys);
      } else {
        for (int l = 0; l < 32; ++l) {
          xu[l] = static_cast<std::uint32_t>(a[l]);
          yu[l] = static_cast<std::uint32_t>(b[l]);
        }
        r = int_compare(c, xu, yu);
      }
      break;
    }
    case K::SetpS64:
      r = int_compare(c, reinterpret_cast<const std::int64_t*>(a),
                      reinterpret_cast<const std::int64_t*>(b));
      break;
    case K::SetpU64:
      r = int_compare(c, a, b);
      break;
    default: {  // SetpF32
      float x[32], y[32];
      for (int l = 0; l < 32; ++l) {
        x[l] = as_f32(a[l]);
        y[l] = as_f32(b[l]);
      }
      r = float_compare(c, x, y);
      break;
    }
  }
  set_preds(u, wp, exec, r);
}

// Loads one element of type T per lane into dst (sign- or zero-extended).
template <typename T>
[[gnu::always_inline]] inline void gather(std::uint64_t* dst, const std::uint8_t* base,
                                          const std::uint64_t* addrs, std::uint32_t exec) {
  if (exec == 0xFFFFFFFFu) {
#pragma GCC unroll 8
    for (int l = 0; l < 32; ++l) {
      T x;
      std::memcpy(&x, base + addrs[l], sizeof(T));
      dst[l] = static_cast<std::uint64_t>(
          static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>(x));
    }
    return;
  }
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    T x;
    std::memcpy(&x, base + addrs[l], sizeof(T));
    dst[l] = static_cast<std::uint64_t>(
        static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>(x));
  }
}
template <typename T>
[[gnu::always_inline]] inline void scatter(std::uint8_t* base, const std::uint64_t* src,
                                           const std::uint64_t* addrs, std::uint32_t exec) {
  if (exec == 0xFFFFFFFFu) {
#pragma GCC unroll 8
    for (int l = 0; l < 32; ++l) {
      const T x = static_cast<T>(src[l]);
      std::memcpy(base + addrs[l], &x, sizeof(T));
    }
    return;
  }
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const T x = static_cast<T>(src[l]);
    std::memcpy(base + addrs[l], &x, sizeof(T));
  }
}

// A shared or global load or store whose lanes all hit one known space: addresses as a
// vector, one bounds and alignment check for the warp, then plain copies; the request
// goes to the listeners with the addresses computed in place in the event. False when a
// lane is out of bounds or misaligned: the general path then reports that lane.
// Esize, Vec: the element size and count when known at compile time (0: from the uop).
// `last`: the buffer this instruction hit last (global only), so that one range check
// settles the usual access; kept per instruction, since a kernel's loads take turns
// between buffers (the matrix multiply's A and B).
template <bool Shared, bool Load, unsigned Esize, unsigned Vec>
bool memory(Ctx& c, const Uop& u, std::uint64_t* wr, int w, std::uint32_t exec,
            GlobalMemory::Buffer*& last) {
  const unsigned esize = Esize ? Esize : u.aux;
  const unsigned vec = Vec ? Vec : u.vec;
  const unsigned width = esize * vec;
  const bool emit = u.site >= 0 && c.has_listeners;
  std::uint64_t local[32];
  std::uint64_t* addrs = emit ? c.event.addr : local;
  const std::uint64_t* base = src_lanes(u.base, wr);
  const std::uint64_t off = static_cast<std::uint64_t>(u.offset);
  std::uint8_t* basep;
  std::uint64_t mis = 0;
  GlobalMemory::Buffer* b = Shared ? nullptr : last;
  // With every lane executing: the addresses and one range check against the shared
  // window or the buffer used last, in one loop the compiler vectorizes. Otherwise (or if
  // that fails) the exact scan over the executing lanes.
  bool whole = false;  // every lane inside [lo, lo + limit - width]
  const std::uint64_t lo = Shared ? 0 : (b ? b->base : 0);
  const std::uint64_t limit = Shared ? c.shared.size() : (b ? b->size : 0);
  if (exec == 0xFFFFFFFFu && limit >= width) {
    // All offsets from lo OR-ed: at most the room, then every one is (the usual case for
    // aligned accesses to an array whose size is a power of two); else the exact test.
    const std::uint64_t room = limit - width;
    const V2 offv = splat2(off - lo);
    V2 any = splat2(0);
    for (int l = 0; l < 32; l += 2) {
      const V2 rel = load2(base + l) + offv;
      store2(addrs + l, rel);
      any |= rel;
    }
    const std::uint64_t all = any[0] | any[1];
    mis = all;
    if ((all & ~std::uint64_t{width - 1}) <= room) {
      whole = true;
    } else {
      const V2 roomv = splat2(room);
      V2 outside = splat2(0);
      for (int l = 0; l < 32; l += 2) {
        const V2 rel = load2(addrs + l);
        outside |= (roomv - rel) | rel;  // the top bit: below lo, or above lo + room
      }
      whole = ((outside[0] | outside[1]) >> 63) == 0;
    }
    if (lo)
      for (int l = 0; l < 32; l += 2) store2(addrs + l, load2(addrs + l) + splat2(lo));
  } else {
    for (int l = 0; l < 32; ++l) addrs[l] = base[l] + off;
  }
  std::uint64_t hi = 0;
  if (!whole) {
    std::uint64_t min = ~0ull;
    mis = 0;
    for (int l = 0; l < 32; ++l) {
      const bool on = (exec >> l) & 1u;
      min = on && addrs[l] < min ? addrs[l] : min;
      hi = on && addrs[l] > hi ? addrs[l] : hi;
      mis |= on ? addrs[l] : 0;
    }
    if (Shared) {
      if (hi + width > c.shared.size() || hi + width < hi) return false;
    } else {
      if (!b || min < b->base || hi + width - b->base > b->size)
        b = c.mem.find(min, hi + width - min);
      if (!b) return false;
      last = b;
    }
  }
  if (mis & (width - 1)) return false;
  if constexpr (Shared) {
    basep = c.shared.data();
  } else {
    // The highest byte touched, for the report of the bytes the CTAs used: the exact
    // highest address only when some lane passes what was touched before.
    std::uint64_t seen = b->max_touched.load(std::memory_order_relaxed);
    if (seen < b->size) {
      if (whole) {
        const std::uint64_t mark = b->base + seen;  // lanes ending beyond it touch new bytes
        std::uint64_t beyond = 0;
        if (seen >= width) {
          for (int l = 0; l < 32; ++l) beyond |= (mark - width) - addrs[l];
        } else {
          beyond = 1ull << 63;
        }
        if (beyond >> 63) {
          std::uint64_t h[4] = {0, 0, 0, 0};
          for (int l = 0; l < 32; l += 4)
            for (int k = 0; k < 4; ++k) h[k] = addrs[l + k] > h[k] ? addrs[l + k] : h[k];
          hi = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
        } else {
          hi = 0;  // nothing new
        }
      }
    }
    touch(*b, hi ? hi + width - b->base : 0, Load);
    basep = b->data() - b->base;
  }
  for (unsigned v = 0; v < vec; ++v) {
    std::uint8_t* p = basep + v * esize;
    if constexpr (Load) {
      if (u.dst[v] == detail::kNoDst) continue;
      std::uint64_t* d = wr + u.dst[v];
      switch (esize | (u.sign ? 0x10 : 0)) {
        case 4:
          gather<std::uint32_t>(d, p, addrs, exec);
          break;
        case 0x14:
          gather<std::int32_t>(d, p, addrs, exec);
          break;
        case 8:
        case 0x18:
          gather<std::uint64_t>(d, p, addrs, exec);
          break;
        case 2:
          gather<std::uint16_t>(d, p, addrs, exec);
          break;
        case 0x12:
          gather<std::int16_t>(d, p, addrs, exec);
          break;
        case 1:
          gather<std::uint8_t>(d, p, addrs, exec);
          break;
        default:
          gather<std::int8_t>(d, p, addrs, exec);
          break;
      }
    } else {
      const std::uint64_t* s = src_lanes(u.src[v], wr);
      switch (esize) {
        case 4:
          scatter<std::uint32_t>(p, s, addrs, exec);
          break;
        case 8:
          scatter<std::uint64_t>(p, s, addrs, exec);
          break;
        case 2:
          scatter<std::uint16_t>(p, s, addrs, exec);
          break;
        default:
          scatter<std::uint8_t>(p, s, addrs, exec);
          break;
      }
    }
  }
  if (emit) c.emit(*u.in, w, exec, Shared ? Space::Shared : Space::Global, addrs, width);
  return true;
}

// ld/st.shared of one 32-bit word per lane with every lane executing and a constant offset
// of at least zero: the matrix multiply's and the transpose's shared accesses. One OR of
// the base lanes bounds them all (the OR is at least every lane's value), so when it and
// the offset leave the word inside the window and are multiples of 4, every lane is inside
// and aligned; the copies then read the base register directly, without an address array
// (only the listeners need one). When every base lane is equal (OR == AND: a broadcast,
// like the A tile's row in the matrix multiply) a load is one read. False when the quick
// bounds do not settle it: memory() then checks lane by lane.
template <bool Load>
[[gnu::always_inline]] inline bool shared_word(Ctx& c, const Uop& u, std::uint64_t* wr, int w) {
  if (u.offset < 0) return false;
  const std::uint64_t* base = src_lanes(u.base, wr);
  V2 any = splat2(0), all = splat2(~0ull);
  for (int l = 0; l < 32; l += 2) {
    const V2 v = load2(base + l);
    any |= v;
    all &= v;
  }
  const std::uint64_t hi = any[0] | any[1];
  const std::uint64_t off = static_cast<std::uint64_t>(u.offset);
  const std::uint64_t size = c.shared.size();
  if (((hi | off) & 3) || hi > size || off > size || hi + off + 4 > size) return false;
  std::uint8_t* const p = c.shared.data() + off;
  const bool emit = u.site >= 0 && c.has_listeners;
  if (emit)  // before a load can overwrite the base register
    for (int l = 0; l < 32; l += 2) store2(c.event.addr + l, load2(base + l) + splat2(off));
  if constexpr (Load) {
    std::uint64_t* d = wr + u.dst[0];
    if (hi == (all[0] & all[1])) {
      std::uint32_t x;
      std::memcpy(&x, p + hi, 4);
      const std::uint64_t v =
          u.sign
              ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(x)))
              : std::uint64_t{x};
      for (int l = 0; l < 32; l += 2) store2(d + l, splat2(v));
    } else if (u.sign) {
      gather<std::int32_t>(d, p, base, 0xFFFFFFFFu);
    } else {
      gather<std::uint32_t>(d, p, base, 0xFFFFFFFFu);
    }
  } else {
    scatter<std::uint32_t>(p, src_lanes(u.src[0], wr), base, 0xFFFFFFFFu);
  }
  if (emit) c.emit(*u.in, w, 0xFFFFFFFFu, Space::Shared, c.event.addr, 4);
  return true;
}

// ld.param of a fixed address: the same bytes for every lane.
bool load_param(Ctx& c, const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  const std::uint64_t a = static_cast<std::uint64_t>(u.offset);
  const unsigned size = u.aux;
  if (a + size > c.launch.params.size() || a + size < a) return false;
  std::uint64_t x = 0;
  std::memcpy(&x, c.launch.params.data() + a, size);
  if (u.sign && size < 8) {
    const unsigned shift = 64 - 8 * size;
    x = static_cast<std::uint64_t>(static_cast<std::int64_t>(x << shift) >> shift);
  }
  std::uint64_t r[32];
  for (int l = 0; l < 32; ++l) r[l] = x;
  put(wr + u.dst[0], exec, r);
  return true;
}

// Whether bit 31 is set in any lane of a or b (idle lanes included).
[[gnu::always_inline]] inline bool low_words_negative(const std::uint64_t* a,
                                                      const std::uint64_t* b) {
  V2 any = splat2(0);
  for (int l = 0; l < 32; l += 2) any |= load2(a + l) | load2(b + l);
  return ((any[0] | any[1]) & 0x80000000u) != 0;
}

// Runs one ALU micro-op (not control, not memory). False: not an ALU kind.
[[gnu::always_inline]] inline bool alu(const Uop& u, std::uint64_t* wr, std::uint32_t* wp,
                                       std::uint32_t exec) {
  using U = std::uint64_t;
  switch (u.kind) {
    case K::Mov32:
      vec1(u, wr, exec, [](V2 a) { return a & kLow32; });
      return true;
    case K::Mov64:
      vec1(u, wr, exec, [](V2 a) { return a; });
      return true;
    case K::Sext32:
      if (!low_words_negative(src_lanes(u.src[0], wr), src_lanes(u.src[0], wr))) {
        vec1(u, wr, exec, [](V2 a) { return a & kLow32; });
        return true;
      }
      alu1(u, wr, exec, [](U a) {
        return static_cast<U>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)));
      });
      return true;
    case K::Add32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return (a + b) & kLow32; });
      return true;
    case K::Add64:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a + b; });
      return true;
    case K::Sub32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return (a - b) & kLow32; });
      return true;
    case K::Sub64:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a - b; });
      return true;
    case K::And32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a & b & kLow32; });
      return true;
    case K::And64:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a & b; });
      return true;
    case K::Or32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return (a | b) & kLow32; });
      return true;
    case K::Or64:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a | b; });
      return true;
    case K::Xor32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return (a ^ b) & kLow32; });
      return true;
    case K::Xor64:
      vec2(u, wr, exec, [](V2 a, V2 b) { return a ^ b; });
      return true;
    // Shifts: the amount is the operand's low 32 bits; at or past the width, zero (or the
    // sign, for arithmetic right shifts), as PTX defines.
    // An immediate amount is one shift for the whole warp (a vector shift).
    case K::Shl32:
      if (u.src[1].fixed) {
        const U sh = u.src[1].fixed[0] & kLow32;
        const U keep = sh >= 32 ? 0 : kLow32;
        vec1(u, wr, exec, [sh, keep](V2 a) { return (a << (sh & 31)) & keep; });
        return true;
      }
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = b & kLow32;
        return sh >= 32 ? 0 : (a << sh) & kLow32;
      });
      return true;
    case K::Shl64:
      if (u.src[1].fixed) {
        const U sh = u.src[1].fixed[0] & kLow32;
        const U keep = sh >= 64 ? 0 : ~0ull;
        vec1(u, wr, exec, [sh, keep](V2 a) { return (a << (sh & 63)) & keep; });
        return true;
      }
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = b & kLow32;
        return sh >= 64 ? 0 : a << sh;
      });
      return true;
    case K::ShrU32:
      if (u.src[1].fixed) {
        const U sh = u.src[1].fixed[0] & kLow32;
        const U keep = sh >= 32 ? 0 : kLow32;
        vec1(u, wr, exec, [sh, keep](V2 a) { return ((a & kLow32) >> (sh & 31)) & keep; });
        return true;
      }
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = b & kLow32;
        return sh >= 32 ? 0 : (a & kLow32) >> sh;
      });
      return true;
    case K::ShrU64:
      if (u.src[1].fixed) {
        const U sh = u.src[1].fixed[0] & kLow32;
        const U keep = sh >= 64 ? 0 : ~0ull;
        vec1(u, wr, exec, [sh, keep](V2 a) { return (a >> (sh & 63)) & keep; });
        return true;
      }
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = b & kLow32;
        return sh >= 64 ? 0 : a >> sh;
      });
      return true;
    case K::ShrS32:
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = std::min<U>(b & kLow32, 31);
        return static_cast<U>(static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> sh));
      });
      return true;
    case K::ShrS64:
      alu2(u, wr, exec, [](U a, U b) {
        const U sh = std::min<U>(b & kLow32, 63);
        return static_cast<U>(static_cast<std::int64_t>(a) >> sh);
      });
      return true;
    // (u64)(u32)a * (u64)(u32)b: the widening multiply SSE2 has (pmuludq).
    case K::MulLo32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return mul_wide_u32(a, b) & kLow32; });
      return true;
    case K::MulLo64:
      alu2(u, wr, exec, [](U a, U b) { return a * b; });
      return true;
    case K::MadLo32:
      vec3(u, wr, exec, [](V2 a, V2 b, V2 c) { return (mul_wide_u32(a, b) + c) & kLow32; });
      return true;
    case K::MadLo64:
      alu3(u, wr, exec, [](U a, U b, U c) { return a * b + c; });
      return true;
    // Signed and unsigned agree when no operand's low word is negative (an index times an
    // element size, nearly always): then the vector forms, after one OR over the warp.
    case K::MulWideS32:
      if (!low_words_negative(src_lanes(u.src[0], wr), src_lanes(u.src[1], wr))) {
        vec2(u, wr, exec, [](V2 a, V2 b) { return mul_wide_u32(a, b); });
        return true;
      }
      alu2(u, wr, exec, [](U a, U b) {
        return static_cast<U>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) *
                              static_cast<std::int32_t>(b));
      });
      return true;
    case K::MulWideU32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return mul_wide_u32(a, b); });
      return true;
    case K::MadWideS32:
      alu3(u, wr, exec, [](U a, U b, U c) {
        return static_cast<U>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) *
                              static_cast<std::int32_t>(b)) +
               c;
      });
      return true;
    case K::MadWideU32:
      vec3(u, wr, exec, [](V2 a, V2 b, V2 c) { return mul_wide_u32(a, b) + c; });
      return true;
    case K::MulHiS32:
      alu2(u, wr, exec, [](U a, U b) {
        return static_cast<U>((static_cast<std::int64_t>(static_cast<std::int32_t>(a)) *
                               static_cast<std::int32_t>(b)) >>
                              32) &
               kLow32;
      });
      return true;
    case K::MulHiU32:
      vec2(u, wr, exec, [](V2 a, V2 b) { return mul_wide_u32(a, b) >> 32; });
      return true;
    case K::MinS32:
      alu2(u, wr, exec, [](U a, U b) {
        return (static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b) ? a : b) & kLow32;
      });
      return true;
    case K::MaxS32:
      alu2(u, wr, exec, [](U a, U b) {
        return (static_cast<std::int32_t>(a) > static_cast<std::int32_t>(b) ? a : b) & kLow32;
      });
      return true;
    case K::MinU32:
      alu2(u, wr, exec, [](U a, U b) { return std::min(a & kLow32, b & kLow32); });
      return true;
    case K::MaxU32:
      alu2(u, wr, exec, [](U a, U b) { return std::max(a & kLow32, b & kLow32); });
      return true;
    case K::MinS64:
      alu2(u, wr, exec, [](U a, U b) {
        return static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) ? a : b;
      });
      return true;
    case K::MaxS64:
      alu2(u, wr, exec, [](U a, U b) {
        return static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) ? b : a;
      });
      return true;
    case K::MinU64:
      alu2(u, wr, exec, [](U a, U b) { return std::min(a, b); });
      return true;
    case K::MaxU64:
      alu2(u, wr, exec, [](U a, U b) { return std::max(a, b); });
      return true;
    case K::Selp32:
    case K::Selp64: {
      const std::uint32_t p = wp[u.src[2].off] ^ (u.aux ? ~0u : 0u);
      const U m = u.kind == K::Selp32 ? kLow32 : ~0ull;
      const U* a = src_lanes(u.src[0], wr);
      const U* b = src_lanes(u.src[1], wr);
      U r[32];
      for (int l = 0; l < 32; ++l) r[l] = (((p >> l) & 1u) ? a[l] : b[l]) & m;
      put(wr + u.dst[0], exec, r);
      return true;
    }
    case K::SetpS32:
    case K::SetpU32:
    case K::SetpS64:
    case K::SetpU64:
    case K::SetpF32:
      setp(u, wr, wp, exec);
      return true;
    case K::AddF32:
      alu2(u, wr, exec, [](U a, U b) { return canonical_f32(as_f32(a) + as_f32(b)); });
      return true;
    case K::SubF32:
      alu2(u, wr, exec, [](U a, U b) { return canonical_f32(as_f32(a) - as_f32(b)); });
      return true;
    case K::MulF32:
      alu2(u, wr, exec, [](U a, U b) { return canonical_f32(as_f32(a) * as_f32(b)); });
      return true;
    case K::FmaF32: {
      const U* a = src_lanes(u.src[0], wr);
      const U* b = src_lanes(u.src[1], wr);
      const U* c = src_lanes(u.src[2], wr);
      if (exec == 0xFFFFFFFFu) {
        fma_f32_lanes(wr + u.dst[0], a, b, c);
        return true;
      }
      U r[32];
      fma_f32_lanes(r, a, b, c);
      put(wr + u.dst[0], exec, r);
      return true;
    }
    case K::CvtF32S32:
      alu1(u, wr, exec,
           [](U a) { return from_f32(static_cast<float>(static_cast<std::int32_t>(a))); });
      return true;
    case K::CvtF32U32:
      alu1(u, wr, exec,
           [](U a) { return from_f32(static_cast<float>(static_cast<std::uint32_t>(a))); });
      return true;
    case K::CvtF64F32:
      alu1(u, wr, exec, [](U a) { return from_f64(static_cast<double>(as_f32(a))); });
      return true;
    default:
      return false;
  }
}

}  // namespace

void Emulator::run_cta(const Launch& launch, Dim3 ctaid) {
  State& st = *state_;
  const std::uint64_t threads = launch.block.count();
  const std::uint32_t nwarps = static_cast<std::uint32_t>((threads + 31) / 32);
  // Per warp: the kernel's register slots, then tid.x, tid.y, tid.z as three more (so that
  // micro-ops read them like registers); its predicates, then one that is always true.
  const std::uint32_t kregs = st.compiled.slots;
  const std::uint32_t kpreds = std::max<std::uint32_t>(kernel_.num_preds, 1);
  const std::uint32_t nregs = kregs + 3;
  const std::uint32_t npreds = kpreds + 1;
  // Registers start undefined in PTX: keep the storage between CTAs rather than clear it.
  st.regs.resize(static_cast<std::size_t>(nwarps) * nregs * 32);
  st.preds.resize(static_cast<std::size_t>(nwarps) * npreds);
  if (st.tid_dims[0] != launch.block.x || st.tid_dims[1] != launch.block.y ||
      st.tid_dims[2] != launch.block.z) {
    for (auto& t : st.tid) t.assign(static_cast<std::size_t>(nwarps) * 32, 0);
    for (std::uint64_t t = 0; t < threads; ++t) {
      st.tid[0][t] = static_cast<std::uint32_t>(t % launch.block.x);
      st.tid[1][t] = static_cast<std::uint32_t>((t / launch.block.x) % launch.block.y);
      st.tid[2][t] =
          static_cast<std::uint32_t>(t / (std::uint64_t{launch.block.x} * launch.block.y));
    }
    st.tid_dims[0] = launch.block.x;
    st.tid_dims[1] = launch.block.y;
    st.tid_dims[2] = launch.block.z;
  }
  const bool has_extern = std::any_of(kernel_.shared.begin(), kernel_.shared.end(),
                                      [](const ptx::SharedVar& v) { return v.is_extern; });
  const std::uint64_t shared_bytes = has_extern || launch.dynamic_smem
                                         ? kernel_.dynamic_shared_offset + launch.dynamic_smem
                                         : kernel_.static_shared_bytes;
  st.shared.assign(shared_bytes, 0);
  st.local.assign(static_cast<std::size_t>(nwarps) * 32 * kernel_.local_bytes, 0);
  st.warps.resize(nwarps);
  for (std::uint32_t w = 0; w < nwarps; ++w) {
    auto& wp = st.warps[w];
    wp.stack.clear();  // keeps its capacity between CTAs
    wp.exited = 0;
    wp.at_barrier = wp.done = false;
    wp.barrier_instr = -1;
    wp.id = static_cast<int>(w);
    const std::uint64_t first = std::uint64_t{w} * 32;
    const std::uint64_t n = std::min<std::uint64_t>(32, threads - first);
    wp.lanes = n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    wp.stack.push_back({0, wp.lanes, -2});
  }
  for (std::uint32_t w = 0; w < nwarps; ++w)
    st.preds[static_cast<std::size_t>(w) * npreds + kpreds] = 0xFFFFFFFFu;
  if (st.tid_regs_for != st.regs.size() || st.tid_regs_dims[0] != st.tid_dims[0] ||
      st.tid_regs_dims[1] != st.tid_dims[1] || st.tid_regs_dims[2] != st.tid_dims[2]) {
    for (std::uint32_t w = 0; w < nwarps; ++w)
      for (std::uint32_t d = 0; d < 3; ++d) {
        std::uint64_t* r = &st.regs[(static_cast<std::size_t>(w) * nregs + kregs + d) * 32];
        for (std::size_t l = 0; l < 32; ++l) r[l] = st.tid[d][std::size_t{w} * 32 + l];
      }
    st.tid_regs_for = st.regs.size();
    std::copy(st.tid_dims, st.tid_dims + 3, st.tid_regs_dims);
  }
  const std::uint32_t cta_values[9] = {launch.block.x, launch.block.y, launch.block.z,
                                       ctaid.x,        ctaid.y,        ctaid.z,
                                       launch.grid.x,  launch.grid.y,  launch.grid.z};
  for (int i = 0; i < 9; ++i)
    for (int l = 0; l < 32; ++l) st.cta_consts[i * 32 + l] = cta_values[i];
  const std::uint64_t cta_linear =
      ctaid.x + std::uint64_t{launch.grid.x} * (ctaid.y + std::uint64_t{launch.grid.y} * ctaid.z);
  Ctx c{kernel_, memory_,  launch, ctaid,     cta_linear, listeners_, executed_, notes_,
        st.regs, st.preds, st.tid, st.shared, st.local,   nregs,      npreds,    nwarps};

  const detail::Uop* uops = st.compiled.uops.data();
  // Per instruction, the global buffer it hit last (reset per CTA: buffers may be added
  // between launches).
  st.buffer_of.assign(st.compiled.uops.size(), nullptr);
  GlobalMemory::Buffer** const buffer_of = st.buffer_of.data();
  GlobalMemory::Buffer* no_buffer = nullptr;  // shared accesses
  std::uint64_t used = 0;                     // warp instructions of this CTA (the budget)
  c.used = &used;

  // Runs the warp until it finishes or waits at a barrier. The top of the SIMT stack is
  // the lanes running and where they reconverge; straight-line code runs in the inner
  // loop without touching the stack.
  auto run_warp = [&](State::Warp& wp) {
    const int w = wp.id;
    std::uint64_t* const wr = &st.regs[static_cast<std::size_t>(w) * nregs * 32];
    std::uint32_t* const wpred = &st.preds[static_cast<std::size_t>(w) * npreds];
    // Locals, not the captured variables, in the loop: the count is written back before
    // anything that can throw or read it.
    const detail::Uop* const code = uops;
    const std::uint64_t budget = launch.budget;
    std::uint64_t n = used;
    struct Flush {
      std::uint64_t& to;
      const std::uint64_t& from;
      ~Flush() { to = from; }
    } flush{used, n};
    while (!wp.stack.empty()) {
      State::Entry& top = wp.stack.back();
      std::uint32_t active = top.mask & ~wp.exited;
      if (!active || top.pc == top.rpc) {
        wp.stack.pop_back();
        continue;
      }
      int pc = top.pc;
      const int rpc = top.rpc;
      for (;;) {
        const detail::Uop& u = code[pc];
        if (++n > budget) {
          used = n;
          c.fail(EmuError::Kind::Budget, pc,
                 fmt::format("instruction budget exceeded: {} warp instructions in one CTA (a "
                             "runaway loop?)",
                             budget));
        }
        const std::uint32_t exec = active & (wpred[u.guard] ^ u.gxor);
        if (alu(u, wr, wpred, exec)) {
          if (++pc == rpc) break;
          continue;
        }
        switch (u.kind) {
          case K::LdShared:
            if (!exec) break;
            if (u.aux == 4 && u.vec == 1 && exec == 0xFFFFFFFFu && shared_word<true>(c, u, wr, w))
              break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<true, true, 4, 1>(c, u, wr, w, exec, no_buffer)
                      : memory<true, true, 0, 0>(c, u, wr, w, exec, no_buffer))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::StShared:
            if (!exec) break;
            if (u.aux == 4 && u.vec == 1 && exec == 0xFFFFFFFFu && shared_word<false>(c, u, wr, w))
              break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<true, false, 4, 1>(c, u, wr, w, exec, no_buffer)
                      : memory<true, false, 0, 0>(c, u, wr, w, exec, no_buffer))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::LdGlobal:
            if (!exec) break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<false, true, 4, 1>(c, u, wr, w, exec, buffer_of[pc])
                      : memory<false, true, 0, 0>(c, u, wr, w, exec, buffer_of[pc]))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::StGlobal:
            if (!exec) break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<false, false, 4, 1>(c, u, wr, w, exec, buffer_of[pc])
                      : memory<false, false, 0, 0>(c, u, wr, w, exec, buffer_of[pc]))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::LdParam:
            if (!exec) break;
            if (!load_param(c, u, wr, exec)) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::Slow:
            used = n;
            general(c, *u.in, pc, w, exec, active);
            break;
          case K::Bra: {
            const std::uint32_t taken = exec, not_taken = active & ~exec;
            if (!not_taken) {
              pc = u.target;
              goto moved;
            }
            if (!taken) break;
            // Divergence: both sides run to the reconvergence point r, then the warp
            // continues together. When r is the exit (one side returns), or the entry's
            // own reconvergence point, the sides inherit the entry's point instead, so
            // code after an early return still runs once for all remaining lanes.
            const int r = u.reconv;
            int rr = r;
            if (r == -2 || r == rpc) {
              wp.stack.pop_back();
              rr = r == -2 ? rpc : r;
            } else {
              top.pc = r;
            }
            wp.stack.push_back({pc + 1, not_taken, rr});
            wp.stack.push_back({u.target, taken, rr});
            goto next_entry;
          }
          case K::Exit:
            if (!exec) break;
            wp.exited |= exec;
            top.pc = pc + 1;
            goto next_entry;
          case K::End:  // ran off the end: like ret
            wp.exited |= active;
            top.pc = pc;
            goto next_entry;
          case K::Bar:
            top.pc = pc + 1;
            if (!exec) goto next_entry;
            if (active != (wp.lanes & ~wp.exited)) {
              notes_.push_back(
                  {pc,
                   fmt::format("barrier under divergence: only lanes 0x{:08x} of warp {} reach it "
                               "(the warp's live lanes are 0x{:08x})",
                               active, w, wp.lanes & ~wp.exited)});
            }
            wp.at_barrier = true;
            wp.barrier_instr = pc;
            return;
          default:
            break;
        }
        ++pc;
      moved:
        if (pc == rpc) break;
      }
      top.pc = pc;  // reached the reconvergence point
    next_entry:;
    }
    wp.done = true;
  };

  // Run every warp to its next barrier (or its end); release the barrier when all
  // warps that have not finished wait there.
  struct Count {  // adds this CTA's instructions to executed_ however the run ends
    std::uint64_t& total;
    const std::uint64_t& used;
    ~Count() { total += used; }
  } count{executed_, used};
  while (true) {
    for (auto& wp : st.warps)
      if (!wp.done && !wp.at_barrier) run_warp(wp);
    bool any_waiting = false;
    int waiting_instr = -1;
    std::uint32_t finished = 0;
    for (auto& wp : st.warps) {
      if (wp.at_barrier) {
        any_waiting = true;
        waiting_instr = wp.barrier_instr;
      }
      if (wp.done) ++finished;
    }
    if (!any_waiting) break;
    if (finished > 0)
      notes_.push_back(
          {waiting_instr,
           fmt::format("barrier not reached by every warp: {} of {} warps exited before it",
                       finished, st.warps.size())});
    for (auto& wp : st.warps) wp.at_barrier = false;
  }
}

}  // namespace bankcheck::emu
