// CUDA fat binaries against the toolkit that writes them. Committed fat binaries
// (tests/data/fatbin) stored three ways decode to the same code: nvcc -ptx's text as the
// fatbinary tool minifies it, and a cubin the cubin reader reads. Objects and programs built
// here with nvcc (default compression, --no-compress, --compress-mode, several -gencode, -G,
// -rdc, two translation units, the static runtime) read back through their ELF sections.
// Hostile bytes give error values that name the byte; the selection for an architecture is
// checked over every subset of a pool of entries.
#include "bankcheck/sass/fatbin.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>

#include "bankcheck/sass/cuda_elf.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/fatbin_select.hpp"
#include "bankcheck/sass/module.hpp"

using namespace bankcheck::sass;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = BANKCHECK_SOURCE_DIR;
const fs::path kData = kSource / "tests/data/fatbin";
const std::string kNvcc = BANKCHECK_NVCC;  // empty when CMake found none

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::string s = slurp(p);
  return {s.begin(), s.end()};
}

std::vector<FatbinEntry> entries_of(std::span<const std::uint8_t> b) {
  auto r = read_fatbin(b);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r.value() : std::vector<FatbinEntry>{};
}

const FatbinEntry* find(const std::vector<FatbinEntry>& es, FatbinKind kind, std::uint32_t sm) {
  for (const FatbinEntry& e : es)
    if (e.kind == kind && e.sm == sm) return &e;
  return nullptr;
}

// The PTX the fatbinary tool embeds for a PTX file, by its rules as observed on CUDA 13.0
// (tests/data/fatbin/minify.ptx and every PTX below): outside "strings" (with \" escapes),
// `//` comments to the end of the line and `/* */` comments (line breaks inside too) are
// removed; a space or tab is dropped at the start of a physical line or after another space
// or tab of the input (so a run keeps its first character; "\r" is not whitespace). Every
// other character is kept, so nvcc's PTX, which has no block comments, keeps its line count.
std::string minify_ptx(std::string_view in) {
  std::string out;
  char prev = '\n';  // the previous input character
  for (std::size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < in.size() && in[j] != '"') j += in[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, in.size());
      out.append(in.substr(i, j - i));
      prev = in[j - 1];
      i = j;
    } else if (in.substr(i, 2) == "//") {
      i = std::min(in.find('\n', i), in.size());
      prev = '/';
    } else if (in.substr(i, 2) == "/*") {
      const std::size_t end = in.find("*/", i + 2);
      i = end == std::string_view::npos ? in.size() : end + 2;
      prev = '/';
    } else {
      const bool blank = c == ' ' || c == '\t';
      if (!(blank && (prev == ' ' || prev == '\t' || prev == '\n'))) out += c;
      prev = c;
      ++i;
    }
  }
  return out;
}

std::size_t lines(std::string_view s) { return std::count(s.begin(), s.end(), '\n'); }

// ---------------------------------------------------------------------------------------
// nvcc at test time: each test builds what it needs in its own directory.

class Build {
 public:
  Build() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fatbin_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::create_directories(dir_);
  }
  ~Build() { fs::remove_all(dir_); }
  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs nvcc commands side by side (arguments: shell words, paths without spaces); true when
  // all succeed, else a failure naming the command and its output.
  bool nvcc(const std::vector<std::string>& commands) {
    std::vector<std::future<int>> runs;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      const std::string cmd = "cd " + dir_.string() + " && " + kNvcc + " " + commands[i] +
                              " > log" + std::to_string(i) + " 2>&1";
      runs.push_back(std::async(std::launch::async, [cmd] { return std::system(cmd.c_str()); }));
    }
    bool ok = true;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (runs[i].get() != 0) {
        ADD_FAILURE() << "nvcc " << commands[i] << "\n" << slurp(path("log" + std::to_string(i)));
        ok = false;
      }
    return ok;
  }

 private:
  fs::path dir_;
};

std::string src(const std::string& name) { return (kData / name).string(); }

#define REQUIRE_NVCC() \
  if (kNvcc.empty()) GTEST_SKIP() << "nvcc not found"

CudaElf cuda_elf_of(const fs::path& p) {
  auto r = read_cuda_elf(bytes_of(p));
  EXPECT_TRUE(r.ok()) << p << ": " << r.error().message;
  return r.ok() ? r.value() : CudaElf{};
}

