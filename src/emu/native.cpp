// Native code for runs of ALU micro-ops (native.hpp): the plan (which runs, and their C++
// source), and the compiler, the disk cache and the loader.
#include "native.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "lane_values.hpp"
#include "lane_values_text.hpp"

extern char** environ;

namespace bankcheck::emu::detail {

namespace {

using ptx::Cmp;

bool host_fma();

bool is_memory(K k) {
  return k == K::LdShared || k == K::StShared || k == K::LdGlobal || k == K::StGlobal;
}
// Whether v writes predicate p.
bool writes_pred(const Uop& v, std::uint32_t p) {
  switch (v.kind) {
    case K::SetpS32:
    case K::SetpU32:
    case K::SetpS64:
    case K::SetpU64:
    case K::SetpF32:
      return v.dst[0] == p || v.dst[1] == p;
    case K::PredLogic:
      return v.dst[0] == p;
    case K::Shfl:
      return v.dst[1] == p;
    default:
      return false;
  }
}
// The kinds a run may hold: each computes lane by lane from its operands (no memory, no
// control, no host state beyond the default rounding mode); shfl.sync, which reads other
// lanes' values, and loads and stores (segments of their own: write_run). A run may go
// through ifs (plan_native) and end in a branch.
bool fusible(K k) {
  return (k >= K::Mov32 && k <= K::CvtF64F32) || per_lane_function(k) || k == K::PredLogic ||
         k == K::Nop || k == K::Shfl || is_memory(k);
}

// The C++ type of a memory micro-op's element, as gather()/scatter() of uop_run.hpp read it.
const char* element_type(const Uop& u) {
  switch (u.aux) {
    case 1:
      return u.sign ? "std::int8_t" : "std::uint8_t";
    case 2:
      return u.sign ? "std::int16_t" : "std::uint16_t";
    case 4:
      return u.sign ? "std::int32_t" : "std::uint32_t";
    default:
      return "std::uint64_t";
  }
}

int source_count(K k) {
  switch (k) {
    case K::Mov32:
    case K::Mov64:
    case K::Sext32:
    case K::CvtF32S32:
    case K::CvtF32U32:
    case K::CvtF64F32:
    case K::NegF32:
    case K::Ex2F32:
    case K::AbsF32:
    case K::RcpF32:
    case K::Not32:
    case K::Not64:
    case K::CvtF32F32:
      return 1;
    case K::MadLo32:
    case K::MadLo64:
    case K::MadWideS32:
    case K::MadWideU32:
    case K::FmaF32:
      return 3;
    case K::Nop:
    case K::PredLogic:
      return 0;
    default:
      return 2;  // Selp's third operand is a predicate
  }
}

const char* int_op(Cmp c) {
  switch (c) {
    case Cmp::Eq:
      return "==";
    case Cmp::Ne:
      return "!=";
    case Cmp::Lt:
      return "<";
    case Cmp::Le:
      return "<=";
    case Cmp::Gt:
      return ">";
    default:
      return ">=";
  }
}

// float_compare() of uop_run.hpp, over x and y.
std::string float_cmp(Cmp c, const std::string& x, const std::string& y) {
  const auto f = [&](const char* pattern) { return fmt::format(fmt::runtime(pattern), x, y); };
  switch (c) {
    case Cmp::Eq:
      return f("({0} == {1})");
    case Cmp::Ne:
      return f("({0} < {1} || {0} > {1})");
    case Cmp::Lt:
      return f("({0} < {1})");
    case Cmp::Le:
      return f("({0} <= {1})");
    case Cmp::Gt:
      return f("({0} > {1})");
    case Cmp::Ge:
      return f("({0} >= {1})");
    case Cmp::Equ:
      return f("!({0} < {1} || {0} > {1})");
    case Cmp::Neu:
      return f("({0} != {1})");
    case Cmp::Ltu:
      return f("!({0} >= {1})");
    case Cmp::Leu:
      return f("!({0} > {1})");
    case Cmp::Gtu:
      return f("!({0} <= {1})");
    case Cmp::Geu:
      return f("!({0} < {1})");
    case Cmp::Num:
      return f("({0} == {0} && {1} == {1})");
    case Cmp::Nan:
      return f("({0} != {0} || {1} != {1})");
    default:
      return "false";
  }
}

// The value each kind computes from lane values a, b, c (uint64_t), as its handler in
// uop_run.hpp does.
std::string value_of(const Uop& u, const std::string& a, const std::string& b,
                     const std::string& c) {
  const auto f = [&](const char* pattern) { return fmt::format(fmt::runtime(pattern), a, b, c); };
  switch (u.kind) {
    case K::Mov32:
      return f("({0} & M32)");
    case K::Mov64:
      return a;
    case K::Sext32:
      return f("(U)(std::int64_t)(std::int32_t){0}");
    case K::Add32:
      return f("(({0} + {1}) & M32)");
    case K::Add64:
      return f("({0} + {1})");
    case K::Sub32:
      return f("(({0} - {1}) & M32)");
    case K::Sub64:
      return f("({0} - {1})");
    case K::And32:
      return f("({0} & {1} & M32)");
    case K::And64:
      return f("({0} & {1})");
    case K::Or32:
      return f("(({0} | {1}) & M32)");
    case K::Or64:
      return f("({0} | {1})");
    case K::Xor32:
      return f("(({0} ^ {1}) & M32)");
    case K::Xor64:
      return f("({0} ^ {1})");
    case K::Shl32:
      return f("shl32({0}, {1})");
    case K::Shl64:
      return f("shl64({0}, {1})");
    case K::ShrU32:
      return f("shru32({0}, {1})");
    case K::ShrU64:
      return f("shru64({0}, {1})");
    case K::ShrS32:
      return f("shrs32({0}, {1})");
    case K::ShrS64:
      return f("shrs64({0}, {1})");
    case K::MulLo32:
      return f("((({0} & M32) * ({1} & M32)) & M32)");
    case K::MulLo64:
      return f("({0} * {1})");
    case K::MadLo32:
      return f("((({0} & M32) * ({1} & M32) + {2}) & M32)");
    case K::MadLo64:
      return f("({0} * {1} + {2})");
    case K::MulWideS32:
      return f("(U)((std::int64_t)(std::int32_t){0} * (std::int32_t){1})");
    case K::MulWideU32:
      return f("(({0} & M32) * ({1} & M32))");
    case K::MadWideS32:
      return f("((U)((std::int64_t)(std::int32_t){0} * (std::int32_t){1}) + {2})");
    case K::MadWideU32:
      return f("(({0} & M32) * ({1} & M32) + {2})");
    case K::MulHiS32:
      return f("((U)(((std::int64_t)(std::int32_t){0} * (std::int32_t){1}) >> 32) & M32)");
    case K::MulHiU32:
      return f("((({0} & M32) * ({1} & M32)) >> 32)");
    case K::MinS32:
      return f("(((std::int32_t){0} < (std::int32_t){1} ? {0} : {1}) & M32)");
    case K::MaxS32:
      return f("(((std::int32_t){0} > (std::int32_t){1} ? {0} : {1}) & M32)");
    case K::MinU32:
      return f("(({0} & M32) < ({1} & M32) ? ({0} & M32) : ({1} & M32))");
    case K::MaxU32:
      return f("(({0} & M32) < ({1} & M32) ? ({1} & M32) : ({0} & M32))");
    case K::MinS64:
      return f("((std::int64_t){0} < (std::int64_t){1} ? {0} : {1})");
    case K::MaxS64:
      return f("((std::int64_t){0} < (std::int64_t){1} ? {1} : {0})");
    case K::MinU64:
      return f("({0} < {1} ? {0} : {1})");
    case K::MaxU64:
      return f("({0} < {1} ? {1} : {0})");
    case K::MinF32:
      return f("(float_min_max(false, false, {0}, {1}) & M32)");
    case K::MaxF32:
      return f("(float_min_max(true, false, {0}, {1}) & M32)");
    case K::NegF32:
      return f("canonical_f32(-as_f32({0}))");
    case K::Ex2F32:
      return f("canonical_f32(exp2_f32(as_f32({0})))");
    case K::AbsF32:
      return f("canonical_f32(std::fabs(as_f32({0})))");
    case K::RcpF32:
      return f("canonical_f32(1.0f / as_f32({0}))");
    case K::CopysignF32:
      return f("from_f32(std::copysign(as_f32({1}), as_f32({0})))");
    case K::DivF32:
      return f("canonical_f32(as_f32({0}) / as_f32({1}))");
    case K::Not32:
      return f("(~{0} & M32)");
    case K::Not64:
      return f("(~{0})");
    case K::CvtF32F32:
      return u.aux ? f("sat_f32({0})") : f("canonical_f32(as_f32({0}))");
    case K::AddF32:
      return f("canonical_f32(as_f32({0}) + as_f32({1}))");
    case K::SubF32:
      return f("canonical_f32(as_f32({0}) - as_f32({1}))");
    case K::MulF32:
      return f("canonical_f32(as_f32({0}) * as_f32({1}))");
    case K::FmaF32:
      return f("canonical_f32(fma_f32(as_f32({0}), as_f32({1}), as_f32({2})))");
    case K::CvtF32S32:
      return f("from_f32((float)(std::int32_t){0})");
    case K::CvtF32U32:
      return f("from_f32((float)(std::uint32_t){0})");
    case K::CvtF64F32:
      return f("from_f64((double)as_f32({0}))");
    case K::DivS32:
      return f("div_s32_value({0}, {1})");
    case K::DivU32:
      return f("div_u32_value({0}, {1})");
    case K::RemS32:
      return f("rem_s32_value({0}, {1})");
    case K::RemU32:
      return f("rem_u32_value({0}, {1})");
    case K::DirectedF32: {
      const ptx::Round r = u.in->mod.round;
      const int mode = r == ptx::Round::Rz   ? kDirectedRz
                       : r == ptx::Round::Rm ? kDirectedRm
                                             : kDirectedRp;
      return fmt::format("directed_f32_value({}, {}, as_f32({}), as_f32({}), as_f32({}))",
                         int{u.aux}, mode, a, b, u.aux == kDirectedFma ? c : a);
    }
    default:
      return "0";
  }
}

// What the generated source defines before the runs: the per-lane functions of
// lane_values.hpp, and the shifts, .sat and fma of the handlers.
const char* const kHelpers = R"(
namespace {
using U = std::uint64_t;
constexpr U M32 = 0xFFFFFFFFull;
inline U shl32(U a, U b) { const U s = b & M32; return s >= 32 ? 0 : (a << (s & 31)) & M32; }
inline U shl64(U a, U b) { const U s = b & M32; return s >= 64 ? 0 : a << (s & 63); }
inline U shru32(U a, U b) { const U s = b & M32; return s >= 32 ? 0 : (a & M32) >> (s & 31); }
inline U shru64(U a, U b) { const U s = b & M32; return s >= 64 ? 0 : a >> (s & 63); }
inline U shrs32(U a, U b) {
  const U s = (b & M32) < 31 ? (b & M32) : 31;
  return (U)(std::uint32_t)((std::int32_t)a >> s);
}
inline U shrs64(U a, U b) {
  const U s = (b & M32) < 63 ? (b & M32) : 63;
  return (U)((std::int64_t)a >> s);
}
inline U sat_f32(U a) {
  const float f = as_f32(a);
  return canonical_f32((std::isnan(f) || f <= 0.0f) ? 0.0f : (f < 1.0f ? f : 1.0f));
}
#if defined(__x86_64__)
// A directed segment's rounding mode (mode: 1 rz, 2 rm, 3 rp), set in MXCSR, and restored;
// the memory clobbers keep the loop's loads after the change and its stores before the
// restore, and so its arithmetic between them.
inline unsigned bcn_round(int mode) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr((csr & ~0x6000u) | (mode == 1 ? 0x6000u : mode == 2 ? 0x2000u : 0x4000u));
  asm volatile("" ::: "memory");
  return csr;
}
inline void bcn_round_restore(unsigned csr) {
  asm volatile("" ::: "memory");
  _mm_setcsr(csr);
}
#endif
#if defined(__FMA__)
inline float fma_f32(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
#else
inline float fma_f32(float a, float b, float c) { return fma_round_to_odd(a, b, c); }
#endif
// Loads and stores in place (SegmentWriter::memory), as memory() of uop_run.hpp runs them:
// `Vec` elements of T per lane at the base lanes' addresses + off (shared: 32-bit, wrapping),
// for the lanes `ex`, in the window `w` (the buffer the instruction used last, or the CTA's
// shared memory). False, with nothing done, unless `plain` (nothing records the accesses),
// there is a window and every executing lane is inside it and aligned: the warp loop's own
// code then runs it. One check for the warp: the executing lanes' offsets OR-ed are at least
// each of them (aligned: inside when the OR is), else the exact test; a row (of words or of
// vectors) is one copy, one address for every lane one element, one lane that lane alone.
// Out of line: one copy per element shape, not per instruction.
template <typename T, bool Shared, unsigned Vec>
__attribute__((always_inline)) inline bool lanes_inside(const U* base, U off, std::uint32_t ex,
                                                        const NativeWindow& w, bool plain,
                  U* e, bool& row, bool& one) {
  constexpr U width = sizeof(T) * Vec;
  if (!plain || !w.data || w.size < width) return false;
  const U lo = w.lo, room = w.size - width;
  const U first = (Shared ? ((base[0] + off) & M32) : base[0] + off) - lo;
  // The common case first, with less to check: every lane running, at consecutive
  // addresses (a float4 row too) from an aligned first one, the whole row inside (e[0]
  // alone set).
  if (ex == 0xFFFFFFFFu && w.size >= 32 * width) {
    U apart = 0, same = 0;
    for (int l = 0; l < 32; ++l) {
      const U a = (Shared ? ((base[l] + off) & M32) : base[l] + off) - lo;
      apart |= a ^ (first + width * (U)l);
      same |= a ^ first;
    }
    if (((first + lo) & (width - 1)) == 0) {
      if (apart == 0 && first <= w.size - 32 * width) {
        e[0] = first;
        row = true;
        return true;
      }
      // Every lane at one address (a row's mean, a block's offset): one element.
      if (same == 0 && first <= room) {
        e[0] = first;
        one = true;
        return true;
      }
    }
  }
  if (ex && (ex & (ex - 1)) == 0) {  // one lane (`if (lane == 31) totals[warp] = x;`)
    const int l = __builtin_ctz(ex);
    const U a = Shared ? ((base[l] + off) & M32) : base[l] + off;
    e[l] = a - lo;
    return (a & (width - 1)) == 0 && e[l] <= room;
  }
  U any = 0, mis = 0, apart = 0;
  for (int l = 0; l < 32; ++l) {
    const U on = 0 - (U)((ex >> l) & 1u);
    const U a = Shared ? ((base[l] + off) & M32) : base[l] + off;
    e[l] = a - lo;
    any |= e[l] & on;
    mis |= a & on;
    apart |= e[l] ^ (first + width * (U)l);
  }
  if (mis & (width - 1)) return false;
  if ((any & ~(width - 1)) > room) {
    U out = 0;
    for (int l = 0; l < 32; ++l) out |= (U)(e[l] > room) & (U)((ex >> l) & 1u);
    if (out) return false;
  }
  row = ex == 0xFFFFFFFFu && apart == 0;
  return true;
}
template <typename T, bool Shared, unsigned Vec>
__attribute__((noinline)) bool load_lanes(U* R, const U* base, U off, std::uint32_t ex,
                                          const NativeWindow& w, bool plain,
                                          const std::uint32_t* dst) {
  using Wide = typename std::conditional<std::is_signed<T>::value, std::int64_t, U>::type;
  U e[32];
  bool row = false, one = false;
  if (!lanes_inside<T, Shared, Vec>(base, off, ex, w, plain, e, row, one)) return false;
  if (!ex) return true;
  if (one || row) {
    const std::uint8_t* p = w.data + e[0];
    for (unsigned v = 0; v < Vec; ++v) {
      if (dst[v] == 0xFFFFFFFFu) continue;
      U* d = R + dst[v];
      if (one) {
        T x;
        std::memcpy(&x, p + sizeof(T) * v, sizeof x);
        for (int l = 0; l < 32; ++l) d[l] = (U)(Wide)x;
        continue;
      }
      for (int l = 0; l < 32; ++l) {
        T x;
        std::memcpy(&x, p + sizeof(T) * (Vec * l + v), sizeof x);
        d[l] = (U)(Wide)x;
      }
    }
    return true;
  }
  for (unsigned v = 0; v < Vec; ++v) {
    if (dst[v] == 0xFFFFFFFFu) continue;
    U* d = R + dst[v];
    if (ex == 0xFFFFFFFFu) {  // a full warp's gather: no lane to skip
      for (int l = 0; l < 32; ++l) {
        // The next line of each lane's: a column walk (one lane per row, rows apart) reads
        // it 64 / sizeof(T) instructions later, too many streams for the host's prefetcher.
        __builtin_prefetch(w.data + e[l] + 64);
        T x;
        std::memcpy(&x, w.data + e[l] + sizeof(T) * v, sizeof x);
        d[l] = (U)(Wide)x;
      }
      continue;
    }
    for (std::uint32_t m = ex; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      T x;
      std::memcpy(&x, w.data + e[l] + sizeof(T) * v, sizeof x);
      d[l] = (U)(Wide)x;
    }
  }
  return true;
}
template <typename T, bool Shared, unsigned Vec>
__attribute__((noinline)) bool store_lanes(U* R, const U* base, U off, std::uint32_t ex,
                                           const NativeWindow& w, bool plain,
                                           const U* const* src) {
  (void)R;
  U e[32];
  bool row = false, one = false;
  if (!lanes_inside<T, Shared, Vec>(base, off, ex, w, plain, e, row, one)) return false;
  if (!ex) return true;
  if (one || row) {
    std::uint8_t* p = w.data + e[0];
    for (unsigned v = 0; v < Vec; ++v) {
      if (one) {  // of lanes at one address, the last wins
        const T x = static_cast<T>(src[v][31]);
        std::memcpy(p + sizeof(T) * v, &x, sizeof x);
        continue;
      }
      // The row's lanes through restrict pointers: read through src[v] each time (a store
      // might have changed it), the copy stayed scalar.
      const U* __restrict s = src[v];
      std::uint8_t* __restrict q = p;
      for (int l = 0; l < 32; ++l) {
        const T x = static_cast<T>(s[l]);
        std::memcpy(q + sizeof(T) * (Vec * l + v), &x, sizeof x);
      }
    }
    return true;
  }
  for (std::uint32_t m = ex; m; m &= m - 1) {  // lane by lane: of two at one address, the last
    const int l = __builtin_ctz(m);            // wins
    __builtin_prefetch(w.data + e[l] + 64, 1);  // as load_lanes' gather
    for (unsigned v = 0; v < Vec; ++v) {
      const T x = static_cast<T>(src[v][l]);
      std::memcpy(w.data + e[l] + sizeof(T) * v, &x, sizeof x);
    }
  }
  return true;
}
}  // namespace
)";

// One segment of a run: a loop over the lanes that reads the registers and predicates from
// R and P and writes back what it changed, so that the next segment finds them there.
class SegmentWriter {
 public:
  // `live`: an expression of the lanes that run (empty: `active`, all of them when Full).
  SegmentWriter(const Compiled& c, std::uint32_t num_preds,
                std::vector<const std::uint64_t*>& fixed, std::string live = {})
      : c_(c), num_preds_(num_preds), fixed_(fixed), live_(std::move(live)) {}

