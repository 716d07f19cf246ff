// The micro-op handlers: each runs one instruction for the whole warp (uop.hpp says how
// instructions become micro-ops). Included by emulator.cpp alone, so that the warp loop
// inlines them; their memory accesses end in the memory path of cta.hpp (emit, touch) and
// fall back to Ctx::load_store for any warp they cannot prove valid.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bankcheck/emu/lanes.hpp"
#include "cta.hpp"

namespace bankcheck::emu::detail {
namespace {

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
    // 16-byte moves: a memcpy of 256 bytes became `rep movsq`, whose start-up cost more
    // than the copy (6% of a layernorm launch).
    for (int l = 0; l < 32; l += 2) {
      std::uint64_t pair[2];
      std::memcpy(pair, r + l, sizeof pair);
      std::memcpy(d + l, pair, sizeof pair);
    }
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
  return lane_bits(v);
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

#if defined(__SSE2__)
// The low 32 bits of lanes l .. l + 3, packed (shufps moves bits; nothing is converted).
[[gnu::always_inline]] inline __m128 low4(const std::uint64_t* p) {
  return _mm_shuffle_ps(_mm_loadu_ps(reinterpret_cast<const float*>(p)),
                        _mm_loadu_ps(reinterpret_cast<const float*>(p + 2)), 0x88);
}
// 32 comparisons four lanes at a time: f(x, y) gives each lane's all-ones or zero.
template <typename F>
[[gnu::always_inline]] inline std::uint32_t mask4(const std::uint64_t* a, const std::uint64_t* b,
                                                  F f) {
  std::uint32_t r = 0;
  for (int l = 0; l < 32; l += 4)
    r |= static_cast<std::uint32_t>(_mm_movemask_ps(f(low4(a + l), low4(b + l)))) << l;
  return r;
}
// setp of 32-bit integers: signed compares (pcmpgtd), unsigned ones with both sign bits
// flipped first; int_compare()'s results.
inline std::uint32_t int_compare32(ptx::Cmp c, bool is_unsigned, const std::uint64_t* a,
                                   const std::uint64_t* b) {
  const __m128i flip = _mm_set1_epi32(is_unsigned ? static_cast<int>(0x80000000u) : 0);
  const auto I = [flip](__m128 v) { return _mm_xor_si128(_mm_castps_si128(v), flip); };
  const auto F = [](__m128i v) { return _mm_castsi128_ps(v); };
  const auto N = [](__m128i v) { return _mm_castsi128_ps(_mm_xor_si128(v, _mm_set1_epi32(-1))); };
  switch (c) {
    case ptx::Cmp::Eq:
      return mask4(a, b, [&](__m128 x, __m128 y) { return F(_mm_cmpeq_epi32(I(x), I(y))); });
    case ptx::Cmp::Ne:
      return mask4(a, b, [&](__m128 x, __m128 y) { return N(_mm_cmpeq_epi32(I(x), I(y))); });
    case ptx::Cmp::Lt:
      return mask4(a, b, [&](__m128 x, __m128 y) { return F(_mm_cmpgt_epi32(I(y), I(x))); });
    case ptx::Cmp::Le:
      return mask4(a, b, [&](__m128 x, __m128 y) { return N(_mm_cmpgt_epi32(I(x), I(y))); });
    case ptx::Cmp::Gt:
      return mask4(a, b, [&](__m128 x, __m128 y) { return F(_mm_cmpgt_epi32(I(x), I(y))); });
    default:  // Ge
      return mask4(a, b, [&](__m128 x, __m128 y) { return N(_mm_cmpgt_epi32(I(y), I(x))); });
  }
}
// setp of f32: float_compare()'s results (cmpps: the ordered forms are false with a NaN,
// the n-forms true).
inline std::uint32_t float_compare32(ptx::Cmp c, const std::uint64_t* a, const std::uint64_t* b) {
  using C = ptx::Cmp;
  switch (c) {
    case C::Eq:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpeq_ps(x, y); });
    case C::Ne:
      return mask4(a, b, [](__m128 x, __m128 y) {
        return _mm_and_ps(_mm_cmpneq_ps(x, y), _mm_cmpord_ps(x, y));
      });
    case C::Lt:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmplt_ps(x, y); });
    case C::Le:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmple_ps(x, y); });
    case C::Gt:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmplt_ps(y, x); });
    case C::Ge:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmple_ps(y, x); });
    case C::Equ:
      return mask4(a, b, [](__m128 x, __m128 y) {
        return _mm_or_ps(_mm_cmpeq_ps(x, y), _mm_cmpunord_ps(x, y));
      });
    case C::Neu:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpneq_ps(x, y); });
    case C::Ltu:  // !(x >= y)
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpnle_ps(y, x); });
    case C::Leu:  // !(x > y)
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpnlt_ps(y, x); });
    case C::Gtu:  // !(x <= y)
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpnle_ps(x, y); });
    case C::Geu:  // !(x < y)
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpnlt_ps(x, y); });
    case C::Num:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpord_ps(x, y); });
    case C::Nan:
      return mask4(a, b, [](__m128 x, __m128 y) { return _mm_cmpunord_ps(x, y); });
    default:
      return 0;
  }
}
#endif

