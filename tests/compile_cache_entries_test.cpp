// The compile cache's pieces: SHA-256 against FIPS 180-4's examples, fields packed and read
// back exactly, entries that read back only as written, eviction of the least recently used.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "bankcheck/driver/compile_cache.hpp"

namespace drv = bankcheck::driver;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("bankcheck-cache-test-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".entry";
  return n;
}

}  // namespace

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(drv::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(drv::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding needs a second block.
  EXPECT_EQ(drv::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(drv::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CompileCacheFields, PackedFieldsReadBackExactly) {
  const std::vector<std::string> fields = {"", "a\nb", std::string("\0x\0", 3), "12\n3"};
  const auto back = drv::unpack_fields(drv::pack_fields(fields));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, fields);
  EXPECT_FALSE(drv::unpack_fields("5\nabc").has_value());  // cut short
  EXPECT_FALSE(drv::unpack_fields("x\nabc").has_value());
}

TEST(CompileCache, ValuesReadBackOnlyAsWritten) {
  TempDir t;
  const drv::CompileCache cache(t.path.string());
  EXPECT_FALSE(cache.get("key").has_value());
  cache.put("key", std::string("value\0bytes", 11));
  ASSERT_TRUE(cache.get("key").has_value());
  EXPECT_EQ(*cache.get("key"), std::string("value\0bytes", 11));
  EXPECT_FALSE(cache.get("other key").has_value());
  // Every entry's bytes changed in place: absent, not an error.
  for (const auto& e : fs::directory_iterator(t.path)) {
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('X');
  }
  EXPECT_FALSE(cache.get("key").has_value());
  // No directory at all: nothing stored, nothing found.
  const drv::CompileCache none("");
  none.put("key", "value");
  EXPECT_FALSE(none.get("key").has_value());
}

TEST(CompileCache, TheLeastRecentlyUsedGoFirst) {
  TempDir t;
  const std::string value(1000, 'v');
  const drv::CompileCache cache(t.path.string(), 2500);  // room for two entries
  cache.put("a", value);
  cache.put("b", value);
  // Stored hours ago, a before b; then a is used, so b is the least recently used.
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(t.path)) {
    const bool is_a = e.path().stem() == drv::sha256_hex("a");  // entries are named by key
    fs::last_write_time(e.path(), now - std::chrono::hours(is_a ? 3 : 2));
  }
  EXPECT_TRUE(cache.get("a").has_value());
  cache.put("c", value);
  EXPECT_EQ(entries(t.path), 2u);
  EXPECT_TRUE(cache.get("a").has_value());
  EXPECT_FALSE(cache.get("b").has_value());
  EXPECT_TRUE(cache.get("c").has_value());
}
