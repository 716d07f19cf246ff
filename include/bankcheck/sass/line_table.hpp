// DWARF line programs of a cubin: `.nv_debug_line_sass` (SASS offset -> line of the PTX
// that ptxas compiled) and `.debug_line` (SASS offset -> CUDA source line).
//
// Both are standard DWARF line-number programs (ptxas 13.0 writes version 2, 32-bit).
// One program holds one sequence per kernel; each sequence starts with
// DW_LNE_set_address whose 8-byte operand is 0 in the file and carries an ELF
// relocation (.rela.<section>) to the kernel's symbol: addresses are therefore offsets
// inside that kernel's .text section, and the relocation says which kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/sass/elf.hpp"

namespace bankcheck::sass {

struct LineRow {
  std::int64_t symbol = -1;   // .symtab index the sequence's address is relative to; -1 if none
  std::uint64_t address = 0;  // byte offset (inside the symbol's section when symbol >= 0)
  std::uint32_t file = 0;     // index into LineTable::files (DWARF numbering: 1-based below v5)
  std::uint32_t line = 0;
  bool end_sequence = false;
};

struct LineTable {
  std::vector<std::string> files;  // as the header names them, directory joined
  std::vector<LineRow> rows;       // in program order
};

// Decodes every unit of the line program in `section` of `elf` (standard, special and
// extended opcodes of DWARF 2 to 5), resolving DW_LNE_set_address through the
// section's relocations. Errors: truncated header or program, unknown version, an
// opcode operand running past the unit.
Result<LineTable> read_line_table(const ElfFile& elf, std::string_view section);

}  // namespace bankcheck::sass