void setp(const Uop& u, std::uint64_t* wr, std::uint32_t* wp, std::uint32_t exec) {
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  const auto c = static_cast<ptx::Cmp>(u.aux);
  std::uint32_t r;
#if defined(__SSE2__)
  if (u.kind == K::SetpS32 || u.kind == K::SetpU32) {
    set_preds(u, wp, exec, int_compare32(c, u.kind == K::SetpU32, a, b));
    return;
  }
  if (u.kind == K::SetpF32) {
    set_preds(u, wp, exec, float_compare32(c, a, b));
    return;
  }
#endif
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
bool memory(Ctx& c, const Uop& u, std::uint64_t* wr, int w, std::uint32_t exec, LastBuffer& last) {
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
  GlobalMemory::Buffer* b = Shared ? nullptr : last_buffer(last);
  // With every lane executing: the addresses and one range check against the shared
  // window or the buffer used last, in one loop the compiler vectorizes. Otherwise (or if
  // that fails) the exact scan over the executing lanes.
  bool whole = false;     // every lane inside [lo, lo + limit - width]
  bool relative = false;  // addrs holds offsets from lo, not addresses
  // One word per lane, the lanes' words in a row (every lane executing): 128 contiguous
  // bytes, copied four lanes at a time.
  constexpr bool kRow = Esize == 4 && Vec == 1;
  bool row = false;
  const std::uint64_t lo = Shared ? 0 : (b ? b->base : 0);
  const std::uint64_t limit = Shared ? c.shared.size() : (b ? b->size : 0);
  if (exec == 0xFFFFFFFFu && limit >= width) {
    // All offsets from lo OR-ed: at most the room, then every one is (the usual case for
    // aligned accesses to an array whose size is a power of two); else the exact test.
    const std::uint64_t room = limit - width;
    const V2 offv = splat2(off - lo);
    V2 any = splat2(0);
    // A row: lane l at the first lane's offset + 4 l (one word per lane; `apart` collects
    // the differences from that).
    V2 apart = splat2(0), expect = splat2(0);
    if constexpr (kRow) {
      std::uint64_t first = base[0] + off - lo;
      if constexpr (Shared) first &= 0xFFFFFFFFull;
      expect = V2{first, first + 4};
    }
    for (int l = 0; l < 32; l += 2) {
      V2 rel = load2(base + l) + offv;
      if constexpr (Shared) rel &= splat2(0xFFFFFFFFull);  // 32-bit shared addresses wrap
      store2(addrs + l, rel);
      any |= rel;
      if constexpr (kRow) {
        apart |= rel ^ expect;
        expect += splat2(8);
      }
    }
    row = kRow && (apart[0] | apart[1]) == 0;
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
    // Execute only, every lane inside: the copies read the buffer's own bytes at the
    // offsets; anything else wants the addresses.
    relative = whole && !emit && !c.footprint && !c.bookkeeping;
    if (lo && !relative)
      for (int l = 0; l < 32; l += 2) store2(addrs + l, load2(addrs + l) + splat2(lo));
  } else if constexpr (Shared) {
    for (int l = 0; l < 32; ++l) addrs[l] = static_cast<std::uint32_t>(base[l] + off);
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
      remember(last, b);
    }
  }
  if (mis & (width - 1)) return false;
  if constexpr (Shared) {
    basep = c.shared.data();
  } else {
    // The highest byte touched, for the report of the bytes the CTAs used: the exact
    // highest address only when some lane passes what was touched before.
    std::uint64_t seen = c.bookkeeping ? b->max_touched.load(std::memory_order_relaxed) : b->size;
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
    if (c.bookkeeping) touch(*b, hi ? hi + width - b->base : 0, Load);
    if (c.footprint && u.run < 0)  // a micro-op without its runs: the record cannot place it
      c.footprint->lost();
    else if (c.footprint)
      c.footprint->mark_lanes(
          c.runs[static_cast<std::size_t>(u.run) * c.nwarps + static_cast<std::size_t>(w)], *b,
          addrs, exec, width, Load ? Footprint::Access::Read : Footprint::Access::Write);
    basep = relative ? b->data() : b->data() - b->base;
  }
#if defined(__SSE2__)
  if (kRow && row && whole) {
    std::uint8_t* p = basep + addrs[0];
    const __m128i zero = _mm_setzero_si128();
    if constexpr (Load) {
      std::uint64_t* d = wr + u.dst[0];
      if (u.dst[0] != detail::kNoDst && !u.sign) {
        for (int l = 0; l < 32; l += 4) {  // zero-extended, as gather<std::uint32_t>
          const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * l));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(d + l), _mm_unpacklo_epi32(x, zero));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(d + l + 2), _mm_unpackhi_epi32(x, zero));
        }
        if (emit) c.emit(*u.in, w, exec, Shared ? Space::Shared : Space::Global, addrs, width);
        return true;
      }
    } else {
      const std::uint64_t* s = src_lanes(u.src[0], wr);
      for (int l = 0; l < 32; l += 4)  // each lane's low word, as scatter<std::uint32_t>
        _mm_storeu_ps(
            reinterpret_cast<float*>(p + 4 * l),
            _mm_shuffle_ps(_mm_loadu_ps(reinterpret_cast<const float*>(s + l)),
                           _mm_loadu_ps(reinterpret_cast<const float*>(s + l + 2)), 0x88));
      if (emit) c.emit(*u.in, w, exec, Shared ? Space::Shared : Space::Global, addrs, width);
      return true;
    }
  }
