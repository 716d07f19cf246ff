// Barriers that reduce a predicate over the block (bar.red): __syncthreads_count/and/or.
// (Named for when only bar.sync was emulated; emu_test's EmuWarp.SyncthreadsCountAndOr
// checks it.)
__global__ void barrier_reductions(int* out, const int* a) {
    int v = a[threadIdx.x];
    int count = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -900);
    int any = __syncthreads_or(v == 12345);
    out[threadIdx.x * 3 + 0] = count;
    out[threadIdx.x * 3 + 1] = all;
    out[threadIdx.x * 3 + 2] = any;
}
