// Warp-wide float kernels whose fastest form depends on the host CPU: chosen once at run
// time, every form exact (the result the GPU computes), so the binary runs on any x86-64.
#pragma once

#include <cstdint>

namespace bankcheck::emu {

// fma.rn.f32 for 32 lanes: out[l] = a[l] * b[l] + c[l] rounded once to nearest even, each
// operand the low 32 bits of its slot, a NaN result the canonical 0x7fffffff (as sm_90
// gives it), zero-extended into 64 bits. `out` may be one of the operands.
void fma_f32_lanes(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                   const std::uint64_t* c);

namespace detail {
// The forms behind fma_f32_lanes, for tests: without hardware FMA (the product exact in
// double, the sum rounded to odd, then to float: Boldo and Melquiond's double rounding
// that is exact for 53 >= 2 * 24 + 2 bits), and with it (false when the CPU lacks it).
void fma_f32_lanes_portable(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                            const std::uint64_t* c);
bool fma_f32_lanes_hardware(std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b,
                            const std::uint64_t* c);
}  // namespace detail

}  // namespace bankcheck::emu