// The PTX entry of one translation unit's container equals nvcc -ptx's text minified, line
// for line; its cubin holds `kernel`.
void expect_unit(std::span<const FatbinEntry> unit, std::uint32_t sm, const std::string& ptx,
                 const std::string& kernel) {
  auto sel = select_for_arch(unit, sm);
  ASSERT_TRUE(sel.cubin && sel.ptx);
  EXPECT_TRUE(sel.missing.empty());
  EXPECT_EQ(sel.ptx->text(), minify_ptx(ptx));
  EXPECT_EQ(lines(sel.ptx->text()), lines(ptx));
  auto m = read_module(sel.cubin->payload, &decode_hopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().sm, sm);
  EXPECT_NE(m.value().find(kernel), nullptr) << kernel;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The committed fat binaries (tests/data/fatbin/regenerate.sh).

TEST(FatbinCommitted, ThreeStoragesDecodeToTheSameCode) {
  const auto none = entries_of(bytes_of(kData / "tile_none.fatbin"));
  const auto zstd = entries_of(bytes_of(kData / "tile_zstd.fatbin"));
  const auto lz4 = entries_of(bytes_of(kData / "tile_lz4.fatbin"));
  ASSERT_EQ(none.size(), 2u);
  ASSERT_EQ(zstd.size(), 2u);
  ASSERT_EQ(lz4.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(none[i].codec, Codec::None);
    EXPECT_EQ(zstd[i].codec, Codec::Zstd);
    EXPECT_EQ(lz4[i].codec, Codec::Lz4);
    for (const auto* e : {&zstd[i], &lz4[i]}) {
      EXPECT_EQ(e->kind, none[i].kind);
      EXPECT_EQ(e->sm, 90u);
      EXPECT_EQ(e->identifier, "tile.cu");
      EXPECT_EQ(e->options, none[i].options);
      EXPECT_TRUE(e->decoded);
      EXPECT_EQ(e->payload, none[i].payload);
    }
  }
  EXPECT_EQ(none[0].kind, FatbinKind::Cubin);
  EXPECT_EQ(none[1].kind, FatbinKind::Ptx);
  // Flags: 64-bit (0x1) and Linux host (0x10), plus the codec: 0x8000 zstd, 0x2000 LZ4.
  EXPECT_EQ(none[1].flags, 0x11u);
  EXPECT_EQ(zstd[1].flags, 0x8011u);
  EXPECT_EQ(lz4[1].flags, 0x2011u);
}

TEST(FatbinCommitted, PtxIsNvccPtxAsTheFatbinaryToolMinifiesIt) {
  const auto es = entries_of(bytes_of(kData / "tile_zstd.fatbin"));
  const FatbinEntry* ptx = find(es, FatbinKind::Ptx, 90);
  ASSERT_NE(ptx, nullptr);
  const std::string text = slurp(kData / "tile.ptx");
  EXPECT_EQ(ptx->text(), minify_ptx(text));
  EXPECT_NE(ptx->text(), text);                // comments and indentation are gone...
  EXPECT_EQ(lines(ptx->text()), lines(text));  // ...but every line is still there
  EXPECT_EQ(ptx->text().find('\0'), std::string_view::npos);
  // The header's version is the text's .version; its options are what ptxas was given.
  EXPECT_NE(ptx->text().find(".version " + std::to_string(ptx->version_major) + "." +
                             std::to_string(ptx->version_minor) + "\n"),
            std::string_view::npos);
  EXPECT_EQ(ptx->options, " --generate-line-info ");
  EXPECT_EQ(ptx->arch_name(), "compute_90");

  // Comments around strings, block comments over lines, CRLF, runs of blanks.
  const auto hand = entries_of(bytes_of(kData / "minify.fatbin"));
  ASSERT_EQ(hand.size(), 1u);
  EXPECT_EQ(hand[0].text(), minify_ptx(slurp(kData / "minify.ptx")));
  EXPECT_EQ(hand[0].identifier, "");
  EXPECT_EQ(hand[0].options, "");
}

TEST(FatbinCommitted, CubinIsReadByTheCubinReader) {
  for (const char* name : {"tile_none.fatbin", "tile_zstd.fatbin", "tile_lz4.fatbin"}) {
    SCOPED_TRACE(name);
    const auto es = entries_of(bytes_of(kData / name));
    const FatbinEntry* cubin = find(es, FatbinKind::Cubin, 90);
    ASSERT_NE(cubin, nullptr);
    EXPECT_EQ(cubin->arch_name(), "sm_90");
    EXPECT_EQ(cubin->version_major, 1u);
    auto m = read_module(cubin->payload, &decode_hopper);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m.value().sm, 90u);
    EXPECT_TRUE(m.value().has_line_info);
    const Kernel* k = m.value().find("_Z14tile_transposePfPKf");
    ASSERT_NE(k, nullptr);
    EXPECT_FALSE(shared_by_ptx_line(*k).empty());
  }
}

TEST(FatbinCommitted, ContainerSizeFromThePointerAlone) {
  for (const char* name : {"tile_none.fatbin", "tile_zstd.fatbin", "tile_lz4.fatbin"}) {
    SCOPED_TRACE(name);
    const auto b = bytes_of(kData / name);
    auto n = fatbin_container_size(b.data(), b.size());
    ASSERT_TRUE(n.ok()) << n.error().message;
    EXPECT_EQ(n.value(), b.size());
    EXPECT_TRUE(fatbin_container_size(b.data(), std::uint64_t(1) << 40).ok());
    auto small = fatbin_container_size(b.data(), b.size() - 1);
    ASSERT_FALSE(small.ok());
    EXPECT_NE(small.error().message.find("more than the " + std::to_string(b.size() - 1)),
              std::string::npos);
  }
  // Back to back, as in a linked .nv_fatbin: each pointer gives its own container's length.
  std::vector<std::uint8_t> all;
  std::vector<std::size_t> starts;
  for (const char* name : {"tile_zstd.fatbin", "tile_none.fatbin", "tile_lz4.fatbin"}) {
    starts.push_back(all.size());
    const auto b = bytes_of(kData / name);
    all.insert(all.end(), b.begin(), b.end());
  }
  starts.push_back(all.size());
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    auto n = fatbin_container_size(all.data() + starts[i], all.size() - starts[i]);
    ASSERT_TRUE(n.ok()) << n.error().message;
    EXPECT_EQ(n.value(), starts[i + 1] - starts[i]);
  }
  const auto es = entries_of(all);
  ASSERT_EQ(es.size(), 6u);
  const auto units = split_by_container(es);
  ASSERT_EQ(units.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(units[i].size(), 2u);
    EXPECT_EQ(units[i][0].container, starts[i]);
    EXPECT_EQ(units[i][0].payload, es[2].payload);  // the same cubin, however stored
  }
  EXPECT_FALSE(fatbin_container_size(nullptr, 100).ok());
  EXPECT_FALSE(fatbin_container_size(all.data(), 15).ok());
}

