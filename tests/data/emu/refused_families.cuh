// A header's helper whose instruction the emulator does not run: a refusal of a kernel
// that calls it must name this file and line, not the including file's.
#pragma once

__device__ __forceinline__ unsigned long long evict_last_policy() {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}
