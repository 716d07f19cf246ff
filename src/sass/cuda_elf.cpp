// Fat binary sections and the CUDA runtime's linkage of a host ELF file.
#include "bankcheck/sass/cuda_elf.hpp"

#include <string_view>

#include "bankcheck/sass/elf.hpp"

namespace bankcheck::sass {

namespace {

constexpr std::uint32_t kShtDynamic = 6;
constexpr std::uint16_t kEtRel = 1, kEtExec = 2, kEtDyn = 3;
constexpr std::int64_t kDtNull = 0, kDtNeeded = 1;

template <class T>
T read_le(std::span<const std::uint8_t> b, std::uint64_t off) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t(b[off + i]) << (8 * i);
  return static_cast<T>(v);
}

// DT_NEEDED names of the SHT_DYNAMIC section, from the string table it links to.
Result<std::vector<std::string>> needed_libraries(const ElfFile& elf) {
  std::vector<std::string> names;
  for (const Section& s : elf.sections) {
    if (s.type != kShtDynamic) continue;
    if (s.link >= elf.sections.size()) return Error{"the dynamic section links to no string table"};
    const std::span<const std::uint8_t> d = elf.bytes(s), str = elf.bytes(elf.sections[s.link]);
    for (std::uint64_t off = 0; off + 16 <= d.size(); off += 16) {
      const auto tag = read_le<std::int64_t>(d, off);
      if (tag == kDtNull) break;
      if (tag != kDtNeeded) continue;
      const auto at = read_le<std::uint64_t>(d, off + 8);
      std::uint64_t end = at;
      while (end < str.size() && str[end] != 0) ++end;
      if (end >= str.size())
        return Error{"a DT_NEEDED name (at " + std::to_string(at) +
                     ") is not terminated inside the dynamic string table"};
      names.emplace_back(reinterpret_cast<const char*>(str.data() + at), end - at);
    }
  }
  return names;
}

bool defines_runtime(const std::vector<Symbol>& symbols) {
  for (const Symbol& s : symbols)
    if (s.section != 0 && (s.name == "__cudaRegisterFatBinary" || s.name == "cudaLaunchKernel"))
      return true;
  return false;
}

}  // namespace

Result<CudaElf> read_cuda_elf(std::span<const std::uint8_t> file) {
  auto elf = read_elf(file);
  if (!elf) return elf.error();
  const ElfFile& f = elf.value();
  CudaElf out;
  out.elf_type = f.type;
  if (const Section* s = f.find(".nv_fatbin")) {
    auto b = f.bytes(*s);
    out.fatbin.assign(b.begin(), b.end());
  }
  if (const Section* s = f.find("__nv_relfatbin")) {
    auto b = f.bytes(*s);
    out.relocatable_fatbin.assign(b.begin(), b.end());
  }
  auto needed = needed_libraries(f);
  if (!needed) return needed.error();
  for (const std::string& n : needed.value())
    if (std::string_view(n).starts_with("libcudart.so")) out.cudart_needed = n;
  out.defines_cudart = defines_runtime(f.symbols) || defines_runtime(f.dynamic_symbols);

  const bool linked = f.type == kEtExec || f.type == kEtDyn;
  const bool has_fatbin = !out.fatbin.empty() || !out.relocatable_fatbin.empty();
  if (!out.cudart_needed.empty())
    out.runtime = CudaRuntimeLink::Shared;
  else if (f.type == kEtRel)
    out.runtime = CudaRuntimeLink::Unlinked;
  else if (out.defines_cudart || (linked && has_fatbin))
    out.runtime = CudaRuntimeLink::Static;
  return out;
}

}  // namespace bankcheck::sass
