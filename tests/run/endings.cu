// A program for `bankcheck run`'s tests of what a report covers whatever the program does:
// argv[1] says how it launches and how it ends, after kernels with a 32-way shared conflict
// ran. Ready-made for the tests: it prints "ready" (flushed) when its kernels have run, before
// it ends as asked.
//
//   exit        returns 0 (the reference)
//   abort       a libc check aborts (free of a pointer malloc never gave)
//   segv        a store through a null pointer
//   terminate   an exception nobody catches
//   _exit       _exit(3), no exit handler
//   wait        prints its pid, then waits to be killed (SIGKILL, SIGTERM from a test)
//   fatal       a kernel faults (cudaErrorIllegalAddress); the program prints the error's name
//               (not "ready") and exits 4
//   thread      exit(5) from another thread while the main thread launches
//   streams     launches in three streams, synchronized
//   nosync      launches in two streams, ends without synchronizing anything
//   reset       launches, cudaDeviceReset, launches again
//   graph       captures launches into a graph and launches it twice
//   coop        a cooperative launch
//   long        prints its pid and "launching" (flushed), then its first launch runs for minutes
//               (a test kills it during that launch)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

__global__ void column(float* out, int n) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][threadIdx.y] = static_cast<float>(threadIdx.x);  // 32 lanes in one bank
  __syncthreads();
  const int i = (blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x;
  if (i < n) out[i] = tile[threadIdx.y][threadIdx.x];
}

__global__ void row(float* out, int n) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = static_cast<float>(threadIdx.y);  // no conflict
  __syncthreads();
  const int i = (blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x;
  if (i < n) out[i] = tile[threadIdx.y][threadIdx.x];
}

__global__ void overrun(float* out) { out[threadIdx.x * (1 << 22)] = 1.0f; }

__global__ void spin(float* out, int rounds) {
  float x = static_cast<float>(threadIdx.x);
  for (int i = 0; i < rounds; ++i) x = x * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

void ready() {
  std::printf("ready\n");
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  const int n = 4096;
  float* out = nullptr;
  cudaMalloc(&out, n * sizeof(float));
  const dim3 block(32, 32);
  if (!std::strcmp(mode, "long")) {
    std::printf("pid %d\nlaunching\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    spin<<<n / 32, 32>>>(out, 1 << 24);
    cudaDeviceSynchronize();
    ready();
    return 0;
  }
  if (!std::strcmp(mode, "streams") || !std::strcmp(mode, "nosync")) {
    cudaStream_t s[3];
    for (auto& x : s) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    for (int r = 0; r < 2; ++r) {
      column<<<4, block, 0, s[0]>>>(out, n);
      row<<<4, block, 0, s[1]>>>(out, n);
      if (!std::strcmp(mode, "streams")) column<<<2, block, 0, s[2]>>>(out, n);
    }
    if (!std::strcmp(mode, "streams")) cudaDeviceSynchronize();
    ready();
    return 0;
  }
  column<<<4, block>>>(out, n);
  row<<<4, block>>>(out, n);
  if (!std::strcmp(mode, "reset")) {
    cudaDeviceSynchronize();
    cudaDeviceReset();
    cudaMalloc(&out, n * sizeof(float));
    column<<<2, block>>>(out, n);
    cudaDeviceSynchronize();
    ready();
    return 0;
  }
  if (!std::strcmp(mode, "graph")) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraph_t g = nullptr;
    cudaGraphExec_t e = nullptr;
    const cudaError_t begun = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    column<<<1, block, 0, s>>>(out, n);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    const cudaError_t launched = cudaGraphLaunch(e, s);
    cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    std::printf("capture %s, graph launch %s\n", cudaGetErrorName(begun),
                cudaGetErrorName(launched));
    ready();
    return 0;
  }
  if (!std::strcmp(mode, "coop")) {
    void* args[] = {&out, const_cast<int*>(&n)};
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(column),
                                                      dim3(2), block, args, 0, nullptr);
    cudaDeviceSynchronize();
    std::printf("cooperative %s\n", cudaGetErrorName(e));
    ready();
    return 0;
  }
  if (!std::strcmp(mode, "thread")) {
    // The main thread keeps launching; another thread ends the program.
    std::thread([] {
      usleep(200000);
      ready();
      std::exit(5);
    }).detach();
    for (;;) row<<<4, block>>>(out, n);
  }
  if (!std::strcmp(mode, "fatal")) {
    overrun<<<1, 32>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("%s\n", cudaGetErrorName(e));
    return 4;
  }
  cudaDeviceSynchronize();
  if (!std::strcmp(mode, "wait")) std::printf("pid %d\n", static_cast<int>(getpid()));
  ready();
  if (!std::strcmp(mode, "abort")) {
    static char not_from_malloc[64];
    char* p = not_from_malloc + 16;
    asm volatile("" : "+r"(p));  // the compiler cannot tell where it points
    std::free(p);                // glibc: free(): invalid pointer
  }
  if (!std::strcmp(mode, "segv")) {
    volatile int* p = nullptr;
    *p = 1;
  }
  if (!std::strcmp(mode, "terminate")) throw std::runtime_error("nobody catches this");
  if (!std::strcmp(mode, "_exit")) _exit(3);
  if (!std::strcmp(mode, "wait"))
    for (;;) pause();
  return 0;
}
