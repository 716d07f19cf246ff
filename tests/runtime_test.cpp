// The parts of bankcheck's CUDA driver that need no CUDA header: the device table, the record
// executor's reading of parameter sizes from mangled kernel names, and MD2 under the
// integrity check's answer.
#include <cxxabi.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/model/occupancy.hpp"
#include "bankcheck/runtime/device.hpp"
#include "integrity.hpp"
#include "mangled_params.hpp"

namespace bankcheck::runtime {
namespace {

TEST(DeviceProfile, DefaultIsTheH100Sxm5) {
  const auto d = find_device_profile(kDefaultDeviceArch);
  ASSERT_TRUE(d.has_value());
  EXPECT_STREQ(d->board.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d->board.sm_count, 132);
  EXPECT_EQ(d->board.l2_bytes, 50 * 1024 * 1024);
  EXPECT_EQ(d->major(), 9);
  EXPECT_EQ(d->minor(), 0);
  EXPECT_EQ(d->sm.shared_per_sm, 228 * 1024);
  EXPECT_EQ(d->sm.shared_per_block_optin, 227 * 1024);
  EXPECT_EQ(d->sm.shared_per_block, 48 * 1024);
  EXPECT_EQ(d->sm.registers_per_sm, 65536);
  EXPECT_EQ(d->max_threads_per_sm(), 2048);
  EXPECT_EQ(d->sm.max_blocks_per_sm, 32);
}

TEST(DeviceProfile, EveryBoardIsAnArchitectureTheOccupancyModelKnows) {
  std::set<std::string> seen;
  for (const BoardNumbers& b : boards()) {
    SCOPED_TRACE(b.arch);
    EXPECT_TRUE(seen.insert(b.arch).second) << "one board per architecture";
    const auto d = find_device_profile(b.arch);
    ASSERT_TRUE(d.has_value());
    EXPECT_STREQ(d->sm.name, b.arch);
    EXPECT_GT(b.sm_count, 0);
    EXPECT_GT(b.global_bytes, 1ull << 30);
    EXPECT_GT(b.l2_bytes, 0);
    EXPECT_GT(b.clock_khz, 0);
    EXPECT_GT(b.memory_clock_khz, 0);
    EXPECT_GT(b.memory_bus_bits, 0);
    EXPECT_NE(std::string(b.source), "");
  }
}

TEST(DeviceProfile, NvccSpellingsAndUnknownArchitectures) {
  EXPECT_STREQ(find_device_profile("sm_90a")->board.name, "NVIDIA H100 80GB HBM3");
  EXPECT_STREQ(find_device_profile("compute_80")->board.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_FALSE(find_device_profile("sm_87").has_value());  // known to the model, no board
  EXPECT_FALSE(find_device_profile("sm_91").has_value());
  EXPECT_FALSE(find_device_profile("h100").has_value());
  EXPECT_FALSE(find_device_profile("").has_value());
}

TEST(ParameterSizes, Examples) {
  using V = std::vector<std::size_t>;
  EXPECT_EQ(parameter_sizes("_Z5plainPi"), V{8});
  EXPECT_EQ(parameter_sizes("_Z4stepv"), V{});
  EXPECT_EQ(parameter_sizes("_Z11args_kernelifcsdPi"), (V{4, 4, 1, 2, 8, 8}));
  EXPECT_EQ(parameter_sizes("_Z5scaleIfEvPT_S0_i"), (V{8, 4, 4}));
  EXPECT_EQ(parameter_sizes("_Z9templatedIdLi2EEvPT_S0_"), (V{8, 8}));
  EXPECT_EQ(parameter_sizes("_ZN2ns5innerEy"), V{8});
  EXPECT_EQ(parameter_sizes("_ZN2ns1kIiEEvPT_S1_"), (V{8, 4}));
  EXPECT_EQ(parameter_sizes("_Z1kPKfS0_Pf"), (V{8, 8, 8}));
  EXPECT_EQ(parameter_sizes("_Z1kDv4_f"), V{16});
  EXPECT_EQ(parameter_sizes("_Z1k6float4"), V{0});  // a class: its size is not in the name
  EXPECT_FALSE(parameter_sizes("kernel").has_value());
  EXPECT_FALSE(parameter_sizes("_Z").has_value());
  EXPECT_FALSE(parameter_sizes("_Z5plainPi_garbage_Q").has_value());
}

// The demangled parameter list of `mangled`, split at its top-level commas.
std::vector<std::string> demangled_parameters(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0) return {"?"};
  const std::string s = text.get();
  // The parameter list is the last parenthesised group at depth 0.
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  std::vector<std::string> params;
  std::string current;
  depth = 0;
  for (std::size_t i = open + 1; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth < 0) break;
    if (c == ',' && depth == 0) {
      params.push_back(current);
      current.clear();
    } else if (!(c == ' ' && current.empty())) {
      current += c;
    }
  }
  if (!current.empty() && current != "void") params.push_back(current);
  return params;
}

// What the size of a demangled parameter type is known to be; 0 when it is a class.
std::size_t expected_size(const std::string& type) {
  if (type.back() == '*' || type.back() == '&') return 8;
  static const std::pair<const char*, std::size_t> builtins[] = {
      {"bool", 1},
      {"char", 1},
      {"signed char", 1},
      {"unsigned char", 1},
      {"short", 2},
      {"unsigned short", 2},
      {"int", 4},
      {"unsigned int", 4},
      {"float", 4},
      {"long", 8},
      {"unsigned long", 8},
      {"long long", 8},
      {"unsigned long long", 8},
      {"double", 8},
  };
  for (const auto& [name, size] : builtins)
    if (type == name) return size;
  return 0;
}

// Every kernel of the project's PTX files (examples, tests, benchmarks): as many parameters as
// the toolchain's demangler finds, each with the size its type has.
TEST(ParameterSizes, AgreeWithTheDemanglerOnEveryKernelOfTheProject) {
  std::set<std::string> names;
  const std::regex entry(R"(\.entry\s+(_Z[A-Za-z0-9_]+))");
  for (const char* dir : {"examples", "tests", "bench"}) {
    const std::filesystem::path root = std::filesystem::path(BANKCHECK_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root)) {
      if (f.path().extension() != ".ptx") continue;
      std::ifstream in(f.path());
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it)
        names.insert((*it)[1]);
    }
  }
  ASSERT_GT(names.size(), 50u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const auto sizes = parameter_sizes(name);
    ASSERT_TRUE(sizes.has_value());
    const std::vector<std::string> params = demangled_parameters(name);
    ASSERT_EQ(sizes->size(), params.size());
    for (std::size_t i = 0; i < params.size(); ++i)
      EXPECT_EQ((*sizes)[i], expected_size(params[i])) << params[i];
  }
}

