// Modules and libraries: the images a program, its CUDA runtime or a library loads (fat
// binaries, registration wrappers, cubins, PTX text as NVRTC writes it), handed to the
// executor; their functions (CUfunction and CUkernel, one object) and variables.
#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "bankcheck/sass/fatbin.hpp"
#include "driver.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243B1;  // __fatBinC_Wrapper_t
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

// The registration wrapper nvcc emits for each translation unit (crt/host_runtime.h): a
// version-2 wrapper of a program linked with -rdc=true lists the objects' own fat binaries,
// null-terminated, in `prelinked`.
struct Wrapper {
  std::uint32_t magic;
  std::uint32_t version;
  const void* data;
  const void* const* prelinked;
};

struct Image {
  ImageKind kind = ImageKind::Fatbin;
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::vector<const void*> prelinked;
};

// The size of an ELF file from its header: the end of its section or program header table,
// or of its last section, whichever is furthest.
std::size_t elf_size(const void* p) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  if (b[4] != 2) return 0;  // ELFCLASS64 only, as every cubin of sm_50 and later is
  auto u16 = [&](std::size_t at) {
    std::uint16_t v;
    std::memcpy(&v, b + at, 2);
    return static_cast<std::size_t>(v);
  };
  auto u64 = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, b + at, 8);
    return static_cast<std::size_t>(v);
  };
  const std::size_t phoff = u64(0x20), shoff = u64(0x28);
  const std::size_t phentsize = u16(0x36), phnum = u16(0x38), shentsize = u16(0x3a),
                    shnum = u16(0x3c);
  std::size_t end = std::max(phoff + phentsize * phnum, shoff + shentsize * shnum);
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t sh = shoff + i * shentsize;
    std::uint32_t type;
    std::memcpy(&type, b + sh + 4, 4);
    if (type != 8) end = std::max(end, u64(sh + 0x18) + u64(sh + 0x20));  // not SHT_NOBITS
  }
  return end;
}

// The PTX NVRTC compiled beside this cubin, where bankcheck's NVRTC shim (nvrtc_shim.cpp,
// preloaded by `bankcheck run`) saw the program get it; null otherwise. The text lives as long
// as the process.
const char* nvrtc_ptx(const void* cubin, std::size_t bytes) {
  using Ask = const char* (*)(const void*, std::size_t);
  static const auto ask = reinterpret_cast<Ask>(dlsym(RTLD_DEFAULT, "bankcheck_nvrtc_ptx"));
  return ask ? ask(cubin, bytes) : nullptr;
}