  // Micro-ops that compute lane by lane, as one loop.
  std::string ops(const std::vector<Uop>& u, std::uint32_t first, std::uint32_t len) {
    end_ = first + len;
    for (std::uint32_t k = 0; k < len; ++k) op(u[first + k], k);
    return block("", "");
  }

  // shfl.sync (K::Shfl, as shfl() of uop_run.hpp): each lane's source lane from its lane and
  // clamp operands (shfl_source), then the value there, written after every lane has read.
  std::string shfl(const Uop& v) {
    const std::string x = exec(v, 0);
    const std::string b = src(v.src[1]), c = src(v.src[2]);
    const std::string vals = v.src[0].fixed ? fmt::format("f{}", fixed_index(v.src[0].fixed))
                                            : fmt::format("(R + {})", v.src[0].off);
    body_ << "    bool ok;\n    const int j = shfl_source("
          << int{static_cast<std::uint8_t>(v.in->mod.shfl)}
          << ", static_cast<std::uint32_t>(l), static_cast<std::uint32_t>(" << b
          << "), static_cast<std::uint32_t>(" << c << "), ok);\n"
          << "    out[l] = " << x << " ? static_cast<U>(static_cast<std::uint32_t>(" << vals
          << "[j])) : R[" << v.dst[0] << " + l];\n";
    if (v.dst[1] != kNoDst) set_pred(v.dst[1], "ok", 0, "", x);
    return block("    U out[32];\n",
                 fmt::format("    for (int l = 0; l < 32; ++l) R[{} + l] = out[l];\n", v.dst[0]));
  }

