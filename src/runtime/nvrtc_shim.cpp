// libbankcheck-nvrtc.so: preloaded by `bankcheck run` beside its driver, between a program and
// NVRTC. A program that compiles for a real architecture (`--gpu-architecture=sm_90`) and
// loads the cubin (nvrtcGetCUBIN, then cuModuleLoadData) gives the driver SASS, which the
// emulator does not run. Here every such compilation is repeated for the virtual architecture
// of the same number (compute_90), with line information, and the cubin the program receives
// is remembered with that PTX; the driver, given a cubin without PTX, asks
// bankcheck_nvrtc_ptx() for it (cu_module.cpp). The program's own calls and results are
// NVRTC's, unchanged.
#include <dlfcn.h>
#include <nvrtc.h>

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// NVRTC's own function `name`: the next definition after this library's, or, where the
// program opened NVRTC privately, in the copy already loaded.
void* real(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  for (const char* lib : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    if (void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
      if (void* f = dlsym(h, name)) return f;
  return nullptr;
}

template <typename F>
F real_fn(const char* name) {
  return reinterpret_cast<F>(real(name));
}

struct Program {
  std::string source, name;
  std::vector<std::string> headers, include_names, name_expressions;
  std::string ptx;  // the same compilation's PTX, when the program's was for an sm_
};

struct Shim {
  std::mutex mutex;
  std::unordered_map<nvrtcProgram, Program> programs;
  // Each cubin handed to the program, with its PTX (kept for the process's life: a module
  // may be loaded long after the program is destroyed).
  std::vector<std::pair<std::string, std::string>> cubins;
};

Shim& shim() {
  static Shim* s = new Shim;  // never destroyed: modules may load during exit
  return *s;
}

// The options for the PTX of the same program: each real architecture (sm_NN, sm_NNa,
// sm_NNf) as the virtual one of the same name (compute_...), line information added unless
// asked already (or -G). Empty when no option names a real architecture, or when the output
// is LTO IR.
std::vector<std::string> ptx_options(int n, const char* const* options) {
  std::vector<std::string> out;
  bool real_arch = false, lines = false;
  const auto virtualize = [&](std::string& s, std::size_t at) {
    if (s.compare(at, 3, "sm_") != 0) return;
    s.replace(at, 3, "compute_");
    real_arch = true;
  };
  for (int i = 0; i < n; ++i) {
    if (!options || !options[i]) continue;
    std::string o = options[i];
    if (o == "-dlto" || o == "--dlink-time-opt" || o == "-lto") return {};
    if (o == "-lineinfo" || o == "--generate-line-info" || o == "-G" || o == "--device-debug")
      lines = true;
    for (const char* flag : {"--gpu-architecture=", "-arch="})
      if (o.rfind(flag, 0) == 0) virtualize(o, std::strlen(flag));
    if (o == "--gpu-architecture" || o == "-arch") {  // the value as the next option
      out.push_back(o);
      if (i + 1 < n && options[i + 1]) {
        std::string v = options[++i];
        virtualize(v, 0);
        out.push_back(v);
      }
      continue;
    }
    out.push_back(std::move(o));
  }
  if (!real_arch) return {};
  if (!lines) out.emplace_back("--generate-line-info");
  return out;
}

// The PTX of `p` compiled with `options`, or empty.
std::string compile_ptx(const Program& p, const std::vector<std::string>& options) {
  using Create = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                 const char* const*);
  using AddName = nvrtcResult (*)(nvrtcProgram, const char*);
  using Compile = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
  using Size = nvrtcResult (*)(nvrtcProgram, size_t*);
  using Get = nvrtcResult (*)(nvrtcProgram, char*);
  using Destroy = nvrtcResult (*)(nvrtcProgram*);
  const auto create = real_fn<Create>("nvrtcCreateProgram");
  const auto add_name = real_fn<AddName>("nvrtcAddNameExpression");
  const auto compile = real_fn<Compile>("nvrtcCompileProgram");
  const auto size = real_fn<Size>("nvrtcGetPTXSize");
  const auto get = real_fn<Get>("nvrtcGetPTX");
  const auto destroy = real_fn<Destroy>("nvrtcDestroyProgram");
  if (!create || !compile || !size || !get || !destroy) return {};
  std::vector<const char*> headers, include_names, opts;
  for (const auto& h : p.headers) headers.push_back(h.c_str());
  for (const auto& h : p.include_names) include_names.push_back(h.c_str());
  for (const auto& o : options) opts.push_back(o.c_str());
  nvrtcProgram q = nullptr;
  if (create(&q, p.source.c_str(), p.name.empty() ? nullptr : p.name.c_str(),
             static_cast<int>(headers.size()), headers.empty() ? nullptr : headers.data(),
             include_names.empty() ? nullptr : include_names.data()) != NVRTC_SUCCESS)
    return {};
  std::string ptx;
  bool ok = true;
  for (const auto& e : p.name_expressions)
    ok = ok && add_name && add_name(q, e.c_str()) == NVRTC_SUCCESS;
  size_t bytes = 0;
  if (ok && compile(q, static_cast<int>(opts.size()), opts.data()) == NVRTC_SUCCESS &&
      size(q, &bytes) == NVRTC_SUCCESS && bytes > 0) {
    ptx.resize(bytes);
    if (get(q, ptx.data()) != NVRTC_SUCCESS) ptx.clear();
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  }
  destroy(&q);
  return ptx;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvrtcResult nvrtcCreateProgram(
    nvrtcProgram* prog, const char* src, const char* name, int num_headers,
    const char* const* headers, const char* const* include_names) {
  using F = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                            const char* const*);
  const auto f = real_fn<F>("nvrtcCreateProgram");
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  const nvrtcResult r = f(prog, src, name, num_headers, headers, include_names);
  if (r != NVRTC_SUCCESS || !prog || !src) return r;
  Program p;
  p.source = src;
  if (name) p.name = name;
  for (int i = 0; i < num_headers; ++i) {
    p.headers.emplace_back(headers && headers[i] ? headers[i] : "");
    p.include_names.emplace_back(include_names && include_names[i] ? include_names[i] : "");
  }
  std::lock_guard<std::mutex> lock(shim().mutex);
  shim().programs[*prog] = std::move(p);
  return r;
}

__attribute__((visibility("default"))) nvrtcResult nvrtcAddNameExpression(
    nvrtcProgram prog, const char* name_expression) {
  using F = nvrtcResult (*)(nvrtcProgram, const char*);
  const auto f = real_fn<F>("nvrtcAddNameExpression");
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  const nvrtcResult r = f(prog, name_expression);
  if (r == NVRTC_SUCCESS && name_expression) {
    std::lock_guard<std::mutex> lock(shim().mutex);
    if (auto it = shim().programs.find(prog); it != shim().programs.end())
      it->second.name_expressions.emplace_back(name_expression);
  }
  return r;
}

__attribute__((visibility("default"))) nvrtcResult nvrtcCompileProgram(nvrtcProgram prog,
                                                                       int num_options,
                                                                       const char* const* options) {
  using F = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
  const auto f = real_fn<F>("nvrtcCompileProgram");
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  const nvrtcResult r = f(prog, num_options, options);
  if (r != NVRTC_SUCCESS) return r;
  const std::vector<std::string> again = ptx_options(num_options, options);
  if (again.empty()) return r;
  Program p;
  {
    std::lock_guard<std::mutex> lock(shim().mutex);
    const auto it = shim().programs.find(prog);
    if (it == shim().programs.end()) return r;
    p = it->second;
  }
  std::string ptx = compile_ptx(p, again);
  std::lock_guard<std::mutex> lock(shim().mutex);
  if (auto it = shim().programs.find(prog); it != shim().programs.end())
    it->second.ptx = std::move(ptx);
  return r;
}

__attribute__((visibility("default"))) nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char* cubin) {
  using F = nvrtcResult (*)(nvrtcProgram, char*);
  using Size = nvrtcResult (*)(nvrtcProgram, size_t*);
  const auto f = real_fn<F>("nvrtcGetCUBIN");
  const auto size = real_fn<Size>("nvrtcGetCUBINSize");
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  const nvrtcResult r = f(prog, cubin);
  size_t bytes = 0;
  if (r != NVRTC_SUCCESS || !cubin || !size || size(prog, &bytes) != NVRTC_SUCCESS || !bytes)
    return r;
  std::lock_guard<std::mutex> lock(shim().mutex);
  const auto it = shim().programs.find(prog);
  if (it != shim().programs.end() && !it->second.ptx.empty())
    shim().cubins.emplace_back(std::string(cubin, bytes), it->second.ptx);
  return r;
}

__attribute__((visibility("default"))) nvrtcResult nvrtcDestroyProgram(nvrtcProgram* prog) {
  using F = nvrtcResult (*)(nvrtcProgram*);
  const auto f = real_fn<F>("nvrtcDestroyProgram");
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  if (prog) {
    std::lock_guard<std::mutex> lock(shim().mutex);
    shim().programs.erase(*prog);
  }
  return f(prog);
}

// The PTX of the NVRTC compilation that made this cubin (its first `bytes` bytes, which
// may be followed by anything), or null. The text stays for the process's life.
__attribute__((visibility("default"))) const char* bankcheck_nvrtc_ptx(const void* cubin,
                                                                       size_t bytes) {
  if (!cubin) return nullptr;
  std::lock_guard<std::mutex> lock(shim().mutex);
  for (const auto& [bin, ptx] : shim().cubins)
    if (bin.size() <= bytes && std::memcmp(bin.data(), cubin, bin.size()) == 0) return ptx.c_str();
  return nullptr;
}

}  // extern "C"