// What `code` is, and how long. Errors: nothing a module can be made of.
CUresult read_image(const void* code, Image& out) {
  if (!code) return CUDA_ERROR_INVALID_VALUE;
  std::uint32_t magic;
  std::memcpy(&magic, code, 4);
  if (magic == kWrapperMagic) {
    const auto* w = static_cast<const Wrapper*>(code);
    if (w->version == 2 && w->prelinked)
      for (const void* const* p = w->prelinked; *p; ++p) out.prelinked.push_back(*p);
    code = w->data;
    if (!code) return CUDA_ERROR_INVALID_IMAGE;
    std::memcpy(&magic, code, 4);
  }
  out.data = code;
  if (magic == kFatbinMagic) {
    auto size = bankcheck::sass::fatbin_container_size(code, std::uint64_t(4) << 30);
    if (!size.ok()) return CUDA_ERROR_INVALID_IMAGE;
    out.kind = ImageKind::Fatbin;
    out.bytes = size.value();
    return CUDA_SUCCESS;
  }
  if (std::memcmp(code,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    out.kind = ImageKind::Cubin;
    out.bytes = elf_size(code);
    return out.bytes ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
  }
  // PTX text: NUL-terminated, with its .version directive.
  const char* text = static_cast<const char*>(code);
  out.kind = ImageKind::Ptx;
  out.bytes = std::strlen(text);
  if (std::string_view(text, out.bytes).find(".version") == std::string_view::npos)
    return CUDA_ERROR_INVALID_IMAGE;
  return CUDA_SUCCESS;
}

// Loads `code` as a module. `preserved`: the caller keeps the image for the module's life
// (CU_LIBRARY_BINARY_IS_PRESERVED), or it lies in a loaded file's memory; otherwise it is
// copied. `caller` names who loaded it when the image itself is not in a file.
CUresult load(Driver& d, const void* code, bool preserved, const void* caller, bool library,
              Module** out) {
  Image image;
  if (const CUresult e = read_image(code, image)) return e;
  if (image.kind == ImageKind::Cubin)
    if (const char* ptx = nvrtc_ptx(image.data, image.bytes)) {
      image.kind = ImageKind::Ptx;  // NVRTC's cubin: its compilation's PTX instead
      image.data = ptx;
      image.bytes = std::strlen(ptx);
    }
  Executor* ex = d.executor();
  if (!ex) return CUDA_ERROR_DEINITIALIZED;
  auto m = std::make_unique<Module>();
  m->id = d.next_module++;
  m->library = library;
  CodeOwner owner = owner_of(image.data);
  if (owner.name.empty()) {
    owner = owner_of(caller);
  } else {
    preserved = true;  // in a loaded file: it stays until that file is unloaded
  }
  if (!preserved) {
    const std::size_t bytes = image.kind == ImageKind::Ptx ? image.bytes + 1 : image.bytes;
    m->copy.assign(static_cast<const char*>(image.data),
                   static_cast<const char*>(image.data) + bytes);
    image.data = m->copy.data();
  }
  m->origin = owner.name;
  ModuleImage mi;
  mi.kind = image.kind;
  mi.data = image.data;
  mi.bytes = image.bytes;
  mi.prelinked = image.prelinked;
  mi.origin = owner.name;
  mi.library = owner.library;
  if (!ex->register_module(m->id, mi)) return CUDA_ERROR_INVALID_IMAGE;
  Module* raw = m.get();
  d.modules.emplace(raw, std::move(m));
  *out = raw;
  return CUDA_SUCCESS;
}

void unload(Driver& d, Module* m) {
  if (Executor* ex = d.executor()) ex->unregister_module(m->id);
  for (auto& [name, f] : m->functions) d.functions.erase(f.get());
  // Variables handed out as device memory go with it.
  for (auto it = d.allocations.begin(); it != d.allocations.end();) {
    if (it->second.kind == AllocationKind::Symbol &&
        it->second.pool == reinterpret_cast<CUmemoryPool>(m))
      it = d.allocations.erase(it);
    else
      ++it;
  }
  d.modules.erase(m);
}

CUresult global(Driver& d, CUdeviceptr* dptr, size_t* bytes, Module* m, const char* name) {
  if (!m || !name) return CUDA_ERROR_INVALID_VALUE;
  Executor* ex = d.executor();
  if (!ex) return CUDA_ERROR_DEINITIALIZED;
  const std::span<std::byte> s = ex->variable_storage(m->id, name);
  if (s.empty()) return CUDA_ERROR_NOT_FOUND;
  const auto start = reinterpret_cast<std::uintptr_t>(s.data());
  // Variable storage is device memory for copies; the allocation remembers its module (the
  // pool field, unused for variables) so that unloading forgets it.
  d.allocations.try_emplace(start, Allocation{s.size(), AllocationKind::Symbol, 0, false, false,
                                              reinterpret_cast<CUmemoryPool>(m)});
  if (dptr) *dptr = static_cast<CUdeviceptr>(start);
  if (bytes) *bytes = s.size();
  return CUDA_SUCCESS;
}

CUresult get_function(Driver& d, Module* m, const char* name, Function** out) {
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  Function* f = d.find_function(*m, name);
  if (!f) return CUDA_ERROR_NOT_FOUND;
  *out = f;
  return CUDA_SUCCESS;
}

bool option_set(const CUlibraryOption* options, void* const* values, unsigned count,
                CUlibraryOption which) {
  for (unsigned i = 0; i < count; ++i)
    if (options && options[i] == which) return !values || values[i] != nullptr;
  return false;
}

}  // namespace