// A container whose length is not a multiple of 8 (the PTX's NUL padding counted out of it)
// followed by another: the zero bytes up to the 8-byte boundary are skipped.
TEST(FatbinCommitted, ZeroPaddingBetweenContainersIsSkipped) {
  auto b = bytes_of(kData / "tile_none.fatbin");
  const auto es = entries_of(b);
  ASSERT_EQ(es.size(), 2u);
  const std::uint64_t ptx = es[1].offset;
  auto put = [&](std::uint64_t off, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b[off + i] = std::uint8_t(v >> (8 * i));
  };
  std::uint64_t container_size = 0, payload_size = 0;
  std::memcpy(&container_size, &b[8], 8);
  std::memcpy(&payload_size, &b[ptx + 8], 8);
  ASSERT_EQ(b.back(), 0);  // the PTX is padded with NULs
  put(8, container_size - 3);
  put(ptx + 8, payload_size - 3);
  const auto second = bytes_of(kData / "tile_lz4.fatbin");
  b.insert(b.end(), second.begin(), second.end());
  auto n = fatbin_container_size(b.data(), b.size());
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n.value() % 8, 5u);
  const auto both = entries_of(b);
  ASSERT_EQ(both.size(), 4u);
  EXPECT_EQ(both[1].payload, es[1].payload);
  EXPECT_EQ(both[3].payload, es[1].payload);
}

// ---------------------------------------------------------------------------------------
// Hostile input: every error is a value whose message says what and at which byte.

namespace {

struct Mutated {
  std::vector<std::uint8_t> bytes;
  std::uint64_t cubin = 16, ptx = 0;  // entry offsets in tile_*.fatbin
};

Mutated committed(const char* name) {
  Mutated m{bytes_of(kData / name)};
  const auto es = entries_of(m.bytes);
  if (es.size() == 2) m.ptx = es[1].offset;
  return m;
}

template <class T>
void put(std::vector<std::uint8_t>& b, std::uint64_t off, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    b[off + i] = std::uint8_t(std::uint64_t(v) >> (8 * i));
}

template <class T>
T get(const std::vector<std::uint8_t>& b, std::uint64_t off) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t(b[off + i]) << (8 * i);
  return T(v);
}

void expect_error(std::span<const std::uint8_t> b, const std::string& what, std::uint64_t byte,
                  const FatbinLimits& limits = {}) {
  auto r = read_fatbin(b, limits);
  ASSERT_FALSE(r.ok()) << "expected: " << what;
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("(at byte " + std::to_string(byte) + ")"), std::string::npos)
      << r.error().message;
}

// Entry header fields (docs/fatbin.md).
constexpr int kHeaderSize = 4, kPayloadSize = 8, kCompressed = 16, kOptionsRef = 20,
              kNameOffset = 32, kFlags = 40, kDecompressed = 56;

}  // namespace

TEST(FatbinHostile, ContainerHeaders) {
  EXPECT_FALSE(read_fatbin({}).ok());
  auto m = committed("tile_zstd.fatbin");
  auto bad = m.bytes;
  put<std::uint32_t>(bad, 0, 0x12345678);
  expect_error(bad, "no container magic 0xba55ed50 (found 0x12345678)", 0);
  put<std::uint32_t>(bad, 0, 0x466243b1);
  expect_error(bad, "__fatBinC_Wrapper_t", 0);
  expect_error(bytes_of(kData / "../sass/forms_ptxas.cubin"), "ELF file", 0);
  bad = m.bytes;
  put<std::uint16_t>(bad, 4, 2);
  expect_error(bad, "container version 2; only 1 is known", 0);
  bad = m.bytes;
  put<std::uint16_t>(bad, 6, 8);
  expect_error(bad, "container header size 8", 0);
  bad = m.bytes;
  put<std::uint64_t>(bad, 8, std::uint64_t(1) << 63);
  expect_error(bad, "the container claims 16 + 9223372036854775808 bytes", 0);
  EXPECT_FALSE(fatbin_container_size(bad.data(), std::uint64_t(1) << 62).ok());
  // One byte more than there is; eight fewer, so that the last entry runs past its container.
  bad = m.bytes;
  put<std::uint64_t>(bad, 8, get<std::uint64_t>(bad, 8) + 1);
  expect_error(bad, "remain", 0);
  bad = m.bytes;
  put<std::uint64_t>(bad, 8, get<std::uint64_t>(bad, 8) - 8);
  expect_error(bad, "remain in the container", m.ptx);
  EXPECT_FALSE(fatbin_container_size(bad.data(), bad.size()).ok());
  // Bytes after the container that are not another container.
  bad = m.bytes;
  bad.insert(bad.end(), 16, 0xab);
  expect_error(bad, "no container magic", m.bytes.size());
  bad = m.bytes;
  bad.insert(bad.end(), 5, 0);
  expect_error(bad, "16 bytes, 5 remain", m.bytes.size());
}

TEST(FatbinHostile, EveryTruncationIsAnError) {
  for (const char* name : {"tile_zstd.fatbin", "tile_lz4.fatbin", "tile_none.fatbin"}) {
    const auto b = bytes_of(kData / name);
    for (std::size_t n = 0; n < b.size(); ++n) {
      auto r = read_fatbin(std::span(b.data(), n));
      ASSERT_FALSE(r.ok()) << name << " cut to " << n;
      EXPECT_NE(r.error().message.find("(at byte "), std::string::npos);
    }
  }
}

