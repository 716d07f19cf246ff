// The host-dependent warp kernels of lanes.hpp: a portable form for every x86-64 and one
// compiled for AVX2+FMA, picked by what the CPU reports.
#include "bankcheck/emu/lanes.hpp"

#include <cmath>
#include <cstring>

#include "lane_values.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bankcheck::emu {

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BANKCHECK_HAVE_FMA_CLONE 1
// Eight lanes' low 32 bits as eight floats, in the order 0 1 4 5 | 2 3 6 7 (one shufps
// of the two 256-bit halves); every operand in the same order, so the arithmetic is
// lane for lane, and unpacking against zero puts the lanes back (see fma_avx2).
__attribute__((target("avx2,fma"))) inline __m256 pack8(const std::uint64_t* p) {
  return _mm256_shuffle_ps(_mm256_loadu_ps(reinterpret_cast<const float*>(p)),
                           _mm256_loadu_ps(reinterpret_cast<const float*>(p + 4)), 0x88);
}
// Eight lanes at a time: all of a group's operands are read before its results are
// written, so `out` may be an operand.
__attribute__((target("avx2,fma"))) void fma_avx2(std::uint64_t* out, const std::uint64_t* a,
                                                  const std::uint64_t* b, const std::uint64_t* c) {
  const __m256 canonical_nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256i zero = _mm256_setzero_si256();
  for (int l = 0; l < 32; l += 8) {
    __m256 r = _mm256_fmadd_ps(pack8(a + l), pack8(b + l), pack8(c + l));
    r = _mm256_blendv_ps(canonical_nan, r, _mm256_cmp_ps(r, r, _CMP_ORD_Q));
    const __m256i bits = _mm256_castps_si256(r);  // lanes 0 1 4 5 | 2 3 6 7
    // Per 128-bit half, interleaving with zeros: lanes 0 1 | 2 3, then 4 5 | 6 7.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l), _mm256_unpacklo_epi32(bits, zero));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l + 4), _mm256_unpackhi_epi32(bits, zero));
  }
}
bool cpu_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
bool cpu_has_fma() { return false; }
#endif

using FmaLanes = void (*)(std::uint64_t*, const std::uint64_t*, const std::uint64_t*,
                          const std::uint64_t*);
FmaLanes pick_fma() {
#ifdef BANKCHECK_HAVE_FMA_CLONE
  if (cpu_has_fma()) return fma_avx2;
#endif
  return detail::fma_f32_lanes_portable;
}
}  // namespace

void fma_f32_lanes(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                   const std::uint64_t* c) {
  static const FmaLanes fma_lanes = pick_fma();
  fma_lanes(out, a, b, c);
}

namespace detail {

void fma_f32_lanes_portable(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                            const std::uint64_t* c) {
  for (int l = 0; l < 32; ++l)
    out[l] = canonical_f32(fma_round_to_odd(as_f32(a[l]), as_f32(b[l]), as_f32(c[l])));
}

bool fma_f32_lanes_hardware(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                            const std::uint64_t* c) {
#ifdef BANKCHECK_HAVE_FMA_CLONE
  if (!cpu_has_fma()) return false;
  fma_avx2(out, a, b, c);
  return true;
#else
  (void)out, (void)a, (void)b, (void)c;
  return false;
#endif
}

}  // namespace detail

}  // namespace bankcheck::emu
