// Warp reductions (redux.sync, sm_80+): __reduce_*_sync. (Named for when redux.sync was
// not emulated; emu_test's EmuWarp.ReduxSync checks it.)
typedef unsigned int u32;

__global__ void warp_reduce(u32* out, const u32* a) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 v = a[tid];
    const u32 full = 0xffffffffu;
    out[tid * 6 + 0] = __reduce_add_sync(full, v);
    out[tid * 6 + 1] = (u32)__reduce_min_sync(full, (int)v);
    out[tid * 6 + 2] = (u32)__reduce_max_sync(full, (int)v);
    out[tid * 6 + 3] = __reduce_and_sync(full, v | 0x10);
    out[tid * 6 + 4] = __reduce_or_sync(full, v & 0xf0f0);
    out[tid * 6 + 5] = __reduce_xor_sync(full, v);
}
