// The Runtime singleton (runtime.hpp): the device chosen by BANKCHECK_ARCH, the executor's
// creation and end, diagnostics, and the lookups every API file shares.
#include "runtime.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "executors.hpp"
#include "own_runtimes.hpp"

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
  fatal("BANKCHECK_ARCH=" + std::string(name) + " is not a device bankcheck's CUDA runtime " +
        "can show (known: " + known + ")");
}

void finish_at_exit() { Runtime::get().finish(); }

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

Runtime::Runtime() : device(device_from_environment()) {}

Runtime& Runtime::get() {
  // Never destroyed: the program's static destructors may still call the API.
  static Runtime* rt = new Runtime;
  return *rt;
}

cudaError_t& Runtime::last_error() {
  thread_local cudaError_t e = cudaSuccess;
  return e;
}

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) Runtime::last_error() = e;
  return e;
}

Executor* Runtime::executor() {
  if (finished_) return nullptr;
  if (!executor_) {
    ExecutorChoice choice = make_executor(ExecutorConfig{device, /*reports_writes=*/true});
    if (!choice.executor) fatal(choice.error);
    executor_ = std::move(choice.executor);
    std::atexit(finish_at_exit);
    note_libraries_with_their_own_runtime();
  }
  return executor_.get();
}

void Runtime::finish() {
  std::lock_guard<std::mutex> lock(mutex);
  if (finished_ || !executor_) return;
  finished_ = true;
  note_libraries_with_their_own_runtime();  // those opened since the start too
  executor_->finish();
  // The executor is kept, not destroyed: code still running at exit may hold pointers into it
  // (variable storage).
  static_cast<void>(executor_.release());
}

Kernel* Runtime::kernel(const void* host_or_handle) {
  const auto it = kernels.find(host_or_handle);
  return it == kernels.end() ? nullptr : &it->second;
}

Variable* Runtime::variable(const void* symbol) {
  auto it = variables.find(symbol);
  if (it != variables.end()) return &it->second;
  const auto m = managed.find(symbol);
  if (m == managed.end()) return nullptr;
  it = variables.find(m->second);
  return it == variables.end() ? nullptr : &it->second;
}

std::span<std::byte> Runtime::storage(Variable& v) {
  // Asked once: the storage stays where it is for the life of the module (executor.hpp).
  if (v.storage) return {reinterpret_cast<std::byte*>(v.storage), v.bytes};
  Executor* ex = executor();
  if (!ex) return {};
  const std::span<std::byte> s = ex->variable_storage(v.shadow);
  if (s.size() < v.bytes || s.empty()) return {};
  // Symbol storage is device memory too: copies to and from it check like any other.
  v.storage = reinterpret_cast<std::uintptr_t>(s.data());
  allocations.try_emplace(v.storage, Allocation{v.bytes, AllocationKind::Symbol, 0, false, false});
  return s.first(v.bytes);
}

const Allocation* Runtime::allocation_of(const void* p, std::size_t bytes,
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

bool Runtime::valid_stream(cudaStream_t s) const {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ||
         streams.contains(reinterpret_cast<Stream*>(s));
}

std::uint64_t Runtime::stream_number(cudaStream_t s) const {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return 0;
  return reinterpret_cast<const Stream*>(s)->number;
}

FunctionAttributes Runtime::attributes(Kernel& k) {
  if (!k.attributes) {
    Executor* ex = executor();
    std::optional<FunctionAttributes> a = ex ? ex->function_attributes(k.host) : std::nullopt;
    k.attributes = a ? *a : FunctionAttributes{};
  }
  return *k.attributes;
}

}  // namespace bankcheck::runtime
