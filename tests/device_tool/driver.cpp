// Drives the GPU tool (preloaded: LD_PRELOAD=libbankcheck-gpu.so, BANKCHECK_SANITIZER_LIB
// naming the fake sanitizer) through the callbacks a program's CUDA work causes, for one
// scenario; the tool writes its report at exit (run.sh checks it). The "kernels" count as
// bankcheck's patches would: each shared instruction of the kernel (read from the test cubin)
// one request per warp, two wavefronts each for an ideal of one; each thread its exit.
//
//   driver SCENARIO CUBIN
// Prints the fake sanitizer's counts (patches, unpatches, waits, reads, ran_patched) as
// NAME=VALUE lines on standard output.
#include <cuda.h>
#include <sanitizer.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/device/records.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/module.hpp"

extern "C" {
uint64_t fake_function_pc(const char* name);
void fake_module_loaded(CUcontext, CUmodule, const void* cubin, size_t size);
void fake_module_unloading(CUcontext, CUmodule);
int fake_launch(CUcontext, CUmodule, CUfunction, CUfunction api_function, const char* name,
                unsigned grid, unsigned block, Sanitizer_StreamHandle,
                void (*run)(void* data, void* arg), void* arg);
void fake_stream_synchronized(CUcontext, Sanitizer_StreamHandle);
void fake_context_synchronized(CUcontext);
void fake_fault();
void fake_refuse_next_launch();
void fake_tear_down();
long fake_count(const char* what);
int fake_marked(CUmodule, int instruction);
}

namespace bd = bankcheck::device;