  // ex2 (K::Ex2F32) at `pc`, alone: exp2_f32_common over the lanes, a loop that vectorizes,
  // then exp2f itself for the lanes it leaves (exp2_f32 of lane_values.hpp, as the micro-ops
  // run it), from their operands kept aside (the result may be written over one). A lane
  // that does not run it computes on zero, which the common case decides.
  std::string ex2(const Uop& v, std::uint32_t pc) {
    end_ = pc + 1;
    const std::string x = exec(v, 0);
    const std::string a = quiet(src(v.src[0]), x);  // its register read first, then xin
    body_ << "    xin[l] = as_f32(" << a << ");\n"
          << "    float e;\n    left[l] = !exp2_f32_common(xin[l], e);\n";
    set_reg(v.dst[0], "canonical_f32(e)", v, 0, x);
    return block("    float xin[32];\n    std::uint8_t left[32];\n",
                 fmt::format("    for (std::uint32_t m = lane_bits(left); m; m &= m - 1) {{\n"
                             "      const int l = __builtin_ctz(m);\n"
                             "      R[{} + l] = canonical_f32(std::exp2(xin[l]));\n"
                             "    }}\n",
                             v.dst[0]));
  }

  // A directed f32 add, sub, mul or fma (K::DirectedF32) at `pc`, alone, where host_fma():
  // the host's own arithmetic with MXCSR's rounding mode set around the loop (bcn_round),
  // as directed_f32() of uop_run.hpp runs it with the host's rounding mode, rather than
  // directed_f32_value's rounding to odd in double (expf's fma.rm).
  std::string directed(const Uop& v, std::uint32_t pc) {
    end_ = pc + 1;
    literals_ = false;  // read from memory, after the mode's change
    const std::string x = exec(v, 0);
    const std::string a = "as_f32(" + quiet(src(v.src[0]), x) + ")",
                      b = "as_f32(" + quiet(src(v.src[1]), x) + ")";
    std::string value;
    switch (v.aux) {
      case kDirectedAdd:
        value = a + " + " + b;
        break;
      case kDirectedSub:
        value = a + " - " + b;
        break;
      case kDirectedMul:
        value = a + " * " + b;
        break;
      default:
        value = "fma_f32(" + a + ", " + b + ", as_f32(" + quiet(src(v.src[2]), x) + "))";
        break;
    }
    set_reg(v.dst[0], "canonical_f32(" + value + ")", v, 0, x);
    const ptx::Round r = v.in->mod.round;
    const int mode = r == ptx::Round::Rz   ? kDirectedRz
                     : r == ptx::Round::Rm ? kDirectedRm
                                           : kDirectedRp;
    return block(fmt::format("    const unsigned csr = bcn_round({});\n", mode),
                 "    bcn_round_restore(csr);\n");
  }

