// Fat binary containers and their entries (docs/fatbin.md): every field read through a
// bounds-checked little-endian read, every size checked against its container before use.
#include "bankcheck/sass/fatbin.hpp"

#include <cstdio>

#include "fatbin_codec.hpp"

namespace bankcheck::sass {

namespace {

constexpr std::uint32_t kContainerMagic = 0xBA55ED50;
constexpr std::uint32_t kWrapperMagic = 0x466243B1;  // __fatBinC_Wrapper_t, not a container
constexpr std::uint64_t kContainerHeader = 16;
constexpr std::uint64_t kEntryHeader = 64;  // the fixed fields, through the decompressed size

// Entry flags seen on CUDA 13.0's output (docs/fatbin.md). Other bits on a PTX or cubin
// entry stop the read: one of them could be a codec.
constexpr std::uint64_t kFlag64Bit = 0x1;
constexpr std::uint64_t kFlagDebug = 0x2;  // -G
constexpr std::uint64_t kFlagHostLinux = 0x10;
constexpr std::uint64_t kFlagLz4 = 0x2000;                 // --compress-mode=speed
constexpr std::uint64_t kFlagZstd = 0x8000;                // the default, and size/balance
constexpr std::uint64_t kFlagArchSpecific = 0x100000;      // sm_90a, compute_90a
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;    // sm_100f, compute_100f
constexpr std::uint64_t kFlagCubinAttributes = 0x1000000;  // sm_100+ cubins: binary options
// Described by public descriptions of the format (producer CUDA/OpenCL, host Mac/Windows),
// never seen here; they describe where the code came from, not how it is stored.
constexpr std::uint64_t kFlagsDescribed = 0x4 | 0x8 | 0x20 | 0x40;
constexpr std::uint64_t kFlagsKnown = kFlag64Bit | kFlagDebug | kFlagHostLinux | kFlagLz4 |
                                      kFlagZstd | kFlagArchSpecific | kFlagFamilySpecific |
                                      kFlagCubinAttributes | kFlagsDescribed;

template <class T>
bool read_le(std::span<const std::uint8_t> b, std::uint64_t off, T& out) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t(b[off + i]) << (8 * i);
  out = static_cast<T>(v);
  return true;
}

std::string num(std::uint64_t v) { return std::to_string(v); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

Error at(std::uint64_t offset, const std::string& what) {
  return Error{"fat binary: " + what + " (at byte " + num(offset) + ")"};
}

struct ContainerHeader {
  std::uint16_t header = 0;  // bytes before the first entry
  std::uint64_t size = 0;    // bytes of entries after the header
};

// The 16-byte container header at `c`: magic, version, sizes as stored.
Result<ContainerHeader> container_header(std::span<const std::uint8_t> b, std::uint64_t c) {
  std::uint32_t magic = 0;
  std::uint16_t version = 0;
  ContainerHeader h;
  if (b.size() - c < kContainerHeader)
    return at(c, "a container header needs 16 bytes, " + num(b.size() - c) + " remain");
  read_le(b, c, magic);
  read_le(b, c + 4, version);
  read_le(b, c + 6, h.header);
  read_le(b, c + 8, h.size);
  if (magic == kWrapperMagic)
    return at(c,
              "magic 0x466243b1 is a __fatBinC_Wrapper_t, not a container: its data "
              "pointer leads to the container");
  if (magic == 0x464c457f)
    return at(c, "this is an ELF file, not a fat binary: read its .nv_fatbin section");
  if (magic != kContainerMagic)
    return at(c, "no container magic 0xba55ed50 (found " + hex(magic) + ")");
  if (version != 1) return at(c, "container version " + num(version) + "; only 1 is known");
  if (h.header < kContainerHeader)
    return at(c, "container header size " + num(h.header) + " is under its 16 bytes of fields");
  return h;
}

// The container at `c`, checked to lie in `b`: where its entries start and end.
struct Extent {
  std::uint64_t first = 0, end = 0;
};

Result<Extent> container_extent(std::span<const std::uint8_t> b, std::uint64_t c) {
  auto h = container_header(b, c);
  if (!h) return h.error();
  const std::uint64_t room = b.size() - c;
  if (h.value().header > room || h.value().size > room - h.value().header)
    return at(c, "the container claims " + num(h.value().header) + " + " + num(h.value().size) +
                     " bytes, " + num(room) + " remain");
  return Extent{c + h.value().header, c + h.value().header + h.value().size};
}

// One entry header at `e`, inside a container ending at `end`: its fixed fields.
struct RawEntry {
  std::uint16_t kind = 0;
  std::uint32_t header = 0;
  std::uint64_t payload = 0;     // bytes after the header, padding included
  std::uint32_t compressed = 0;  // bytes of the payload that are the compressed stream
  std::uint32_t options_ref = 0;
  std::uint16_t minor = 0, major = 0;
  std::uint32_t sm = 0;
  std::uint32_t name_offset = 0, name_size = 0;
  std::uint64_t flags = 0;
  std::uint64_t decompressed = 0;
};

Result<RawEntry> entry_header(std::span<const std::uint8_t> b, std::uint64_t e, std::uint64_t end) {
  RawEntry r;
  if (end - e < kEntryHeader)
    return at(e, "an entry header needs 64 bytes, " + num(end - e) + " remain in the container");
  read_le(b, e, r.kind);
  read_le(b, e + 4, r.header);
  read_le(b, e + 8, r.payload);
  read_le(b, e + 16, r.compressed);
  read_le(b, e + 20, r.options_ref);
  read_le(b, e + 24, r.minor);
  read_le(b, e + 26, r.major);
  read_le(b, e + 28, r.sm);
  read_le(b, e + 32, r.name_offset);
  read_le(b, e + 36, r.name_size);
  read_le(b, e + 40, r.flags);
  read_le(b, e + 56, r.decompressed);
  if (r.header < kEntryHeader)
    return at(e, "entry header size " + num(r.header) + " is under its 64 bytes of fields");
  if (r.header > end - e || r.payload > end - e - r.header)
    return at(e, "the entry claims " + num(r.header) + " + " + num(r.payload) + " bytes, " +
                     num(end - e) + " remain in the container");
  return r;
}

// Walks the entries of one container without decoding them; calls `visit(offset, raw)` for
// each. Entries must tile the container exactly.
template <class Visit>
Result<bool> walk_entries(std::span<const std::uint8_t> b, Extent x, Visit&& visit) {
  for (std::uint64_t e = x.first; e < x.end;) {
    auto raw = entry_header(b, e, x.end);
    if (!raw) return raw.error();
    if (auto v = visit(e, raw.value()); !v) return v.error();
    e += raw.value().header + raw.value().payload;
  }
  return true;
}

// [off, off + size) inside an entry header of `header` bytes, past its fixed fields.
bool in_header(std::uint64_t off, std::uint64_t size, std::uint32_t header) {
  return off >= kEntryHeader && off <= header && size <= header - off;
}

std::string text_at(std::span<const std::uint8_t> b, std::uint64_t off, std::uint64_t size) {
  std::string s(reinterpret_cast<const char*>(b.data() + off), size);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

Result<FatbinEntry> read_entry(std::span<const std::uint8_t> b, std::uint64_t e, const RawEntry& r,
                               const FatbinLimits& limits) {
  FatbinEntry out;
  out.offset = e;
  out.kind_number = r.kind;
  out.kind = r.kind == 1 ? FatbinKind::Ptx : r.kind == 2 ? FatbinKind::Cubin : FatbinKind::Other;
  out.sm = r.sm;
  out.version_major = r.major;
  out.version_minor = r.minor;
  out.flags = r.flags;
  if (r.flags & kFlagArchSpecific) out.variant = ArchVariant::ArchSpecific;
  if (r.flags & kFlagFamilySpecific) out.variant = ArchVariant::FamilySpecific;
  if ((r.flags & kFlagArchSpecific) && (r.flags & kFlagFamilySpecific))
    return at(e, "flags " + hex(r.flags) + " say both arch-specific and family-specific");

  if (r.name_offset != 0) {
    if (!in_header(r.name_offset, r.name_size, r.header))
      return at(e, "the identifier (" + num(r.name_offset) + ", " + num(r.name_size) +
                       " bytes) lies outside the entry header");
    out.identifier = text_at(b, e + r.name_offset, r.name_size);
  }
  // options_ref points at {u32 offset, u32 size} in the header: the ptxas options of a PTX
  // entry, binary data of an sm_100+ cubin.
  if (r.options_ref != 0) {
    std::uint32_t off = 0, size = 0;
    if (!in_header(r.options_ref, 8, r.header))
      return at(e,
                "the options reference (" + num(r.options_ref) + ") lies outside the entry header");
    read_le(b, e + r.options_ref, off);
    read_le(b, e + r.options_ref + 4, size);
    if (size != 0 && !in_header(off, size, r.header))
      return at(e, "the options (" + num(off) + ", " + num(size) +
                       " bytes) lie outside the entry header");
    if (out.kind == FatbinKind::Ptx && size != 0) out.options = text_at(b, e + off, size);
  }

  const bool lz4 = r.flags & kFlagLz4, zstd = r.flags & kFlagZstd;
  if (lz4 && zstd) return at(e, "flags " + hex(r.flags) + " name two codecs (LZ4 and zstd)");
  out.codec = lz4 ? Codec::Lz4 : zstd ? Codec::Zstd : Codec::None;
  const std::uint64_t payload = e + r.header;
  if (out.compressed() && r.compressed > r.payload)
    return at(e, "compressed size " + num(r.compressed) + " exceeds the payload's " +
                     num(r.payload) + " bytes");
  if (out.kind == FatbinKind::Other) {
    // Not decoded (LTO IR carries flags, 0x10000, whose meaning is unknown): kept as stored.
    out.decoded = false;
    const std::uint64_t n = out.compressed() ? r.compressed : r.payload;
    if (n > limits.max_entry_bytes)
      return at(e,
                "entry of " + num(n) + " bytes, over the limit of " + num(limits.max_entry_bytes));
    out.payload.assign(b.begin() + payload, b.begin() + payload + n);
    return out;
  }
  if (std::uint64_t unknown = r.flags & ~kFlagsKnown)
    return at(e, std::string(out.kind == FatbinKind::Ptx ? "PTX" : "cubin") + " entry flags " +
                     hex(r.flags) + " have bits " + hex(unknown) +
                     " this reader does not know (an unknown codec, perhaps); it will not guess");
  if (!out.compressed() && r.compressed != 0)
    return at(
        e, "compressed size " + num(r.compressed) + " but no known codec in flags " + hex(r.flags));
  const std::uint64_t size = out.compressed() ? r.decompressed : r.payload;
  if (size > limits.max_entry_bytes)
    return at(e,
              "entry of " + num(size) + " bytes, over the limit of " + num(limits.max_entry_bytes));
  if (!out.compressed()) {
    out.payload.assign(b.begin() + payload, b.begin() + payload + r.payload);
  } else {
    auto in = b.subspan(payload, r.compressed);
    auto decoded =
        out.codec == Codec::Lz4 ? detail::decode_lz4(in, size) : detail::decode_zstd(in, size);
    if (!decoded) return at(e, decoded.error().message);
    out.payload = std::move(decoded).value();
  }
  if (out.kind == FatbinKind::Ptx)
    while (!out.payload.empty() && out.payload.back() == 0) out.payload.pop_back();
  return out;
}

}  // namespace

std::string FatbinEntry::arch_name() const {
  std::string s = (kind == FatbinKind::Ptx ? "compute_" : "sm_") + std::to_string(sm);
  if (variant == ArchVariant::ArchSpecific) s += 'a';
  if (variant == ArchVariant::FamilySpecific) s += 'f';
  return s;
}

Result<std::vector<FatbinEntry>> read_fatbin(std::span<const std::uint8_t> bytes,
                                             const FatbinLimits& limits) {
  std::vector<FatbinEntry> entries;
  std::uint64_t total = 0;
  if (bytes.empty()) return at(0, "no bytes");
  for (std::uint64_t c = 0; c < bytes.size();) {
    auto x = container_extent(bytes, c);
    if (!x) return x.error();
    auto walked = walk_entries(bytes, x.value(), [&](std::uint64_t e, const RawEntry& r) {
      auto entry = read_entry(bytes, e, r, limits);
      if (!entry) return Result<bool>(entry.error());
      entry.value().container = c;
      total += entry.value().payload.size();
      if (total > limits.max_total_bytes)
        return Result<bool>(at(e, "entries decode to more than the limit of " +
                                      num(limits.max_total_bytes) + " bytes"));
      entries.push_back(std::move(entry).value());
      return Result<bool>(true);
    });
    if (!walked) return walked.error();
    c = x.value().end;
    // Containers of separate objects are laid out at 8-byte alignment.
    while (c < bytes.size() && c % 8 != 0 && bytes[c] == 0) ++c;
  }
  return entries;
}

std::vector<std::span<const FatbinEntry>> split_by_container(std::span<const FatbinEntry> entries) {
  std::vector<std::span<const FatbinEntry>> runs;
  for (std::size_t i = 0, j = 0; i < entries.size(); i = j) {
    while (j < entries.size() && entries[j].container == entries[i].container) ++j;
    runs.push_back(entries.subspan(i, j - i));
  }
  return runs;
}

Result<std::uint64_t> fatbin_container_size(const void* data, std::uint64_t max_bytes) {
  if (data == nullptr) return at(0, "null container pointer");
  if (max_bytes < kContainerHeader)
    return at(0, "a container needs 16 bytes, " + num(max_bytes) + " are trusted");
  const auto* p = static_cast<const std::uint8_t*>(data);
  auto h = container_header(std::span(p, kContainerHeader), 0);
  if (!h) return h.error();
  if (h.value().header > max_bytes || h.value().size > max_bytes - h.value().header)
    return at(0, "the container claims " + num(h.value().header) + " + " + num(h.value().size) +
                     " bytes, more than the " + num(max_bytes) + " to trust");
  const std::uint64_t n = h.value().header + h.value().size;
  auto walked = walk_entries(std::span(p, n), Extent{h.value().header, n},
                             [](std::uint64_t, const RawEntry&) { return Result<bool>(true); });
  if (!walked) return walked.error();
  return n;
}

}  // namespace bankcheck::sass
