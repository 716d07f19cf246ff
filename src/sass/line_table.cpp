// DWARF line-number program interpreter (DWARF 2-5, section 6.2 of the DWARF 5 standard),
// bounds-checked: a truncated or corrupted program ends in an Error.
#include "bankcheck/sass/line_table.hpp"

#include <cstring>
#include <map>

namespace bankcheck::sass {

namespace {

// A bounds-checked reader over one section; any read past the end sets `bad`.
struct Cursor {
  std::span<const std::uint8_t> d;
  std::uint64_t pos = 0;
  bool bad = false;

  bool has(std::uint64_t n) const { return !bad && pos <= d.size() && n <= d.size() - pos; }
  std::uint64_t fixed(unsigned n) {
    if (!has(n)) {
      bad = true;
      return 0;
    }
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= std::uint64_t(d[pos + i]) << (8 * i);
    pos += n;
    return v;
  }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!has(1)) {
        bad = true;
        return 0;
      }
      std::uint8_t byte = d[pos++];
      if (shift < 64) v |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
  }
  std::int64_t sleb() {
    std::int64_t v = 0;
    unsigned shift = 0;
    std::uint8_t byte = 0;
    do {
      if (!has(1)) {
        bad = true;
        return 0;
      }
      byte = d[pos++];
      if (shift < 64) v |= std::int64_t(std::uint64_t(byte & 0x7f) << shift);
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) v |= -(std::int64_t(1) << shift);
    return v;
  }
  std::string cstr() {
    std::string s;
    while (has(1) && d[pos] != 0) s.push_back(char(d[pos++]));
    if (!has(1)) {
      bad = true;
      return s;
    }
    ++pos;
    return s;
  }
  void skip(std::uint64_t n) {
    if (!has(n))
      bad = true;
    else
      pos += n;
  }
};

// Relocations of `section`: file offset of the relocated field -> symbol index.
std::map<std::uint64_t, std::int64_t> relocations(const ElfFile& elf, std::string_view section) {
  std::map<std::uint64_t, std::int64_t> out;
  const Section* rela = elf.find(".rela" + std::string(section));
  if (!rela) return out;
  Cursor c{elf.bytes(*rela)};
  while (c.has(24)) {
    std::uint64_t offset = c.fixed(8), info = c.fixed(8);
    c.fixed(8);  // addend: 0 in every cubin seen, and kernel-relative offsets ignore it
    out[offset] = std::int64_t(info >> 32);
  }
  return out;
}

// The NUL-terminated string at `offset` of `section`; empty when it lies outside.
std::string string_at(const ElfFile& elf, std::string_view section, std::uint64_t offset) {
  const Section* s = elf.find(section);
  if (!s) return "";
  const auto bytes = elf.bytes(*s);
  if (offset >= bytes.size()) return "";
  const auto* begin = reinterpret_cast<const char*>(bytes.data()) + offset;
  return std::string(begin, strnlen(begin, bytes.size() - offset));
}

// Reads one attribute value of a DWARF 5 entry format (strings into `out`, numbers into
// `number`); false for a form not expected in a line table header. Host compilers write
// names as offsets into .debug_line_str (line_strp) or .debug_str (strp).
bool skip_form(const ElfFile& elf, Cursor& c, std::uint64_t form, bool dwarf64, std::string* out,
               std::uint64_t* number) {
  switch (form) {
    case 0x08:
      *out = c.cstr();
      return true;  // DW_FORM_string
    case 0x0e:
    case 0x1f:
      *out =
          string_at(elf, form == 0x1f ? ".debug_line_str" : ".debug_str", c.fixed(dwarf64 ? 8 : 4));
      return true;  // strp, line_strp
    case 0x0b:
      *number = c.fixed(1);
      return true;  // data1
    case 0x05:
      *number = c.fixed(2);
      return true;  // data2
    case 0x06:
      c.skip(4);
      return true;  // data4
    case 0x07:
      c.skip(8);
      return true;  // data8
    case 0x1e:
      c.skip(16);
      return true;  // data16 (MD5)
    case 0x0f:
      *number = c.uleb();
      return true;  // udata
    case 0x09:
      c.skip(c.uleb());
      return true;  // block
    default:
      return false;
  }
}

}  // namespace