TEST(FatbinHostile, EntryHeaders) {
  auto m = committed("tile_zstd.fatbin");
  auto bad = m.bytes;
  put<std::uint32_t>(bad, m.cubin + kHeaderSize, 8);
  expect_error(bad, "entry header size 8 is under its 64 bytes", m.cubin);
  bad = m.bytes;
  put<std::uint64_t>(bad, m.cubin + kPayloadSize, ~std::uint64_t(0));
  expect_error(bad, "the entry claims 72 + 18446744073709551615 bytes", m.cubin);
  bad = m.bytes;
  put<std::uint32_t>(bad, m.ptx + kNameOffset, 200);
  expect_error(bad, "the identifier", m.ptx);
  bad = m.bytes;
  put<std::uint32_t>(bad, m.ptx + kNameOffset, 8);  // inside the fixed fields
  expect_error(bad, "the identifier", m.ptx);
  bad = m.bytes;
  put<std::uint32_t>(bad, m.ptx + kOptionsRef, 100);
  expect_error(bad, "the options reference", m.ptx);
  bad = m.bytes;
  const auto ref = get<std::uint32_t>(bad, m.ptx + kOptionsRef);
  put<std::uint32_t>(bad, m.ptx + ref + 4, 1000);
  expect_error(bad, "the options (80, 1000 bytes)", m.ptx);
}

TEST(FatbinHostile, FlagsAndCodecs) {
  auto m = committed("tile_zstd.fatbin");
  auto bad = m.bytes;
  put<std::uint64_t>(bad, m.ptx + kFlags, 0xa011);
  expect_error(bad, "name two codecs", m.ptx);
  // A bit this reader has never seen might be a codec: an error, not a guess.
  put<std::uint64_t>(bad, m.ptx + kFlags, 0x4011);
  expect_error(bad, "bits 0x4000 this reader does not know", m.ptx);
  put<std::uint64_t>(bad, m.ptx + kFlags, 0x8000000000008011);
  expect_error(bad, "bits 0x8000000000000000", m.ptx);
  put<std::uint64_t>(bad, m.ptx + kFlags, 0x11);
  expect_error(bad, "but no known codec in flags 0x11", m.ptx);
  put<std::uint64_t>(bad, m.ptx + kFlags, 0x300011);
  expect_error(bad, "both arch-specific and family-specific", m.ptx);
  // Any kind other than PTX and cubin is kept as stored, whatever its flags.
  bad = m.bytes;
  put<std::uint16_t>(bad, m.ptx, 8);
  put<std::uint64_t>(bad, m.ptx + kFlags, 0x18011);
  auto r = read_fatbin(bad);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const FatbinEntry& other = r.value()[1];
  EXPECT_EQ(other.kind, FatbinKind::Other);
  EXPECT_EQ(other.kind_number, 8u);
  EXPECT_FALSE(other.decoded);
  EXPECT_EQ(other.payload.size(), get<std::uint32_t>(m.bytes, m.ptx + kCompressed));
  EXPECT_EQ(other.payload[0], 0x28);  // still the zstd frame
}

TEST(FatbinHostile, CompressedSizes) {
  auto m = committed("tile_zstd.fatbin");
  const auto csize = get<std::uint32_t>(m.bytes, m.ptx + kCompressed);
  const auto dsize = get<std::uint64_t>(m.bytes, m.ptx + kDecompressed);
  auto bad = m.bytes;
  put<std::uint32_t>(bad, m.ptx + kCompressed, csize + 1000);
  expect_error(bad, "exceeds the payload's", m.ptx);
  // The frame says how much it holds; the header must agree, either way.
  bad = m.bytes;
  put<std::uint64_t>(bad, m.ptx + kDecompressed, dsize + 1);
  expect_error(bad,
               "zstd frame holds " + std::to_string(dsize) + " bytes, not the " +
                   std::to_string(dsize + 1) + " stated",
               m.ptx);
  put<std::uint64_t>(bad, m.ptx + kDecompressed, dsize - 1);
  expect_error(bad, "zstd frame holds", m.ptx);
  // A size no reader should allocate, checked before allocating.
  put<std::uint64_t>(bad, m.ptx + kDecompressed, std::uint64_t(1) << 40);
  expect_error(bad, "entry of 1099511627776 bytes, over the limit of 1073741824", m.ptx);
  expect_error(m.bytes, "over the limit of 1000", m.cubin, FatbinLimits{1000, 1 << 20});
  expect_error(m.bytes, "more than the limit of 7000", m.ptx, FatbinLimits{1 << 20, 7000});
  // Not zstd at all; a frame cut short.
  bad = m.bytes;
  bad[m.ptx + get<std::uint32_t>(bad, m.ptx + kHeaderSize)] ^= 0xff;
  expect_error(bad, "not a zstd frame", m.ptx);
  bad = m.bytes;
  put<std::uint32_t>(bad, m.ptx + kCompressed, csize - 20);
  expect_error(bad, "corrupt zstd data", m.ptx);

  auto l = committed("tile_lz4.fatbin");
  const auto lsize = get<std::uint32_t>(l.bytes, l.cubin + kCompressed);
  bad = l.bytes;
  put<std::uint32_t>(bad, l.cubin + kCompressed, lsize - 20);
  expect_error(bad, "LZ4 block", l.cubin);
  bad = l.bytes;
  put<std::uint64_t>(bad, l.cubin + kDecompressed, std::uint64_t(lsize) * 300);
  expect_error(bad, "cannot decode to the", l.cubin);
  bad = l.bytes;
  put<std::uint64_t>(bad, l.cubin + kDecompressed,
                     get<std::uint64_t>(l.bytes, l.cubin + kDecompressed) + 8);
  expect_error(bad, "not the", l.cubin);
}

