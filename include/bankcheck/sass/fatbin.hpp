// The CUDA fat binary: the containers nvcc embeds in a program's `.nv_fatbin` section and
// registers at start-up (`__cudaRegisterFatBinary`), each holding the PTX and cubins of one
// translation unit for one or more architectures, possibly compressed. Read from bytes in
// memory, every field bounds-checked; the layout, as verified on CUDA 13.0's output, is in
// docs/fatbin.md.
//
//   container  u32 magic 0xBA55ED50, u16 version 1, u16 header size 16, u64 size of entries
//   entry      u16 kind (1 PTX, 2 cubin), u16 0x0101, u32 header size, u64 payload size,
//              u32 compressed size, ..., u32 sm, name, flags (codec: 0x2000 LZ4, 0x8000
//              zstd), u64 decompressed size, then the payload (padded to 8 bytes)
//
// The registration wrapper (`__fatBinC_Wrapper_t`, magic 0x466243B1) is not a container: its
// `data` points at one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/sass/result.hpp"

namespace bankcheck::sass {

enum class FatbinKind {
  Ptx,    // kind 1: PTX text
  Cubin,  // kind 2: an ELF cubin (SASS)
  Other,  // any other number (8 is LTO IR, -gencode ...,code=lto_90); payload left as stored
};

// How an entry was stored. The flags say which; an entry that says it is compressed with
// anything else is an error, never a guess.
enum class Codec { None, Lz4, Zstd };

// Which devices the code is for: sm_90 (plain; PTX runs on its own and newer architectures),
// sm_90a (arch-specific: only that one), sm_100f (family-specific: that architecture and later
// ones of the same major version).
enum class ArchVariant { Plain, ArchSpecific, FamilySpecific };

struct FatbinEntry {
  FatbinKind kind = FatbinKind::Other;
  std::uint16_t kind_number = 0;  // as stored: 1 PTX, 2 cubin, others as found
  std::uint32_t sm = 0;           // 90 for sm_90 and compute_90
  ArchVariant variant = ArchVariant::Plain;
  // PTX: the PTX ISA version of the text (9.0 for `.version 9.0`); cubin: 1.8 with CUDA 13.0.
  std::uint16_t version_major = 0, version_minor = 0;
  std::uint64_t flags = 0;  // as stored (docs/fatbin.md names the known bits)
  Codec codec = Codec::None;
  // The payload holds the decoded code. False only for Other entries, which are not decoded:
  // their payload is the stored (possibly compressed) bytes.
  bool decoded = true;
  // nvcc's --ident, which it passes only with -lineinfo or -G: the translation unit's source
  // file as nvcc was given it ("t.cu", "../src/t.cu"); for the device link's container, every
  // file of the link, each followed by a space ("main.cu u.cu "). Empty otherwise.
  std::string identifier;
  // PTX entries: the ptxas options nvcc recorded for JIT compilation (" --generate-line-info ").
  // Empty for other kinds: sm_100 and later cubins carry binary data there, not text.
  std::string options;
  std::uint64_t offset = 0;     // of the entry's header in the bytes given to read_fatbin
  std::uint64_t container = 0;  // of its container's header there: entries of one container
                                // share it (one translation unit, or one device link)
  // PTX text without its trailing NULs, or the cubin's bytes (uncompressed cubins keep the
  // container's zero padding to 8 bytes after the ELF).
  std::vector<std::uint8_t> payload;

  bool compressed() const { return codec != Codec::None; }
  std::string_view text() const {
    return {reinterpret_cast<const char*>(payload.data()), payload.size()};
  }
  // "sm_90", "sm_90a", "compute_100f", as nvcc's -gencode spells them.
  std::string arch_name() const;
};

// What a reader trusts a fat binary to ask for. Each entry's decoded size is checked against
// the header, and against these before anything is allocated.
struct FatbinLimits {
  std::uint64_t max_entry_bytes = std::uint64_t(1) << 30;  // one decoded PTX or cubin
  std::uint64_t max_total_bytes = std::uint64_t(4) << 30;  // all entries of one read
};

// Every entry of the containers that fill `bytes`, in order: one container, or several back
// to back as in a linked `.nv_fatbin` section (zero padding to an 8-byte boundary between
// them is skipped). PTX and cubin entries are decoded (LZ4 block or zstd frame, to exactly
// the size the header states).
// Errors, each naming the byte offset: no container magic, an unknown container version, a
// size or header that runs past its container or the bytes, PTX or cubin flags with bits
// this reader does not know (an unknown codec among them), a compressed size with no codec,
// a payload that does not decode to the stated size, sizes over `limits`.
Result<std::vector<FatbinEntry>> read_fatbin(std::span<const std::uint8_t> bytes,
                                             const FatbinLimits& limits = {});

// `entries`, in read_fatbin's order, cut into runs that share a container (a container with
// no entries has no run).
std::vector<std::span<const FatbinEntry>> split_by_container(std::span<const FatbinEntry> entries);

// The length of the one container at `data`, for a caller that has only the pointer (the
// runtime gets `wrapper->data` from __cudaRegisterFatBinary, with no length). Reads the
// 16-byte header, refuses a total over `max_bytes`, then walks the entry headers inside that
// total and checks that they tile it exactly. Precondition: `data` is readable for 16 bytes,
// and for as many as the header claims when that is at most `max_bytes`.
// Example: wrapper->data of `nvcc -arch=sm_90 t.cu` -> 6744 (16 + 6728).
Result<std::uint64_t> fatbin_container_size(const void* data, std::uint64_t max_bytes);

}  // namespace bankcheck::sass