Result<LineTable> read_line_table(const ElfFile& elf, std::string_view section) {
  const Section* s = elf.find(section);
  if (!s) return Error{"no " + std::string(section) + " section (compile with -lineinfo)"};
  auto relocs = relocations(elf, section);
  LineTable table;
  Cursor c{elf.bytes(*s)};
  std::string where = std::string(section) + ": ";
  while (c.has(4)) {
    std::uint64_t unit_len = c.fixed(4);
    bool dwarf64 = unit_len == 0xffffffffu;
    if (dwarf64) unit_len = c.fixed(8);
    if (!c.has(unit_len)) return Error{where + "unit length runs past the section"};
    std::uint64_t unit_end = c.pos + unit_len;
    Cursor u{c.d.subspan(0, unit_end), c.pos};
    c.pos = unit_end;

    auto version = std::uint16_t(u.fixed(2));
    if (version < 2 || version > 5)
      return Error{where + "unsupported DWARF line table version " + std::to_string(version)};
    if (version >= 5) u.skip(2);  // address_size, segment_selector_size
    std::uint64_t header_len = u.fixed(dwarf64 ? 8 : 4);
    std::uint64_t program = u.pos + header_len;
    auto min_inst = std::uint8_t(u.fixed(1));
    if (version >= 4) u.fixed(1);  // maximum_operations_per_instruction (VLIW only)
    bool default_is_stmt = u.fixed(1) != 0;
    auto line_base = std::int8_t(u.fixed(1));
    auto line_range = std::uint8_t(u.fixed(1));
    auto opcode_base = std::uint8_t(u.fixed(1));
    std::vector<std::uint8_t> std_lengths(opcode_base ? opcode_base - 1 : 0);
    for (auto& l : std_lengths) l = std::uint8_t(u.fixed(1));
    if (u.bad || line_range == 0) return Error{where + "truncated or invalid header"};
    (void)default_is_stmt;

    std::size_t file_base = table.files.size();
    if (version < 5) {
      std::vector<std::string> dirs{""};
      while (u.has(1) && u.d[u.pos] != 0) dirs.push_back(u.cstr());
      u.skip(1);
      table.files.emplace_back("");  // DWARF < 5 numbers files from 1
      while (u.has(1) && u.d[u.pos] != 0) {
        std::string name = u.cstr();
        std::uint64_t dir = u.uleb();
        u.uleb();  // mtime
        u.uleb();  // length
        if (dir < dirs.size() && !dirs[dir].empty() && !name.starts_with("/"))
          name = dirs[dir] + "/" + name;
        table.files.push_back(std::move(name));
      }
      u.skip(1);
    } else {
      std::vector<std::string> dirs;
      for (int table_kind = 0; table_kind < 2 && !u.bad; ++table_kind) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> formats(u.fixed(1));
        for (auto& f : formats) f = {u.uleb(), u.uleb()};
        std::uint64_t count = u.uleb();
        for (std::uint64_t i = 0; i < count && !u.bad; ++i) {
          std::string name;
          std::uint64_t dir = 0;
          for (auto [content, form] : formats) {
            std::string value;
            std::uint64_t number = 0;
            if (!skip_form(elf, u, form, dwarf64, &value, &number))
              return Error{where + "unsupported DWARF 5 form " + std::to_string(form)};
            if (content == 1) name = value;  // DW_LNCT_path
            if (content == 2) dir = number;  // DW_LNCT_directory_index
          }
          if (table_kind == 0) {
            dirs.push_back(std::move(name));
          } else {
            if (dir < dirs.size() && !dirs[dir].empty() && !name.empty() && !name.starts_with("/"))
              name = dirs[dir] + "/" + name;
            table.files.push_back(std::move(name));
          }
        }
      }
    }
    if (u.bad || program > unit_end) return Error{where + "truncated file table"};
    u.pos = program;

    LineRow row;
    auto reset = [&] {
      row = LineRow{};
      row.file = std::uint32_t(file_base + 1);
      row.line = 1;
    };
    reset();
    while (u.has(1)) {
      std::uint8_t op = std::uint8_t(u.fixed(1));
      if (op >= opcode_base) {  // special opcode: advance address and line, emit a row
        std::uint8_t adj = op - opcode_base;
        row.address += std::uint64_t(adj / line_range) * min_inst;
        row.line = std::uint32_t(std::int64_t(row.line) + line_base + adj % line_range);
        table.rows.push_back(row);
        continue;
      }
      switch (op) {
        case 0: {  // extended: uleb length, sub-opcode, operands
          std::uint64_t len = u.uleb();
          if (len == 0 || !u.has(len)) return Error{where + "extended opcode runs past the unit"};
          std::uint64_t end = u.pos + len;
          std::uint8_t sub = std::uint8_t(u.fixed(1));
          if (sub == 1) {  // DW_LNE_end_sequence
            row.end_sequence = true;
            table.rows.push_back(row);
            reset();
          } else if (sub == 2) {  // DW_LNE_set_address
            std::uint64_t at = u.pos;
            row.address = len - 1 >= 8 ? u.fixed(8) : u.fixed(unsigned(len - 1));
            auto r = relocs.find(at);
            row.symbol = r == relocs.end() ? -1 : r->second;
          }
          u.pos = end;  // DW_LNE_define_file and vendor opcodes: skipped by length
          break;
        }
        case 1:
          table.rows.push_back(row);
          break;  // DW_LNS_copy
        case 2:
          row.address += u.uleb() * min_inst;
          break;
        case 3:
          row.line = std::uint32_t(std::int64_t(row.line) + u.sleb());
          break;
        case 4:
          row.file = std::uint32_t(file_base + u.uleb());
          break;
        case 5:
          u.uleb();
          break;  // set_column
        case 6:
        case 7:
          break;  // negate_stmt, set_basic_block
        case 8:
          row.address += std::uint64_t((255 - opcode_base) / line_range) * min_inst;
          break;
        case 9:
          row.address += u.fixed(2);
          break;  // fixed_advance_pc
        default:  // set_prologue_end, ... and unknown standard opcodes: skip their operands
          for (unsigned i = 0; i < std_lengths[op - 1]; ++i) u.uleb();
      }
      if (u.bad) return Error{where + "line program truncated"};
    }
  }
  return table;
}

}  // namespace bankcheck::sass
