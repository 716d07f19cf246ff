// The compute-sanitizer API as the GPU tool uses it: its entry points, opened from
// libsanitizer-public.so at run time, and the instrumentation's DeviceApi over them
// (instrumentation.hpp). Private to the tool (tool.cpp); built only where sanitizer.h is.
#pragma once

#include <sanitizer.h>

#include <set>
#include <string>
#include <utility>

#include "bankcheck/device/instrumentation.hpp"

namespace bankcheck::device {

struct SanitizerApi {
  decltype(&::sanitizerSubscribe) subscribe = nullptr;
  decltype(&::sanitizerEnableDomain) enable_domain = nullptr;
  decltype(&::sanitizerEnableCallback) enable_callback = nullptr;
  decltype(&::sanitizerAddPatchesFromFile) add_patches = nullptr;
  decltype(&::sanitizerPatchInstructions) patch_instructions = nullptr;
  decltype(&::sanitizerPatchModule) patch_module = nullptr;
  decltype(&::sanitizerUnpatchModule) unpatch_module = nullptr;
  decltype(&::sanitizerSetLaunchCallbackData) set_launch_data = nullptr;
  decltype(&::sanitizerGetFunctionPcAndSize) function_pc = nullptr;
  decltype(&::sanitizerAlloc) alloc = nullptr;
  decltype(&::sanitizerMemset) memset = nullptr;
  decltype(&::sanitizerMemcpyHostToDeviceAsync) to_device = nullptr;
  decltype(&::sanitizerMemcpyDeviceToHost) to_host = nullptr;
  decltype(&::sanitizerStreamSynchronize) synchronize = nullptr;
  decltype(&::sanitizerGetResultString) result_string = nullptr;

  // Empty when every entry point was found (BANKCHECK_SANITIZER_LIB, else
  // libsanitizer-public.so on the library path); else why not.
  std::string load();
  std::string why(SanitizerResult r) const;
};

// The instructions bankcheck patches, and the device function (patches.cu) each calls.
struct PatchPoint {
  Sanitizer_InstructionId id;
  const char* function;
  bool required;  // the LSU's accesses; the rest (the exits, Hopper's) where the driver has them
};
extern const PatchPoint kPatchPoints[];
extern const std::size_t kPatchPointCount;

// DeviceApi over the sanitizer: the handles are the sanitizer's and the driver's own.
class SanitizerDevice : public DeviceApi {
 public:
  SanitizerDevice(const SanitizerApi& api, std::string patches)
      : api_(api), patches_(std::move(patches)) {}
  std::string load_patches(Handle context) override;
  std::string patch(Handle module) override;
  std::string unpatch(Handle module) override;
  bool exits_counted(Handle module) const override { return !no_exits_.count(module); }
  std::string function_pc(Handle module, const std::string& mangled, std::uint64_t& pc) override;
  std::string alloc(Handle context, std::size_t bytes, void*& device) override;
  std::string zero(void* device, std::size_t bytes, Handle stream) override;
  std::string to_device(void* device, const void* host, std::size_t bytes, Handle stream) override;
  std::string to_host(void* host, const void* device, std::size_t bytes, Handle stream) override;
  std::string synchronize(Handle stream) override;
  std::string set_launch_data(Handle launch, Handle function, Handle stream, void* data) override;
  // An unloaded module's handle may come back for another module: its marks are forgotten.
  void forget(Handle module);

 private:
  std::string check(SanitizerResult r) const { return r == SANITIZER_SUCCESS ? "" : api_.why(r); }
  const SanitizerApi& api_;
  std::string patches_;        // bankcheck-patches.fatbin
  std::set<Handle> marked_;    // modules whose instructions were marked for patching once
  std::set<Handle> no_exits_;  // modules whose thread exits could not be marked
};

}  // namespace bankcheck::device
