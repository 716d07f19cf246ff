// Starting the driver and finding its functions: cuInit, cuDriverGetVersion, cuGetProcAddress
// (the CUDA runtime's way to every other function: it asks for about 435 by name and version)
// and cuGetExportTable.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "driver.hpp"
#include "export_tables.hpp"

namespace bankcheck::runtime {
namespace {

// Generated from cuda_exports.txt (src/runtime/CMakeLists.txt): which exported function answers
// a request for API at VERSION or later, and whether it is the per-thread-stream form.
struct ProcEntry {
  std::string_view name, api;
  int version;
  bool per_thread;
};

constexpr ProcEntry kProcs[] = {
#include "proc_table.inc"
};

// This library, for dlsym: every function of the table is exported by it.
void* self() {
  static void* handle = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&self), &info);
    return info.dli_fname ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
  }();
  return handle;
}

CUresult find_proc(const char* symbol, void** pfn, int version, cuuint64_t flags,
                   CUdriverProcAddressQueryResult* status) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const std::string_view api(symbol);
  const ProcEntry* legacy = nullptr;
  bool known = false;
  for (const ProcEntry& e : kProcs) {
    if (e.api != api) continue;
    known = true;
    if (!e.per_thread && e.version <= version && (!legacy || e.version > legacy->version))
      legacy = &e;
  }
  const ProcEntry* chosen = legacy;
  // The per-thread-stream form of the chosen function, where it has one.
  if (legacy && (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
    for (const ProcEntry& e : kProcs)
      if (e.api == api && e.per_thread && e.version <= version &&
          e.name.substr(0, legacy->name.size()) == legacy->name &&
          e.name.size() == legacy->name.size() + 5)
        chosen = &e;
  if (!chosen) {
    if (status)
      *status =
          known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  const std::string name(chosen->name);
  *pfn = self() ? dlsym(self(), name.c_str()) : nullptr;
  if (!*pfn) {
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace bankcheck::runtime

using namespace bankcheck::runtime;

BANKCHECK_API CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  try {
    Driver& d = Driver::get();
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    d.initialized = true;
    return CUDA_SUCCESS;
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}

BANKCHECK_API CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;  // the toolkit's whose headers this library is built with (13000)
  return CUDA_SUCCESS;
}

BANKCHECK_API CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                           cuuint64_t flags,
                                           CUdriverProcAddressQueryResult* symbolStatus) {
  const CUresult r = find_proc(symbol, pfn, cudaVersion, flags, symbolStatus);
  if (tracing())
    trace(("cuGetProcAddress(" + std::string(symbol ? symbol : "null") + ", " +
           std::to_string(cudaVersion) + (flags & 2 ? ", per-thread)" : ")"))
              .c_str(),
          r);
  return r;
}

BANKCHECK_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                        cuuint64_t flags) {
  return find_proc(symbol, pfn, cudaVersion, flags, nullptr);
}

BANKCHECK_API CUresult cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId) {
  const CUresult r = export_table(ppExportTable, pExportTableId, __builtin_return_address(0));
  if (tracing() && pExportTableId) {
    char id[33];
    for (int i = 0; i < 16; ++i)
      std::snprintf(id + 2 * i, 3, "%02x", static_cast<unsigned char>(pExportTableId->bytes[i]));
    trace(("cuGetExportTable(" + std::string(id) + ")").c_str(), r);
  }
  return r;
}
