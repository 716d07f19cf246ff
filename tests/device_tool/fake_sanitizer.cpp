// A libsanitizer-public.so for testing the GPU tool without a GPU: the compute-sanitizer API's
// entry points the tool opens (BANKCHECK_SANITIZER_LIB names this library), over host memory,
// and the callbacks a program's CUDA work would cause, made by a driver (driver.cpp) through
// the fake_* functions. Device memory is host memory; every copy and kernel happens at once.
// Built against the toolkit's own sanitizer headers, so the tool sees the real layouts.
#include <sanitizer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>

namespace {

// cuLaunchKernel's parameters as generated_cuda_meta.h lays them out.
struct LaunchKernelParams {
  CUfunction f;
  unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  void** kernelParams;
  void** extra;
};

struct Fake {
  Sanitizer_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  std::set<std::pair<int, unsigned>> enabled;  // (domain, cbid); cbid ~0u: the whole domain
  std::set<CUmodule> patched;
  std::map<std::pair<CUmodule, int>, std::string> marks;
  std::map<Sanitizer_LaunchHandle, void*> launch_data;
  std::map<std::string, long> counts;
  std::uintptr_t next_launch = 1;
  // The next launch call returns this error after its launch callback, its kernel not run (as
  // the driver refuses a launch whose resources it cannot give).
  CUresult refuse_next = CUDA_SUCCESS;
  // A kernel faulted (a sticky error: every later copy and wait fails), or the context was
  // torn down (as the CUDA runtime's exit handler may): copies and waits fail.
  bool faulted = false, torn_down = false;
};

Fake& fake() {
  static Fake* f = [] {
    auto* made = new Fake;
    // Every count made now: a count of one thread never inserts into the map another reads.
    for (const char* what :
         {"patches", "unpatches", "waits", "reads", "ran_patched", "patch_files", "after_teardown"})
      made->counts[what] = 0;
    return made;
  }();
  return *f;
}

bool enabled(int domain, unsigned cbid) {
  const Fake& f = fake();
  return f.callback && (f.enabled.count({domain, ~0u}) || f.enabled.count({domain, cbid}));
}

// A call the tool makes on the GPU after the runtime ended its use of it (counted: none should
// come; on a GPU they fail, or worse).
void touch() {
  if (fake().torn_down) ++fake().counts["after_teardown"];
}

void emit(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  if (enabled(domain, cbid)) fake().callback(fake().userdata, domain, cbid, data);
}

}  // namespace