namespace {

struct Kernel {
  std::string name;
  std::vector<std::uint64_t> shared;  // offsets of its LDS/STS
  std::vector<bool> store;
};

struct Work {
  const Kernel* kernel;
  std::uint64_t threads, exiting;
};

void count(void* data, void* arg) {
  auto* r = static_cast<bd::LaunchRecord*>(data);
  const auto* w = static_cast<const Work*>(arg);
  const std::uint64_t warps = w->threads / 32;
  for (std::size_t i = 0; i < w->kernel->shared.size(); ++i) {
    const unsigned long long pc = r->base_pc + w->kernel->shared[i];
    unsigned h = static_cast<unsigned>((pc >> 4) * 2654435761ull) & (r->capacity - 1);
    while (r->counters[h].pc != 0 && r->counters[h].pc != pc) h = (h + 1) & (r->capacity - 1);
    bd::PcCounter& c = r->counters[h];
    c.pc = pc;
    c.space = static_cast<unsigned char>(bd::Space::Shared);
    c.access =
        static_cast<unsigned char>(w->kernel->store[i] ? bd::Access::Store : bd::Access::Load);
    c.width = 4;
    c.requests += warps;
    c.wavefronts += 2 * warps;
    c.ideal += warps;
    c.ways = 2;
  }
  r->exited += w->exiting;
}

template <class T>
T handle(std::uintptr_t v) {
  return reinterpret_cast<T>(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SCENARIO CUBIN\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  std::ifstream in(argv[2], std::ios::binary);
  const std::vector<std::uint8_t> cubin{std::istreambuf_iterator<char>(in), {}};
  auto module = bankcheck::sass::read_module(cubin, &bankcheck::sass::decode_hopper);
  if (!module.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[2], module.error().message.c_str());
    return 2;
  }
  std::vector<Kernel> kernels;
  for (const auto& k : module.value().kernels) {
    Kernel x{k.name, {}, {}};
    for (const auto& i : k.instructions)
      if (i.shared == bankcheck::sass::SharedOp::LDS ||
          i.shared == bankcheck::sass::SharedOp::STS) {
        x.shared.push_back(i.offset);
        x.store.push_back(i.shared == bankcheck::sass::SharedOp::STS);
      }
    kernels.push_back(x);
  }
  if (kernels.size() < 2) {
    std::fprintf(stderr, "%s: two kernels expected\n", argv[2]);
    return 2;
  }
  const Kernel& a = kernels[0];
  const Kernel& b = kernels[1];
  const auto ctx = handle<CUcontext>(0x10);
  const auto mod = handle<CUmodule>(0x20);
  const auto fa = handle<CUfunction>(0x30), fb = handle<CUfunction>(0x31);
  // The runtime's handles of the kernels (CUkernel), not the launches' CUfunction.
  const auto ka = handle<CUfunction>(0x40), kb = handle<CUfunction>(0x41);
  const auto s1 = handle<Sanitizer_StreamHandle>(0x50);
  int ran = 0;
  auto launch = [&](const Kernel& k, CUfunction f, CUfunction api, unsigned grid, unsigned block,
                    std::uint64_t exiting_per_thread_x4 = 4) {
    Work w{&k, std::uint64_t{grid} * block,
           std::uint64_t{grid} * block * exiting_per_thread_x4 / 4};
    ran += fake_launch(ctx, mod, f, api, k.name.c_str(), grid, block, s1, &count, &w);
  };

  auto counts = [&] {
    for (const char* what :
         {"patches", "unpatches", "waits", "reads", "ran_patched", "patch_files"})
      std::printf("%s=%ld\n", what, fake_count(what));
    std::printf("launches_patched=%d\n", ran);
    std::printf("exits_marked=%d\n", fake_marked(mod, SANITIZER_INSTRUCTION_BLOCK_EXIT));
    std::printf("kernel_a=%s\nkernel_b=%s\nshared_a=%zu\nshared_b=%zu\n", a.name.c_str(),
                b.name.c_str(), a.shared.size(), b.shared.size());
    std::fflush(stdout);
  };
  // As the CUDA runtime does when a program begins: an exit handler that ends its use of the
  // GPU (here: every later copy and wait refused), registered before the first module loads.
  if (scenario == "worker" || scenario.starts_with("thread")) std::atexit(fake_tear_down);
  fake_module_loaded(ctx, mod, cubin.data(), cubin.size());
  if (scenario == "worker") {
    // A worker that launches and exits at once: its counts are read before the runtime's exit
    // handler ends the GPU's use.
    launch(a, fa, ka, 4, 256);
    counts();
    return 0;
  } else if (scenario == "fatal" || scenario == "fatal_all") {
    // a, then b, which faults: the error is sticky; the program's synchronization fails.
    launch(a, fa, ka, 4, 256);
    launch(b, fb, kb, 2, 128);
    fake_fault();
    fake_context_synchronized(ctx);
    counts();
    return 4;
  } else if (scenario == "thread" || scenario == "thread_all") {
    // Another thread ends the program with exit(5) while this one keeps launching.
    launch(a, fa, ka, 4, 256);
    counts();
    std::thread([] {
      usleep(100000);
      std::exit(5);
    }).detach();
    for (;;) launch(b, fb, kb, 2, 128);
  } else if (scenario == "reset") {
    // A device reset between two launches of a: its module loaded again, as a new module with
    // new handles; the same kernel for the ledger (one configuration: one launch analysed).
    launch(a, fa, ka, 4, 256);
    fake_module_unloading(ctx, mod);
    const auto mod2 = handle<CUmodule>(0x21);
    const auto fa2 = handle<CUfunction>(0x32);
    fake_module_loaded(ctx, mod2, cubin.data(), cubin.size());
    Work w{&a, 4 * 256, 4 * 256};
    ran += fake_launch(ctx, mod2, fa2, ka, a.name.c_str(), 4, 256, s1, &count, &w);
  } else if (scenario == "benchmark") {
    // Validate, then time with many launches; a second configuration, validated and timed.
    launch(a, fa, ka, 4, 256);
    for (int i = 0; i < 100; ++i) launch(a, fa, ka, 4, 256);
    launch(a, fa, ka, 8, 256);
    for (int i = 0; i < 100; ++i) launch(a, fa, ka, 8, 256);
    fake_stream_synchronized(ctx, s1);
  } else if (scenario == "second_kernel") {
    // The module is unpatched for a's timing; b's first launch finds it patched again.
    launch(a, fa, ka, 4, 256);
    for (int i = 0; i < 10; ++i) launch(a, fa, ka, 4, 256);
    launch(b, fb, kb, 2, 128);
    for (int i = 0; i < 10; ++i) launch(b, fb, kb, 2, 128);
  } else if (scenario == "all" || scenario == "all_one_kernel") {
    for (int i = 0; i < 50; ++i) {
      launch(a, fa, ka, 4, 256);
      launch(b, fb, kb, 2, 128);
    }
  } else if (scenario == "refused" || scenario == "refused_all") {
    // a's first launch is refused by the driver (its launch callback came, its kernel never
    // ran); a second launch of a, and b, run.
    fake_refuse_next_launch();
    launch(a, fa, ka, 4, 256);
    launch(a, fa, ka, 4, 256);
    launch(b, fb, kb, 2, 128);
    fake_stream_synchronized(ctx, s1);
  } else if (scenario == "incomplete") {
    launch(a, fa, ka, 32, 256, 3);  // three quarters of the threads counted to their exit
  } else if (scenario == "unload") {
    launch(a, fa, ka, 4, 256);
    fake_module_unloading(ctx, mod);
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  counts();
  return 0;
}
