// A kernel compiled at run time with NVRTC, its PTX loaded with cuModuleLoadDataEx (JIT
// options given, as front ends give them) and launched through the driver API; the result
// checked against the host's. Prints "nvrtc: ok". With the argument `cubin`, compiled for
// sm_90 without line information and loaded as the cubin, as programs that compile for the
// device they run on do.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

static const char* kSource = R"(
extern "C" __global__ void transpose32(const float* in, float* out) {
  __shared__ float tile[32][32];  // a column read: a 32-way bank conflict
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
)";

int main(int argc, char** argv) {
  const bool cubin = argc > 1 && std::string(argv[1]) == "cubin";
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, kSource, "transpose32.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return 1;
  const char* options[] = {"--gpu-architecture=compute_90", "-lineinfo"};
  const char* cubin_options[] = {"--gpu-architecture=sm_90"};
  if ((cubin ? nvrtcCompileProgram(prog, 1, cubin_options)
             : nvrtcCompileProgram(prog, 2, options)) != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "nvrtc: %s\n", log.c_str());
    return 1;
  }
  size_t size = 0;
  std::vector<char> ptx;
  if (cubin) {
    if (nvrtcGetCUBINSize(prog, &size) != NVRTC_SUCCESS) return 1;
    ptx.resize(size);
    if (nvrtcGetCUBIN(prog, ptx.data()) != NVRTC_SUCCESS) return 1;
  } else {
    nvrtcGetPTXSize(prog, &size);
    ptx.resize(size);
    nvrtcGetPTX(prog, ptx.data());
  }
  nvrtcDestroyProgram(&prog);

  CUdevice dev;
  CUcontext ctx;
  CUmodule module;
  CUfunction f;
  char log[1024] = "";
  CUjit_option jit[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx) || cuModuleLoadDataEx(&module, ptx.data(), 2, jit, values) ||
      cuModuleGetFunction(&f, module, "transpose32")) {
    std::fprintf(stderr, "FAIL: loading the NVRTC module\n");
    return 1;
  }
  std::vector<float> host(32 * 32), result(32 * 32);
  for (int i = 0; i < 32 * 32; ++i) host[i] = static_cast<float>(i);
  CUdeviceptr in, out;
  cuMemAlloc(&in, host.size() * sizeof(float));
  cuMemAlloc(&out, host.size() * sizeof(float));
  cuMemcpyHtoD(in, host.data(), host.size() * sizeof(float));
  void* args[] = {&in, &out};
  if (cuLaunchKernel(f, 1, 1, 1, 32, 32, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS) {
    std::fprintf(stderr, "FAIL: the launch\n");
    return 1;
  }
  cuMemcpyDtoH(result.data(), out, result.size() * sizeof(float));
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      if (result[y * 32 + x] != host[x * 32 + y]) {
        std::fprintf(stderr, "FAIL: out[%d][%d] = %g\n", y, x, result[y * 32 + x]);
        return 1;
      }
  cuModuleUnload(module);
  cuDevicePrimaryCtxRelease(dev);
  std::printf("nvrtc: ok\n");
  return 0;
}