extern "C" {

SanitizerResult sanitizerSubscribe(Sanitizer_SubscriberHandle* subscriber,
                                   Sanitizer_CallbackFunc callback, void* userdata) {
  fake().callback = callback;
  fake().userdata = userdata;
  *subscriber = reinterpret_cast<Sanitizer_SubscriberHandle>(&fake());
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerEnableDomain(uint32_t enable, Sanitizer_SubscriberHandle,
                                      Sanitizer_CallbackDomain domain) {
  if (enable) fake().enabled.insert({domain, ~0u});
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerEnableCallback(uint32_t enable, Sanitizer_SubscriberHandle,
                                        Sanitizer_CallbackDomain domain,
                                        Sanitizer_CallbackId cbid) {
  if (enable) fake().enabled.insert({domain, cbid});
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerAddPatchesFromFile(const char* filename, CUcontext) {
  ++fake().counts["patch_files"];
  return std::getenv("FAKE_PATCHES_MISSING") || !filename ? SANITIZER_ERROR_INVALID_PARAMETER
                                                          : SANITIZER_SUCCESS;
}
SanitizerResult sanitizerPatchInstructions(const Sanitizer_InstructionId id, CUmodule module,
                                           const char* callback) {
  fake().marks[{module, static_cast<int>(id)}] = callback ? callback : "";
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerPatchModule(CUmodule module) {
  touch();
  fake().patched.insert(module);
  ++fake().counts["patches"];
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerUnpatchModule(CUmodule module) {
  touch();
  fake().patched.erase(module);
  ++fake().counts["unpatches"];
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle launch, CUfunction,
                                               Sanitizer_StreamHandle, const void* userdata) {
  touch();
  fake().launch_data[launch] = const_cast<void*>(userdata);
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerGetFunctionPcAndSize(CUmodule, const char* name, uint64_t* pc,
                                              uint64_t* size) {
  *pc = 0x7f0000000000ull + (std::hash<std::string>{}(name)&0xffff) * 0x100000;
  *size = 0x10000;
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerAlloc(CUcontext, void** ptr, size_t size) {
  touch();
  *ptr = std::calloc(1, size);
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerMemset(void* ptr, int value, size_t count, Sanitizer_StreamHandle) {
  touch();
  std::memset(ptr, value, count);
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerMemcpyHostToDeviceAsync(void* dst, void* src, size_t count,
                                                 Sanitizer_StreamHandle) {
  touch();
  std::memcpy(dst, src, count);
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerMemcpyDeviceToHost(void* dst, void* src, size_t count,
                                            Sanitizer_StreamHandle) {
  touch();
  if (fake().faulted) return SANITIZER_ERROR_UNKNOWN;
  if (fake().torn_down) return SANITIZER_ERROR_NOT_READY;
  std::memcpy(dst, src, count);
  ++fake().counts["reads"];
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerStreamSynchronize(Sanitizer_StreamHandle stream) {
  touch();
  ++fake().counts["waits"];
  if (fake().faulted) return SANITIZER_ERROR_UNKNOWN;
  if (fake().torn_down) return SANITIZER_ERROR_NOT_READY;
  // As a driver may: the synchronization reported to the subscriber, on the waiting thread.
  Sanitizer_SynchronizeData d{};
  d.hStream = stream;
  emit(SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, &d);
  return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerGetResultString(SanitizerResult, const char** str) {
  *str = "refused by the fake sanitizer";
  return SANITIZER_SUCCESS;
}

// --- what a program's CUDA work makes the sanitizer call back with --------------------------

uint64_t fake_function_pc(const char* name) {
  uint64_t pc = 0, size = 0;
  sanitizerGetFunctionPcAndSize(nullptr, name, &pc, &size);
  return pc;
}

void fake_module_loaded(CUcontext context, CUmodule module, const void* cubin, size_t size) {
  Sanitizer_ResourceModuleData d{};
  d.context = context;
  d.module = module;
  d.cubinSize = size;
  d.pCubin = static_cast<const char*>(cubin);
  emit(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED, &d);
}

void fake_module_unloading(CUcontext context, CUmodule module) {
  Sanitizer_ResourceModuleData d{};
  d.context = context;
  d.module = module;
  emit(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING, &d);
}

// One launch: the launch call (cuLaunchKernel with `api_function`, the runtime's handle), the
// launch callback, the kernel (`run` with the launch's data when its module is patched and it
// was given data), the end. Returns 1 when the kernel ran the patched code.
int fake_launch(CUcontext context, CUmodule module, CUfunction function, CUfunction api_function,
                const char* name, unsigned grid, unsigned block, Sanitizer_StreamHandle stream,
                void (*run)(void* data, void* arg), void* arg) {
  LaunchKernelParams p{};
  p.f = api_function;
  p.gridDimX = grid;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = block;
  p.blockDimY = p.blockDimZ = 1;
  Sanitizer_CallbackData c{};
  c.callbackSite = SANITIZER_API_ENTER;
  c.functionName = "cuLaunchKernel";
  c.functionParams = &p;
  c.symbolName = name;
  c.context = context;
  emit(SANITIZER_CB_DOMAIN_DRIVER_API, SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &c);
  Sanitizer_LaunchData l{};
  l.context = context;
  l.hStream = stream;
  l.module = module;
  l.function = function;
  l.functionName = name;
  l.gridDim_x = grid;
  l.gridDim_y = l.gridDim_z = 1;
  l.blockDim_x = block;
  l.blockDim_y = l.blockDim_z = 1;
  l.hLaunch = reinterpret_cast<Sanitizer_LaunchHandle>(fake().next_launch++);
  emit(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN, &l);
  const CUresult result = fake().refuse_next;
  fake().refuse_next = CUDA_SUCCESS;
  const bool patched = fake().patched.count(module) && result == CUDA_SUCCESS;
  void* data = fake().launch_data[l.hLaunch];
  fake().launch_data.erase(l.hLaunch);
  if (patched) ++fake().counts["ran_patched"];
  if (patched && data && run) run(data, arg);
  emit(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_END, &l);
  c.callbackSite = SANITIZER_API_EXIT;
  c.functionReturnValue = &result;
  emit(SANITIZER_CB_DOMAIN_DRIVER_API, SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &c);
  return patched ? 1 : 0;
}

void fake_stream_synchronized(CUcontext context, Sanitizer_StreamHandle stream) {
  Sanitizer_SynchronizeData d{};
  d.context = context;
  d.hStream = stream;
  emit(SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, &d);
}

void fake_context_synchronized(CUcontext context) {
  Sanitizer_SynchronizeData d{};
  d.context = context;
  emit(SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED, &d);
}

void fake_fault() { fake().faulted = true; }
void fake_refuse_next_launch() { fake().refuse_next = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES; }
void fake_tear_down() { fake().torn_down = true; }

long fake_count(const char* what) { return fake().counts[what]; }

// At the very end (the libraries' destructors, after every exit handler): the calls made after
// the teardown, written to FAKE_AFTER_TEARDOWN_FILE.
__attribute__((destructor)) static void say_after_teardown() {
  if (const char* path = std::getenv("FAKE_AFTER_TEARDOWN_FILE"))
    if (std::FILE* f = std::fopen(path, "w")) {
      std::fprintf(f, "%ld\n", fake().counts["after_teardown"]);
      std::fclose(f);
    }
}

// Whether every instruction the tool counts (and the exits) was marked for patching in `module`.
int fake_marked(CUmodule module, int instruction) {
  return fake().marks.count({module, instruction}) ? 1 : 0;
}

}  // extern "C"
