// The ELF64 container of a cubin: sections, symbols and the per-kernel attributes that
// ptxas writes (`.nv.info`), read from bytes in memory with every offset bounds-checked.
//
// A cubin is an ordinary little-endian ELF64 file (e_machine 190, EM_CUDA). What this
// layer needs from it:
//   .text.<mangled>        the kernel's machine code, 16 bytes per instruction
//   .nv.info               EIATTR records; EIATTR_REGCOUNT (0x2f) = {symbol, registers}
//   .nv_debug_line_sass    DWARF line program: SASS offset -> line of the embedded PTX
//   .debug_line            DWARF line program: SASS offset -> CUDA source line
//   .symtab/.strtab        kernel symbols (STT_FUNC), whose index .nv.info refers to
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bankcheck/sass/result.hpp"

namespace bankcheck::sass {

struct Section {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  // Into the file; [offset, offset + size) is inside it unless the section has no bytes
  // there (SHT_NOBITS, and a relocatable cubin's .nv.shared.*, type 0x7000000a).
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct Symbol {
  std::string name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  std::uint8_t type = 0;  // STT_*: 2 = function
  std::uint16_t section = 0;
};

// A parsed cubin (or a host executable, shared library or object, for its .nv_fatbin).
// It keeps a copy of the bytes so `bytes(section)` stays valid.
struct ElfFile {
  std::vector<std::uint8_t> data;
  std::vector<Section> sections;
  std::vector<Symbol> symbols;          // index = symbol index in .symtab
  std::vector<Symbol> dynamic_symbols;  // .dynsym (what a stripped executable keeps)
  std::uint16_t type = 0;               // e_type: 1 object, 2 executable, 3 shared object
  std::uint16_t machine = 0;            // 190 for a cubin
  std::uint32_t flags = 0;              // e_flags; holds the SM version for a cubin

  // The section called `name`, or nullptr.
  const Section* find(std::string_view name) const;
  // The bytes of a section (empty for one with no bytes in the file).
  std::span<const std::uint8_t> bytes(const Section& s) const;
};

// Parses the ELF64 header, section headers, section names and the symbol tables
// (.symtab and .dynsym). Errors: not ELF64 little-endian, any header or table outside the
// bytes, names not terminated inside their string table.
Result<ElfFile> read_elf(std::span<const std::uint8_t> bytes);

// EIATTR_REGCOUNT records of .nv.info: symbol index -> registers per thread. Records
// with a malformed length end the walk with an error.
struct RegCount {
  std::uint32_t symbol = 0;
  std::uint32_t registers = 0;
};
Result<std::vector<RegCount>> read_register_counts(const ElfFile& elf);

}  // namespace bankcheck::sass