  // A load or store (K::LdShared .. K::StGlobal, as memory() of uop_run.hpp) for the lanes
  // `exec` (an expression): in place (load_lanes, store_lanes of kHelpers), else `slow`, the
  // warp loop's own code, called back, which also finds the buffer for the next time.
  std::string memory(const Uop& v, std::uint32_t pc, const std::string& exec,
                     const std::string& slow) {
    const bool shared = v.kind == K::LdShared || v.kind == K::StShared;
    const bool load = v.kind == K::LdShared || v.kind == K::LdGlobal;
    const auto lanes = [&](const Src& s) {
      return s.fixed ? fmt::format("f{}", fixed_index(s.fixed)) : fmt::format("(R + {})", s.off);
    };
    std::string each;  // the destinations' offsets (kNoDst: none), or the sources' lanes
    for (unsigned e = 0; e < v.vec; ++e)
      each += (e ? ", " : "") + (load ? fmt::format("{}u", v.dst[e]) : lanes(v.src[e]));
    return fmt::format(
        "  {{\n    {0} each[] = {{{1}}};\n"
        "    if (!{2}<{3}, {4}, {5}>(R, {6}, 0x{7:x}ull, {8}, {9}, ctx->plain, each)) {10}\n  }}\n",
        load ? "const std::uint32_t" : "const U* const", each, load ? "load_lanes" : "store_lanes",
        element_type(v), shared ? "true" : "false", int{v.vec}, lanes(v.base),
        static_cast<std::uint64_t>(v.offset), exec,
        shared ? std::string("ctx->shared") : fmt::format("ctx->windows[{}]", pc), slow);
  }

 private:
  // The segment: `before` the loop, the loop, the write-back, `after`.
  std::string block(const std::string& before, const std::string& after) {
    std::ostringstream o;
    o << "  {\n" << before;
    for (std::uint32_t p : preds_read_)
      o << "    const std::uint32_t p" << p << " = P[" << p << "];\n";
    for (std::uint32_t p : preds_written_) o << "    std::uint8_t q" << p << "[32];\n";
    o << "    for (int l = 0; l < 32; ++l) {\n"
      << (live_.empty() ? std::string("    const bool act = Full || ((active >> l) & 1u);\n")
                        : "    const bool act = ((" + live_ + " >> l) & 1u) != 0;\n")
      << "    (void)act;\n"
      << body_.str();
    // What no instruction from here on reads (a temporary of the segment) stays unwritten.
    for (const auto& [off, var] : reg_)
      if (written_.count(off) && (end_ == kNoEnd || c_.live_in(end_, off / 32)))
        o << "    R[" << off << " + l] = " << var << ";\n";
    for (std::uint32_t p : preds_written_) o << "    q" << p << "[l] = " << pred_[p] << ";\n";
    o << "    }\n" << after;
    for (std::uint32_t p : preds_written_) o << "    P[" << p << "] = lane_bits(q" << p << ");\n";
    o << "  }\n";
    return o.str();
  }
  std::size_t fixed_index(const std::uint64_t* f) {
    std::size_t i = 0;
    while (i < fixed_.size() && fixed_[i] != f) ++i;
    if (i == fixed_.size()) fixed_.push_back(f);
    return i;
  }