// Thousands of random bit flips aimed at the headers, the compressed streams and anywhere:
// a value or an error with a message, never a crash (the sanitizer build runs this too).
TEST(FatbinHostile, BitFlipsGiveValuesOrErrors) {
  std::mt19937 rng(2026);
  const FatbinLimits small{1 << 20, 4 << 20};
  for (const char* name : {"tile_zstd.fatbin", "tile_lz4.fatbin", "tile_none.fatbin"}) {
    const auto good = bytes_of(kData / name);
    int errors = 0;
    for (int trial = 0; trial < 2000; ++trial) {
      auto bad = good;
      const int flips = 1 + int(rng() % 6);
      for (int f = 0; f < flips; ++f) {
        std::size_t at = rng() % 3 == 0 ? rng() % 96 : rng() % bad.size();
        bad[at] ^= std::uint8_t(1u << (rng() % 8));
      }
      auto r = read_fatbin(bad, small);
      if (!r.ok()) {
        ++errors;
        EXPECT_NE(r.error().message.find("(at byte "), std::string::npos) << r.error().message;
      } else {
        for (const FatbinEntry& e : r.value()) EXPECT_LE(e.payload.size(), small.max_entry_bytes);
      }
      (void)fatbin_container_size(bad.data(), bad.size());
    }
    EXPECT_GT(errors, 100) << name;
  }
}

// ---------------------------------------------------------------------------------------
// Selection for an architecture.

namespace {

FatbinEntry entry(FatbinKind kind, std::uint32_t sm, ArchVariant v = ArchVariant::Plain) {
  FatbinEntry e;
  e.kind = kind;
  e.kind_number = kind == FatbinKind::Ptx ? 1 : kind == FatbinKind::Cubin ? 2 : 8;
  e.sm = sm;
  e.variant = v;
  return e;
}
FatbinEntry sass(std::uint32_t sm, ArchVariant v = ArchVariant::Plain) {
  return entry(FatbinKind::Cubin, sm, v);
}
FatbinEntry ptx(std::uint32_t sm, ArchVariant v = ArchVariant::Plain) {
  return entry(FatbinKind::Ptx, sm, v);
}
constexpr ArchVariant kA = ArchVariant::ArchSpecific, kF = ArchVariant::FamilySpecific;

std::string name_of(const FatbinEntry* e) { return e ? e->arch_name() : "-"; }

}  // namespace

TEST(FatbinSelect, CubinAndPtxOrWhatIsMissing) {
  std::vector<FatbinEntry> es{sass(90), ptx(90)};
  auto s = select_for_arch(es, 90);
  EXPECT_EQ(s.cubin, &es[0]);
  EXPECT_EQ(s.ptx, &es[1]);
  EXPECT_TRUE(s.same_arch);
  EXPECT_TRUE(s.missing.empty());

  es = {sass(90)};
  s = select_for_arch(es, 90);
  EXPECT_EQ(s.ptx, nullptr);
  EXPECT_EQ(s.missing,
            std::vector<std::string>{"the fat binary has SASS for sm_90 but no PTX: add -gencode "
                                     "arch=compute_90,code=compute_90"});
  es = {ptx(80)};
  s = select_for_arch(es, 90);
  EXPECT_EQ(s.missing, std::vector<std::string>{
                           "the fat binary has PTX for compute_80 but no SASS for sm_90 (counts "
                           "stay at the PTX level): add -gencode arch=compute_90,code=sm_90"});
  es = {sass(80), ptx(100), entry(FatbinKind::Other, 90)};
  s = select_for_arch(es, 90);
  EXPECT_EQ(s.missing, std::vector<std::string>{
                           "the fat binary has neither SASS nor PTX for sm_90 (it holds sm_80, "
                           "compute_100): add -gencode arch=compute_90,code=[sm_90,compute_90]"});
  s = select_for_arch({}, 90);
  EXPECT_EQ(s.missing.size(), 1u);
  EXPECT_NE(s.missing[0].find("(it holds no PTX or cubin)"), std::string::npos);
  es = {sass(90, kA)};
  s = select_for_arch(es, 90);
  EXPECT_EQ(s.missing,
            std::vector<std::string>{"the fat binary has SASS for sm_90a but no PTX: add -gencode "
                                     "arch=compute_90a,code=compute_90a"});
}

TEST(FatbinSelect, NewestUsablePtxAndTheMostSpecificCubin) {
  const auto pick = [](std::vector<FatbinEntry> es, std::uint32_t sm) {
    auto s = select_for_arch(es, sm);
    return name_of(s.cubin) + " " + name_of(s.ptx) + (s.same_arch ? " same" : "");
  };
  EXPECT_EQ(pick({ptx(80), ptx(86), ptx(100), sass(86)}, 90), "- compute_86");
  EXPECT_EQ(pick({sass(90), ptx(80)}, 90), "sm_90 compute_80");
  EXPECT_EQ(pick({sass(90), sass(90, kA), ptx(90), ptx(90, kA)}, 90), "sm_90a compute_90a same");
  EXPECT_EQ(pick({sass(90), ptx(90), ptx(90, kA)}, 90), "sm_90 compute_90 same");
  EXPECT_EQ(pick({sass(90, kA), ptx(90, kA)}, 100), "- -");
  EXPECT_EQ(pick({sass(100, kF), ptx(100, kF)}, 103), "sm_100f compute_100f same");
  EXPECT_EQ(pick({sass(100, kF), ptx(100, kF)}, 100), "sm_100f compute_100f same");
  EXPECT_EQ(pick({sass(100, kF), ptx(100, kF)}, 110), "- -");
  EXPECT_EQ(pick({sass(103, kF), ptx(103, kF)}, 100), "- -");
  EXPECT_EQ(pick({sass(100), sass(100, kF), ptx(90)}, 100), "sm_100 compute_90");
}