#endif
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

// The written-bytes record (written.hpp) of an ld/st.shared micro-op, before it runs (a load
// may overwrite its address register). Out of line, and called only while some shared byte
// of the CTA is unwritten: the fast forms above stay as they were. A request with a lane out
// of the window or misaligned is left to the reference path the micro-op then takes
// (load_store, through resolve()).
[[gnu::noinline]] void shared_written(Ctx& c, const Uop& u, const std::uint64_t* wr,
                                      std::uint32_t exec, bool load) {
  const unsigned width = static_cast<unsigned>(u.aux) * u.vec;
  const std::uint64_t* base = src_lanes(u.base, wr);
  std::uint64_t off = static_cast<std::uint64_t>(u.offset);
  const std::uint64_t size = c.shared.size();
  // The OR of the lanes is at least each of them and has each one's low bits: when it
  // passes, every lane is inside and aligned.
  std::uint64_t any = 0;
  if (exec == 0xFFFFFFFFu) {
    V2 v = splat2(0);
    for (int l = 0; l < 32; l += 2) v |= load2(base + l);
    any = v[0] | v[1];
  } else {
    for (std::uint32_t e = exec; e; e &= e - 1) any |= base[std::countr_zero(e)];
  }
  std::uint64_t addrs[32];
  if (((any | off) & (width - 1)) || any > size || off > size || any + off + width > size) {
    for (std::uint32_t e = exec; e; e &= e - 1) {  // lane by lane; none may fault
      const int l = std::countr_zero(e);
      const std::uint64_t a = static_cast<std::uint32_t>(base[l] + off);  // wraps (MemRef)
      if (a % width || a + width > size) return;
      addrs[l] = a;
    }
    base = addrs;
    off = 0;
  }
  if (!load)
    c.written->mark(base, off, exec, width);
  else if (c.test_reads(u.site) && !c.written->test(base, off, exec, width))
    c.read_unwritten_at(u.site);
}