  // The lane value of a source operand. A fixed one is a constant of the code (a literal,
  // which the compiler folds: a shift by 2 needs no range check), a value of the launch or
  // the CTA the same in every lane (read once, outside the loop), %laneid, or a shfl's
  // cache (lane by lane).
  std::string src(const Src& s) {
    if (!s.fixed) return reg(s.off);
    const std::uint64_t* const imm = c_.imm.data();
    const bool in_imm = s.fixed >= imm && s.fixed < imm + c_.imm.size();
    if (literals_ && in_imm && (s.fixed - imm) % 32 == 0 && c_.literal[(s.fixed - imm) / 32])
      return fmt::format("U{{0x{:x}ull}}", *s.fixed);
    if (s.fixed == c_.laneid) return "static_cast<U>(l)";
    const bool uniform =
        !in_imm || c_.literal[(s.fixed - imm) / 32] ||
        std::any_of(c_.params.begin(), c_.params.end(),
                    [&](const Compiled::ParamRead& p) { return p.lanes == s.fixed; });
    const std::size_t i = fixed_index(s.fixed);
    return uniform ? fmt::format("f{}[0]", i) : fmt::format("f{}[l]", i);
  }
  std::string reg(std::uint32_t off) {
    auto it = reg_.find(off);
    if (it != reg_.end()) return it->second;
    const std::string v = fmt::format("r{}", off);
    body_ << "    const U " << v << " = R[" << off << " + l];\n";
    reg_[off] = v;
    return v;
  }
  // The lane's bit of predicate p, as the run has left it so far.
  std::string pred(std::uint32_t p) {
    if (p == num_preds_) return "true";
    auto it = pred_.find(p);
    if (it != pred_.end()) return it->second;
    preds_read_.insert(p);
    return fmt::format("(((p{} >> l) & 1u) != 0)", p);
  }
  // Whether micro-op k runs on this lane: the lane active and its guard.
  std::string exec(const Uop& v, std::uint32_t k) {
    std::string g = pred(v.guard);
    if (v.guard != num_preds_ && v.gxor) g = "!" + g;
    body_ << "    const bool x" << k << " = act && " << g << ";\n";
    return fmt::format("x{}", k);
  }
  bool always(const Uop& v) const { return v.guard == num_preds_; }
  // Float arithmetic the host may take a microcode assist for on a denormal operand (a
  // hundred cycles and more a lane): a lane that does not run it (a partial warp, a guard,
  // an if's other lanes) holds whatever its slot last held, often an integer whose bits are
  // a denormal float, and computes on zero instead. (rstd_kernel's `if (tid == 0)` took 3 us
  // a CTA dividing 31 such lanes.)
  static bool denormal_stalls(K k) {
    return k == K::AddF32 || k == K::SubF32 || k == K::MulF32 || k == K::FmaF32 || k == K::DivF32 ||
           k == K::RcpF32 || k == K::Ex2F32 || k == K::CvtF32F32 || k == K::CvtF64F32 ||
           k == K::DirectedF32;
  }
  // As a mask, not a select: GCC 12 left a loop of an if's lanes scalar ("no vectype") when
  // a select of a select fed another (the softmaxes' expf: sub, mul, fma, cvt.sat).
  static std::string quiet(const std::string& operand, const std::string& x) {
    return operand == "0" ? operand : fmt::format("({} & (U{{0}} - (U){}))", operand, x);
  }

  // The register's new lane value: the result where the micro-op runs (x), else the old.
  void set_reg(std::uint32_t off, const std::string& value, const Uop& v, std::uint32_t k,
               const std::string& x) {
    const std::string t = fmt::format("t{}", k), now = fmt::format("v{}", k);
    body_ << "    const U " << t << " = " << value << ";\n";
    const std::string old = reg(off);
    body_ << "    const U " << now << " = (" << (live_.empty() ? "Full" : "false") << " && "
          << (always(v) ? "true" : "false") << ") || " << x << " ? " << t << " : " << old << ";\n";
    reg_[off] = now;
    written_.insert(off);
  }
  void set_pred(std::uint32_t p, const std::string& cond, std::uint32_t k, const char* suffix,
                const std::string& x) {
    const std::string old = pred(p);
    const std::string now = fmt::format("c{}{}", k, suffix);
    body_ << "    const bool " << now << " = " << x << " ? (" << cond << ") : " << old << ";\n";
    pred_[p] = now;
    preds_written_.insert(p);
  }

  void op(const Uop& v, std::uint32_t k) {
    if (v.kind == K::Nop) return;
    // Whether it runs, from the predicates as the micro-ops before it left them.
    const std::string x = exec(v, k);
    if (v.kind == K::PredLogic) {
      std::string a = pred(v.src[0].off), b = "false";
      if (v.aux & kPredNegA) a = "!" + a;
      const int o = v.aux & 0x0F;
      if (o == kPredAnd || o == kPredOr || o == kPredXor) {
        b = pred(v.src[1].off);
        if (v.aux & kPredNegB) b = "!" + b;
      }
      std::string r;
      switch (o) {
        case kPredAnd:
          r = a + " && " + b;
          break;
        case kPredOr:
          r = a + " || " + b;
          break;
        case kPredXor:
          r = a + " != " + b;
          break;
        case kPredNot:
          r = "!" + a;
          break;
        default:
          r = a;
          break;
      }
      // The operands are read before the result is written (one may be the result).
      const std::string t = fmt::format("l{}", k);
      body_ << "    const bool " << t << " = " << r << ";\n";
      set_pred(v.dst[0], t, k, "", x);
      return;
    }
    const int n = v.kind == K::DirectedF32 && v.aux == kDirectedFma ? 3 : source_count(v.kind);
    // GCC 12 leaves a lane loop scalar when a directed fma's two other operands are both
    // literals (expf's `fma.rm`): those read the values as uniform ones.
    literals_ = v.kind != K::DirectedF32;
    std::string a = n > 0 ? src(v.src[0]) : "0", b = n > 1 ? src(v.src[1]) : "0",
                c = n > 2 ? src(v.src[2]) : "0";
    if (denormal_stalls(v.kind)) {
      a = quiet(a, x);
      b = quiet(b, x);
      c = quiet(c, x);
    }
    switch (v.kind) {
      case K::SetpS32:
      case K::SetpU32:
      case K::SetpS64:
      case K::SetpU64:
      case K::SetpF32: {
        const auto cmp = static_cast<Cmp>(v.aux);
        std::string cond;
        if (v.kind == K::SetpF32) {
          cond = float_cmp(cmp, "as_f32(" + a + ")", "as_f32(" + b + ")");
        } else {
          const char* t = v.kind == K::SetpS32   ? "(std::int32_t)"
                          : v.kind == K::SetpU32 ? "(std::uint32_t)"
                          : v.kind == K::SetpS64 ? "(std::int64_t)"
                                                 : "(U)";
          cond = fmt::format("{}{} {} {}{}", t, a, int_op(cmp), t, b);
        }
        const std::string t = fmt::format("s{}", k);
        body_ << "    const bool " << t << " = " << cond << ";\n";
        set_pred(v.dst[0], t, k, "a", x);
        if (v.dst[1] != kNoDst) set_pred(v.dst[1], "!" + t, k, "b", x);
        return;
      }
      case K::Selp32:
      case K::Selp64: {
        std::string p = pred(v.src[2].off);
        if (v.aux) p = "!" + p;
        set_reg(
            v.dst[0],
            fmt::format("(({} ? {} : {}) & {})", p, a, b, v.kind == K::Selp32 ? "M32" : "~0ull"), v,
            k, x);
        return;
      }
      default:
        set_reg(v.dst[0], value_of(v, a, b, c), v, k, x);
        return;
    }
  }

