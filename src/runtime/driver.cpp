// The Driver singleton (driver.hpp): the device chosen by BANKCHECK_ARCH, the executor's
// creation and end, the current context, diagnostics, and the lookups every API file shares.
#include "driver.hpp"

#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "executors.hpp"
#include "graphs.hpp"

namespace bankcheck::runtime {

namespace {

// bankcheck's own errors in the environment it was given: nothing sensible can run, and
// the program's exit handlers may call into this library, so leave at once with bankcheck's
// exit code for its own errors (docs/runtime.md).
[[noreturn]] void fatal(std::string_view sentence) {
  diagnose(sentence);
  std::fflush(stderr);
  std::_Exit(2);
}

DeviceProfile device_from_environment() {
  const char* arch = std::getenv("BANKCHECK_ARCH");
  const std::string_view name = arch && *arch ? arch : kDefaultDeviceArch;
  if (auto profile = find_device_profile(name)) return *profile;
  std::string known;
  for (const BoardNumbers& b : boards()) known += std::string(known.empty() ? "" : ", ") + b.arch;
  fatal("BANKCHECK_ARCH=" + std::string(name) + " is not a device bankcheck's CUDA driver " +
        "can show (known: " + known + ")");
}

void finish_at_exit() { Driver::get().finish(); }

struct Search {
  std::uintptr_t address = 0;
  bool found = false, executable = false;
  std::string name;
};

int find_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  const bool executable = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD) continue;
    const std::uintptr_t start = info->dlpi_addr + p.p_vaddr;
    if (s->address >= start && s->address - start < p.p_memsz) {
      s->found = true;
      s->executable = executable;
      s->name = executable ? "" : info->dlpi_name;
      return 1;
    }
  }
  return 0;
}

}  // namespace

void diagnose(std::string_view sentence) {
  std::string line = "bankcheck: ";
  line += sentence;
  line += '\n';
  // One write, so that lines from several threads do not interleave.
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

void diagnose_once(std::string_view key, std::string_view sentence) {
  static std::mutex m;
  static auto* seen = new std::set<std::string, std::less<>>;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!seen->insert(std::string(key)).second) return;
  }
  diagnose(sentence);
}

void flush_device_output(Driver& d) {
  if (d.has_executor()) d.executor()->flush_device_output();
}

CUresult fault_seen(Driver& d) {
  if (d.pending_fault != CUDA_SUCCESS && d.sticky == CUDA_SUCCESS) d.sticky = d.pending_fault;
  d.pending_fault = CUDA_SUCCESS;
  return d.sticky;
}

void at_synchronization() noexcept {
  try {
    Driver& d = Driver::get();
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    flush_device_output(d);
    fault_seen(d);
  } catch (...) {
  }
}

bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("BANKCHECK_DRIVER_TRACE");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

void trace(const char* name, CUresult result) {
  const char* error = nullptr;
  cuGetErrorName(result, &error);
  diagnose(std::string("trace: ") + name + " -> " + (error ? error : std::to_string(result)));
}

CodeOwner owner_of(const void* address) {
  Search s;
  s.address = reinterpret_cast<std::uintptr_t>(address);
  dl_iterate_phdr(find_object, &s);
  if (!s.found) return {};
  if (s.executable) {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return {ec ? std::string("the program") : exe.filename().string(), false};
  }
  return {std::filesystem::path(s.name).filename().string(), true};
}

Driver::Driver() : device(device_from_environment()) {
  primary.primary = true;
  primary.id = next_context_id++;
}

Driver& Driver::get() {
  // Never destroyed: the program's static destructors may still call the API.
  static Driver* d = new Driver;
  return *d;
}

std::vector<Context*>& Driver::context_stack() {
  thread_local std::vector<Context*> stack;
  return stack;
}

Context* Driver::current() {
  std::vector<Context*>& stack = context_stack();
  if (!stack.empty() && stack.back()) return stack.back();
  return primary_active ? &primary : nullptr;
}

bool Driver::valid_context(CUcontext c) const {
  const auto* ctx = reinterpret_cast<const Context*>(c);
  return ctx == &primary || contexts.contains(const_cast<Context*>(ctx));
}

Executor* Driver::executor() {
  if (finished_) return nullptr;
  if (!executor_) {
    ExecutorChoice choice = make_executor(ExecutorConfig{device, /*reports_writes=*/true});
    if (!choice.executor) fatal(choice.error);
    executor_ = std::move(choice.executor);
    std::atexit(finish_at_exit);
  }
  return executor_.get();
}

void Driver::finish() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (finished_ || !executor_) return;
  finished_ = true;
  executor_->finish();
  // The executor is kept, not destroyed: code still running at exit may hold pointers into it
  // (variable storage).
  static_cast<void>(executor_.release());
}

Module* Driver::module(const void* handle) {
  const auto it = modules.find(static_cast<Module*>(const_cast<void*>(handle)));
  return it == modules.end() ? nullptr : it->second.get();
}

Function* Driver::function(const void* handle) {
  auto* f = static_cast<Function*>(const_cast<void*>(handle));
  return functions.contains(f) ? f : nullptr;
}

Function* Driver::find_function(Module& m, std::string_view name) {
  if (const auto it = m.functions.find(name); it != m.functions.end()) return it->second.get();
  Executor* ex = executor();
  if (!ex) return nullptr;
  std::optional<FunctionInfo> info = ex->function(m.id, name);
  if (!info) return nullptr;
  auto f = std::make_unique<Function>();
  f->module = &m;
  f->name = std::string(name);
  f->info = std::move(*info);
  Function* raw = f.get();
  functions.insert(raw);
  m.functions.emplace(raw->name, std::move(f));
  return raw;
}

const Allocation* Driver::allocation_of(const void* p, std::size_t bytes,
                                        std::uintptr_t* start) const {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto it = allocations.upper_bound(addr);
  if (it == allocations.begin()) return nullptr;
  --it;
  const std::size_t size = it->second.bytes;
  if (addr - it->first >= size && !(size == 0 && addr == it->first)) return nullptr;
  if (bytes > size - (addr - it->first)) return nullptr;
  if (start) *start = it->first;
  return &it->second;
}

bool Driver::valid_stream(CUstream s) const {
  return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD ||
         streams.contains(reinterpret_cast<Stream*>(s));
}

Stream* Driver::stream(CUstream s) const {
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return nullptr;
  return reinterpret_cast<Stream*>(s);
}

std::uint64_t Driver::stream_number(CUstream s) const {
  const Stream* st = stream(s);
  return st ? st->number : 0;
}

MemoryPool* Driver::pool(CUmemoryPool p) {
  auto* mp = reinterpret_cast<MemoryPool*>(p);
  if (mp == &default_pool) return mp;
  return pools.contains(mp) ? mp : nullptr;
}

}  // namespace bankcheck::runtime
