// Replays on a real GPU the kernel launches emu_test made, to check the emulator (and the
// test's CPU references) against the hardware. Not part of the build:
//
//   BANKCHECK_EMU_DUMP=/tmp/dump ./build/tests/emu_test        # writes NNN.launch, NNN.pK.{in,emu}
//   nvcc -O2 -o gpu_replay tests/data/emu/gpu_replay.cpp -L/usr/local/cuda/lib64/stubs -lcuda
//   ./gpu_replay /tmp/dump OUTDIR                               # on the GPU: OUTDIR/NNN.pK.gpu
//
// then compare each NNN.pK.emu with NNN.pK.gpu. On an H200 (sm_90, driver 580) every
// buffer matched bit for bit except the approximations (approx), the atomics' returned
// old values and exchange winners (lane order), and clock values. A launch file:
//   ptx FILE.ptx / kernel MANGLED / grid X Y Z / block X Y Z / smem BYTES
//   buffer K FILE.in      (a pointer parameter: its initial bytes)
//   scalar K HEXBYTES     (a value parameter, little-endian)
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static bool ok(CUresult r, const char* what, const std::string& launch) {
  if (r == CUDA_SUCCESS) return true;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  std::fprintf(stderr, "%s: %s: %s\n", launch.c_str(), what, s ? s : "?");
  return false;
}

static std::vector<char> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gpu_replay DUMPDIR OUTDIR\n");
    return 2;
  }
  const std::string dir = argv[1], out = argv[2];
  std::vector<std::string> launches;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 7 && n.substr(n.size() - 7) == ".launch") launches.push_back(n.substr(0, n.size() - 7));
    }
    closedir(d);
  }
  std::sort(launches.begin(), launches.end());
  cuInit(0);
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  std::map<std::string, CUmodule> modules;
  int failed = 0;
  for (const auto& id : launches) {
    std::ifstream f(dir + "/" + id + ".launch");
    std::string key, ptx, kernel;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, smem = 0;
    struct Param {
      bool buffer = false;
      std::vector<char> bytes;
      CUdeviceptr ptr = 0;
    };
    std::map<int, Param> params;
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream ls(line);
      ls >> key;
      if (key == "ptx") ls >> ptx;
      else if (key == "kernel") ls >> kernel;
      else if (key == "grid") ls >> grid[0] >> grid[1] >> grid[2];
      else if (key == "block") ls >> block[0] >> block[1] >> block[2];
      else if (key == "smem") ls >> smem;
      else if (key == "buffer" || key == "scalar") {
        int k;
        std::string v;
        ls >> k >> v;
        Param p;
        p.buffer = key == "buffer";
        if (p.buffer) {
          p.bytes = slurp(dir + "/" + v);
        } else {
          for (size_t i = 0; i + 1 < v.size(); i += 2) p.bytes.push_back(static_cast<char>(std::stoi(v.substr(i, 2), nullptr, 16)));
        }
        params[k] = std::move(p);
      }
    }
    if (!modules.count(ptx)) {
      std::vector<char> text = slurp(dir + "/" + ptx);
      text.push_back(0);
      CUmodule m;
      if (!ok(cuModuleLoadData(&m, text.data()), "cuModuleLoadData", id)) return 1;
      modules[ptx] = m;
    }
    CUfunction fn;
    if (!ok(cuModuleGetFunction(&fn, modules[ptx], kernel.c_str()), "cuModuleGetFunction", id)) return 1;
    std::vector<void*> args;
    for (auto& [k, p] : params) {
      if (p.buffer) {
        cuMemAlloc(&p.ptr, p.bytes.size() + 256);
        cuMemcpyHtoD(p.ptr, p.bytes.data(), p.bytes.size());
        args.push_back(&p.ptr);
      } else {
        args.push_back(p.bytes.data());
      }
    }
    if (smem > 48 * 1024) cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(smem));
    bool good = ok(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem, nullptr,
                                  args.data(), nullptr),
                   "cuLaunchKernel", id) &&
                ok(cuCtxSynchronize(), "cuCtxSynchronize", id);
    if (!good) {
      ++failed;
      return 1;  // the context is gone after a fault
    }
    for (auto& [k, p] : params) {
      if (!p.buffer) continue;
      std::vector<char> back(p.bytes.size());
      cuMemcpyDtoH(back.data(), p.ptr, back.size());
      std::ofstream o(out + "/" + id + ".p" + std::to_string(k) + ".gpu", std::ios::binary);
      o.write(back.data(), static_cast<std::streamsize>(back.size()));
      cuMemFree(p.ptr);
    }
    std::printf("%s %s: ran\n", id.c_str(), kernel.c_str());
  }
  return failed ? 1 : 0;
}