namespace bankcheck::runtime {

// No JIT compilation happens here (PTX is emulated as it is): the logs a program asks for are
// empty, their sizes and the wall time zero; other options are accepted as given.
void answer_jit_options(unsigned count, const CUjit_option* options, void** values) {
  for (unsigned i = 0; i < count; ++i) {
    switch (options[i]) {
      case CU_JIT_INFO_LOG_BUFFER:
      case CU_JIT_ERROR_LOG_BUFFER:
        if (values[i]) *static_cast<char*>(values[i]) = '\0';
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        values[i] = nullptr;  // bytes written, in the value itself
        break;
      case CU_JIT_WALL_TIME: {
        const float zero = 0.0f;
        std::memcpy(&values[i], &zero, sizeof zero);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace bankcheck::runtime

// ---- Modules
// -------------------------------------------------------------------------------------

BANKCHECK_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image,
                                          unsigned int numOptions, CUjit_option* options,
                                          void** optionValues) {
  const void* caller = __builtin_return_address(0);
  return in_context([&](Driver& d, Context&) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    if (numOptions && (!options || !optionValues)) return CUDA_ERROR_INVALID_VALUE;
    answer_jit_options(numOptions, options, optionValues);
    Module* m = nullptr;
    const CUresult e = load(d, image, false, caller, false, &m);
    if (e == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  const void* caller = __builtin_return_address(0);
  return in_context([&](Driver& d, Context&) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    Module* m = nullptr;
    const CUresult e = load(d, image, false, caller, false, &m);
    if (e == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
  const void* caller = __builtin_return_address(0);
  return in_context([&](Driver& d, Context&) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    Module* m = nullptr;
    const CUresult e = load(d, fatCubin, false, caller, false, &m);
    if (e == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  const void* caller = __builtin_return_address(0);
  return in_context([&](Driver& d, Context&) {
    if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(fname, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    bytes.push_back('\0');  // PTX text is read up to its NUL
    Module* m = nullptr;
    const CUresult e = load(d, bytes.data(), false, caller, false, &m);
    if (e == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuModuleUnload(CUmodule hmod) {
  return call(
      [&](Driver& d) {
        Module* m = d.module(hmod);
        if (!m || m->library) return CUDA_ERROR_INVALID_HANDLE;
        flush_device_output(d);
        unload(d, m);
        return CUDA_SUCCESS;
      },
      false);
}

// Eager: the CUDA runtime takes another path with lazy loading that this driver does not
// serve; every module is read when first used either way.
BANKCHECK_API CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = CU_MODULE_EAGER_LOADING;
  return CUDA_SUCCESS;
}

BANKCHECK_API CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return call([&](Driver& d) {
    Function* f = nullptr;
    const CUresult e = get_function(d, d.module(hmod), name, &f);
    if (e == CUDA_SUCCESS) *hfunc = reinterpret_cast<CUfunction>(f);
    return e;
  });
}

BANKCHECK_API CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod,
                                            const char* name) {
  return call([&](Driver& d) {
    Module* m = d.module(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    return global(d, dptr, bytes, m, name);
  });
}

BANKCHECK_API CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
  return call([&](Driver& d) {
    Module* m = d.module(mod);
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    Executor* ex = d.executor();
    *count = ex ? static_cast<unsigned>(ex->functions(m->id).size()) : 0;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions,
                                                  CUmodule mod) {
  return call([&](Driver& d) {
    Module* m = d.module(mod);
    if (!functions) return CUDA_ERROR_INVALID_VALUE;
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    Executor* ex = d.executor();
    if (!ex) return CUDA_ERROR_DEINITIALIZED;
    const std::vector<std::string> names = ex->functions(m->id);
    for (unsigned i = 0; i < numFunctions && i < names.size(); ++i)
      functions[i] = reinterpret_cast<CUfunction>(d.find_function(*m, names[i]));
    return CUDA_SUCCESS;
  });
}

// ---- Libraries
// -----------------------------------------------------------------------------------

BANKCHECK_API CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*,
                                         void**, unsigned int, CUlibraryOption* libraryOptions,
                                         void** libraryOptionValues,
                                         unsigned int numLibraryOptions) {
  const void* caller = __builtin_return_address(0);
  // Libraries need no context: the CUDA runtime loads its fat binaries before it has one.
  return call([&](Driver& d) {
    if (!library) return CUDA_ERROR_INVALID_VALUE;
    const bool preserved = option_set(libraryOptions, libraryOptionValues, numLibraryOptions,
                                      CU_LIBRARY_BINARY_IS_PRESERVED);
    Module* m = nullptr;
    const CUresult e = load(d, code, preserved, caller, true, &m);
    if (e == CUDA_SUCCESS) *library = reinterpret_cast<CUlibrary>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName,
                                             CUjit_option*, void**, unsigned int, CUlibraryOption*,
                                             void**, unsigned int) {
  const void* caller = __builtin_return_address(0);
  return call([&](Driver& d) {
    if (!library || !fileName) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(fileName, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    bytes.push_back('\0');
    Module* m = nullptr;
    const CUresult e = load(d, bytes.data(), false, caller, true, &m);
    if (e == CUDA_SUCCESS) *library = reinterpret_cast<CUlibrary>(m);
    return e;
  });
}

BANKCHECK_API CUresult cuLibraryUnload(CUlibrary library) {
  return call(
      [&](Driver& d) {
        Module* m = d.module(library);
        if (!m || !m->library) return CUDA_ERROR_INVALID_HANDLE;
        flush_device_output(d);
        unload(d, m);
        return CUDA_SUCCESS;
      },
      false);
}

BANKCHECK_API CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  return call([&](Driver& d) {
    Function* f = nullptr;
    const CUresult e = get_function(d, d.module(library), name, &f);
    if (e == CUDA_SUCCESS) *pKernel = reinterpret_cast<CUkernel>(f);
    return e;
  });
}

BANKCHECK_API CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
  return call([&](Driver& d) {
    Module* m = d.module(library);
    if (!pMod) return CUDA_ERROR_INVALID_VALUE;
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    *pMod = reinterpret_cast<CUmodule>(m);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary lib) {
  return cuModuleGetFunctionCount(count, reinterpret_cast<CUmodule>(lib));
}

BANKCHECK_API CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int numKernels,
                                                 CUlibrary lib) {
  return cuModuleEnumerateFunctions(reinterpret_cast<CUfunction*>(kernels), numKernels,
                                    reinterpret_cast<CUmodule>(lib));
}

BANKCHECK_API CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library,
                                          const char* name) {
  return call([&](Driver& d) {
    Module* m = d.module(library);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    return global(d, dptr, bytes, m, name);
  });
}
BANKCHECK_ALIAS(cuLibraryGetGlobal, cuLibraryGetManaged)

BANKCHECK_API CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  return call([&](Driver& d) {
    if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
    if (!d.function(kernel)) return CUDA_ERROR_INVALID_HANDLE;
    *pFunc = reinterpret_cast<CUfunction>(kernel);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuKernelGetLibrary(CUlibrary* pLib, CUkernel kernel) {
  return call([&](Driver& d) {
    Function* f = d.function(kernel);
    if (!pLib) return CUDA_ERROR_INVALID_VALUE;
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    *pLib = reinterpret_cast<CUlibrary>(f->module);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuFuncGetModule(CUmodule* hmod, CUfunction hfunc) {
  return call([&](Driver& d) {
    Function* f = d.function(hfunc);
    if (!hmod) return CUDA_ERROR_INVALID_VALUE;
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    *hmod = reinterpret_cast<CUmodule>(f->module);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  return call([&](Driver& d) {
    Function* f = d.function(hfunc);
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    *name = f->name.c_str();
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(hfunc));
}

// Every function is ready when its module is loaded here.
BANKCHECK_API CUresult cuFuncIsLoaded(CUfunctionLoadingState* state, CUfunction function) {
  return call([&](Driver& d) {
    if (!state) return CUDA_ERROR_INVALID_VALUE;
    if (!d.function(function)) return CUDA_ERROR_INVALID_HANDLE;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuFuncLoad(CUfunction function) {
  return call(
      [&](Driver& d) { return d.function(function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; });
}

BANKCHECK_API CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset,
                                          size_t* paramSize) {
  return call([&](Driver& d) {
    Function* f = d.function(func);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!f->info.params) return CUDA_ERROR_NOT_SUPPORTED;
    if (paramIndex >= f->info.params->size()) return CUDA_ERROR_INVALID_VALUE;
    const ParamSlot& s = (*f->info.params)[paramIndex];
    if (paramOffset) *paramOffset = s.offset;
    if (paramSize) *paramSize = s.bytes;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset,
                                            size_t* paramSize) {
  return cuFuncGetParamInfo(reinterpret_cast<CUfunction>(kernel), paramIndex, paramOffset,
                            paramSize);
}