// For every subset of a pool and every target: the cubin runs there, the PTX compiles there,
// no usable PTX is newer, and `missing` is empty exactly when both were found.
TEST(FatbinSelect, PropertiesOverEverySubset) {
  const std::vector<FatbinEntry> pool{sass(80),     ptx(80),     sass(90),      sass(90, kA),
                                      ptx(90),      ptx(90, kA), sass(100, kF), ptx(100),
                                      ptx(100, kF), sass(103),   ptx(120),      sass(120)};
  const auto runs = [](const FatbinEntry& e, std::uint32_t sm) {
    if (e.variant == kA) return e.sm == sm;
    if (e.variant == kF) return e.sm / 10 == sm / 10 && e.sm <= sm;
    return e.kind == FatbinKind::Cubin ? e.sm == sm : e.sm <= sm;
  };
  for (std::uint32_t mask = 0; mask < (1u << pool.size()); mask += 7) {
    std::vector<FatbinEntry> es;
    for (std::size_t i = 0; i < pool.size(); ++i)
      if (mask >> i & 1) es.push_back(pool[i]);
    for (std::uint32_t sm : {75u, 80u, 86u, 90u, 100u, 103u, 110u, 120u}) {
      const auto s = select_for_arch(es, sm);
      const bool any_cubin = std::any_of(es.begin(), es.end(), [&](auto& e) {
        return e.kind == FatbinKind::Cubin && runs(e, sm);
      });
      const bool any_ptx = std::any_of(
          es.begin(), es.end(), [&](auto& e) { return e.kind == FatbinKind::Ptx && runs(e, sm); });
      ASSERT_EQ(s.cubin != nullptr, any_cubin);
      ASSERT_EQ(s.ptx != nullptr, any_ptx);
      if (s.cubin) {
        ASSERT_TRUE(s.cubin->kind == FatbinKind::Cubin && runs(*s.cubin, sm));
      }
      if (s.ptx) {
        ASSERT_TRUE(s.ptx->kind == FatbinKind::Ptx && runs(*s.ptx, sm));
        for (const auto& e : es)
          if (e.kind == FatbinKind::Ptx && runs(e, sm)) {
            ASSERT_LE(e.sm, s.ptx->sm);
          }
      }
      ASSERT_EQ(s.missing.empty(), any_cubin && any_ptx);
      ASSERT_EQ(s.same_arch,
                s.cubin && s.ptx && s.cubin->sm == s.ptx->sm && s.cubin->variant == s.ptx->variant);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Objects and programs built here with nvcc.

// A program as `nvcc -cudart shared` builds it: the shared runtime, and in .nv_fatbin the
// device link's container (cubin without kernels) before the translation unit's, whose
// zstd-compressed PTX is nvcc -ptx's text with the same flags.
TEST(FatbinProgram, DefaultCompression) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(b.nvcc({"-cudart shared -lineinfo -arch=sm_90 " + src("tile.cu") + " -o prog",
                      "-ptx -lineinfo -arch=sm_90 " + src("tile.cu") + " -o tile.ptx"}));
  const CudaElf elf = cuda_elf_of(b.path("prog"));
  EXPECT_EQ(elf.runtime, CudaRuntimeLink::Shared);
  EXPECT_TRUE(elf.cudart_needed.starts_with("libcudart.so."));
  EXPECT_FALSE(elf.defines_cudart);
  EXPECT_TRUE(elf.relocatable_fatbin.empty());
  const auto es = entries_of(elf.fatbin);
  const auto units = split_by_container(es);
  ASSERT_EQ(units.size(), 2u);
  // The device link's container: named after every file of the link as nvcc was given it,
  // each followed by a space.
  ASSERT_EQ(units[0].size(), 1u);
  EXPECT_EQ(units[0][0].identifier, src("tile.cu") + " ");
  auto dlink = read_module(units[0][0].payload, &decode_hopper);
  ASSERT_TRUE(dlink.ok()) << dlink.error().message;
  EXPECT_TRUE(dlink.value().kernels.empty());
  ASSERT_EQ(units[1].size(), 2u);
  EXPECT_EQ(units[1][0].codec, Codec::None);  // cubins are not compressed by default
  EXPECT_EQ(units[1][1].codec, Codec::Zstd);
  EXPECT_EQ(units[1][1].identifier, src("tile.cu"));
  expect_unit(units[1], 90, slurp(b.path("tile.ptx")), "_Z14tile_transposePfPKf");
  // What the runtime will do with wrapper->data: each container's length from its pointer.
  for (const auto& unit : units) {
    const std::uint64_t at = unit[0].container;
    auto n = fatbin_container_size(elf.fatbin.data() + at, elf.fatbin.size() - at);
    ASSERT_TRUE(n.ok()) << n.error().message;
    const std::uint64_t end = &unit == &units.back() ? elf.fatbin.size() : units[1][0].container;
    EXPECT_EQ(at + n.value(), end);
  }
}

// --no-compress, --compress-mode=speed (LZ4 PTX) and -Xfatbin -compress-all (zstd cubins too),
// read from objects (nvcc -c): the same PTX and cubin, however stored. (--compress-mode=size
// compresses cubins with zstd too: tile_zstd.fatbin.)
TEST(FatbinProgram, StorageModesOfObjects) {
  REQUIRE_NVCC();
  Build b;
  const std::string c = "-cudart shared -lineinfo -arch=sm_90 -c " + src("tile.cu");
  ASSERT_TRUE(b.nvcc({c + " --no-compress -o none.o", c + " --compress-mode=speed -o speed.o",
                      c + " -Xfatbin -compress-all -o all.o"}));
  struct Want {
    const char* file;
    Codec ptx, cubin;
  };
  std::vector<std::uint8_t> ptx0, cubin0;
  for (const Want& w :
       {Want{"none.o", Codec::None, Codec::None}, Want{"speed.o", Codec::Lz4, Codec::None},
        Want{"all.o", Codec::Zstd, Codec::Zstd}}) {
    SCOPED_TRACE(w.file);
    const CudaElf elf = cuda_elf_of(b.path(w.file));
    EXPECT_EQ(elf.elf_type, 1u);
    EXPECT_EQ(elf.runtime, CudaRuntimeLink::Unlinked);
    const auto es = entries_of(elf.fatbin);
    ASSERT_EQ(split_by_container(es).size(), 1u);  // an object has no device link yet
    const FatbinEntry* p = find(es, FatbinKind::Ptx, 90);
    const FatbinEntry* k = find(es, FatbinKind::Cubin, 90);
    ASSERT_TRUE(p && k);
    EXPECT_EQ(p->codec, w.ptx);
    EXPECT_EQ(k->codec, w.cubin);
    if (ptx0.empty()) {
      ptx0 = p->payload;
      cubin0 = k->payload;
    }
    EXPECT_EQ(p->payload, ptx0);
    EXPECT_EQ(k->payload, cubin0);
  }
}

// Several -gencode targets: one cubin per real architecture, one PTX per virtual one (each
// nvcc -ptx's text for that architecture); sm_100 and later cubins set flag 0x1000000 and
// carry binary data, not options text.
TEST(FatbinProgram, SeveralGencodeTargets) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(
      b.nvcc({"-cudart shared -lineinfo -gencode arch=compute_80,code=sm_80 "
              "-gencode arch=compute_90,code=[sm_90,compute_90] "
              "-gencode arch=compute_100,code=[sm_100,compute_100] "
              "-gencode arch=compute_120,code=sm_120 " +
                  src("tile.cu") + " -o prog",
              "-ptx -lineinfo -arch=compute_90 " + src("tile.cu") + " -o tile90.ptx",
              "-ptx -lineinfo -arch=compute_100 " + src("tile.cu") + " -o tile100.ptx"}));
  const CudaElf elf = cuda_elf_of(b.path("prog"));
  const auto es = entries_of(elf.fatbin);
  const auto units = split_by_container(es);
  ASSERT_EQ(units.size(), 2u);
  std::vector<std::string> names;
  for (const auto& e : units[1]) names.push_back(e.arch_name());
  EXPECT_EQ(names, (std::vector<std::string>{"sm_80", "sm_90", "compute_90", "sm_100",
                                             "compute_100", "sm_120"}));
  for (const auto& e : units[1]) {
    EXPECT_EQ(e.kind == FatbinKind::Cubin && e.sm >= 100, (e.flags & 0x1000000) != 0);
    if (e.kind == FatbinKind::Cubin) {
      EXPECT_EQ(e.options, "");
    }
  }
  expect_unit(units[1], 90, slurp(b.path("tile90.ptx")), "_Z14tile_transposePfPKf");
  expect_unit(units[1], 100, slurp(b.path("tile100.ptx")), "_Z14tile_transposePfPKf");
  auto s80 = select_for_arch(units[1], 80);
  EXPECT_EQ(name_of(s80.cubin), "sm_80");
  EXPECT_EQ(s80.ptx, nullptr);
  auto s120 = select_for_arch(units[1], 120);
  EXPECT_EQ(name_of(s120.cubin) + " " + name_of(s120.ptx), "sm_120 compute_100");
  EXPECT_FALSE(s120.same_arch);
}

// Arch- and family-specific targets: flags 0x100000 and 0x200000.
TEST(FatbinProgram, ArchAndFamilySpecificTargets) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(b.nvcc({"-fatbin -gencode arch=compute_90a,code=[sm_90a,compute_90a] " +
                          src("tile.cu") + " -o a.fatbin",
                      "-fatbin -gencode arch=compute_100f,code=[sm_100f,compute_100f] " +
                          src("tile.cu") + " -o f.fatbin"}));
  const auto a = entries_of(bytes_of(b.path("a.fatbin")));
  const auto f = entries_of(bytes_of(b.path("f.fatbin")));
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(a[0].arch_name() + " " + a[1].arch_name(), "sm_90a compute_90a");
  EXPECT_EQ(f[0].arch_name() + " " + f[1].arch_name(), "sm_100f compute_100f");
  EXPECT_EQ(a[1].flags & 0x300000, 0x100000u);
  EXPECT_EQ(f[1].flags & 0x300000, 0x200000u);
  EXPECT_TRUE(select_for_arch(a, 90).same_arch);
  EXPECT_TRUE(select_for_arch(f, 103).same_arch);
  EXPECT_EQ(select_for_arch(a, 100).missing.size(), 1u);
}

