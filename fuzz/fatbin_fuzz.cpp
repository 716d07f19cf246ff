// libFuzzer target for the fat binary readers (bankcheck::sass::read_fatbin,
// fatbin_container_size, split_by_container, select_for_arch) and, for inputs that start as
// an ELF file, read_cuda_elf. Every input gives a value or an error value; never a crash, an
// exception, or more memory than the limits it is given. Postconditions:
// - an error names a byte inside the input (or its end): "(at byte N)", N <= size;
// - each entry lies inside the input, after its container's start; a decoded payload is within
//   the limits; PTX has no trailing NUL;
// - every container read_fatbin accepted has the length fatbin_container_size gives from its
//   start alone, and split_by_container cuts the entries at those starts;
// - select_for_arch points into the entries it was given, at a cubin and a PTX entry, and
//   says something is missing exactly when one of them is null.
// Built by fuzz/run.sh fatbin; the corpus is replayed by CTest.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bankcheck/sass/cuda_elf.hpp"
#include "bankcheck/sass/fatbin.hpp"
#include "bankcheck/sass/fatbin_select.hpp"

namespace {

using namespace bankcheck::sass;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr FatbinLimits kLimits{std::uint64_t(1) << 20, std::uint64_t(4) << 20};

void check_error(const Error& e, std::size_t size) {
  const std::string_view m = e.message;
  const std::size_t at = m.rfind("(at byte ");
  check(at != std::string_view::npos && m.back() == ')');
  std::uint64_t byte = 0;
  std::size_t i = at + 9;
  check(i < m.size() && m[i] >= '0' && m[i] <= '9');
  for (; m[i] >= '0' && m[i] <= '9'; ++i) byte = byte * 10 + std::uint64_t(m[i] - '0');
  check(m.substr(i) == ")" && byte <= size);
}

void fuzz_fatbin(std::span<const std::uint8_t> b) {
  auto r = read_fatbin(b, kLimits);
  if (!r) {
    check_error(r.error(), b.size());
    return;
  }
  const auto& entries = r.value();
  std::uint64_t total = 0;
  for (const FatbinEntry& e : entries) {
    check(e.container <= e.offset && e.offset + 64 <= b.size());
    check(e.payload.size() <= kLimits.max_entry_bytes);
    check(e.decoded == (e.kind != FatbinKind::Other));
    if (e.kind == FatbinKind::Ptx) check(e.payload.empty() || e.payload.back() != 0);
    total += e.payload.size();
  }
  check(total <= kLimits.max_total_bytes);
  for (const auto& unit : split_by_container(entries)) {
    const std::uint64_t c = unit.front().container;
    for (const FatbinEntry& e : unit) check(e.container == c);
    auto n = fatbin_container_size(b.data() + c, b.size() - c);
    check(n.ok() && c + n.value() <= b.size() && unit.back().offset < c + n.value());
    for (std::uint32_t sm : {80u, 90u, 100u}) {
      const auto s = select_for_arch(unit, sm);
      const auto inside = [&](const FatbinEntry* p) {
        return p == nullptr || (p >= unit.data() && p < unit.data() + unit.size());
      };
      check(inside(s.cubin) && inside(s.ptx));
      check(!s.cubin || s.cubin->kind == FatbinKind::Cubin);
      check(!s.ptx || s.ptx->kind == FatbinKind::Ptx);
      check(s.missing.empty() == (s.cubin && s.ptx));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> b(data, size);
  if (size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F') {
    auto elf = read_cuda_elf(b);
    if (!elf) {
      check(!elf.error().message.empty());
      return 0;
    }
    const CudaElf& f = elf.value();
    check(f.runtime != CudaRuntimeLink::Shared || !f.cudart_needed.empty());
    check(f.fatbin.size() <= size && f.relocatable_fatbin.size() <= size);
    if (!f.fatbin.empty()) fuzz_fatbin(f.fatbin);
    if (!f.relocatable_fatbin.empty()) fuzz_fatbin(f.relocatable_fatbin);
    return 0;
  }
  fuzz_fatbin(b);
  if (size >= 16) (void)fatbin_container_size(data, size);
  return 0;
}
