// read_module: the ELF container, the register counts, the decoder and the SASS->PTX
// line table put together per kernel.
#include "bankcheck/sass/module.hpp"

#include <algorithm>
#include <map>

#include "bankcheck/sass/elf.hpp"
#include "bankcheck/sass/line_table.hpp"

namespace bankcheck::sass {

const Kernel* Module::find(std::string_view name) const {
  for (const Kernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Result<Module> read_module(std::span<const std::uint8_t> cubin) {
  auto elf_or = read_elf(cubin);
  if (!elf_or) return elf_or.error();
  const ElfFile& elf = elf_or.value();
  if (elf.machine != 190)
    return Error{"not a CUDA cubin (ELF machine " + std::to_string(elf.machine) + ", want 190)"};
  Module m;
  m.sm = (elf.flags >> 8) & 0xff;  // e_flags 0x0a005a04 for sm_90: 0x5a = 90 in bits 8-15

  auto regs_or = read_register_counts(elf);
  if (!regs_or) return regs_or.error();
  std::map<std::uint32_t, std::uint32_t> regs_by_symbol;
  for (const RegCount& r : regs_or.value()) regs_by_symbol[r.symbol] = r.registers;

  LineTable lines;
  if (elf.find(".nv_debug_line_sass")) {
    auto lines_or = read_line_table(elf, ".nv_debug_line_sass");
    if (!lines_or) return lines_or.error();
    lines = std::move(lines_or).value();
    m.has_line_info = true;
  }

  for (std::size_t si = 0; si < elf.sections.size(); ++si) {
    const Section& s = elf.sections[si];
    if (!s.name.starts_with(".text.")) continue;
    Kernel k;
    k.name = s.name.substr(6);
    if (s.size % 16 != 0)
      return Error{s.name + ": size " + std::to_string(s.size) + " is not a multiple of 16 bytes"};
    // The kernel's symbol: the function symbol defined in this section.
    std::int64_t symbol = -1;
    for (std::size_t y = 0; y < elf.symbols.size(); ++y)
      if (elf.symbols[y].section == si && elf.symbols[y].type == 2 && elf.symbols[y].name == k.name)
        symbol = std::int64_t(y);
    if (symbol >= 0 && regs_by_symbol.count(std::uint32_t(symbol)))
      k.registers = regs_by_symbol[std::uint32_t(symbol)];
    else
      k.registers = s.info >> 24;  // older toolkits kept the count in sh_info's top byte
    std::span<const std::uint8_t> text = elf.bytes(s);
    for (std::uint64_t off = 0; off + 16 <= text.size(); off += 16) {
      std::uint64_t lo = 0, hi = 0;
      for (int b = 0; b < 8; ++b) {
        lo |= std::uint64_t(text[off + b]) << (8 * b);
        hi |= std::uint64_t(text[off + 8 + b]) << (8 * b);
      }
      k.instructions.push_back(decode(lo, hi, off));
    }
    k.ptx_lines.assign(k.instructions.size(), 0);
    // One pass over the rows of this kernel's sequence: each row's line holds from its
    // address up to the next row's.
    std::vector<const LineRow*> rows;
    for (const LineRow& r : lines.rows)
      if (r.symbol == symbol) rows.push_back(&r);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r]->end_sequence) continue;
      std::uint64_t begin = rows[r]->address;
      std::uint64_t end = r + 1 < rows.size() ? rows[r + 1]->address : text.size();
      for (std::uint64_t a = begin / 16; a < k.instructions.size() && a * 16 < end; ++a)
        k.ptx_lines[a] = rows[r]->line;
    }
    m.kernels.push_back(std::move(k));
  }
  return m;
}

std::vector<LineAccesses> shared_by_ptx_line(const Kernel& kernel) {
  std::map<std::uint32_t, LineAccesses> by_line;
  for (std::size_t i = 0; i < kernel.instructions.size(); ++i) {
    const Instruction& inst = kernel.instructions[i];
    if (inst.shared == SharedOp::None || inst.guard.never()) continue;
    std::uint32_t line = i < kernel.ptx_lines.size() ? kernel.ptx_lines[i] : 0;
    LineAccesses& g = by_line[line];
    g.ptx_line = line;
    g.instructions.push_back(&inst);
  }
  std::vector<LineAccesses> out;
  for (auto& [line, g] : by_line)
    if (line != 0) out.push_back(std::move(g));
  if (by_line.count(0)) out.push_back(std::move(by_line[0]));
  return out;
}

}  // namespace bankcheck::sass
