// The executors this library is built with, and the one that stands in when none is.
#include "executors.hpp"

#include <cstdlib>
#include <map>
#include <string_view>
#include <vector>

#include "emulating_executor.hpp"
#include "record_executor.hpp"

namespace bankcheck::runtime {

namespace {

// Keeps variables (so that symbol copies work) and refuses every launch.
class NoExecutor final : public Executor {
 public:
  void register_module(ModuleId, const ModuleImage&) override {}
  void register_function(ModuleId, const void*, std::string_view) override {}
  void register_variable(ModuleId, const void* host_shadow, std::string_view, std::size_t bytes,
                         VariableKind) override {
    storage_[host_shadow].assign(bytes, std::byte{0});
  }
  void module_complete(ModuleId) override {}
  void unregister_module(ModuleId) override {}
  std::span<std::byte> variable_storage(const void* host_shadow) override {
    const auto it = storage_.find(host_shadow);
    if (it == storage_.end()) return {};
    return it->second;
  }
  void memory_allocated(void*, std::size_t, MemoryKind) override {}
  void memory_freed(void*) override {}
  std::optional<FunctionAttributes> function_attributes(const void*) override {
    return std::nullopt;
  }
  LaunchResult launch(const LaunchRequest&) override {
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress,
            "this libcudart.so.13 has no kernel executor built in "
            "(BANKCHECK_EXECUTOR=record selects the test double)"};
  }
  void device_reset() override {
    for (auto& [shadow, bytes] : storage_) bytes.assign(bytes.size(), std::byte{0});
  }
  void finish() override {}

 private:
  std::map<const void*, std::vector<std::byte>> storage_;
};

struct Entry {
  std::string_view name;
  ExecutorFactory make;
  bool test_double;  // never chosen unless named
};

// The kernel executor belongs first in this table, so that it is the default.
constexpr Entry kExecutors[] = {
    {"emulator", make_emulating_executor, false},
    {"record", make_record_executor, true},
};

}  // namespace

ExecutorChoice make_executor(const ExecutorConfig& config) {
  const char* chosen = std::getenv("BANKCHECK_EXECUTOR");
  const std::string_view name = chosen ? chosen : "";
  if (name.empty()) {
    for (const Entry& e : kExecutors)
      if (!e.test_double) return {e.make(config), ""};
    return {std::make_unique<NoExecutor>(), ""};
  }
  if (name == "none") return {std::make_unique<NoExecutor>(), ""};
  std::string known = "none";
  for (const Entry& e : kExecutors) {
    if (e.name == name) return {e.make(config), ""};
    known += ", " + std::string(e.name);
  }
  return {nullptr,
          "BANKCHECK_EXECUTOR=" + std::string(name) + " names no executor (known: " + known + ")"};
}

}  // namespace bankcheck::runtime