  static constexpr std::uint32_t kNoEnd = ~0u;
  const Compiled& c_;
  std::uint32_t end_ = kNoEnd;  // ops(): the instruction after the segment
  bool literals_ = true;
  std::uint32_t num_preds_;
  std::vector<const std::uint64_t*>& fixed_;
  std::string live_;
  std::ostringstream body_;
  std::map<std::uint32_t, std::string> reg_;   // register offset -> its lane value now
  std::map<std::uint32_t, std::string> pred_;  // predicate -> its lane bit now
  std::set<std::uint32_t> written_, preds_read_, preds_written_;
};

// A run's function: its segments in order, a shfl, an ex2 and a load or store each alone (a
// loop that reads other lanes' values; a loop that leaves some lanes to exp2f,
// SegmentWriter::ex2; the warp's addresses checked at once, SegmentWriter::memory), the branch of
// each if it goes through (the segments up to its target run for the lanes that do not
// jump), then its branch, if it ends in one: a warp that takes it as one goes on, back to
// the run's start without leaving (a loop) while the budget allows and the entry does not
// reconverge there; a warp that splits returns to the warp loop at the branch.
std::string write_run(const Compiled& c, const std::vector<Uop>& u, std::uint32_t first,
                      std::uint32_t len, std::uint32_t num_preds, std::size_t index,
                      std::vector<const std::uint64_t*>& fixed) {
  const auto mask_of = [&](const Uop& v) {
    return v.guard == num_preds ? std::string("mask")
                                : fmt::format("(mask & (P[{}] ^ 0x{:x}u))", v.guard, v.gxor);
  };
  std::string body;
  std::uint32_t from = first;
  const std::uint32_t end = first + len;
  const bool branch = u[end - 1].kind == K::Bra;
  const std::uint32_t stop = branch ? end - 1 : end;
  // Inside an if (a branch forward over micro-ops, plan_native): the lanes that run them.
  std::string live;
  std::uint32_t closes_at = 0;
  const auto exec_of = [&](const Uop& v) {
    const std::string m = live.empty() ? std::string("mask") : live;
    return v.guard == num_preds ? m : fmt::format("({} & (P[{}] ^ 0x{:x}u))", m, v.guard, v.gxor);
  };
  for (std::uint32_t k = first; k <= stop; ++k) {
    const K kind = k < stop ? u[k].kind : K::End;
    const bool memory = is_memory(kind);
    const bool directed = kind == K::DirectedF32 && host_fma();
    const bool alone = kind == K::Shfl || kind == K::Ex2F32 || memory || kind == K::Bra || directed;
    const bool closes = closes_at != 0 && k == closes_at;
    if (k < stop && !alone && !closes) continue;
    if (k > from) body += SegmentWriter(c, num_preds, fixed, live).ops(u, from, k - from);
    from = k;
    if (closes) {
      body += fmt::format("  skip_{}:;\n", k);
      live.clear();
      closes_at = 0;
    }
    if (k == stop || !alone) continue;
    from = k + 1;
    if (kind == K::Shfl) body += SegmentWriter(c, num_preds, fixed, live).shfl(u[k]);
    if (kind == K::Ex2F32) body += SegmentWriter(c, num_preds, fixed, live).ex2(u[k], k);
    if (directed) body += SegmentWriter(c, num_preds, fixed, live).directed(u[k], k);
    if (memory)
      body += SegmentWriter(c, num_preds, fixed, live)
                  .memory(u[k], k, exec_of(u[k]),
                          fmt::format("ctx->memory(ctx->env, {}, {}, n - {});", k, exec_of(u[k]),
                                      end - k - 1));
    if (kind == K::Bra) {
      // An if: the lanes that do not take it run the micro-ops up to its target, which is
      // also where it reconverges; when none does, they are skipped, and not counted. Where
      // the warp's own entry reconverges there, the warp loop runs the branch.
      const std::uint32_t t = static_cast<std::uint32_t>(u[k].target);
      body += fmt::format(
          "  const std::uint32_t live{0} = mask & ~(P[{1}] ^ 0x{2:x}u);\n"
          "  if (ctx->rpc == {3}) {{ ctx->n = n - {4}; return {0}; }}\n"
          "  if (live{0} == 0) {{ n -= {5}; goto skip_{3}; }}\n",
          k, u[k].guard, u[k].gxor, t, end - k, t - k - 1);
      live = fmt::format("live{}", k);
      closes_at = t;
    }
  }
  if (branch) {
    const Uop& b = u[end - 1];
    const std::uint32_t pc = end - 1;
    body += fmt::format(
        "  {{\n    const std::uint32_t taken = {};\n"
        "    if (taken == mask) {{\n",
        mask_of(b));
    if (b.target == static_cast<std::int32_t>(first))
      body += fmt::format(
          "      if (ctx->rpc != {0} && n + {1} <= ctx->budget) {{ n += {1}; goto top; }}\n", first,
          len);
    body += fmt::format(
        "      ctx->n = n;\n      return {};\n    }}\n"
        "    if (taken == 0) {{ ctx->n = n; return {}; }}\n"
        "    ctx->n = n - 1;\n    return {};\n  }}\n",
        b.target, pc + 1, pc);
  } else {
    body += fmt::format("  ctx->n = n;\n  return {};\n", end);
  }
  std::ostringstream o;
  o << "template <bool Full>\ninline std::int32_t run_" << index
    << "(U* __restrict R, std::uint32_t* __restrict P, std::uint32_t active, "
       "const U* const* __restrict F, NativeCtx* ctx) {\n";
  for (std::size_t i = 0; i < fixed.size(); ++i)
    o << "  const U* __restrict f" << i << " = F[" << i << "];\n";
  o << "  const std::uint32_t mask = Full ? 0xFFFFFFFFu : active;\n"
    << "  (void)mask;\n  std::uint64_t n = ctx->n + " << len << ";\n"
    << "top:\n"
    << body << "}\n";
  return o.str();
}

// Process-wide: loaded code (null: its compilation failed) by its file, and the failures.
std::mutex g_mutex;
std::uint64_t g_failures = 0;
std::map<std::string, void*>& loaded() {
  static std::map<std::string, void*> m;
  return m;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string cache_dir() {
  std::string base;
  if (const char* d = std::getenv("BANKCHECK_CACHE_DIR"); d && *d) {
    base = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    base = std::string(x) + "/bankcheck";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    base = std::string(h) + "/.cache/bankcheck";
  } else {
    return {};
  }
  return base + "/native";
}

bool make_dirs(const std::string& path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    const std::string p = path.substr(0, i);
    if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

// The host C++ compiler: $BANKCHECK_CXX, else the one bankcheck was built with, else c++.
std::string compiler() {
  if (const char* c = std::getenv("BANKCHECK_CXX"); c && *c) return c;
#ifdef BANKCHECK_HOST_CXX
  if (::access(BANKCHECK_HOST_CXX, X_OK) == 0) return BANKCHECK_HOST_CXX;
#endif
  return "c++";
}

// Whether the generated code is compiled for x86 with FMA (flags()): then a directed f32
// operation runs on the host's own arithmetic under MXCSR's rounding mode
// (SegmentWriter::directed).
bool host_fma() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

// The ISA extensions beyond AVX2 and FMA the CPU has: AVX-512's forms of 256-bit vectors
// (x86-64-v4's set: 64-bit lanes compare into mask registers, select with masks and multiply
// without emulation), BMI and the bit counts. The lane loops run in fewer instructions (part 2a of
// bench/run/throughput.sh on an Intel Xeon: 3.69x to 3.97x today's). The vector width stays
// the compiler's choice. Each is asked of the CPU the code will run on, and the flags are part
// of the cache's key, so code kept for one CPU is not loaded on one without them.
std::vector<const char*> host_extensions() {
  std::vector<const char*> f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd"))
    f = {"-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq", "-mavx512cd"};
  if (__builtin_cpu_supports("bmi")) f.push_back("-mbmi");
  if (__builtin_cpu_supports("bmi2")) f.push_back("-mbmi2");
  if (__builtin_cpu_supports("popcnt")) f.push_back("-mpopcnt");
#endif
  return f;
}

// -ffp-contract=off: no fused multiply-add the micro-ops do not do; -fno-trapping-math lets
// the compiler compute both sides of a select (nothing reads the floating-point flags).
const std::vector<std::string>& flags() {
  static const std::vector<std::string> f = [] {
    std::vector<std::string> v = {"-O3",
                                  "-std=c++17",
                                  "-fPIC",
                                  "-shared",
                                  "-w",
                                  "-ffp-contract=off",
                                  "-fno-trapping-math",
                                  "-fno-exceptions",
                                  "-fvisibility=hidden"};
    if (host_fma()) {
      v.push_back("-mavx2");
      v.push_back("-mfma");
      for (const char* f : host_extensions()) v.push_back(f);
    }
    return v;
  }();
  return f;
}

// Runs the compiler with the environment less what bankcheck run sets for the program.
bool run_compiler(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("LD_PRELOAD=", 0) == 0 || s.rfind("BANKCHECK_", 0) == 0 ||
        s.rfind("CUDA_INJECTION64_PATH=", 0) == 0 || s.rfind("NVTX_INJECTION64_PATH=", 0) == 0)
      continue;
    env.push_back(s);
  }
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return false;
  int status = 0;
  pid_t w;
  do {
    w = ::waitpid(pid, &status, 0);
  } while (w < 0 && errno == EINTR);
  if (w < 0) return true;  // reaped elsewhere (SIGCHLD ignored): the output decides
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::uint64_t key_of(const std::string& source) {
  std::string key = compiler();
  for (const auto& f : flags()) key += " " + f;
  const std::uint64_t h = fnv1a(source, fnv1a(key));
  return h ? h : 1;
}

std::map<std::uint64_t, std::uint64_t>& work() {
  static std::map<std::uint64_t, std::uint64_t> m;
  return m;
}

// The loaded library for `source` (hash `h`): from this process, from the disk cache, or,
// with `compile`, compiled now.
void* load(const std::string& source, std::uint64_t h, std::uint64_t after, std::string* why) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string dir = cache_dir();
  if (dir.empty()) {
    if (why) *why = "no cache directory (set BANKCHECK_CACHE_DIR)";
    return nullptr;
  }
  const std::string so = fmt::format("{}/{:016x}.so", dir, h);
  auto it = loaded().find(so);
  if (it != loaded().end()) return it->second;
  if (::access(so.c_str(), R_OK) == 0) {
    void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      loaded()[so] = lib;
      return lib;
    }
  }
  if (work()[h] < after) return nullptr;  // not yet worth compiling
  void* lib = nullptr;
  const std::string tmp = fmt::format("{}/{:016x}.{}", dir, h, ::getpid());
  if (!make_dirs(dir)) {
    if (why) *why = "cannot make " + dir;
  } else if (!(std::ofstream(tmp + ".cpp") << source)) {
    if (why) *why = "cannot write " + tmp + ".cpp";
  } else {
    const std::string cxx = compiler();
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), flags().begin(), flags().end());
    argv.insert(argv.end(), {"-o", tmp + ".so", tmp + ".cpp"});
    if (run_compiler(argv, tmp + ".log") && ::access((tmp + ".so").c_str(), R_OK) == 0 &&
        std::rename((tmp + ".so").c_str(), so.c_str()) == 0) {
      std::remove((tmp + ".cpp").c_str());
      std::remove((tmp + ".log").c_str());
      lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib && why) *why = fmt::format("cannot load {}: {}", so, ::dlerror());
    } else {
      std::remove((tmp + ".so").c_str());
      if (why) *why = fmt::format("{} failed: {}.log", cxx, tmp);
    }
  }
  loaded()[so] = lib;  // compiled or failed: once per process
  if (!lib) {
    ++g_failures;
    // Said once: the launches run, interpreted, and give the same results.
    static bool said = false;
    if (!said && why)
      std::fprintf(stderr,
                   "bankcheck: no native code (%s): launches not analysed are interpreted\n",
                   why->c_str());
    said = true;
  }
  return lib;
}

}  // namespace

