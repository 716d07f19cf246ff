// The compute-sanitizer API as the GPU tool uses it (sanitizer_device.hpp).
#include "sanitizer_device.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <iterator>
#include <type_traits>

namespace bankcheck::device {

std::string SanitizerApi::load() {
  const char* named = std::getenv("BANKCHECK_SANITIZER_LIB");
  const char* file = named && *named ? named : "libsanitizer-public.so";
  void* lib = ::dlopen(file, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) return fmt::format("cannot open {}: {}", file, ::dlerror());
  std::string missing;
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  get(subscribe, "sanitizerSubscribe");
  get(enable_domain, "sanitizerEnableDomain");
  get(enable_callback, "sanitizerEnableCallback");
  get(add_patches, "sanitizerAddPatchesFromFile");
  get(patch_instructions, "sanitizerPatchInstructions");
  get(patch_module, "sanitizerPatchModule");
  get(unpatch_module, "sanitizerUnpatchModule");
  get(set_launch_data, "sanitizerSetLaunchCallbackData");
  get(function_pc, "sanitizerGetFunctionPcAndSize");
  get(alloc, "sanitizerAlloc");
  get(memset, "sanitizerMemset");
  get(to_device, "sanitizerMemcpyHostToDeviceAsync");
  get(to_host, "sanitizerMemcpyDeviceToHost");
  get(synchronize, "sanitizerStreamSynchronize");
  get(result_string, "sanitizerGetResultString");
  return missing.empty()
             ? ""
             : fmt::format("{} lacks entry points of the sanitizer API: {}", file, missing);
}

std::string SanitizerApi::why(SanitizerResult r) const {
  const char* s = nullptr;
  if (result_string && result_string(r, &s) == SANITIZER_SUCCESS && s) return s;
  return fmt::format("sanitizer error {}", static_cast<int>(r));
}

const PatchPoint kPatchPoints[] = {
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "bankcheck_shared_access", true},
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "bankcheck_global_access", true},
    {SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "bankcheck_matrix_access", true},
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "bankcheck_async_copy", true},
    {SANITIZER_INSTRUCTION_BLOCK_EXIT, "bankcheck_block_exit", false},
    {SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC, "bankcheck_wgmma", false},
    {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "bankcheck_bulk_to_shared", false},
    {SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, "bankcheck_bulk_to_global", false},
    {SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL, "bankcheck_bulk_to_global", false},
    {SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_SHARED, "bankcheck_bulk_to_cluster", false},
    {SANITIZER_INSTRUCTION_ASYNC_STORE, "bankcheck_async_store", false},
    {SANITIZER_INSTRUCTION_REMOTE_SHARED_MEMORY_ACCESS, "bankcheck_remote_shared", false},
};
const std::size_t kPatchPointCount = std::size(kPatchPoints);

namespace {
template <class T>
T as(Handle h) {
  return static_cast<T>(const_cast<void*>(h));
}
}  // namespace

std::string SanitizerDevice::load_patches(Handle context) {
  if (const SanitizerResult r = api_.add_patches(patches_.c_str(), as<CUcontext>(context));
      r != SANITIZER_SUCCESS)
    return fmt::format("{}: {}", patches_, api_.why(r));
  return "";
}

// The instruction marks are made again before each patching (a module unpatched and patched
// again gets the same ones); a mark refused the second time is taken to be still in place.
std::string SanitizerDevice::patch(Handle module) {
  const bool again = marked_.count(module);
  for (std::size_t i = 0; i < kPatchPointCount; ++i) {
    const PatchPoint& p = kPatchPoints[i];
    const SanitizerResult r = api_.patch_instructions(p.id, as<CUmodule>(module), p.function);
    if (r != SANITIZER_SUCCESS && p.required && !again)
      return fmt::format("cannot patch its instructions with {}: {}", p.function, api_.why(r));
    if (p.id == SANITIZER_INSTRUCTION_BLOCK_EXIT && !again) {
      if (r == SANITIZER_SUCCESS)
        no_exits_.erase(module);
      else
        no_exits_.insert(module);
    }
  }
  marked_.insert(module);
  return check(api_.patch_module(as<CUmodule>(module)));
}

std::string SanitizerDevice::unpatch(Handle module) {
  return check(api_.unpatch_module(as<CUmodule>(module)));
}

void SanitizerDevice::forget(Handle module) {
  marked_.erase(module);
  no_exits_.erase(module);
}

std::string SanitizerDevice::function_pc(Handle module, const std::string& mangled,
                                         std::uint64_t& pc) {
  std::uint64_t size = 0;
  return check(api_.function_pc(as<CUmodule>(module), mangled.c_str(), &pc, &size));
}

std::string SanitizerDevice::alloc(Handle context, std::size_t bytes, void*& device) {
  return check(api_.alloc(as<CUcontext>(context), &device, bytes));
}

std::string SanitizerDevice::zero(void* device, std::size_t bytes, Handle stream) {
  return check(api_.memset(device, 0, bytes, as<Sanitizer_StreamHandle>(stream)));
}

std::string SanitizerDevice::to_device(void* device, const void* host, std::size_t bytes,
                                       Handle stream) {
  return check(
      api_.to_device(device, const_cast<void*>(host), bytes, as<Sanitizer_StreamHandle>(stream)));
}

std::string SanitizerDevice::to_host(void* host, const void* device, std::size_t bytes,
                                     Handle stream) {
  return check(
      api_.to_host(host, const_cast<void*>(device), bytes, as<Sanitizer_StreamHandle>(stream)));
}

std::string SanitizerDevice::synchronize(Handle stream) {
  return check(api_.synchronize(as<Sanitizer_StreamHandle>(stream)));
}

std::string SanitizerDevice::set_launch_data(Handle launch, Handle function, Handle stream,
                                             void* data) {
  return check(api_.set_launch_data(as<Sanitizer_LaunchHandle>(launch), as<CUfunction>(function),
                                    as<Sanitizer_StreamHandle>(stream), data));
}

}  // namespace bankcheck::device
