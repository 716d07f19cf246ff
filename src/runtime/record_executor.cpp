// The record executor (record_executor.hpp): one line per call, variables as zero-filled
// buffers, failures on request.
#include "record_executor.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "mangled_params.hpp"

namespace bankcheck::runtime {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

const char* kind_name(VariableKind k) {
  switch (k) {
    case VariableKind::Global:
      return "global";
    case VariableKind::Constant:
      return "constant";
    case VariableKind::Managed:
      return "managed";
  }
  return "?";
}

const char* kind_name(MemoryKind k) {
  switch (k) {
    case MemoryKind::Device:
      return "device";
    case MemoryKind::Managed:
      return "managed";
    case MemoryKind::PinnedHost:
      return "pinned";
    case MemoryKind::RegisteredHost:
      return "registered";
  }
  return "?";
}

// "TEXT:regs=64,shared=1024;OTHER:threads=256" -> the attributes for a kernel whose name
// contains TEXT (the first matching entry), over the defaults.
FunctionAttributes attributes_for(std::string_view name, std::string_view spec) {
  FunctionAttributes a;
  a.registers_per_thread = 32;
  a.ptx_version = 90;
  a.binary_version = 90;
  while (!spec.empty()) {
    const std::size_t semi = spec.find(';');
    std::string_view entry = spec.substr(0, semi);
    spec = semi == std::string_view::npos ? std::string_view() : spec.substr(semi + 1);
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos || name.find(entry.substr(0, colon)) == name.npos) continue;
    std::string_view keys = entry.substr(colon + 1);
    while (!keys.empty()) {
      const std::size_t comma = keys.find(',');
      const std::string_view kv = keys.substr(0, comma);
      keys = comma == std::string_view::npos ? std::string_view() : keys.substr(comma + 1);
      const std::size_t eq = kv.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view key = kv.substr(0, eq);
      const long value = std::strtol(std::string(kv.substr(eq + 1)).c_str(), nullptr, 10);
      if (key == "regs") a.registers_per_thread = static_cast<int>(value);
      if (key == "shared") a.static_shared_bytes = static_cast<std::size_t>(value);
      if (key == "local") a.local_bytes = static_cast<std::size_t>(value);
      if (key == "const") a.const_bytes = static_cast<std::size_t>(value);
      if (key == "threads") a.max_threads_per_block = static_cast<int>(value);
    }
    break;
  }
  return a;
}

class RecordExecutor final : public Executor {
 public:
  explicit RecordExecutor(const ExecutorConfig& config)
      : fault_(env("BANKCHECK_RECORD_FAULT")),
        unsupported_(env("BANKCHECK_RECORD_UNSUPPORTED")),
        attrs_(env("BANKCHECK_RECORD_ATTRS")) {
    const std::string path = env("BANKCHECK_RECORD");
    if (!path.empty()) out_ = std::fopen(path.c_str(), "w");
    if (!out_) {
      out_ = stderr;
      prefix_ = "bankcheck: record: ";
    }
    line("device " + std::string(config.device.board.arch) + " " + config.device.board.name);
  }

  void register_module(ModuleId module, const ModuleImage& image) override {
    line("module " + std::to_string(module) + " fatbin " + std::to_string(image.bytes) +
         " prelinked " + std::to_string(image.prelinked.size()));
  }
  void register_function(ModuleId module, const void* host_function,
                         std::string_view device_name) override {
    names_[host_function] = std::string(device_name);
    line("function " + std::to_string(module) + " " + std::string(device_name));
  }
  void register_variable(ModuleId module, const void* host_shadow, std::string_view device_name,
                         std::size_t bytes, VariableKind kind) override {
    storage_[host_shadow] = std::vector<std::byte>(bytes);
    line("variable " + std::to_string(module) + " " + std::string(device_name) + " " +
         kind_name(kind) + " " + std::to_string(bytes));
  }
  void module_complete(ModuleId module) override {
    line("module-complete " + std::to_string(module));
  }
  void unregister_module(ModuleId module) override { line("unregister " + std::to_string(module)); }

  std::span<std::byte> variable_storage(const void* host_shadow) override {
    const auto it = storage_.find(host_shadow);
    if (it == storage_.end()) return {};
    return it->second;
  }

  void memory_allocated(void* address, std::size_t bytes, MemoryKind kind) override {
    char text[64];
    std::snprintf(text, sizeof text, "%p", address);
    line(std::string("alloc ") + kind_name(kind) + " " + std::to_string(bytes) + " " + text);
  }
  void memory_freed(void* address) override {
    char text[64];
    std::snprintf(text, sizeof text, "%p", address);
    line(std::string("free ") + text);
  }

  std::optional<FunctionAttributes> function_attributes(const void* host_function) override {
    return attributes_for(name_of(host_function), attrs_);
  }

  LaunchResult launch(const LaunchRequest& r) override {
    const std::string name = name_of(r.function);
    std::string text = "launch " + name + " grid " + dims(r.grid) + " block " + dims(r.block) +
                       " shared " + std::to_string(r.dynamic_shared_bytes) + " stream " +
                       std::to_string(r.stream) + " cooperative " + (r.cooperative ? "1" : "0") +
                       " cluster " + dims(r.cluster) + " args";
    text += argument_bytes(name, r.args);
    line(text);
    if (!fault_.empty() && name.find(fault_) != std::string::npos)
      return {LaunchStatus::Fault, FaultKind::IllegalAddress,
              "the record executor faulted this launch (BANKCHECK_RECORD_FAULT)"};
    if (!unsupported_.empty() && name.find(unsupported_) != std::string::npos)
      return {LaunchStatus::NotSupported, FaultKind::IllegalAddress,
              "the record executor refused this launch (BANKCHECK_RECORD_UNSUPPORTED)"};
    return {};
  }

  void device_reset() override {
    for (auto& [shadow, bytes] : storage_) std::memset(bytes.data(), 0, bytes.size());
    line("reset");
  }

  void finish() override {
    line("finish");
    if (out_ != stderr) std::fclose(out_);
    out_ = nullptr;
  }

 private:
  std::FILE* out_ = nullptr;
  const char* prefix_ = "";
  std::string fault_, unsupported_, attrs_;
  std::map<const void*, std::string> names_;
  std::map<const void*, std::vector<std::byte>> storage_;

  void line(const std::string& text) {
    if (!out_) return;
    std::fprintf(out_, "%s%s\n", prefix_, text.c_str());
    std::fflush(out_);
  }

  std::string name_of(const void* host_function) const {
    const auto it = names_.find(host_function);
    return it == names_.end() ? "?" : it->second;
  }

  // " 0000803f 64000000": each argument's bytes in memory order, sizes from the name.
  static std::string argument_bytes(const std::string& name, void** args) {
    const auto sizes = parameter_sizes(name);
    if (!sizes) return " ?";
    std::string text;
    for (std::size_t i = 0; i < sizes->size(); ++i) {
      if ((*sizes)[i] == 0 || !args || !args[i]) return text + " ?";
      text += ' ';
      const auto* bytes = static_cast<const unsigned char*>(args[i]);
      for (std::size_t b = 0; b < (*sizes)[i]; ++b) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", bytes[b]);
        text += hex;
      }
    }
    return text;
  }
};

}  // namespace

std::unique_ptr<Executor> make_record_executor(const ExecutorConfig& config) {
  return std::make_unique<RecordExecutor>(config);
}

}  // namespace bankcheck::runtime