std::string hex(const std::array<std::uint8_t, 16>& d) {
  std::string out;
  for (const std::uint8_t b : d) {
    static const char digits[] = "0123456789abcdef";
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string md2(std::string_view text) {
  Md2 h;
  h.update({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  return hex(h.digest());
}

// RFC 1319's test suite.
TEST(Md2, Rfc1319TestSuite) {
  EXPECT_EQ(md2(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(md2("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(md2("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(md2("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(md2("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(md2("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "da33def2a42df13975352846c30338cd");
  EXPECT_EQ(md2("123456789012345678901234567890123456789012345678901234567890123456789012345678"
                "90"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

// Fed in pieces or at once, the digest is the same (the 16-byte blocks straddle the pieces).
TEST(Md2, PiecesMakeTheSameDigest) {
  const std::string text = "the integrity check hashes a 48-byte header and 28 bytes per device";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    Md2 h;
    h.update({reinterpret_cast<const std::uint8_t*>(text.data()), cut});
    h.update({reinterpret_cast<const std::uint8_t*>(text.data()) + cut, text.size() - cut});
    EXPECT_EQ(hex(h.digest()), md2(text)) << cut;
  }
}

// The runtime's first two questions have fixed answers; the third is a keyed hash of every
// input, so that changing any of them changes it.
TEST(Integrity, FixedAnswersAndAHashOfEveryInput) {
  IntegrityQuestion q;
  q.driver_version = 13000;
  q.code = 13000;
  const auto fixed = integrity_answer(q);
  EXPECT_EQ(hex(fixed), "5c67cb031c184133e8d14c1faa83d38e");
  q.code = 13001;
  const auto second = integrity_answer(q);
  EXPECT_EQ(second[7], 24);
  q.code = 13002;
  q.timestamp = 0x6b0b77ca;
  IntegrityDevice dev;
  q.devices = {&dev, 1};
  const auto base = integrity_answer(q);
  EXPECT_NE(base, fixed);
  IntegrityQuestion other = q;
  other.timestamp += 1;
  EXPECT_NE(integrity_answer(other), base);
  other = q;
  other.thread ^= 1;
  EXPECT_NE(integrity_answer(other), base);
  IntegrityDevice moved = dev;
  moved.pci_bus = 1;
  other = q;
  other.devices = {&moved, 1};
  EXPECT_NE(integrity_answer(other), base);
  EXPECT_EQ(integrity_answer(q), base);
}

}  // namespace
}  // namespace bankcheck::runtime
