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

Result<Module> read_module(std::span<const std::uint8_t> cubin, Decoder decode) {
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

  // .debug_line only says where Nsight lists each instruction: a cubin whose program is
  // unreadable keeps its SASS, without those lines.
  LineTable source;
  if (elf.find(".debug_line")) {
    auto source_or = read_line_table(elf, ".debug_line");
    if (source_or) {
      source = std::move(source_or).value();
      m.source_files = source.files;
    }
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
    for (std::uint64_t off = 0; decode && off + 16 <= text.size(); off += 16) {
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
    // .debug_line: the rows sharing an address all hold from it up to the next address.
    k.source_lines.assign(k.instructions.size(), {});
    std::vector<const LineRow*> src_rows;
    for (const LineRow& r : source.rows)
      if (r.symbol == symbol && !r.end_sequence) src_rows.push_back(&r);
    for (std::size_t r = 0; r < src_rows.size();) {
      std::size_t e = r;
      while (e < src_rows.size() && src_rows[e]->address == src_rows[r]->address) ++e;
      const std::uint64_t begin = src_rows[r]->address;
      const std::uint64_t end = e < src_rows.size() ? src_rows[e]->address : text.size();
      for (std::uint64_t a = begin / 16; a < k.instructions.size() && a * 16 < end; ++a) {
        auto& at = k.source_lines[a];
        at.clear();
        for (std::size_t j = r; j < e; ++j) {
          const std::uint32_t f = src_rows[j]->file;  // an index into source.files
          if (f >= source.files.size() || source.files[f].empty() || src_rows[j]->line == 0)
            continue;
          const std::pair<std::uint32_t, std::uint32_t> fl{f, src_rows[j]->line};
          if (std::find(at.begin(), at.end(), fl) == at.end()) at.push_back(fl);
        }
      }
      r = e;
    }
    mark_aggregated(k);
    m.kernels.push_back(std::move(k));
  }
  return m;
}

namespace {

constexpr std::uint64_t field(std::uint64_t w, unsigned at, unsigned n) {
  return (w >> at) & ((std::uint64_t(1) << n) - 1);
}

// Opcodes and fields of the election, from bench/hardware/measured/corpora/atomics_sass.txt
// and bench/sass/measured/forms.sass.txt (checked by tests/sass_test.cpp's listing replay).
constexpr std::uint16_t kIsetp = 0x00c, kS2r = 0x119, kUflo = 0x0bd, kVoteu = 0x086;
constexpr std::uint64_t kSrLaneId = 0x00;  // S2R's special register, bits 72-79

// Instructions after which the stretch before an ATOMS is no longer straight-line.
bool ends_stretch(std::uint16_t op) {
  return op == 0x147 /*BRA*/ || op == 0x14d /*EXIT*/ || op == 0x141 /*BSYNC*/ ||
         op == 0x144 /*CALL*/ || op == 0x150 /*RET*/ || op == 0x148 /*WARPSYNC*/;
}

// Whether bits 16-23 name a register the instruction writes (stores, barriers and
// predicate-setting compares have none there).
bool writes_register(const Instruction& in) {
  if (in.shared == SharedOp::STS || in.shared == SharedOp::STSM || in.shared == SharedOp::LDGSTS)
    return false;
  switch (in.opcode) {
    case 0x186:  // STG
    case 0x18e:  // REDG
    case 0x11d:  // BAR
    case 0x118:  // NOP
    case 0x00c:  // ISETP
    case 0x00b:  // FSETP
    case 0x01c:  // PLOP3
    case 0x08c:  // UISETP
    case 0x145:  // BSSY
    case 0x11a:  // DEPBAR
    case 0x1af:  // LDGDEPBAR
      return false;
    default:
      return true;
  }
}

// The nearest instruction before `at` (same stretch) that writes general register `reg`
// (kind 'R', Rd bits 16-23) or uniform register `reg` (kind 'U', URd bits 16-21) and has
// opcode `op`; -1 if another instruction writes it first or the stretch ends.
std::ptrdiff_t writer(const std::vector<Instruction>& code, std::ptrdiff_t at, std::uint16_t op,
                      unsigned reg, bool uniform) {
  for (std::ptrdiff_t i = at - 1; i >= 0; --i) {
    const Instruction& in = code[static_cast<std::size_t>(i)];
    if (ends_stretch(in.opcode)) return -1;
    // Uniform results: the U* opcodes (0x080-0x0bf), S2UR and REDUX.
    const bool is_uniform_op =
        (in.opcode >= 0x080 && in.opcode < 0x0c0) || in.opcode == 0x1c3 || in.opcode == 0x1c4;
    if (is_uniform_op != uniform || !writes_register(in)) continue;
    const unsigned rd = unsigned(field(in.lo, 16, uniform ? 6 : 8));
    if (rd != reg) continue;
    return in.opcode == op ? i : -1;
  }
  return -1;
}

}  // namespace

void mark_aggregated(Kernel& kernel) {
  auto& code = kernel.instructions;
  for (std::size_t j = 0; j < code.size(); ++j) {
    Instruction& atom = code[j];
    if (atom.shared != SharedOp::ATOMS || atom.opcode != 0x18c || atom.guard.negated ||
        atom.guard.predicate == kPT)
      continue;
    // The ISETP that last wrote the guard predicate (Pd bits 81-83).
    std::ptrdiff_t set = -1;
    for (std::ptrdiff_t i = std::ptrdiff_t(j) - 1; i >= 0; --i) {
      const Instruction& in = code[static_cast<std::size_t>(i)];
      if (ends_stretch(in.opcode)) break;
      if (in.opcode == kIsetp && field(in.hi, 81 - 64, 3) == atom.guard.predicate) {
        set = i;
        break;
      }
    }
    if (set < 0) continue;
    const Instruction& isetp = code[static_cast<std::size_t>(set)];
    // ISETP.EQ.U32 (comparison bits 76-78 = 2, bit 73 clear) against a UR (form 6).
    if (field(isetp.hi, 76 - 64, 3) != 2 || field(isetp.hi, 73 - 64, 1) ||
        field(isetp.lo, 9, 3) != 6)
      continue;
    const std::ptrdiff_t lane = writer(code, set, kS2r, unsigned(field(isetp.lo, 24, 8)), false);
    if (lane < 0 || field(code[static_cast<std::size_t>(lane)].hi, 72 - 64, 8) != kSrLaneId)
      continue;
    const std::ptrdiff_t flo = writer(code, set, kUflo, unsigned(field(isetp.lo, 32, 6)), true);
    if (flo < 0) continue;
    const std::ptrdiff_t vote = writer(
        code, flo, kVoteu, unsigned(field(code[static_cast<std::size_t>(flo)].lo, 32, 6)), true);
    if (vote < 0) continue;
    atom.aggregated = true;
  }
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

std::vector<std::uint32_t> memory_instructions_at(const Kernel& kernel, std::uint32_t ptx_line) {
  std::vector<std::uint32_t> out;
  if (ptx_line == 0) return out;
  for (std::size_t i = 0; i < kernel.instructions.size() && i < kernel.ptx_lines.size(); ++i) {
    if (kernel.ptx_lines[i] != ptx_line) continue;
    const std::string_view m = kernel.instructions[i].mnemonic;
    // Also Hopper's: wgmma (the GMMA row holds its operand reads), the TMA unit's copies,
    // st.async to a CTA of the cluster.
    if (m == "LD" || m == "ST" || m == "LDG" || m == "STG" || m == "REDG" || m == "ATOMG" ||
        m == "LDS" || m == "STS" || m == "HGMMA" || m == "QGMMA" || m == "IGMMA" ||
        m == "UTMALDG" || m == "UTMASTG" || m == "UTMAREDG" || m == "UTMAPF" || m == "UBLKCP" ||
        m == "UBLKPF" || m == "STAS")
      out.push_back(static_cast<std::uint32_t>(kernel.instructions[i].offset));
  }
  return out;
}

}  // namespace bankcheck::sass