NativePlan plan_native(const Compiled& c, std::uint32_t num_preds) {
  NativePlan plan;
  const std::vector<Uop> u = forwarded_uops(c);
  const std::size_t n = u.size();
  // Where control may enter other than from the instruction before.
  std::vector<bool> entry(n + 1, false);
  for (const Uop& v : u) {
    if (v.kind != K::Bra) continue;
    if (v.target >= 0) entry[static_cast<std::size_t>(v.target)] = true;
    if (v.reconv >= 0) entry[static_cast<std::size_t>(v.reconv)] = true;
  }
  std::ostringstream src, entries;
  std::size_t i = 0;
  while (i < n) {
    if (!fusible(u[i].kind)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    for (;;) {
      while (j < n && fusible(u[j].kind) && !entry[j]) ++j;
      // An if, which the run goes through: a guarded branch forward over micro-ops it may
      // hold, that no other control flow enters or leaves, reconverging at its target; none
      // of them may change the branch's predicate.
      if (j >= n || u[j].kind != K::Bra || entry[j] || u[j].guard == num_preds ||
          u[j].target <= static_cast<std::int32_t>(j) || u[j].reconv != u[j].target ||
          static_cast<std::size_t>(u[j].target) >= n)
        break;
      const std::size_t t = static_cast<std::size_t>(u[j].target);
      bool inside = true;
      for (std::size_t k = j + 1; k < t && inside; ++k)
        inside = fusible(u[k].kind) && !entry[k] && !writes_pred(u[k], u[j].guard);
      if (!inside) break;
      j = t;
      if (j < n && fusible(u[j].kind)) ++j;  // past the target, which the if enters
    }
    if (j < n && u[j].kind == K::Bra && !entry[j]) ++j;  // the branch that ends it
    std::size_t work = 0;
    for (std::size_t k = i; k < j; ++k) work += u[k].kind != K::Nop;
    if (work >= 2) {
      const std::size_t index = plan.first.size();
      plan.first.push_back(static_cast<std::uint32_t>(i));
      plan.len.push_back(static_cast<std::uint32_t>(j - i));
      plan.fixed.emplace_back();
      src << write_run(c, u, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i),
                       num_preds, index, plan.fixed.back());
      for (const char* form : {"full", "some"})
        entries << "extern \"C\" __attribute__((visibility(\"default\"))) std::int32_t bcn_" << form
                << "_" << index
                << "(U* R, std::uint32_t* P, std::uint32_t a, const U* const* F, NativeCtx* c) "
                   "{ return run_"
                << index << (form[0] == 'f' ? "<true>" : "<false>") << "(R, P, a, F, c); }\n";
    }
    i = j;
  }
  if (plan.first.empty()) return plan;
  plan.source =
      std::string(
          "// bankcheck: native code for runs of micro-ops (src/emu/native.cpp)\n"
          "#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <type_traits>\n"
          "#if defined(__x86_64__)\n#include <xmmintrin.h>\n#endif\n"
          "namespace {\n") +
      kLaneValuesText + "\n" + kNativeAbiText +
      "\n}  // namespace\nusing namespace bankcheck::emu::detail;\n" + kHelpers + "namespace {\n" +
      src.str();
  plan.source += "}  // namespace\n" + entries.str();
  return plan;
}

}  // namespace bankcheck::emu::detail