// -G: the debug flag (0x2) on both entries, the cubin compressed too (nvcc compresses "PTX and
// debug images"), and the ptxas options it implies.
TEST(FatbinProgram, DebugBuild) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(b.nvcc({"-cudart shared -G -arch=sm_90 " + src("tile.cu") + " -o prog",
                      "-ptx -G -arch=sm_90 " + src("tile.cu") + " -o tile.ptx"}));
  const auto es = entries_of(cuda_elf_of(b.path("prog")).fatbin);
  const auto units = split_by_container(es);
  ASSERT_EQ(units.size(), 2u);
  for (const auto& e : units[1]) {
    EXPECT_EQ(e.flags, 0x8013u);
    EXPECT_EQ(e.codec, Codec::Zstd);
  }
  EXPECT_EQ(units[1][1].options, " -g --dont-merge-basicblocks --return-at-end ");
  expect_unit(units[1], 90, slurp(b.path("tile.ptx")), "_Z14tile_transposePfPKf");
}

// -rdc=true: .nv_fatbin holds only the device link's container, whose cubin is the linked
// program (kernels included, no PTX); each object's relocatable cubin and PTX sit in
// __nv_relfatbin, which the registered wrapper (version 2) points to.
TEST(FatbinProgram, RelocatableDeviceCode) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(
      b.nvcc({"-cudart shared -lineinfo -rdc=true -arch=sm_90 " + src("tile.cu") + " -o prog",
              "-ptx -lineinfo -rdc=true -arch=sm_90 " + src("tile.cu") + " -o tile.ptx"}));
  const CudaElf elf = cuda_elf_of(b.path("prog"));
  const auto linked = entries_of(elf.fatbin);
  ASSERT_EQ(linked.size(), 1u);
  EXPECT_EQ(linked[0].identifier, src("tile.cu") + " ");
  auto s = select_for_arch(linked, 90);
  ASSERT_NE(s.cubin, nullptr);
  EXPECT_EQ(s.ptx, nullptr);
  auto m = read_module(s.cubin->payload, &decode_hopper);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_NE(m.value().find("_Z14tile_transposePfPKf"), nullptr);

  const auto objects = entries_of(elf.relocatable_fatbin);
  ASSERT_EQ(split_by_container(objects).size(), 1u);
  expect_unit(objects, 90, slurp(b.path("tile.ptx")), "_Z14tile_transposePfPKf");
  EXPECT_NE(find(objects, FatbinKind::Ptx, 90)->options.find("--compile-only"), std::string::npos);
}

