// The emulator's mma.sync throughput (bench/emu_bench.cpp, BM_MmaSync): each warp runs
// 256 iterations of 8 m16n8k16 f16 x f16 + f32 multiply-accumulates on fragments from its
// input (no shared memory, so the figure is the instruction's own cost).
// nvcc -ptx -arch=sm_90 -lineinfo -o bench/data/mma.ptx bench/data/mma.cu
#include <cstdint>

__global__ void mma_loop(const uint32_t *in, float *out) {
    const int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = in[(warp * 32 + lane) * 6 + i];
    for (int i = 0; i < 2; ++i) b[i] = in[(warp * 32 + lane) * 6 + 4 + i];
    float d[8][4] = {};
#pragma unroll 1
    for (int it = 0; it < 256; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0;
    for (int j = 0; j < 8; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[warp * 32 + lane] = s;
}
