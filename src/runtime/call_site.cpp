// The program's call site (call_site.hpp): the stack from backtrace(), each frame's file from
// the loaded objects, its line from the file's own .debug_line, its function from its symbols.
#include "call_site.hpp"

#include <cxxabi.h>
#include <execinfo.h>
#include <fmt/format.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "bankcheck/sass/elf.hpp"
#include "bankcheck/sass/line_table.hpp"

namespace bankcheck::runtime {
namespace {

struct Object {
  std::string path;          // the file ("" for none)
  std::uintptr_t bias = 0;   // load address minus link-time address
  std::uintptr_t start = 0;  // the first loaded segment, for "this object"
  bool executable = false;
};

struct Search {
  std::uintptr_t address = 0;
  std::optional<Object> found;
};

int find(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + p.p_vaddr;
    if (s->address < begin || s->address - begin >= p.p_memsz) continue;
    Object o;
    o.executable = !info->dlpi_name || !*info->dlpi_name;
    o.path = o.executable ? "/proc/self/exe" : info->dlpi_name;
    o.bias = info->dlpi_addr;
    o.start = begin;
    s->found = o;
    return 1;
  }
  return 0;
}

std::optional<Object> object_of(const void* address) {
  Search s;
  s.address = reinterpret_cast<std::uintptr_t>(address);
  dl_iterate_phdr(find, &s);
  return s.found;
}

std::string file_name(const Object& o) {
  std::error_code ec;
  const std::filesystem::path p =
      o.executable ? std::filesystem::read_symlink(o.path, ec) : std::filesystem::path(o.path);
  return p.filename().string();
}

// One object's symbols and line table, read once.
struct Debug {
  struct Function {
    std::uint64_t start = 0, end = 0;
    std::string name;
  };
  std::vector<Function> functions;  // by start
  std::optional<sass::LineTable> lines;
};

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  std::string out = status == 0 && text ? std::string(text.get()) : name;
  if (const auto paren = out.find('('); paren != std::string::npos && paren > 0) out.resize(paren);
  return out;
}

const Debug& debug_of(const std::string& path) {
  static std::mutex m;
  static auto* cache = new std::map<std::string, Debug>;
  std::lock_guard<std::mutex> lock(m);
  const auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  Debug& d = (*cache)[path];
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  const auto elf = sass::read_elf(bytes);
  if (!elf.ok()) return d;
  for (const auto* table : {&elf.value().symbols, &elf.value().dynamic_symbols})
    for (const sass::Symbol& s : *table)
      if (s.type == 2 && s.size > 0 && !s.name.empty())  // STT_FUNC
        d.functions.push_back({s.value, s.value + s.size, s.name});
  std::sort(d.functions.begin(), d.functions.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  if (elf.value().find(".debug_line")) {
    auto lines = sass::read_line_table(elf.value(), ".debug_line");
    if (lines.ok()) d.lines = std::move(lines.value());
  }
  return d;
}

// "file:line" of the row covering `pc` (the last row at or before it, in its sequence).
std::string line_of(const sass::LineTable& t, std::uint64_t pc) {
  const sass::LineRow* best = nullptr;
  for (std::size_t i = 0; i + 1 < t.rows.size(); ++i) {
    const sass::LineRow& r = t.rows[i];
    if (r.end_sequence) continue;
    const sass::LineRow& next = t.rows[i + 1];
    if (r.address <= pc && pc < next.address && (!best || r.address >= best->address)) best = &r;
  }
  if (!best || best->line == 0 || best->file >= t.files.size() || t.files[best->file].empty())
    return "";
  return fmt::format("{}:{}", t.files[best->file], best->line);
}

std::string describe(const Object& o, const void* return_address) {
  // The call instruction is just before the return address.
  const std::uint64_t pc = reinterpret_cast<std::uintptr_t>(return_address) - 1 - o.bias;
  const Debug& d = debug_of(o.path);
  std::string function;
  std::uint64_t offset = 0;
  for (const auto& f : d.functions)
    if (f.start <= pc && pc < f.end) {
      function = demangled(f.name);
      offset = pc - f.start;
    }
  const std::string line = d.lines ? line_of(*d.lines, pc) : "";
  if (!line.empty()) return function.empty() ? line : fmt::format("{} ({})", line, function);
  if (!function.empty()) return fmt::format("{}+0x{:x} ({})", function, offset, file_name(o));
  return fmt::format("{}+0x{:x}", file_name(o), pc);
}

}  // namespace

bool nvidia_library(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {
      "libcuda.",    "libcudart",   "libcublas", "libcudnn",    "libcufft",     "libcurand",
      "libcusolver", "libcusparse", "libnccl",   "libnvrtc",    "libnvJitLink", "libnvblas",
      "libcupti",    "libnpp",      "libnvjpeg", "libcutensor", "libcufile",    "libnvToolsExt"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view p) { return name.starts_with(p); });
}

std::string program_call_site(std::span<const std::string> skip) {
  void* frames[96];
  const int n = backtrace(frames, 96);
  const std::optional<Object> self = object_of(reinterpret_cast<const void*>(&program_call_site));
  for (int i = 0; i < n; ++i) {
    const std::optional<Object> o = object_of(frames[i]);
    if (!o || (self && o->start == self->start)) continue;
    const std::string name = file_name(*o);
    if (!o->executable &&
        (nvidia_library(name) || std::find(skip.begin(), skip.end(), name) != skip.end() ||
         name.starts_with("libc.") || name.starts_with("libstdc++") ||
         name.starts_with("libgcc_s") || name.starts_with("ld-linux")))
      continue;
    return describe(*o, frames[i]);
  }
  return "";
}

}  // namespace bankcheck::runtime
