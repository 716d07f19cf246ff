// Argument binding: parameter names and types from the source and the demangled signature,
// values from the launch settings, buffers in emulated global memory and their fills.
#include "args.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "bankcheck/driver/limits.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "splitmix.hpp"

namespace bankcheck::driver {
namespace {

// An @FILE: a regular, non-empty file (a directory, a device or an empty file would
// silently become a buffer of zeros or be read without end).
std::uint64_t checked_file_size(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw DriverError(fmt::format("{}: cannot read '{}': {}", what, path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw DriverError(fmt::format("{}: '{}' is not a regular file", what, path));
  if (st.st_size == 0) throw DriverError(fmt::format("{}: '{}' is empty", what, path));
  return static_cast<std::uint64_t>(st.st_size);
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DriverError(fmt::format("{}: cannot read '{}'", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int pointee_size(const std::string& type) {
  if (type.find("double") != std::string::npos || type.find("long") != std::string::npos) return 8;
  if (type.find("short") != std::string::npos || type.find("half") != std::string::npos) return 2;
  if (type.find("char") != std::string::npos || type.find("bool") != std::string::npos) return 1;
  return 4;
}

// `random`: floats uniform in [-1000, 1000] in steps of 0.001, integers in [0, 1000).
// Chunks of 1M elements, each from its own seed, filled on all cores: the same bytes
// whatever the number of threads.
void fill_random(std::uint8_t* data, std::uint64_t bytes, int es, bool is_float, std::uint64_t seed,
                 unsigned threads) {
  const std::uint64_t n = bytes / static_cast<std::uint64_t>(es);
  constexpr std::uint64_t kChunk = 1u << 20;
  const std::uint64_t chunks = (n + kChunk - 1) / kChunk;
  std::atomic<std::uint64_t> next_chunk{0};
  auto fill = [&]() {
    for (std::uint64_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
      SplitMix64 gen{seed ^ (c * 0xD1B54A32D192ED03ull)};
      const std::uint64_t from = c * kChunk, to = std::min(n, from + kChunk);
      if (is_float && es == 4) {
        auto* p = reinterpret_cast<float*>(data);  // calloc'd: aligned for any element type
        for (std::uint64_t i = from; i < to; ++i)
          p[i] = static_cast<float>(below(gen(), 2000001)) / 1000.0f - 1000.0f;
      } else if (is_float && es == 8) {
        auto* p = reinterpret_cast<double*>(data);
        for (std::uint64_t i = from; i < to; ++i)
          p[i] = static_cast<double>(below(gen(), 2000001)) / 1000.0 - 1000.0;
      } else {
        for (std::uint64_t i = from; i < to; ++i) {
          const std::uint64_t r = below(gen(), 1000);
          std::memcpy(data + i * static_cast<std::uint64_t>(es), &r, static_cast<size_t>(es));
        }
      }
    }
  };
  const unsigned fillers = static_cast<unsigned>(std::min<std::uint64_t>(
      chunks, std::max(1u, threads ? threads : std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < fillers; ++t) pool.emplace_back(fill);
  } catch (...) {  // fewer fillers than asked: the started ones and this thread finish the work
  }
  fill();
  for (auto& th : pool) th.join();
}

// `iota`: element i holds i (as a float for float buffers).
void fill_iota(std::uint8_t* data, std::uint64_t bytes, int es, bool is_float) {
  std::uint64_t idx = 0;
  for (std::uint64_t off = 0; off + static_cast<std::uint64_t>(es) <= bytes;
       off += static_cast<std::uint64_t>(es), ++idx) {
    if (is_float && es == 4) {
      const float f = static_cast<float>(idx);
      std::memcpy(data + off, &f, 4);
    } else {
      std::memcpy(data + off, &idx, static_cast<size_t>(es));
    }
  }
}

// A pointer parameter: a buffer in `mem` named after it, filled as `value` says.
std::uint64_t bind_pointer(analysis::ArgReport& ar, const std::optional<std::string>& value,
                           const std::string& type, const std::string& arg_where, SplitMix64& rng,
                           const CheckOptions& o, std::uint64_t bytes, emu::GlobalMemory& mem) {
  ArgValue v;
  if (value) {
    v = parse_arg_value(*value, arg_where);
    if (v.kind == ArgValue::Kind::Integer && v.i == 0) {  // a literal 0 is a null pointer
      v.kind = ArgValue::Kind::Buffer;
      v.fill = ArgValue::Fill::Null;
    }
    if (v.kind != ArgValue::Kind::Buffer)
      throw DriverError(
          fmt::format("{}: '{}' is a pointer ({}): give zeros, random, iota[:BYTES], @FILE or null",
                      arg_where, *value, type.empty() ? "64-bit parameter" : type));
  } else {
    v.kind = ArgValue::Kind::Buffer;
    v.fill = ArgValue::Fill::Zeros;
    ar.defaulted = true;
  }
  if (v.fill == ArgValue::Fill::Null) {
    ar.is_buffer = true;
    ar.value = "null";
    return 0;
  }
  std::string file_bytes;
  if (v.fill == ArgValue::Fill::File) file_bytes = read_file(v.path, arg_where);
  const std::uint64_t base = mem.add(ar.name, bytes);
  auto* b = mem.find(base, 1);
  const int es = pointee_size(type);
  if (v.fill == ArgValue::Fill::Random) {
    const bool is_float =
        type.find("float") != std::string::npos || type.find("double") != std::string::npos;
    fill_random(b->data(), bytes, es, is_float, rng(), o.threads);
  } else if (v.fill == ArgValue::Fill::Iota) {
    fill_iota(b->data(), bytes, es, type.find("float") != std::string::npos);
  } else if (v.fill == ArgValue::Fill::File) {
    std::memcpy(b->data(), file_bytes.data(), std::min<std::uint64_t>(file_bytes.size(), bytes));
  }
  ar.is_buffer = true;
  ar.bytes = bytes;
  ar.value = value ? *value : fmt::format("zeros ({} bytes, lazily allocated)", bytes);
  return base;
}

// An integer must fit its parameter: the bytes copied are the low ones, so 4294967297 for
// an unsigned int would run as 1 while the report shows what was typed. A type that says
// neither signed nor unsigned (PTX .b32, .u32 for int) takes either reading.
void check_scalar_fits(const ArgValue& v, const std::string& value, const std::string& type,
                       int size, const std::string& name, const std::string& arg_where) {
  if (size >= 8) return;  // every int64 (and a 64-bit hex pattern) fits 8 bytes
  const int bits = size * 8;
  const std::int64_t smin = -(std::int64_t{1} << (bits - 1)),
                     smax = (std::int64_t{1} << (bits - 1)) - 1;
  const std::int64_t umax = (std::int64_t{1} << bits) - 1;
  const bool is_unsigned = type.find("unsigned") != std::string::npos || type.starts_with(".u");
  const bool is_signed =
      !is_unsigned &&
      (type.find("int") != std::string::npos || type.find("short") != std::string::npos ||
       type.find("char") != std::string::npos || type.starts_with(".s"));
  const std::int64_t lo = is_unsigned ? 0 : smin;
  const std::int64_t hi = is_signed ? smax : umax;
  if (v.i < lo || v.i > hi)
    throw DriverError(
        fmt::format("{}: {} does not fit {} ({}, {} to {})", arg_where, value, name, type, lo, hi));
}

// A scalar parameter: its bytes in `slot`.
void bind_scalar(const analysis::ArgReport& ar, const std::string& value, const std::string& type,
                 const ptx::KernelParam& p, const std::string& arg_where, std::uint8_t* slot) {
  const ArgValue v = parse_arg_value(value, arg_where);
  const bool is_float = p.type == ".f32" || p.type == ".f64" || type == "float" || type == "double";
  if (v.kind == ArgValue::Kind::Buffer)
    throw DriverError(fmt::format("{}: '{}' is a buffer, but {} is a scalar ({})", arg_where, value,
                                  ar.name, type.empty() ? p.type : type));
  if (is_float) {
    const double d = v.kind == ArgValue::Kind::Float ? v.f : static_cast<double>(v.i);
    if (p.size == 4) {
      const float f = static_cast<float>(d);
      std::memcpy(slot, &f, 4);
    } else {
      std::memcpy(slot, &d, 8);
    }
    return;
  }
  if (v.kind == ArgValue::Kind::Float)
    throw DriverError(fmt::format("{}: '{}' is not an integer, but {} is {}", arg_where, value,
                                  ar.name, type.empty() ? p.type : type));
  check_scalar_fits(v, value, type.empty() ? p.type : type, p.size, ar.name, arg_where);
  std::memcpy(slot, &v.i, static_cast<size_t>(std::min(p.size, 8)));
}

}  // namespace

std::vector<std::string> signature_params(const std::string& sig) {
  return parse_kernel_name(sig).params;
}

std::vector<std::string> param_names(const Loaded& l, const ptx::Kernel& k, const std::string& name,
                                     const CheckOptions& o) {
  auto names = kernel_param_names(l.source_text, name);
  if (names.size() != k.params.size() && !l.source_text.empty())  // a kernel from a header
    names = kernel_param_names(
        local_headers_text(l.source_text, l.input, include_search_dirs(o.nvcc)), name);
  if (names.size() != k.params.size()) names.clear();  // not this kernel's declaration
  return names;
}

void place_module_variables(const ptx::Program& program, emu::GlobalMemory& mem) {
  for (const auto& g : program.globals) {
    mem.add(g.name, g.bytes, g.address);
    if (!g.init.empty()) {
      auto* b = mem.find(g.address, 1);
      std::memcpy(b->data(), g.init.data(), std::min<std::uint64_t>(g.init.size(), b->size));
    }
  }
}

BoundArgs bind_arguments(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                         const std::string& name, const std::string& signature,
                         const CheckOptions& o, emu::GlobalMemory& mem,
                         std::vector<std::uint8_t>& params) {
  BoundArgs out;
  const auto names = param_names(l, k, name, o);
  const auto types = signature_params(signature);
  params.assign(static_cast<size_t>(k.param_bytes), 0);
  std::vector<bool> used(s.args.size(), false);
  SplitMix64 rng{12345};  // one seed per random buffer, in parameter order
  // Each parameter's name, value (the last given wins) and whether it is a buffer.
  struct Param {
    std::string name, type, where;
    std::optional<std::string> value;
    bool pointer = false;
  };
  std::vector<Param> ps;
  std::vector<std::string> buffer_names;
  std::vector<std::uint64_t> asked;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    Param q;
    q.name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("p{}", i);
    q.type = i < types.size() ? types[i] : "";
    for (size_t a = 0; a < s.args.size(); ++a)
      if (s.args[a].first == q.name || s.args[a].first == fmt::format("p{}", i)) {
        q.value = s.args[a].second;
        used[a] = true;
      }
    q.where = s.line ? fmt::format("{}:{}: arg {}", l.input, s.line, q.name)
                     : fmt::format("--arg {}", q.name);
    // Without a signature (extern "C", PTX input) a 64-bit parameter is a pointer unless
    // it is given a number.
    q.pointer = q.type.empty()
                    ? p.is_pointer_sized && !(q.value && parse_arg_value(*q.value, q.where).kind !=
                                                             ArgValue::Kind::Buffer)
                    : q.type.find('*') != std::string::npos;
    if (q.pointer) {
      std::uint64_t want = 0;
      if (q.value) {
        const ArgValue v = parse_arg_value(*q.value, q.where);
        want = v.bytes.value_or(0);
        if (v.kind == ArgValue::Kind::Buffer && v.fill == ArgValue::Fill::File) {
          const std::uint64_t file = checked_file_size(v.path, q.where);
          if (v.bytes && file > *v.bytes)
            throw DriverError(fmt::format("{}: '{}' has {} bytes, more than the buffer's {}",
                                          q.where, v.path, file, *v.bytes));
          if (!v.bytes) want = file;
        }
      }
      buffer_names.push_back(q.name);
      asked.push_back(want);
    }
    ps.push_back(std::move(q));
  }
  const std::vector<std::uint64_t> sizes = buffer_sizes(buffer_names, asked, o.max_memory, name);
  size_t next_buffer = 0;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    analysis::ArgReport ar;
    ar.name = ps[i].name;
    const std::string& type = ps[i].type;
    const bool pointer = ps[i].pointer;
    const std::optional<std::string>& value = ps[i].value;
    const std::string& arg_where = ps[i].where;
    std::uint8_t* slot = params.data() + p.offset;
    if (pointer) {
      const std::uint64_t base =
          bind_pointer(ar, value, type, arg_where, rng, o, sizes[next_buffer++], mem);
      std::memcpy(slot, &base, 8);
      out.buffers.push_back(base);
    } else {
      if (!value)
        throw DriverError(fmt::format(
            "kernel {}: missing argument {} ({}): give --arg {}=VALUE or arg={}=VALUE in "
            "the launch comment",
            name, ar.name, type.empty() ? p.type : type, ar.name, ar.name));
      bind_scalar(ar, *value, type, p, arg_where, slot);
      ar.value = *value;
      out.buffers.push_back(0);
    }
    out.reports.push_back(ar);
  }
  for (size_t a = 0; a < s.args.size(); ++a)
    if (!used[a]) {
      std::string known;
      for (const auto& ar : out.reports) known += (known.empty() ? "" : ", ") + ar.name;
      throw DriverError(
          fmt::format("{}: kernel {} has no parameter '{}' (its parameters: {})",
                      s.line ? fmt::format("{}:{}", l.input, s.line) : std::string("--arg"), name,
                      s.args[a].first, known.empty() ? "none" : known));
    }
  return out;
}

}  // namespace bankcheck::driver
