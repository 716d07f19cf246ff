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

// Knows no module's contents: every function a program asks for exists, with unknown
// resources and parameters, and every launch is refused; no variable exists.
class NoExecutor final : public Executor {
 public:
  bool register_module(ModuleId, const ModuleImage&) override { return true; }
  void unregister_module(ModuleId) override {}
  std::optional<FunctionInfo> function(ModuleId, std::string_view) override {
    return FunctionInfo{};
  }
  std::vector<std::string> functions(ModuleId) override { return {}; }
  std::span<std::byte> variable_storage(ModuleId, std::string_view) override { return {}; }
  void memory_allocated(void*, std::size_t, MemoryKind) override {}
  void memory_freed(void*) override {}
  LaunchResult launch(const LaunchRequest&) override {
    return {LaunchStatus::NotSupported, FaultKind::IllegalAddress,
            "this libcuda.so.1 has no kernel executor built in "
            "(BANKCHECK_EXECUTOR=record selects the test double)"};
  }
  void device_reset() override {}
  void finish() override {}
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
