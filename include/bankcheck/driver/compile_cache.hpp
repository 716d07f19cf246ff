// The compile cache: what nvcc and ptxas made of unchanged inputs, kept on disk so that a
// second `check` of an unchanged file runs neither (docs/check.md, "The compile cache").
//
//   nvcc entry  key: the source's bytes, the nvcc command and flags, the architecture,
//               the identity of nvcc and cicc (path, size, time), NVCC_*_FLAGS, the
//               working directory      value: every file the source includes (nvcc -MD)
//               with its content's SHA-256, the PTX, nvcc's warnings
//   ptxas entry key: the PTX, the architecture, the entries (--entry), the identity of
//               ptxas                  value: the cubin, ptxas's warnings
//
// An nvcc entry is used only while every file it lists still has the same content: a
// changed header compiles again. A missing, corrupt or unwritable cache is no error: the
// compile runs as without one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::driver {

// SHA-256 of `bytes`, 64 lowercase hex digits (FIPS 180-4).
std::string sha256_hex(std::string_view bytes);

// The cache's directory: $BANKCHECK_CACHE_DIR, else $XDG_CACHE_HOME/bankcheck, else
// $HOME/.cache/bankcheck; empty when none of them is set.
std::string compile_cache_dir();

// Bytes the cache keeps before the oldest entries (by last use) are removed:
// $BANKCHECK_CACHE_MAX_MB mebibytes when set to a positive integer, else 512 MiB.
std::uint64_t compile_cache_limit();

// The identity of an executable as a key needs it: canonical path, size and modification
// time; empty when it cannot be read.
std::string file_identity(const std::string& path);

// Length-prefixed fields: one value of several byte strings, read back exactly.
std::string pack_fields(const std::vector<std::string>& fields);
std::optional<std::vector<std::string>> unpack_fields(std::string_view packed);

// One directory of entries, each a file named by its key's hash, holding the key and the
// value with the value's hash (a torn or edited file reads as absent).
class CompileCache {
 public:
  // `dir` empty: every get misses and every put is dropped.
  explicit CompileCache(std::string dir, std::uint64_t limit = compile_cache_limit());
  // The value stored under `key`, or nothing (absent, unreadable, corrupt). A hit marks
  // the entry used, for eviction.
  std::optional<std::string> get(std::string_view key) const;
  // Stores `value` under `key` (written to a temporary file and renamed, so readers see
  // the whole entry or none), then removes the oldest entries past the size limit.
  // Failures are ignored.
  void put(std::string_view key, std::string_view value) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string path_of(std::string_view key) const;
  void evict() const;
  std::string dir_;
  std::uint64_t limit_;
};

}  // namespace bankcheck::driver
