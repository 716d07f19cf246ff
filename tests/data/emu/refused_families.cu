// A kernel refused over three instruction families, one from a header: the refusal names
// each with its count and its first location (emu_test's EmuUnsupported.RefusalNamesEveryFamily).
#include "refused_families.cuh"

__global__ void several_families(unsigned* out, const unsigned* in) {
    const unsigned x = in[threadIdx.x];
    unsigned long long p = evict_last_policy();
    p ^= evict_last_policy();
    unsigned count;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; bar.red.popc.u32 %0, 1, 64, q; }"
                 : "=r"(count) : "r"(x));
    unsigned a, b, c;
    asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(a) : "r"(x), "r"(count), "r"(7u));
    asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(b) : "r"(a), "r"(x), "r"(5u));
    asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(c) : "r"(b), "r"(a), "r"(3u));
    out[threadIdx.x] = a + b + c + static_cast<unsigned>(p);
}
