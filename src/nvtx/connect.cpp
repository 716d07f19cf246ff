// The process's side of the NVTX injection: loads libbankcheck-nvtx.so (the file NVTX will
// load too, so both are the same copy) and hands it a C table that calls the Sink.
#include <dlfcn.h>

#include <string>
#include <string_view>

#include "bankcheck/nvtx/sink.hpp"

namespace bankcheck::nvtx {
namespace {

Sink& of(void* self) { return *static_cast<Sink*>(self); }

void push(void* self, const char* d, std::size_t dn, const char* m, std::size_t mn) {
  of(self).push(std::string_view(d, dn), std::string_view(m, mn));
}
void pop(void* self, const char* d, std::size_t dn) { of(self).pop(std::string_view(d, dn)); }
void start(void* self, std::uint64_t id, const char* d, std::size_t dn, const char* m,
           std::size_t mn) {
  of(self).start(id, std::string_view(d, dn), std::string_view(m, mn));
}
void end(void* self, std::uint64_t id) { of(self).end(id); }

}  // namespace

std::string connect(Sink& sink, const std::string& library) {
  void* lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    return "cannot load " + library + ": " + (why ? why : "unknown error");
  }
  auto set = reinterpret_cast<SetSinkFn>(::dlsym(lib, kSetSinkSymbol));
  if (!set) return library + " is not bankcheck's NVTX injection (no " + kSetSinkSymbol + ")";
  const bankcheck_nvtx_sink table{kSinkVersion, &sink, &push, &pop, &start, &end};
  if (set(&table) != static_cast<int>(kSinkVersion))
    return library + " speaks another version of bankcheck's NVTX interface";
  return "";
}

}  // namespace bankcheck::nvtx
