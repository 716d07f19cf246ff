// The compile cache (compile_cache.hpp): SHA-256, the directory, entries written whole
// and evicted oldest first.
#include "bankcheck/driver/compile_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bankcheck::driver {
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8>& h, const unsigned char* block) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = static_cast<std::uint32_t>(block[4 * i]) << 24 |
           static_cast<std::uint32_t>(block[4 * i + 1]) << 16 |
           static_cast<std::uint32_t>(block[4 * i + 2]) << 8 | block[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    const std::uint32_t t2 =
        (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr std::string_view kMagic = "bankcheck-cache 1\n";

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  for (; n >= 64; n -= 64, p += 64) compress(h, p);
  // The tail, a 1 bit, zeros, and the length in bits (big-endian) in the last 8 bytes.
  unsigned char last[128] = {};
  std::memcpy(last, p, n);
  last[n] = 0x80;
  const std::size_t blocks = n + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i)
    last[blocks * 64 - 1 - static_cast<std::size_t>(i)] =
        static_cast<unsigned char>(bits >> (8 * i));
  for (std::size_t b = 0; b < blocks; ++b) compress(h, last + 64 * b);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const std::uint32_t v : h)
    for (int s = 28; s >= 0; s -= 4) out += kHex[(v >> s) & 0xF];
  return out;
}

std::string compile_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
  };
  if (std::string d = env("BANKCHECK_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/bankcheck";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/bankcheck";
  return {};
}

std::uint64_t compile_cache_limit() {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  if (const char* v = std::getenv("BANKCHECK_CACHE_MAX_MB"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(v, &end, 10);
    if (*end == '\0' && mb > 0 && mb < (1ull << 40)) return mb * kMiB;
  }
  return 512 * kMiB;
}

std::string file_identity(const std::string& path) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  struct stat st {};
  if (ec || ::stat(real.c_str(), &st) != 0) return {};
  return real.string() + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

std::string pack_fields(const std::vector<std::string>& fields) {
  std::string out;
  for (const std::string& f : fields) (out += std::to_string(f.size()) + "\n") += f;
  return out;
}

std::optional<std::vector<std::string>> unpack_fields(std::string_view packed) {
  std::vector<std::string> out;
  while (!packed.empty()) {
    const std::size_t nl = packed.find('\n');
    if (nl == std::string_view::npos || nl == 0 || nl > 19) return std::nullopt;
    std::uint64_t size = 0;
    for (const char c : packed.substr(0, nl)) {
      if (c < '0' || c > '9') return std::nullopt;
      size = size * 10 + static_cast<std::uint64_t>(c - '0');
    }
    packed.remove_prefix(nl + 1);
    if (size > packed.size()) return std::nullopt;
    out.emplace_back(packed.substr(0, size));
    packed.remove_prefix(size);
  }
  return out;
}

CompileCache::CompileCache(std::string dir, std::uint64_t limit)
    : dir_(std::move(dir)), limit_(limit) {}

std::string CompileCache::path_of(std::string_view key) const {
  return dir_ + "/" + sha256_hex(key) + ".entry";
}

std::optional<std::string> CompileCache::get(std::string_view key) const {
  if (dir_.empty()) return std::nullopt;
  const std::string path = path_of(key);
  const std::string text = read_all(path);
  if (!text.starts_with(kMagic)) return std::nullopt;
  auto fields = unpack_fields(std::string_view(text).substr(kMagic.size()));
  // Another key with the same hash, or a value that is not the one written.
  if (!fields || fields->size() != 3 || (*fields)[0] != key ||
      (*fields)[2] != sha256_hex((*fields)[1]))
    return std::nullopt;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: evicted last
  return std::move((*fields)[1]);
}

void CompileCache::put(std::string_view key, std::string_view value) const {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return;
  const std::string path = path_of(key);
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return;
  std::string text(kMagic);
  text += pack_fields({std::string(key), std::string(value), sha256_hex(value)});
  bool ok = true;
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0)
      ok = false;
    else
      done += static_cast<std::size_t>(n);
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return;
  }
  evict();
}

void CompileCache::evict() const {
  struct Entry {
    fs::path path;
    std::uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".entry") continue;
    std::error_code e1, e2;
    const std::uint64_t bytes = it->file_size(e1);
    const fs::file_time_type used = it->last_write_time(e2);
    if (e1 || e2) continue;
    entries.push_back({it->path(), bytes, used});
    total += bytes;
  }
  if (total <= limit_) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= limit_) break;
    std::error_code ignored;
    if (fs::remove(e.path, ignored)) total -= e.bytes;
  }
}

}  // namespace bankcheck::driver
