// What nvcc's generated host code calls before main and around each <<<>>>: module, kernel
// and variable registration (crt/host_runtime.h), the managed-variable hook, and the launch
// configuration stack. A module's handle is its Module record.
#include <cuda_runtime_api.h>
#include <fatbinary_section.h>

// The compiler's own declarations, so that these definitions are checked against them. The
// header defines a few static helpers for the generated code, unused here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#include <crt/host_runtime.h>
#pragma GCC diagnostic pop

#include <cstring>
#include <vector>

#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

// The fat binary's own header (fatbinary.h of the toolkit; not installed with it): magic,
// version, header size, then the size of what follows the header.
struct FatbinHeader {
  std::uint32_t magic;
  std::uint16_t version;
  std::uint16_t header_size;
  std::uint64_t payload_size;
};
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

Module* module_of(Runtime& rt, void** handle) {
  for (const auto& m : rt.modules)
    if (reinterpret_cast<void**>(m.get()) == handle) return m.get();
  return nullptr;
}

std::size_t fatbin_bytes(const void* fatbin) {
  if (!fatbin) return 0;
  FatbinHeader h;
  std::memcpy(&h, fatbin, sizeof h);
  return h.magic == kFatbinMagic ? h.header_size + h.payload_size : 0;
}

// Points each managed variable of `m` at its storage (the generated code reads the variable
// through that pointer once __cudaInitModule has returned).
void bind_managed(Runtime& rt, const Module& m) {
  for (auto& [shadow, v] : rt.variables) {
    if (v.module != m.id || v.kind != VariableKind::Managed) continue;
    const std::span<std::byte> s = rt.storage(v);
    if (s.empty()) continue;
    *static_cast<void**>(const_cast<void*>(shadow)) = s.data();
    rt.managed[s.data()] = shadow;
  }
}

struct CallConfiguration {
  dim3 grid, block;
  std::size_t shared;
  cudaStream_t stream;
};

// <<<>>> pushes, the generated stub pops; per thread, nested when an argument expression
// itself launches.
std::vector<CallConfiguration>& configurations() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

}  // namespace

BANKCHECK_API void** __cudaRegisterFatBinary(void* fatCubin) {
  Module* registered = nullptr;
  call(
      [&](Runtime& rt) {
        auto m = std::make_unique<Module>();
        m->id = static_cast<ModuleId>(rt.modules.size() + 1);
        ModuleImage image;
        std::vector<const void*> prelinked;
        const auto* w = static_cast<const __fatBinC_Wrapper_t*>(fatCubin);
        if (w && w->magic == FATBINC_MAGIC) {
          image.fatbin = w->data;
          image.bytes = fatbin_bytes(w->data);
          // A device-linked program (-rdc=true): the objects' own images, null-terminated.
          if (w->version == FATBINC_LINK_VERSION && w->filename_or_fatbins)
            for (auto* const* p = static_cast<void* const*>(w->filename_or_fatbins); *p; ++p)
              prelinked.push_back(*p);
        }
        if (!image.bytes)
          diagnose(
              "a module registered by the program is not a fat binary this runtime reads; "
              "its kernels cannot run");
        image.prelinked = prelinked;
        if (Executor* ex = rt.executor()) ex->register_module(m->id, image);
        registered = m.get();
        rt.modules.push_back(std::move(m));
        return cudaSuccess;
      },
      /*sticky=*/false);
  return reinterpret_cast<void**>(registered);
}

BANKCHECK_API void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) {
  call(
      [&](Runtime& rt) {
        Module* m = module_of(rt, fatCubinHandle);
        if (!m) return cudaErrorInvalidResourceHandle;
        if (Executor* ex = rt.executor()) ex->module_complete(m->id);
        bind_managed(rt, *m);
        return cudaSuccess;
      },
      /*sticky=*/false);
}

BANKCHECK_API void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  call(
      [&](Runtime& rt) {
        Module* m = module_of(rt, fatCubinHandle);
        if (!m || m->unregistered) return cudaErrorInvalidResourceHandle;
        m->unregistered = true;
        if (Executor* ex = rt.executor()) ex->unregister_module(m->id);
        // The module's host addresses may be reused once its library is closed.
        std::erase_if(rt.kernels, [&](const auto& k) { return k.second.module == m->id; });
        std::erase_if(rt.managed, [&](const auto& e) {
          const auto v = rt.variables.find(e.second);
          return v != rt.variables.end() && v->second.module == m->id;
        });
        for (auto it = rt.variables.begin(); it != rt.variables.end();) {
          if (it->second.module != m->id) {
            ++it;
            continue;
          }
          if (it->second.storage) rt.allocations.erase(it->second.storage);
          it = rt.variables.erase(it);
        }
        return cudaSuccess;
      },
      /*sticky=*/false);
}

BANKCHECK_API void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun,
                                          char* /*deviceFun*/, const char* deviceName,
                                          int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                                          dim3* /*bDim*/, dim3* /*gDim*/, int* /*wSize*/) {
  call(
      [&](Runtime& rt) {
        Module* m = module_of(rt, fatCubinHandle);
        if (!m || !hostFun || !deviceName) return cudaErrorInvalidValue;
        Kernel k;
        k.module = m->id;
        k.host = hostFun;
        k.device_name = deviceName;
        rt.kernels[hostFun] = std::move(k);
        if (Executor* ex = rt.executor()) ex->register_function(m->id, hostFun, deviceName);
        return cudaSuccess;
      },
      /*sticky=*/false);
}

namespace {

void register_variable(void** handle, const void* shadow, const char* name, std::size_t size,
                       VariableKind kind) {
  call(
      [&](Runtime& rt) {
        Module* m = module_of(rt, handle);
        if (!m || !shadow || !name) return cudaErrorInvalidValue;
        rt.variables[shadow] = Variable{m->id, shadow, name, size, kind, 0};
        if (Executor* ex = rt.executor()) ex->register_variable(m->id, shadow, name, size, kind);
        return cudaSuccess;
      },
      /*sticky=*/false);
}

}  // namespace

BANKCHECK_API void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* /*deviceAddress*/,
                                     const char* deviceName, int /*ext*/, size_t size, int constant,
                                     int /*global*/) {
  register_variable(fatCubinHandle, hostVar, deviceName, size,
                    constant ? VariableKind::Constant : VariableKind::Global);
}

BANKCHECK_API void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                                            char* /*deviceAddress*/, const char* deviceName,
                                            int /*ext*/, size_t size, int /*constant*/,
                                            int /*global*/) {
  register_variable(fatCubinHandle, hostVarPtrAddress, deviceName, size, VariableKind::Managed);
}

// Called before the program first touches a managed variable of the module; nonzero: ready.
BANKCHECK_API char __cudaInitModule(void** fatCubinHandle) {
  char ready = 0;
  call(
      [&](Runtime& rt) {
        Module* m = module_of(rt, fatCubinHandle);
        if (!m) return cudaErrorInvalidResourceHandle;
        bind_managed(rt, *m);
        ready = 1;
        return cudaSuccess;
      },
      /*sticky=*/false);
  return ready;
}

// Declared by the compiler's crt/device_functions.h for nvcc only (it is not plain C++).
BANKCHECK_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   CUstream_st* stream) {
  configurations().push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

BANKCHECK_API cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim,
                                                     size_t* sharedMem, void* stream) {
  auto& stack = configurations();
  if (stack.empty()) return record(cudaErrorMissingConfiguration);
  const CallConfiguration c = stack.back();
  stack.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}
