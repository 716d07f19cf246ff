// ELF64 reader for cubins: every read goes through a bounds-checked cursor, so hostile
// bytes yield an Error, never an out-of-range access.
#include "bankcheck/sass/elf.hpp"

#include <cstring>

namespace bankcheck::sass {

namespace {

// Little-endian fixed-width read at `off`; false when [off, off + N) is outside.
template <class T>
bool read_le(std::span<const std::uint8_t> b, std::uint64_t off, T& out) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t(b[off + i]) << (8 * i);
  out = static_cast<T>(v);
  return true;
}

// A NUL-terminated name inside [table_off, table_off + table_size).
bool read_name(std::span<const std::uint8_t> b, std::uint64_t table_off, std::uint64_t table_size,
               std::uint32_t name_off, std::string& out) {
  if (name_off >= table_size) return false;
  std::uint64_t start = table_off + name_off, end = table_off + table_size;
  for (std::uint64_t i = start; i < end; ++i)
    if (b[i] == 0) {
      out.assign(reinterpret_cast<const char*>(b.data() + start), i - start);
      return true;
    }
  return false;
}

bool inside(std::span<const std::uint8_t> b, std::uint64_t off, std::uint64_t size) {
  return off <= b.size() && size <= b.size() - off;
}

constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint32_t kShtDynsym = 11;
// The .nv.shared.<kernel> sections of a relocatable cubin (nvcc -rdc=true, in an object's or
// program's __nv_relfatbin) have this processor-specific type instead of SHT_NOBITS: their
// size is the kernel's shared memory and, like SHT_NOBITS, they have no bytes in the file (a
// 4 KiB tile's section runs past the end of its 6 KiB cubin). Linked cubins use SHT_NOBITS.
constexpr std::uint32_t kShtCudaShared = 0x7000000a;

bool has_no_bytes(std::uint32_t type) { return type == kShtNobits || type == kShtCudaShared; }

// The 24-byte entries of one symbol table, named from the string table it links to.
Result<std::vector<Symbol>> read_symbols(std::span<const std::uint8_t> b,
                                         const std::vector<Section>& sections, const Section& s) {
  if (s.link >= sections.size() || has_no_bytes(sections[s.link].type))
    return Error{"symbol table " + s.name + " links to no string table"};
  const Section& str = sections[s.link];
  std::vector<Symbol> symbols;
  for (std::uint64_t off = 0; off + 24 <= s.size; off += 24) {
    std::uint64_t e = s.offset + off;
    std::uint32_t name = 0;
    std::uint8_t info = 0;
    Symbol sym;
    read_le(b, e + 0, name);
    read_le(b, e + 4, info);
    read_le(b, e + 6, sym.section);
    read_le(b, e + 8, sym.value);
    read_le(b, e + 16, sym.size);
    sym.type = info & 0xf;
    if (!read_name(b, str.offset, str.size, name, sym.name))
      return Error{"symbol " + std::to_string(off / 24) + " of " + s.name +
                   " has a name outside its string table"};
    symbols.push_back(std::move(sym));
  }
  return symbols;
}

}  // namespace

const Section* ElfFile::find(std::string_view name) const {
  for (const Section& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const std::uint8_t> ElfFile::bytes(const Section& s) const {
  if (has_no_bytes(s.type)) return {};
  return std::span<const std::uint8_t>(data).subspan(s.offset, s.size);
}

Result<ElfFile> read_elf(std::span<const std::uint8_t> b) {
  if (b.size() < 64 || std::memcmp(b.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0)
    return Error{"not an ELF file (no \\x7fELF magic in the first 64 bytes)"};
  if (b[4] != 2 || b[5] != 1) return Error{"not a little-endian ELF64 file (a cubin is one)"};
  ElfFile elf;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  read_le(b, 0x10, elf.type);
  read_le(b, 0x12, elf.machine);
  read_le(b, 0x30, elf.flags);
  read_le(b, 0x28, shoff);
  read_le(b, 0x3a, shentsize);
  read_le(b, 0x3c, shnum);
  read_le(b, 0x3e, shstrndx);
  if (shentsize < 64) return Error{"section header entries are smaller than ELF64's 64 bytes"};
  if (!inside(b, shoff, std::uint64_t(shentsize) * shnum))
    return Error{"section header table (offset " + std::to_string(shoff) + ", " +
                 std::to_string(shnum) + " entries) lies outside the file"};
  if (shstrndx >= shnum) return Error{"section name table index is out of range"};

  struct Raw {
    std::uint32_t name;
  };
  std::vector<Raw> raw(shnum);
  elf.sections.resize(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint64_t h = shoff + std::uint64_t(i) * shentsize;
    Section& s = elf.sections[i];
    read_le(b, h + 0, raw[i].name);
    read_le(b, h + 4, s.type);
    read_le(b, h + 8, s.flags);
    read_le(b, h + 24, s.offset);
    read_le(b, h + 32, s.size);
    read_le(b, h + 40, s.link);
    read_le(b, h + 44, s.info);
    if (has_no_bytes(s.type)) continue;
    if (!inside(b, s.offset, s.size))
      return Error{"section " + std::to_string(i) + " lies outside the file"};
  }
  const Section& names = elf.sections[shstrndx];
  if (has_no_bytes(names.type)) return Error{"section name table has no bytes"};
  for (std::uint16_t i = 0; i < shnum; ++i)
    if (!read_name(b, names.offset, names.size, raw[i].name, elf.sections[i].name))
      return Error{"section " + std::to_string(i) + " has a name outside the name table"};

  // The first table of each kind, as a linker writes them (one .symtab, one .dynsym).
  bool have_symtab = false, have_dynsym = false;
  for (const Section& s : elf.sections) {
    bool& have = s.type == kShtSymtab ? have_symtab : have_dynsym;
    if ((s.type != kShtSymtab && s.type != kShtDynsym) || have) continue;
    auto symbols = read_symbols(b, elf.sections, s);
    if (!symbols) return symbols.error();
    (s.type == kShtSymtab ? elf.symbols : elf.dynamic_symbols) = std::move(symbols).value();
    have = true;
  }
  elf.data.assign(b.begin(), b.end());
  return elf;
}

Result<std::vector<RegCount>> read_register_counts(const ElfFile& elf) {
  // .nv.info is a list of records {u8 format, u8 attribute, ...}: format 4 (EIFMT_SVAL)
  // carries a u16 length and that many bytes; formats 1-3 carry 2 bytes inline.
  constexpr std::uint8_t kFmtSval = 4, kRegCount = 0x2f;
  std::vector<RegCount> counts;
  const Section* info = elf.find(".nv.info");
  if (!info) return counts;
  std::span<const std::uint8_t> d = elf.bytes(*info);
  std::uint64_t i = 0;
  while (i + 4 <= d.size()) {
    std::uint8_t format = d[i], attr = d[i + 1];
    if (format != kFmtSval) {
      i += 4;
      continue;
    }
    std::uint16_t len = 0;
    read_le(d, i + 2, len);
    if (!inside(d, i + 4, len))
      return Error{".nv.info record at byte " + std::to_string(i) + " runs past the section"};
    if (attr == kRegCount && len == 8) {
      RegCount rc;
      read_le(d, i + 4, rc.symbol);
      read_le(d, i + 8, rc.registers);
      counts.push_back(rc);
    }
    i += 4 + len;
  }
  return counts;
}

}  // namespace bankcheck::sass