// Two translation units: a container each (after the device link's, named after both), each
// with its own kernel and its own PTX.
TEST(FatbinProgram, TwoTranslationUnits) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(b.nvcc({"-cudart shared -lineinfo -arch=sm_90 " + src("main.cu") + " " +
                          src("scale.cu") + " -o prog",
                      "-ptx -lineinfo -arch=sm_90 " + src("main.cu") + " -o main.ptx",
                      "-ptx -lineinfo -arch=sm_90 " + src("scale.cu") + " -o scale.ptx"}));
  const auto es = entries_of(cuda_elf_of(b.path("prog")).fatbin);
  const auto units = split_by_container(es);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0][0].identifier, src("main.cu") + " " + src("scale.cu") + " ");
  EXPECT_EQ(units[1][0].identifier, src("main.cu"));
  EXPECT_EQ(units[2][0].identifier, src("scale.cu"));
  expect_unit(units[1], 90, slurp(b.path("main.ptx")), "_Z4fillPf");
  expect_unit(units[2], 90, slurp(b.path("scale.ptx")), "_Z14scale_reversedPff");
}

// nvcc's default links the runtime statically: `bankcheck run` must say so before running.
// A stripped copy still has its fat binary and no libcudart; a shared library built with
// -cudart shared needs the shared runtime.
TEST(FatbinProgram, RuntimeLinkage) {
  REQUIRE_NVCC();
  Build b;
  ASSERT_TRUE(b.nvcc({"-arch=sm_90 " + src("tile.cu") + " -o static_prog",
                      "-cudart shared -shared -Xcompiler -fPIC -arch=sm_90 " + src("scale.cu") +
                          " -o libscale.so"}));
  const CudaElf st = cuda_elf_of(b.path("static_prog"));
  EXPECT_EQ(st.runtime, CudaRuntimeLink::Static);
  EXPECT_TRUE(st.defines_cudart);
  EXPECT_EQ(st.cudart_needed, "");
  ASSERT_EQ(
      std::system(("strip " + b.path("static_prog").string() + " -o " + b.path("stripped").string())
                      .c_str()),
      0);
  const CudaElf stripped = cuda_elf_of(b.path("stripped"));
  EXPECT_EQ(stripped.runtime, CudaRuntimeLink::Static);
  EXPECT_FALSE(stripped.fatbin.empty());
  const CudaElf so = cuda_elf_of(b.path("libscale.so"));
  EXPECT_EQ(so.elf_type, 3u);
  EXPECT_EQ(so.runtime, CudaRuntimeLink::Shared);
  // Not a CUDA program at all, and not an ELF file.
  const CudaElf none = cuda_elf_of("/bin/sh");
  EXPECT_EQ(none.runtime, CudaRuntimeLink::None);
  EXPECT_FALSE(read_cuda_elf(bytes_of(kData / "tile_zstd.fatbin")).ok());
  // Truncated executables are errors, never crashes.
  const auto prog = bytes_of(b.path("static_prog"));
  for (std::size_t n = 0; n < prog.size(); n += 997) {
    auto r = read_cuda_elf(std::span(prog.data(), n));
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
    }
  }
}