// memory<>() with the element shape fixed at compile time for one 32-bit word per lane.
template <bool Shared, bool Load>
[[gnu::always_inline]] inline bool memory_shaped(Ctx& c, const Uop& u, std::uint64_t* wr, int w,
                                                 std::uint32_t exec, LastBuffer& last) {
  return u.aux == 4 && u.vec == 1 ? memory<Shared, Load, 4, 1>(c, u, wr, w, exec, last)
                                  : memory<Shared, Load, 0, 0>(c, u, wr, w, exec, last);
}

// A load or store of a known space (K::LdShared, StShared, LdGlobal, StGlobal) for the lanes
// `exec`, as the warp loop runs it and native code calls it back: a fast form, else the
// exact path (`used` set to `n` first: it may fault). `last`: the instruction's buffer used
// last (global only).
[[gnu::always_inline]] inline void memory_uop(Ctx& c, const Uop& u, int pc, std::uint64_t* wr,
                                              int w, std::uint32_t exec, LastBuffer& last,
                                              bool unwritten, std::uint64_t& used,
                                              std::uint64_t n) {
  if (!exec) return;
  const bool word = u.aux == 4 && u.vec == 1;
  bool done = false;
  switch (u.kind) {
    case K::LdShared:
    case K::StShared: {
      const bool load = u.kind == K::LdShared;
      if (unwritten) shared_written(c, u, wr, exec, load);
      if (word && exec == 0xFFFFFFFFu &&
          (load ? shared_word<true>(c, u, wr, w) : shared_word<false>(c, u, wr, w)))
        return;
      done = load ? memory_shaped<true, true>(c, u, wr, w, exec, last)
                  : memory_shaped<true, false>(c, u, wr, w, exec, last);
      break;
    }
    case K::LdGlobal:
      done = memory_shaped<false, true>(c, u, wr, w, exec, last);
      break;
    default:  // StGlobal
      done = memory_shaped<false, false>(c, u, wr, w, exec, last);
      break;
  }
  if (!done) {
    used = n;
    c.load_store(*u.in, pc, w, exec);
  }
}

// ld.param of a fixed address: the same bytes for every lane.
bool load_param(Ctx& c, const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  std::uint64_t x = 0;
  if (!param_value(u, c.launch.params, x)) return false;
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

// K::Lanes: arith() on each executing lane, as general() runs it, its operands resolved.
[[gnu::noinline]] void arith_lanes(const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  const Instr& in = *u.in;
  const std::uint64_t mask = mask_of(arith_result_type(in));
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  const std::uint64_t* c = src_lanes(u.src[2], wr);
  std::uint64_t* d = wr + u.dst[0];  // may be an operand: each lane reads before it writes
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const int l = std::countr_zero(e);
    d[l] = arith(in, a[l], b[l], c[l]) & mask;
  }
}
// K::LanesDirected: the same with the instruction's rounding mode set once for the warp;
// each lane's with_rounding() of that mode then computes as it would alone.
[[gnu::noinline]] void arith_lanes_directed(const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  const RoundingScope scope(fe_mode(u.in->mod.round));
  arith_lanes(u, wr, exec);
}
// K::CvtLanes: convert() on each executing lane.
[[gnu::noinline]] void convert_lanes(const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  const Instr& in = *u.in;
  const std::uint64_t mask = mask_of(in.type);
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  std::uint64_t* d = wr + u.dst[0];
  for (std::uint32_t e = exec; e; e &= e - 1) {
    const int l = std::countr_zero(e);
    d[l] = convert(in, a[l]) & mask;
  }
}

