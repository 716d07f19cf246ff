// Argument binding: parameter names and types from the source and the demangled signature,
// values from the launch settings, buffers in emulated global memory and their fills.
#include "args.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/limits.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/explain/records.hpp"
#include "fills.hpp"
#include "splitmix.hpp"
#include "tensor_map_arg.hpp"

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
    fill_random(b->data(), bytes, es, is_float, rng(), o.threads, o.progress);
  } else if (v.fill == ArgValue::Fill::Iota) {
    fill_iota(b->data(), bytes, es, type.find("float") != std::string::npos);
  } else if (v.fill == ArgValue::Fill::File) {
    std::memcpy(b->data(), file_bytes.data(), std::min<std::uint64_t>(file_bytes.size(), bytes));
  }
  ar.is_buffer = true;
  ar.bytes = bytes;
  ar.zero_filled = v.fill == ArgValue::Fill::Zeros;
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

// A float must fit its parameter too: 1e39 for a `float` would run as infinity and 1e-50 as
// 0, while the report shows what was typed. inf and nan given as such are taken as they are.
void check_float_fits(double d, const std::string& value, int size, const std::string& name,
                      const std::string& type, const std::string& where) {
  if (size != 4 || !std::isfinite(d) || d == 0) return;
  const float f = static_cast<float>(d);
  if (std::isinf(f))
    throw DriverError(fmt::format("{}: {} does not fit {} ({}, {:g} to {:g})", where, value, name,
                                  type, -std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::max()));
  if (f == 0)
    throw DriverError(
        fmt::format("{}: {} is too small for {} ({}: it would read as 0; the smallest "
                    "magnitude is {:g})",
                    where, value, name, type, std::numeric_limits<float>::denorm_min()));
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
    check_float_fits(d, value, p.size, ar.name, type.empty() ? p.type : type, arg_where);
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

namespace {

// A pointer's wanted size in bytes (0: the caller picks) from its value, an @FILE's checked.
std::uint64_t wanted_bytes(const std::optional<std::string>& value, const std::string& where) {
  if (!value) return 0;
  const ArgValue v = parse_arg_value(*value, where);
  std::uint64_t want = v.bytes.value_or(0);
  if (v.kind == ArgValue::Kind::Buffer && v.fill == ArgValue::Fill::File) {
    const std::uint64_t file = checked_file_size(v.path, where);
    if (v.bytes && file > *v.bytes)
      throw DriverError(fmt::format("{}: '{}' has {} bytes, more than the buffer's {}", where,
                                    v.path, file, *v.bytes));
    if (!v.bytes) want = file;
  }
  return want;
}

// A by-value struct parameter: PTX passes it as `.b8 NAME[SIZE]` (a scalar or pointer is a
// typed .u32, .f32, .u64, ...).
bool is_aggregate(const ptx::KernelParam& p) { return p.type == ".b8"; }

// One scalar field's elements ("1,2,3") into `slot`, each checked against the element type.
void bind_field_values(const explain::RecordField& f, const std::string& value,
                       const std::string& where, std::uint8_t* slot) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = value.find(',', start);
    items.push_back(value.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (items.size() != f.count)
    throw DriverError(fmt::format("{}: {} value{} for {} element{} ({} {}[{}]); give all of them, "
                                  "separated by commas",
                                  where, items.size(), items.size() == 1 ? "" : "s", f.count,
                                  f.count == 1 ? "" : "s", f.type, f.name, f.count));
  for (std::size_t e = 0; e < items.size(); ++e) {
    const ArgValue v = parse_arg_value(items[e], where);
    std::uint8_t* out = slot + e * f.element;
    if (v.kind == ArgValue::Kind::Buffer)
      throw DriverError(
          fmt::format("{}: '{}' is a buffer, but {} is a scalar ({})", where, items[e], f.name, f.type));
    if (f.kind == explain::RecordField::Kind::Float) {
      const double d = v.kind == ArgValue::Kind::Float ? v.f : static_cast<double>(v.i);
      check_float_fits(d, items[e], static_cast<int>(f.element), f.name, f.type, where);
      if (f.element == 4) {
        const float x = static_cast<float>(d);
        std::memcpy(out, &x, 4);
      } else if (f.element == 8) {
        std::memcpy(out, &d, 8);
      } else {
        throw DriverError(fmt::format(
            "{}: {} is {}: a 16-bit float field is given in the struct's bytes (--arg NAME=@FILE)",
            where, f.name, f.type));
      }
      continue;
    }
    if (v.kind == ArgValue::Kind::Float)
      throw DriverError(
          fmt::format("{}: '{}' is not an integer, but {} is {}", where, items[e], f.name, f.type));
    check_scalar_fits(v, items[e], f.is_signed ? "int" : "unsigned", static_cast<int>(f.element),
                      f.name, where);
    std::memcpy(out, &v.i, static_cast<size_t>(std::min<std::uint64_t>(f.element, 8)));
  }
}

// The field names of a layout, for messages: "n, in, out, w[4]".
std::string field_list(const explain::RecordLayout& r) {
  std::string s;
  for (const auto& f : r.fields)
    s += (s.empty() ? "" : ", ") + f.name + (f.count > 1 ? fmt::format("[{}]", f.count) : "");
  return s.empty() ? "none" : s;
}

// A module variable's pointer to bind (VarPointer) or its bytes written now.
struct VarPointer {
  std::string name, type, where;
  std::optional<std::string> value;
  std::uint64_t address = 0;  // of the pointer
  const ptx::GlobalVar* variable = nullptr;
};

// Whether the kernel reads the variable by its symbol (ld.const [table], ld.global [x+8]).
bool kernel_reads(const ptx::Kernel& k, const ptx::GlobalVar& g) {
  return std::any_of(k.code.begin(), k.code.end(), [&](const ptx::Instr& in) {
    if (in.mem.has_reg || in.space != g.space) return false;
    const auto a = static_cast<std::uint64_t>(in.mem.offset);
    return a >= g.address && a < g.address + g.bytes;
  });
}

// The module variables given with --var / var= (their bytes written into `mem`, a report
// each), and the pointers among them and among the variables the kernel reads that are to
// get buffers: given a buffer, or not given and null (a pointer read as 0 would fault or read
// address 0 without a word). Throws DriverError naming the variable.
std::vector<VarPointer> variable_pointers(const Loaded& l, const ptx::Kernel& k,
                                          const LaunchSettings& s, const CheckOptions& o,
                                          emu::GlobalMemory& mem, BoundArgs& out) {
  std::vector<VarPointer> ptrs;
  std::string headers;
  bool headers_read = false;
  auto layout_of = [&](const std::string& name) {
    auto r = explain::variable_layout(l.source_text, name);
    if (!r && !l.source_text.empty()) {
      if (!headers_read)
        headers = local_headers_text(l.source_text, l.input, include_search_dirs(o.nvcc));
      headers_read = true;
      r = explain::variable_layout(headers, name);
    }
    return r;
  };
  auto display = [](const ptx::GlobalVar& g) {
    return g.name.starts_with("_Z") ? demangle(g.name) : g.name;
  };
  const std::string at = s.line ? fmt::format("{}:{}: var ", l.input, s.line) : "--var ";
  // Given ones, the last value of a name winning.
  std::vector<std::string> given_vars;
  for (const auto& [full, value] : s.vars) {
    const std::string where = at + full;
    const std::size_t head = std::min(full.find_first_of(".["), full.size());
    const std::string vname = full.substr(0, head), field = full.substr(head);
    const ptx::GlobalVar* g = nullptr;
    for (const auto& v : l.program.globals)
      if (display(v) == vname || v.name == vname) g = &v;
    if (!g) {
      std::string known;
      for (const auto& v : l.program.globals) known += (known.empty() ? "" : ", ") + display(v);
      throw DriverError(fmt::format("{}: the program has no __constant__ or __device__ variable "
                                    "'{}' (its variables: {})",
                                    where, vname, known.empty() ? "none" : known));
    }
    given_vars.push_back(full);
    const auto layout = layout_of(vname);
    if (layout && !layout->error.empty())
      throw DriverError(fmt::format("{}: {} cannot be laid out: {}; give its bytes: --var {}=@FILE",
                                    where, vname, layout->error, vname));
    std::uint8_t* bytes = mem.find(g->address, 1)->data();
    analysis::ArgReport ar;
    ar.name = full;
    ar.is_variable = true;
    ar.value = value;
    const ArgValue v = value.find(',') == std::string::npos ? parse_arg_value(value, where)
                                                            : ArgValue{};
    // The field given: the whole variable (a scalar, array or pointer) or a struct's member.
    const explain::RecordField* f = nullptr;
    if (layout) {
      const std::string want = field.empty() ? vname.substr(vname.rfind(':') + 1) : "";
      for (const auto& rf : layout->fields)
        if (field.empty() ? rf.name == want : rf.name == vname.substr(vname.rfind(':') + 1) + field)
          f = &rf;
      if (!f && !field.empty()) {
        std::string names;
        for (const auto& rf : layout->fields) names += (names.empty() ? "" : ", ") + rf.name;
        throw DriverError(fmt::format("{}: {} has no field '{}' (its fields: {})", where, vname,
                                      field.substr(1), names));
      }
    } else if (!field.empty()) {
      throw DriverError(fmt::format("{}: the declaration of {} was not found in the source, so "
                                    "its fields have no names; give its bytes: --var {}=@FILE",
                                    where, vname, vname));
    }
    if (f && f->kind == explain::RecordField::Kind::Pointer) {
      ptrs.push_back({full, f->type, where, value, g->address + f->offset, g});
      continue;
    }
    if (field.empty() && v.kind == ArgValue::Kind::Buffer && v.fill == ArgValue::Fill::File) {
      const std::string file = read_file(v.path, where);
      if (file.size() != g->bytes)
        throw DriverError(fmt::format("{}: '{}' has {} bytes, but {} is {} bytes", where, v.path,
                                      file.size(), vname, g->bytes));
      std::memcpy(bytes, file.data(), file.size());
    } else if (v.kind == ArgValue::Kind::Buffer && v.fill != ArgValue::Fill::Null && f &&
               !v.bytes && value.find(',') == std::string::npos) {
      // zeros, random, iota over the field's elements.
      std::uint8_t* at_f = bytes + f->offset;
      const bool is_float = f->kind == explain::RecordField::Kind::Float;
      const int es = static_cast<int>(f->element);
      if (v.fill == ArgValue::Fill::Zeros)
        std::memset(at_f, 0, f->size());
      else if (v.fill == ArgValue::Fill::Iota)
        fill_iota(at_f, f->size(), es, is_float && es == 4);
      else if (v.fill == ArgValue::Fill::Random) {
        SplitMix64 rng{0x5EED ^ g->address};
        fill_random(at_f, f->size(), es, is_float, rng(), 1);
      } else {
        throw DriverError(fmt::format("{}: '{}' for {} ({}): give VALUES, zeros, random, iota or "
                                      "@FILE",
                                      where, value, vname, f->type));
      }
    } else if (f) {
      bind_field_values(*f, value, where, bytes + f->offset);
    } else {
      throw DriverError(fmt::format("{}: the declaration of {} was not found in the source, so "
                                    "its element type is unknown; give its bytes: --var {}=@FILE "
                                    "({} bytes)",
                                    where, vname, vname, g->bytes));
    }
    out.reports.push_back(ar);
    out.buffers.push_back(0);
  }
  // Pointer variables the kernel reads, not given and null: a buffer of zeros each.
  for (const auto& g : l.program.globals) {
    if (!kernel_reads(k, g)) continue;
    const auto layout = layout_of(display(g));
    if (!layout || !layout->error.empty()) continue;
    for (const auto& f : layout->fields) {
      if (f.kind != explain::RecordField::Kind::Pointer) continue;
      const std::string full = display(g).substr(0, display(g).rfind(':') + 1) + f.name;
      if (std::find(given_vars.begin(), given_vars.end(), full) != given_vars.end()) continue;
      const std::uint64_t off = f.offset;
      std::uint64_t initial = 0;
      if (off + 8 <= g.init.size()) std::memcpy(&initial, g.init.data() + off, 8);
      if (initial != 0) continue;  // an initialised pointer (to another variable) stays
      ptrs.push_back({full, f.type, at + full, std::nullopt, g.address + off, &g});
    }
  }
  return ptrs;
}

}  // namespace

BoundArgs bind_arguments(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                         const std::string& name, const std::string& signature,
                         const CheckOptions& o, emu::GlobalMemory& mem,
                         std::vector<std::uint8_t>& params) {
  BoundArgs out;
  const auto names = param_names(l, k, signature, o);
  const auto types = signature_params(signature);
  params.assign(static_cast<size_t>(k.param_bytes), 0);
  std::vector<bool> used(s.args.size(), false);
  SplitMix64 rng{12345};  // one seed per random buffer, in parameter order
  // A pointer to bind: a pointer parameter, or a struct parameter's pointer field.
  struct Pointer {
    std::string name, type, where;
    std::optional<std::string> value;
    std::uint64_t offset = 0;  // in the parameter bytes, or a variable's address
    const ptx::GlobalVar* variable = nullptr;  // a pointer variable's (its address: offset)
    // A CUtensorMap parameter (tensormap:...): the buffer is its tensor, the parameter the
    // map encoded for it.
    std::optional<TensorMapArg> map = {};
  };
  // Each parameter's name, value (a flag's over the launch comment's) and whether it is a
  // buffer.
  struct Param {
    std::string name, type, where;
    std::optional<std::string> value;
    bool pointer = false;
    bool tensor_map = false;  // tensormap:...: a map encoded for a buffer of its tensor
    // A struct: its layout from the source (nullopt: not found) and its fields' values.
    bool aggregate = false;
    std::optional<explain::RecordLayout> record;
    std::vector<std::pair<std::string, std::string>> fields;  // FIELD, VALUE
  };
  std::vector<Param> ps;
  std::vector<Pointer> pointers;
  std::string headers;  // the local headers' text, read when a struct is not in the .cu
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    Param q;
    q.name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("p{}", i);
    q.type = i < types.size() ? types[i] : "";
    q.aggregate = is_aggregate(p) && q.type.find('*') == std::string::npos;
    const std::string alias = fmt::format("p{}", i);
    std::optional<std::size_t> given;  // the entry of s.args that gave the value
    auto from_flag = [&](std::size_t a) {
      return std::any_of(o.flags.args.begin(), o.flags.args.end(),
                         [&](const auto& f) { return f.first == s.args[a].first; });
    };
    for (size_t a = 0; a < s.args.size(); ++a) {
      const std::string& an = s.args[a].first;
      if (an == q.name || an == alias) {
        // By name and as pN: two flags are one parameter given twice; a flag wins over the
        // launch comment.
        if (given && from_flag(*given) && from_flag(a))
          throw DriverError(fmt::format(
              "--arg {}={} and --arg {}={} both give parameter {} ({}): "
              "give it once",
              s.args[*given].first, s.args[*given].second, an, s.args[a].second, q.name, alias));
        used[a] = true;
        if (given && from_flag(*given)) continue;
        given = a;
        q.value = s.args[a].second;
      } else if (q.aggregate) {
        for (const std::string& prefix : {q.name, alias})
          if (an.size() > prefix.size() && an.starts_with(prefix) && an[prefix.size()] == '.') {
            const std::string field = an.substr(prefix.size() + 1);
            auto same = std::find_if(q.fields.begin(), q.fields.end(),
                                     [&](const auto& f) { return f.first == field; });
            if (same != q.fields.end())
              same->second = s.args[a].second;
            else
              q.fields.emplace_back(field, s.args[a].second);
            used[a] = true;
            break;
          }
      }
    }
    // Where the value was given: the launch comment's line, or --arg when a flag gave it.
    q.where = s.line && !(given && from_flag(*given))
                  ? fmt::format("{}:{}: arg {}", l.input, s.line, q.name)
                  : fmt::format("--arg {}", q.name);
    if (q.aggregate && q.value && is_tensor_map_arg(*q.value)) {
      if (p.size != 128)
        throw DriverError(
            fmt::format("{}: a tensor map is a 128-byte CUtensorMap; {} ({}) is {} "
                        "bytes",
                        q.where, q.name, q.type.empty() ? "a struct" : q.type, p.size));
      const TensorMapArg map = parse_tensor_map_arg(*q.value, q.where);
      q.aggregate = false;
      q.tensor_map = true;
      const std::string data =
          map.data.starts_with("@") ? map.data : fmt::format("{}:{}", map.data, map.bytes);
      pointers.push_back({q.name, map.element + "*", q.where, data,
                          static_cast<std::uint64_t>(p.offset), nullptr, map});
      ps.push_back(std::move(q));
      continue;
    }
    if (q.aggregate) {
      const std::string type_name = parse_kernel_name(q.type).base;
      if (!type_name.empty()) {
        q.record = explain::record_layout(l.source_text, type_name);
        if (!q.record && !l.source_text.empty()) {
          if (headers.empty())
            headers = local_headers_text(l.source_text, l.input, include_search_dirs(o.nvcc));
          q.record = explain::record_layout(headers, type_name);
        }
      }
      const std::string what =
          fmt::format("{} ({}, {} bytes)", q.name, q.type.empty() ? "a struct" : q.type, p.size);
      if (!q.value && q.fields.empty())
        throw DriverError(fmt::format(
            "kernel {}: missing argument {}: give its bytes, --arg {}=@FILE ({} bytes), or its "
            "fields, --arg {}.FIELD=VALUE (fields: {})",
            name, what, q.name, p.size, q.name, q.record ? field_list(*q.record) : "unknown"));
      if (!q.fields.empty() || !q.value) {
        if (!q.record)
          throw DriverError(fmt::format(
              "{}: the definition of {} was not found in the source, so its fields have no "
              "names; give its bytes: --arg {}=@FILE ({} bytes)",
              q.where, what, q.name, p.size));
        if (!q.record->error.empty())
          throw DriverError(fmt::format("{}: struct {} (line {}) cannot be laid out: {}; give its "
                                        "bytes: --arg {}=@FILE ({} bytes)",
                                        q.where, q.record->name, q.record->line, q.record->error,
                                        q.name, p.size));
        if (q.record->size != static_cast<std::uint64_t>(p.size) ||
            q.record->align > static_cast<std::uint64_t>(std::max(p.align, 1)))
          throw DriverError(fmt::format(
              "{}: struct {} as the source defines it (line {}) is {} bytes aligned to {}, but "
              "the kernel's parameter is {} bytes aligned to {}; give its bytes: --arg {}=@FILE",
              q.where, q.record->name, q.record->line, q.record->size, q.record->align, p.size,
              p.align, q.name));
      }
      for (const auto& [field, value] : q.fields)
        if (std::none_of(q.record->fields.begin(), q.record->fields.end(),
                         [&](const auto& f) { return f.name == field; }))
          throw DriverError(fmt::format("{}.{}: struct {} has no field '{}' (its fields: {})",
                                        q.where, field, q.record->name, field,
                                        field_list(*q.record)));
      if (q.record && q.record->error.empty() &&
          q.record->size == static_cast<std::uint64_t>(p.size))
        for (const auto& f : q.record->fields) {
          if (f.kind != explain::RecordField::Kind::Pointer) continue;
          Pointer ptr{q.name + "." + f.name, f.type, q.where + "." + f.name, std::nullopt,
                      static_cast<std::uint64_t>(p.offset) + f.offset};
          for (const auto& [field, value] : q.fields)
            if (field == f.name) ptr.value = value;
          pointers.push_back(std::move(ptr));
        }
    } else {
      // Without a signature (extern "C", PTX input) a 64-bit parameter is a pointer unless
      // it is given a number.
      q.pointer = q.type.empty()
                      ? p.is_pointer_sized && !(q.value && parse_arg_value(*q.value, q.where).kind !=
                                                               ArgValue::Kind::Buffer)
                      : q.type.find('*') != std::string::npos;
      if (q.pointer)
        pointers.push_back({q.name, q.type, q.where, q.value, static_cast<std::uint64_t>(p.offset)});
    }
    ps.push_back(std::move(q));
  }
  for (size_t a = 0; a < s.args.size(); ++a)
    if (!used[a]) {
      std::string known;
      for (const auto& q : ps) known += (known.empty() ? "" : ", ") + q.name;
      const std::string& an = s.args[a].first;
      const std::string head = an.substr(0, an.find_first_of(".["));
      const auto param = std::find_if(ps.begin(), ps.end(), [&](const Param& q) { return q.name == head; });
      if (param != ps.end())
        throw DriverError(fmt::format("{}: parameter {} of kernel {} is not a struct ({}); give "
                                      "--arg {}=VALUE",
                                      s.line ? fmt::format("{}:{}", l.input, s.line) : std::string("--arg"),
                                      head, name, param->type.empty() ? "a scalar" : param->type, head));
      throw DriverError(
          fmt::format("{}: kernel {} has no parameter '{}' (its parameters: {})",
                      s.line ? fmt::format("{}:{}", l.input, s.line) : std::string("--arg"), name,
                      head, known.empty() ? "none" : known));
    }
  // Module variables: each given one bound now; pointer variables get buffers with the
  // parameters' (one budget), those not given zeros, as a pointer parameter not given does.
  for (const auto& vp : variable_pointers(l, k, s, o, mem, out)) {
    Pointer ptr{vp.name, vp.type, vp.where, vp.value, vp.address, vp.variable};
    pointers.push_back(std::move(ptr));
  }
  std::vector<std::string> buffer_names;
  std::vector<std::uint64_t> asked;
  for (const auto& ptr : pointers) {
    buffer_names.push_back(ptr.name);
    asked.push_back(wanted_bytes(ptr.value, ptr.where));
  }
  const std::vector<std::uint64_t> sizes = buffer_sizes(buffer_names, asked, o.max_memory, name);
  // Binds one pointer: its report, its base in the parameter bytes.
  size_t next_buffer = 0;
  std::vector<analysis::ArgReport> reports;  // the parameters' (variables' come after)
  std::vector<std::uint64_t> bases;
  auto bind = [&](const Pointer& ptr) {
    analysis::ArgReport ar;
    ar.name = ptr.name;
    ar.has_pointer = true;
    ar.pointer = {ptr.variable ? ptr.variable->space : ptx::Space::Param, ptr.offset};
    ar.is_variable = ptr.variable != nullptr;
    const std::uint64_t base =
        bind_pointer(ar, ptr.value, ptr.type, ptr.where, rng, o, sizes[next_buffer++], mem);
    if (ptr.variable)
      std::memcpy(mem.find(ptr.offset, 8)->data() + (ptr.offset - ptr.variable->address), &base, 8);
    else if (ptr.map)
      encode_tensor_map_arg(*ptr.map, base, params.data() + ptr.offset, ptr.where);
    else
      std::memcpy(params.data() + ptr.offset, &base, 8);
    reports.push_back(ar);
    bases.push_back(base);
  };
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    const Param& q = ps[i];
    std::uint8_t* slot = params.data() + p.offset;
    if (q.pointer || q.tensor_map) {
      bind(pointers[next_buffer]);
      continue;
    }
    analysis::ArgReport ar;
    ar.name = q.name;
    if (q.aggregate) {
      // The struct's bytes: a file's, or zeros; then each field given, then each pointer.
      if (q.value) {
        const ArgValue v = parse_arg_value(*q.value, q.where);
        if (v.kind == ArgValue::Kind::Buffer && v.fill == ArgValue::Fill::File) {
          const std::string bytes = read_file(v.path, q.where);
          if (bytes.size() != static_cast<std::size_t>(p.size))
            throw DriverError(fmt::format("{}: '{}' has {} bytes, but {} ({}) is {} bytes", q.where,
                                          v.path, bytes.size(), q.name, q.type.empty() ? "a struct" : q.type,
                                          p.size));
          std::memcpy(slot, bytes.data(), bytes.size());
        } else if (!(v.kind == ArgValue::Kind::Buffer && v.fill == ArgValue::Fill::Zeros && !v.bytes)) {
          throw DriverError(fmt::format(
              "{}: '{}' for a struct ({}, {} bytes): give @FILE (its bytes), zeros, or its fields "
              "as --arg {}.FIELD=VALUE",
              q.where, *q.value, q.type.empty() ? "a struct" : q.type, p.size, q.name));
        }
      }
      ar.value = q.value ? *q.value : fmt::format("fields ({} bytes)", p.size);
      reports.push_back(ar);
      bases.push_back(0);
      if (!q.record || !q.record->error.empty() || q.record->size != static_cast<std::uint64_t>(p.size))
        continue;  // bytes from the file only (checked above when fields were given)
      for (const auto& f : q.record->fields) {
        if (f.kind == explain::RecordField::Kind::Pointer) {
          bind(pointers[next_buffer]);
          continue;
        }
        analysis::ArgReport fr;
        fr.name = q.name + "." + f.name;
        const auto given = std::find_if(q.fields.begin(), q.fields.end(),
                                        [&](const auto& g) { return g.first == f.name; });
        if (given != q.fields.end()) {
          bind_field_values(f, given->second, q.where + "." + f.name, slot + f.offset);
          fr.value = given->second;
        } else if (q.value) {
          continue;  // from the struct's bytes
        } else {
          fr.value = "0 (not given)";
          fr.defaulted = true;
        }
        reports.push_back(fr);
        bases.push_back(0);
      }
      continue;
    }
    if (!q.value)
      throw DriverError(fmt::format(
          "kernel {}: missing argument {} ({}): give --arg {}=VALUE or arg={}=VALUE in "
          "the launch comment",
          name, ar.name, q.type.empty() ? p.type : q.type, ar.name, ar.name));
    bind_scalar(ar, *q.value, q.type, p, q.where, slot);
    ar.value = *q.value;
    reports.push_back(ar);
    bases.push_back(0);
  }
  while (next_buffer < pointers.size()) bind(pointers[next_buffer]);  // the variables'
  reports.insert(reports.end(), out.reports.begin(), out.reports.end());
  bases.insert(bases.end(), out.buffers.begin(), out.buffers.end());
  out.reports = std::move(reports);
  out.buffers = std::move(bases);
  return out;
}

}  // namespace bankcheck::driver