namespace bankcheck::emu {
std::shared_ptr<detail::NativeMemo> make_native_memo() {
  return std::make_shared<detail::NativeMemo>();
}
std::uint64_t native_code_failures() {
  std::lock_guard<std::mutex> lock(detail::g_mutex);
  return detail::g_failures;
}
}  // namespace bankcheck::emu

namespace bankcheck::emu::detail {

void note_native_work(std::uint64_t key, std::uint64_t instructions) {
  if (!key) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  work()[key] += instructions;
}

namespace {

// The operand `op` of micro-op `v` (0 to 3: its sources, 4: its base).
const Src& operand(const Uop& v, std::uint8_t op) { return op < 4 ? v.src[op] : v.base; }

// Where each of a run's fixed operands is read: the first operand of the run's micro-ops
// (`u`, from `first`, `len` of them) that points at it. False when one is read elsewhere.
bool locate_fixed(const std::vector<Uop>& u, std::uint32_t first, std::uint32_t len,
                  const std::vector<const std::uint64_t*>& fixed,
                  std::vector<std::pair<std::uint32_t, std::uint8_t>>& at) {
  for (const std::uint64_t* f : fixed) {
    bool found = false;
    for (std::uint32_t k = first; k < first + len && !found; ++k)
      for (std::uint8_t op = 0; op < 5 && !found; ++op)
        if (operand(u[k], op).fixed == f) {
          at.emplace_back(k, op);
          found = true;
        }
    if (!found) return false;
  }
  return true;
}

}  // namespace

bool make_native(Compiled& c, std::uint32_t num_preds, std::uint64_t after, std::string* why,
                 NativeMemo* memo) {
  NativeMemo fresh;
  NativeMemo& m = memo ? *memo : fresh;
  std::lock_guard<std::mutex> lock(m.m);
  std::vector<std::vector<const std::uint64_t*>> fixed;
  if (!m.planned) {
    NativePlan plan = plan_native(c, num_preds);
    m.planned = true;
    m.source = std::move(plan.source);
    m.first = std::move(plan.first);
    m.len = std::move(plan.len);
    m.key = m.first.empty() ? 0 : key_of(m.source);
    const std::vector<Uop> u = forwarded_uops(c);
    bool located = true;
    for (std::size_t i = 0; i < m.first.size() && located; ++i)
      located = locate_fixed(u, m.first[i], m.len[i], plan.fixed[i], m.fixed_at.emplace_back());
    if (!located) m.fixed_at.clear();  // each emulator's own pointers, found by planning again
    fixed = std::move(plan.fixed);
  } else if (!m.first.empty()) {
    if (m.fixed_at.size() == m.first.size()) {
      const std::vector<Uop> u = forwarded_uops(c);
      for (const auto& places : m.fixed_at) {
        auto& f = fixed.emplace_back();
        for (const auto& [k, op] : places) f.push_back(operand(u[k], op).fixed);
      }
    } else {
      fixed = plan_native(c, num_preds).fixed;
    }
  }
  if (m.first.empty()) return false;
  c.native_key = m.key;
  if (!m.lib) {
    if (const char* e = std::getenv("BANKCHECK_NATIVE_AFTER"); e && *e)
      after = std::strtoull(e, nullptr, 10);
    std::string failed;
    m.lib = load(m.source, m.key, after, why ? why : &failed);
    if (!m.lib) return false;
  }
  std::vector<NativeRun> runs(m.first.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].full =
        reinterpret_cast<NativeFn>(::dlsym(m.lib, fmt::format("bcn_full_{}", i).c_str()));
    runs[i].some =
        reinterpret_cast<NativeFn>(::dlsym(m.lib, fmt::format("bcn_some_{}", i).c_str()));
    if (!runs[i].full || !runs[i].some) {
      if (why) *why = fmt::format("native code without its run {}", i);
      return false;
    }
    runs[i].len = m.len[i];
    runs[i].fixed = std::move(fixed[i]);
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    Uop& u = c.uops[m.first[i]];
    runs[i].first = u;
    u.kind = K::Native;
    u.target = static_cast<std::int32_t>(i);
  }
  c.natives = std::move(runs);
  return true;
}

}  // namespace bankcheck::emu::detail