// K::DirectedF32: float_arith()'s add, sub, mul or fma of f32 under .rz/.rm/.rp
// (arith_directed(): directed_op() in the host's mode, then canonical_f32), with the mode set
// once for the warp. Operands and result pass through volatile as in directed_op(), so the
// compiler keeps the arithmetic between the mode's changes.
[[gnu::noinline]] void directed_f32(const Uop& u, std::uint64_t* wr, std::uint32_t exec) {
  const RoundingScope scope(fe_mode(u.in->mod.round));
  const std::uint64_t* a = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  const std::uint64_t* c = u.aux == kDirectedFma ? src_lanes(u.src[2], wr) : a;
  std::uint64_t r[32];
  for (int l = 0; l < 32; ++l) {
    volatile float x = as_f32(a[l]), y = as_f32(b[l]), z = as_f32(c[l]);
    volatile float v;
    switch (u.aux) {
      case kDirectedAdd:
        v = x + y;
        break;
      case kDirectedSub:
        v = x - y;
        break;
      case kDirectedMul:
        v = x * y;
        break;
      default:
        v = std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
        break;
    }
    r[l] = canonical_f32(v);
  }
  put(wr + u.dst[0], exec, r);
}

// K::Shfl: shfl_lanes() over the operands' lanes, as warp_op() runs it. Where the executing
// lanes share one lane operand and one clamp (__shfl_up_sync(mask, v, 1) and the like), each
// lane's source lane depends on nothing else: shfl_lanes() of the lane numbers, kept in the
// micro-op's own words (u.src[3], zeros at first: word 0 the lane and clamp they were found
// for, word 1 bit 32 set once found and the valid lanes below, words 2 to 33 the source
// lanes) until the next warp's differ. The Emulator, and so these words, belong to one thread.
[[gnu::noinline]] void shfl(const Uop& u, std::uint64_t* wr, std::uint32_t* wp,
                            std::uint32_t exec) {
  if (!exec) return;
  const std::uint64_t* v = src_lanes(u.src[0], wr);
  const std::uint64_t* b = src_lanes(u.src[1], wr);
  const std::uint64_t* c = src_lanes(u.src[2], wr);
  const int f = std::countr_zero(exec);
  std::uint64_t differ = 0;
  for (int l = 0; l < 32; ++l)
    differ |= ((exec >> l) & 1u) ? ((b[l] ^ b[f]) | (c[l] ^ c[f])) & kLow32 : 0;
  std::uint64_t r[32];
  std::uint32_t ok;
  if (!differ) {
    auto* cache = const_cast<std::uint64_t*>(u.src[3].fixed);  // NOLINT: the uop's own words
    const std::uint64_t key = (b[f] & kLow32) | (c[f] << 32);
    if (!(cache[1] >> 32) || cache[0] != key) {
      std::uint64_t lanes[32], bs[32], cs[32];
      for (int l = 0; l < 32; ++l) {
        lanes[l] = static_cast<std::uint64_t>(l);
        bs[l] = b[f];
        cs[l] = c[f];
      }
      const std::uint32_t valid = shfl_lanes(u.in->mod.shfl, 0xFFFFFFFFu, lanes, bs, cs, cache + 2);
      cache[0] = key;
      cache[1] = (std::uint64_t{1} << 32) | valid;
    }
    const std::uint64_t* from = cache + 2;
    for (int l = 0; l < 32; ++l) r[l] = static_cast<std::uint32_t>(v[from[l]]);
    ok = static_cast<std::uint32_t>(cache[1]) & exec;
  } else {
    ok = shfl_lanes(u.in->mod.shfl, exec, v, b, c, r);
  }
  put(wr + u.dst[0], exec, r);
  if (u.dst[1] != detail::kNoDst) {
    std::uint32_t& p = wp[u.dst[1]];
    p = (p & ~exec) | (ok & exec);
  }
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
    case K::MinF32:
      alu2(u, wr, exec, [](U a, U b) { return float_min_max(false, false, a, b) & kLow32; });
      return true;
    case K::MaxF32:
      alu2(u, wr, exec, [](U a, U b) { return float_min_max(true, false, a, b) & kLow32; });
      return true;
    case K::NegF32:
      alu1(u, wr, exec, [](U a) { return canonical_f32(-as_f32(a)); });
      return true;
    case K::Ex2F32:
      alu1(u, wr, exec, [](U a) { return canonical_f32(exp2_f32(as_f32(a))); });
      return true;
    case K::AbsF32:
      alu1(u, wr, exec, [](U a) { return canonical_f32(std::fabs(as_f32(a))); });
      return true;
    case K::RcpF32:
      alu1(u, wr, exec, [](U a) { return canonical_f32(1.0f / as_f32(a)); });
      return true;
    case K::CopysignF32:
      alu2(u, wr, exec, [](U a, U b) { return from_f32(std::copysign(as_f32(b), as_f32(a))); });
      return true;
    case K::DivF32:
      alu2(u, wr, exec, [](U a, U b) { return canonical_f32(as_f32(a) / as_f32(b)); });
      return true;
    case K::Not32:
      vec1(u, wr, exec, [](V2 a) { return ~a & kLow32; });
      return true;
    case K::DivS32:
      alu2(u, wr, exec, [](U a, U b) { return int_div(Ty::S32, a, b); });
      return true;
    case K::DivU32:
      alu2(u, wr, exec, [](U a, U b) { return int_div(Ty::U32, a, b); });
      return true;
    case K::RemS32:
      alu2(u, wr, exec, [](U a, U b) { return int_rem(Ty::S32, a, b); });
      return true;
    case K::RemU32:
      alu2(u, wr, exec, [](U a, U b) { return int_rem(Ty::U32, a, b); });
      return true;
    case K::Not64:
      vec1(u, wr, exec, [](V2 a) { return ~a; });
      return true;
    case K::CvtF32F32:
      // convert(): the f32 as a double and back (exact), .sat's clamp, a NaN canonical.
      if (u.aux)
        alu1(u, wr, exec, [](U a) {
          const float f = as_f32(a);
          return canonical_f32((std::isnan(f) || f <= 0.0f) ? 0.0f : std::min(f, 1.0f));
        });
      else
        alu1(u, wr, exec, [](U a) { return canonical_f32(as_f32(a)); });
      return true;
    case K::DirectedF32:
      directed_f32(u, wr, exec);
      return true;
    case K::Nop:
      return true;
    case K::PredLogic: {
      const std::uint32_t a = wp[u.src[0].off] ^ (u.aux & kPredNegA ? ~0u : 0u);
      const std::uint32_t b = wp[u.src[1].off] ^ (u.aux & kPredNegB ? ~0u : 0u);
      std::uint32_t r = a;
      switch (u.aux & 0x0F) {
        case kPredAnd:
          r = a & b;
          break;
        case kPredOr:
          r = a | b;
          break;
        case kPredXor:
          r = a ^ b;
          break;
        case kPredNot:
          r = ~a;
          break;
        default:  // kPredMov
          break;
      }
      std::uint32_t& d = wp[u.dst[0]];
      d = (d & ~exec) | (r & exec);
      return true;
    }
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
    case K::Lanes:
      arith_lanes(u, wr, exec);
      return true;
    case K::LanesDirected:
      arith_lanes_directed(u, wr, exec);
      return true;
    case K::CvtLanes:
      convert_lanes(u, wr, exec);
      return true;
    case K::Shfl:
      shfl(u, wr, wp, exec);
      return true;
    default:
      return false;
  }
}

}  // namespace
}  // namespace bankcheck::emu::detail
