// Integer instructions nvcc emits for intrinsics: dp4a (__dp4a), sad (__sad, __usad).
// (Named for when they were not emulated; emu_test's EmuInt.Dp4aAndSad checks it.)
typedef unsigned int u32;

__global__ void alu(u32* out, const u32* a, const u32* b) {
    int tid = threadIdx.x;
    u32 x = a[tid], y = b[tid];
    out[tid * 3 + 0] = (u32)__dp4a((int)x, (int)y, 7);
    out[tid * 3 + 1] = __sad((int)x, (int)y, 5u);
    out[tid * 3 + 2] = __usad(x, y, 9u);
}
