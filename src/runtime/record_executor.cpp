// The record executor (record_executor.hpp): one line per call, functions and variables as
// the module's PTX declares them (variables zero-filled), failures on request.
#include "record_executor.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/sass/fatbin.hpp"
#include "bankcheck/sass/fatbin_select.hpp"
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

// What a PTX module defines: each entry's parameters (offset and size) and each module
// variable's size.
struct ModuleInfo {
  std::map<std::string, std::vector<ParamSlot>, std::less<>> functions;
  std::map<std::string, std::pair<std::string, std::size_t>, std::less<>>
      variables;  // space, bytes
};

std::size_t type_bytes(std::string_view type) {
  if (type == ".pred") return 1;
  const std::size_t bits = std::strtoul(std::string(type.substr(2)).c_str(), nullptr, 10);
  return bits ? bits / 8 : 0;
}

void read_ptx(std::string_view text, ModuleInfo& out) {
  const ptx::Module m = ptx::parse(text, "module");
  for (const ptx::Variable& v : m.variables) {
    if (v.space != ptx::StateSpace::Global && v.space != ptx::StateSpace::Const) continue;
    std::size_t bytes = type_bytes(v.type) * static_cast<std::size_t>(v.vector);
    for (const std::int64_t dim : v.dims) bytes *= dim > 0 ? static_cast<std::size_t>(dim) : 0;
    out.variables[v.name] = {v.space == ptx::StateSpace::Const ? "constant" : "global", bytes};
  }
  for (const ptx::Function& f : m.functions) {
    if (!f.is_entry || f.is_extern) continue;
    std::vector<ParamSlot> slots;
    std::size_t offset = 0;
    for (const ptx::Param& p : f.params) {
      std::size_t bytes = type_bytes(p.type);
      for (const std::int64_t dim : p.dims) bytes *= static_cast<std::size_t>(dim);
      const std::size_t align = p.align ? static_cast<std::size_t>(p.align) : type_bytes(p.type);
      if (align > 1) offset = (offset + align - 1) / align * align;
      slots.push_back({offset, bytes});
      offset += bytes;
    }
    out.functions[f.name] = std::move(slots);
  }
}

// The PTX of one fat binary container for `sm`, read into `out`; nothing when it has none.
void read_container(const void* data, std::size_t bytes, std::uint32_t sm, ModuleInfo& out) {
  std::uint64_t size = bytes;
  if (size == 0) {
    auto s = sass::fatbin_container_size(data, std::uint64_t(4) << 30);
    if (!s.ok()) return;
    size = s.value();
  }
  auto entries = sass::read_fatbin({static_cast<const std::uint8_t*>(data), size});
  if (!entries.ok()) return;
  const sass::FatbinSelection pick = sass::select_for_arch(entries.value(), sm);
  if (pick.ptx) read_ptx(pick.ptx->text(), out);
}

class RecordExecutor final : public Executor {
 public:
  explicit RecordExecutor(const ExecutorConfig& config)
      : sm_(static_cast<std::uint32_t>(config.device.sm.cc)),
        fault_(env("BANKCHECK_RECORD_FAULT")),
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

  bool register_module(ModuleId module, const ModuleImage& image) override {
    static const char* const kinds[] = {"fatbin", "ptx", "cubin"};
    line("module " + std::to_string(module) + " " + kinds[static_cast<int>(image.kind)] + " " +
         std::to_string(image.bytes) + " prelinked " + std::to_string(image.prelinked.size()));
    ModuleInfo& info = modules_[module];
    try {
      if (image.kind == ImageKind::Fatbin) {
        read_container(image.data, image.bytes, sm_, info);
        for (const void* object : image.prelinked) read_container(object, 0, sm_, info);
      } else if (image.kind == ImageKind::Ptx) {
        read_ptx({static_cast<const char*>(image.data), image.bytes}, info);
      }
    } catch (const std::exception& e) {
      line(std::string("unreadable ") + e.what());
    }
    return true;
  }
  void unregister_module(ModuleId module) override { line("unregister " + std::to_string(module)); }

  std::optional<FunctionInfo> function(ModuleId module, std::string_view name) override {
    const auto m = modules_.find(module);
    if (m == modules_.end()) return std::nullopt;
    const auto f = m->second.functions.find(name);
    if (f == m->second.functions.end()) return std::nullopt;
    line("function " + std::to_string(module) + " " + std::string(name));
    return FunctionInfo{attributes_for(name, attrs_), f->second};
  }
  std::vector<std::string> functions(ModuleId module) override {
    std::vector<std::string> names;
    if (const auto m = modules_.find(module); m != modules_.end())
      for (const auto& [name, slots] : m->second.functions) names.push_back(name);
    return names;
  }

  std::span<std::byte> variable_storage(ModuleId module, std::string_view name) override {
    const auto m = modules_.find(module);
    if (m == modules_.end()) return {};
    const auto v = m->second.variables.find(name);
    if (v == m->second.variables.end()) return {};
    auto [it, added] = storage_.try_emplace({module, std::string(name)});
    if (added) {
      it->second.assign(v->second.second, std::byte{0});
      line("variable " + std::to_string(module) + " " + std::string(name) + " " + v->second.first +
           " " + std::to_string(v->second.second));
    }
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

  LaunchResult launch(const LaunchRequest& r) override {
    const std::string name(r.function);
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
    for (auto& [key, bytes] : storage_) std::memset(bytes.data(), 0, bytes.size());
    line("reset");
  }

  void finish() override {
    line("finish");
    if (out_ != stderr) std::fclose(out_);
    out_ = nullptr;
  }

 private:
  std::uint32_t sm_;
  std::FILE* out_ = nullptr;
  const char* prefix_ = "";
  std::string fault_, unsupported_, attrs_;
  std::map<ModuleId, ModuleInfo> modules_;
  std::map<std::pair<ModuleId, std::string>, std::vector<std::byte>> storage_;

  void line(const std::string& text) {
    if (!out_) return;
    std::fprintf(out_, "%s%s\n", prefix_, text.c_str());
    std::fflush(out_);
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
