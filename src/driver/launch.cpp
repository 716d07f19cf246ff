// Launch settings: the value parsers (dim3, bytes, blocks, argument values), the
// `// bankcheck:` source comments, and merging flags over a comment.
#include "bankcheck/driver/launch.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::driver {
namespace {

// A bad value, `offset` bytes into the text that was parsed. The public parsers turn it
// into "WHERE: message"; the comment parser into "FILE:LINE:COL: message" with COL moved
// to the offending part.
struct ValueError {
  std::size_t offset = 0;
  std::string message;
};

[[noreturn]] void bad(std::size_t offset, std::string message) {
  throw ValueError{offset, std::move(message)};
}

template <typename F>
auto at(std::string_view where, F&& parse) {
  try {
    return parse();
  } catch (const ValueError& e) {
    throw DriverError(fmt::format("{}: {}", where, e.message));
  }
}

using explain::is_ident_char;  // parameter names are CUDA identifiers
using explain::is_ident_start;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// Decimal digits only, no sign, into [0, max]; `what` names the thing for the message.
std::uint64_t parse_unsigned(std::string_view s, std::size_t offset, std::uint64_t max,
                             std::string_view what) {
  if (s.empty()) bad(offset, fmt::format("missing {}", what));
  if (!all_digits(s)) bad(offset, fmt::format("'{}' is not {}", s, what));
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v > max)
    bad(offset, fmt::format("'{}' is too large (at most {})", s, max));
  return v;
}

Dim3 dim3_impl(std::string_view text) {
  using E = model::DimsText::Error;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  const model::DimsText r = model::split_dims(text, false, kMax, 0);
  switch (r.error) {
    case E::None:
      return r.dims;
    case E::TooMany:
      bad(r.start, fmt::format("'{}' has more than three dimensions (X[,Y[,Z]])", text));
    case E::Empty:
      bad(r.start,
          fmt::format("missing dimension in '{}' (expected X[,Y[,Z]], positive integers)", text));
    case E::NotDigits:
      bad(r.start,
          fmt::format("'{}' is not a positive integer (expected X[,Y[,Z]])", r.part));
    case E::TooLarge:
      bad(r.start, fmt::format("'{}' is too large (at most {})", r.part, kMax));
    case E::Zero:
      bad(r.start, fmt::format("dimension {} is 0; dimensions are positive", "xyz"[r.axis]));
  }
  return r.dims;
}

std::uint64_t bytes_impl(std::string_view text) {
  std::uint64_t scale = 1;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K':
        scale = 1ull << 10;
        break;
      case 'm':
      case 'M':
        scale = 1ull << 20;
        break;
      case 'g':
      case 'G':
        scale = 1ull << 30;
        break;
      default:
        break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  if (!all_digits(digits))
    bad(0, fmt::format("'{}' is not a byte count (expected digits with an optional K, M or G "
                       "suffix, e.g. 4096 or 48K)",
                       text));
  std::uint64_t n =
      parse_unsigned(digits, 0, std::numeric_limits<std::uint64_t>::max(), "a byte count");
  if (n > std::numeric_limits<std::uint64_t>::max() / scale)
    bad(0, fmt::format("'{}' is too large", text));
  return n * scale;
}

BlockSelection blocks_impl(std::string_view text) {
  if (text == "all") return BlockSelection{true, 0};
  if (!all_digits(text))
    bad(0, fmt::format("'{}' is not 'all' or a positive count of blocks", text));
  std::uint64_t n =
      parse_unsigned(text, 0, std::numeric_limits<std::uint64_t>::max(), "a count of blocks");
  if (n == 0) bad(0, "0 blocks; expected 'all' or a positive count");
  return BlockSelection{false, n};
}

constexpr std::string_view kArgExpected =
    "expected an integer (42, -1, 0x10, 16M), a float (1.5, 1e-3, 2.0f), a buffer "
    "(zeros, random or iota, optionally :BYTES such as zeros:4K), @FILE or null";

std::optional<double> parse_double(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

ArgValue arg_value_impl(std::string_view text) {
  ArgValue a;
  if (text.empty()) bad(0, fmt::format("empty value; {}", kArgExpected));
  if (text.front() == '@') {
    if (text.size() == 1) bad(0, "'@' needs a file name (@path/to/file.bin)");
    a.kind = ArgValue::Kind::Buffer;
    a.fill = ArgValue::Fill::File;
    a.path = std::string(text.substr(1));
    return a;
  }
  if (text == "null") {  // a pointer the kernel gets as 0 (an optional buffer left out)
    a.kind = ArgValue::Kind::Buffer;
    a.fill = ArgValue::Fill::Null;
    return a;
  }
  {
    auto colon = text.find(':');
    std::string_view word = text.substr(0, colon);
    bool buffer = true;
    if (word == "zeros")
      a.fill = ArgValue::Fill::Zeros;
    else if (word == "random")
      a.fill = ArgValue::Fill::Random;
    else if (word == "iota")
      a.fill = ArgValue::Fill::Iota;
    else
      buffer = false;
    if (buffer) {
      a.kind = ArgValue::Kind::Buffer;
      if (colon != std::string_view::npos) {
        std::string_view size = text.substr(colon + 1);
        try {
          a.bytes = bytes_impl(size);
        } catch (const ValueError& e) {
          bad(colon + 1 + e.offset, e.message);
        }
        if (*a.bytes == 0) bad(colon + 1, fmt::format("a buffer of 0 bytes ('{}')", text));
      }
      return a;
    }
  }

  // Integers: [+-] then decimal digits or 0x hex digits.
  std::string_view body = text;
  bool negative = false;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    std::string_view hex = body.substr(2);
    std::uint64_t u = 0;
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), u, 16);
    if (end != hex.data() + hex.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range))
      bad(0, fmt::format("'{}' is not a hex integer; {}", text, kArgExpected));
    if (ec == std::errc::result_out_of_range || (negative && u > (1ull << 63)))
      bad(0, fmt::format("'{}' does not fit in 64 bits", text));
    a.kind = ArgValue::Kind::Integer;
    // Two's complement: 0xFFFFFFFFFFFFFFFF is -1, -0x8000000000000000 is INT64_MIN.
    a.i = static_cast<std::int64_t>(negative ? (~u + 1) : u);
    return a;
  }
  // Integers with a K, M or G suffix (1024-based, as for buffer sizes): 16M.
  if (body.size() > 1 && all_digits(body.substr(0, body.size() - 1)) &&
      std::string_view("KkMmGg").find(body.back()) != std::string_view::npos) {
    std::uint64_t n = 0;
    try {
      n = bytes_impl(body);
    } catch (const ValueError& e) {
      bad(e.offset, e.message);
    }
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      bad(0, fmt::format("'{}' does not fit in a 64-bit signed integer", text));
    a.kind = ArgValue::Kind::Integer;
    a.i = negative ? -static_cast<std::int64_t>(n) : static_cast<std::int64_t>(n);
    return a;
  }
  if (all_digits(body)) {
    std::int64_t v = 0;
    std::string_view signed_text = text.front() == '+' ? text.substr(1) : text;
    auto [end, ec] =
        std::from_chars(signed_text.data(), signed_text.data() + signed_text.size(), v);
    if (ec != std::errc())
      bad(0, fmt::format("'{}' does not fit in a 64-bit signed integer", text));
    a.kind = ArgValue::Kind::Integer;
    a.i = v;
    return a;
  }

  // Floats: what from_chars accepts (1.5, .5, 5., 1e-3, inf, nan), with an optional f/F.
  std::string_view number = text;
  std::optional<double> f = parse_double(number);
  if (!f && (text.back() == 'f' || text.back() == 'F') && text.size() > 1) {
    number = text.substr(0, text.size() - 1);
    f = parse_double(number);
  }
  if (!f) {
    // A number no double holds (1e400, 1e-400): said so, not "not a value".
    double v = 0;
    const std::string_view digits = number.starts_with('+') ? number.substr(1) : number;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc::result_out_of_range && end == digits.data() + digits.size())
      bad(0, fmt::format("'{}' is out of the range of a double (magnitudes 2.2e-308 to 1.8e308)",
                         text));
  }
  if (!f) bad(0, fmt::format("'{}' is not a value; {}", text, kArgExpected));
  a.kind = ArgValue::Kind::Float;
  a.f = *f;
  return a;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s.front())) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

// A field path after a parameter's name: (.NAME | [DIGITS])*, NAME an identifier.
bool is_field_path(std::string_view s) {
  while (!s.empty()) {
    if (s.front() == '.') {
      std::size_t n = 1;
      while (n < s.size() && is_ident_char(s[n])) ++n;
      if (!is_identifier(s.substr(1, n - 1))) return false;
      s.remove_prefix(n);
    } else if (s.front() == '[') {
      const std::size_t close = s.find(']');
      if (close == std::string_view::npos || close == 1 || !all_digits(s.substr(1, close - 1)))
        return false;
      s.remove_prefix(close + 1);
    } else {
      return false;
    }
  }
  return true;
}

// VALUE, or for a field VALUE[,VALUE...] (an array field's elements): each checked.
void check_values(std::string_view value, bool list) {
  // A tensor map (tensormap:TYPE,DIMS,BOX,...): read when its parameter is bound
  // (tensor_map_arg.hpp), where its parts are checked and named.
  if (value.substr(0, 10) == "tensormap:") return;
  if (!list) {
    arg_value_impl(value);
    return;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = value.find(',', start);
    const std::string_view one = value.substr(start, comma == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : comma - start);
    try {
      arg_value_impl(one);
    } catch (const ValueError& e) {
      bad(start + e.offset, e.message);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

// NAME=VALUE[,VALUE...] for --var: NAME a variable (qualified names with ::, a struct
// variable's field after a dot), each VALUE a value or buffer as for --arg.
std::pair<std::string, std::string> var_assignment_impl(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos)
    bad(0, fmt::format("'{}' is not NAME=VALUE (e.g. strides=1,2,4,8 or table=random:4K)", text));
  std::string_view name = text.substr(0, eq);
  std::size_t head = std::min(name.find_first_of(".["), name.size());
  bool ok = head > 0;
  for (std::size_t from = 0; ok && from <= head;) {  // ns::name
    const std::size_t colons = std::min(name.find("::", from), head);
    ok = is_identifier(name.substr(from, colons - from));
    from = colons + 2;
  }
  if (!ok || !is_field_path(name.substr(head)))
    bad(0, fmt::format("'{}' is not a variable name (expected NAME=VALUE)", name));
  try {
    check_values(text.substr(eq + 1), true);
  } catch (const ValueError& e) {
    bad(eq + 1 + e.offset, e.message);
  }
  return {std::string(name), std::string(text.substr(eq + 1))};
}

std::pair<std::string, std::string> arg_assignment_impl(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos)
    bad(0, fmt::format("'{}' is not NAME=VALUE (e.g. n=1024 or in=random:4K)", text));
  std::string_view name = text.substr(0, eq);
  const std::size_t head = std::min(name.find_first_of(".["), name.size());
  if (!is_identifier(name.substr(0, head)) || !is_field_path(name.substr(head)))
    bad(0, fmt::format("'{}' is not a parameter name (expected NAME=VALUE, NAME an identifier, "
                       "or NAME.FIELD=VALUE for a struct parameter's field)",
                       name));
  std::string_view value = text.substr(eq + 1);
  try {
    check_values(value, head < name.size());
  } catch (const ValueError& e) {
    bad(eq + 1 + e.offset, e.message);
  }
  return {std::string(name), std::string(value)};
}

void check_dims(const Dim3& d, std::string_view what, std::uint64_t max_x, std::uint64_t max_y,
                std::uint64_t max_z, std::string_view where) {
  auto check = [&](std::uint64_t v, std::uint64_t max, char axis) {
    if (v > max)
      throw DriverError(
          fmt::format("{}: {} {} is {}; CUDA allows at most {}", where, what, axis, v, max));
  };
  check(d.x, max_x, 'x');
  check(d.y, max_y, 'y');
  check(d.z, max_z, 'z');
}

// Position of `needle` (a view into `line`) as a 1-based column.
int column_of(std::string_view line, std::string_view part) {
  return static_cast<int>(part.data() - line.data()) + 1;
}

// "//", optional blanks, "bankcheck:": returns the offset just after the colon, or npos;
// `comment_at` receives the offset of the "//".
std::size_t find_marker(std::string_view line, std::size_t& comment_at) {
  constexpr std::string_view kMarker = "bankcheck:";
  for (std::size_t p = line.find("//"); p != std::string_view::npos; p = line.find("//", p + 1)) {
    std::size_t q = p + 2;
    while (q < line.size() && is_blank(line[q])) ++q;
    if (line.substr(q).starts_with(kMarker)) {
      comment_at = p;
      return q + kMarker.size();
    }
  }
  return std::string_view::npos;
}

}  // namespace

Dim3 parse_dim3(std::string_view text, std::string_view where) {
  return at(where, [&] { return dim3_impl(text); });
}

void check_grid(const Dim3& grid, std::string_view where) {
  check_dims(grid, "grid", 0x7fffffffu, 65535, 65535, where);
}

void check_block(const Dim3& block, std::string_view where) {
  check_dims(block, "block", 1024, 1024, 64, where);
  std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
  if (threads > 1024)
    throw DriverError(fmt::format("{}: block of {}x{}x{} = {} threads; CUDA allows at most 1024",
                                  where, block.x, block.y, block.z, threads));
}

std::uint64_t parse_bytes(std::string_view text, std::string_view where) {
  return at(where, [&] { return bytes_impl(text); });
}

BlockSelection parse_blocks(std::string_view text, std::string_view where) {
  return at(where, [&] { return blocks_impl(text); });
}

ArgValue parse_arg_value(std::string_view text, std::string_view where) {
  return at(where, [&] { return arg_value_impl(text); });
}

std::pair<std::string, std::string> parse_arg_assignment(std::string_view text,
                                                         std::string_view where) {
  return at(where, [&] { return arg_assignment_impl(text); });
}

std::pair<std::string, std::string> parse_var_assignment(std::string_view text,
                                                         std::string_view where) {
  return at(where, [&] { return var_assignment_impl(text); });
}

std::vector<LaunchSettings> parse_launch_comments(std::string_view source_text,
                                                  std::string_view file) {
  std::vector<LaunchSettings> out;
  int line_no = 0;
  std::size_t start = 0;
  while (start <= source_text.size()) {
    ++line_no;
    std::size_t nl = source_text.find('\n', start);
    std::string_view line =
        source_text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    const int this_line = line_no;
    auto where = [&](int col) { return fmt::format("{}:{}:{}", file, this_line, col); };
    auto fail = [&](std::string_view part, const std::string& message) -> void {
      throw DriverError(fmt::format("{}: {}", where(column_of(line, part)), message));
    };

    std::size_t comment_at = 0;
    std::size_t p = find_marker(line, comment_at);
    // `// bankcheck: ignore...` is a suppression, read by the reports (report/suppressions).
    if (p != std::string_view::npos) {
      std::size_t w = p;
      while (w < line.size() && is_blank(line[w])) ++w;
      if (line.substr(w).starts_with("ignore")) p = std::string_view::npos;
    }
    if (p != std::string_view::npos) {
      LaunchSettings s;
      s.line = this_line;
      s.col = static_cast<int>(comment_at) + 1;
      bool seen[9] = {};
      bool any = false;
      while (true) {
        while (p < line.size() && is_blank(line[p])) ++p;
        if (p >= line.size()) break;
        std::size_t e = p;
        while (e < line.size() && !is_blank(line[e])) ++e;
        std::string_view item = line.substr(p, e - p);
        p = e;
        any = true;

        auto eq = item.find('=');
        if (eq == std::string_view::npos)
          fail(item, fmt::format("missing '=' in '{}'; expected key=value (kernel=, grid=, "
                                 "block=, smem=, arg=, var=, blocks=, cluster=, cooperative=)",
                                 item));
        std::string_view key = item.substr(0, eq);
        std::string_view value = item.substr(eq + 1);
        static constexpr std::string_view kKeys[] = {
            "kernel", "grid", "block", "smem", "arg", "blocks", "var", "cluster", "cooperative"};
        constexpr int kCount = 9;
        int k = 0;
        while (k < kCount && kKeys[k] != key) ++k;
        if (key.empty()) fail(item, fmt::format("missing key before '=' in '{}'", item));
        if (k == kCount)
          fail(key, fmt::format("unknown key '{}'; expected kernel, grid, block, smem, arg, var, "
                                "blocks, cluster or cooperative",
                                key));
        if (value.empty()) fail(value, fmt::format("missing value after '{}='", key));
        if (k != 4 && k != 6 && seen[k])
          fail(key, fmt::format("'{}' given twice in one comment", key));
        seen[k] = true;

        // Runs a value parser; a ValueError points into `value`.
        auto parse = [&](auto&& f) {
          try {
            return f(value);
          } catch (const ValueError& err) {
            fail(value.substr(std::min(err.offset, value.size())), err.message);
            throw;  // not reached
          }
        };
        switch (k) {
          case 0:
            s.kernel = std::string(value);
            s.kernel_col = column_of(line, value);
            break;
          case 1:
            s.grid = parse(dim3_impl);
            check_grid(*s.grid, where(column_of(line, value)));
            break;
          case 2:
            s.block = parse(dim3_impl);
            check_block(*s.block, where(column_of(line, value)));
            break;
          case 3:
            s.smem = parse(bytes_impl);
            break;
          case 4: {
            auto arg = parse(arg_assignment_impl);
            for (const auto& [name, v] : s.args)
              if (name == arg.first)
                fail(value, fmt::format("argument '{}' given twice in one comment", name));
            s.args.push_back(std::move(arg));
            break;
          }
          case 5: {
            BlockSelection b = parse(blocks_impl);
            s.blocks = b.all ? std::string("all") : std::to_string(b.count);
            break;
          }
          case 7:
            s.cluster = parse(dim3_impl);
            break;
          case 8:
            if (value == "1" || value == "true" || value == "yes")
              s.cooperative = true;
            else if (value == "0" || value == "false" || value == "no")
              s.cooperative = false;
            else
              fail(value, fmt::format("cooperative={}: expected 1 or 0", value));
            break;
          case 6: {
            auto var = parse(var_assignment_impl);
            for (const auto& [name, v] : s.vars)
              if (name == var.first)
                fail(value, fmt::format("variable '{}' given twice in one comment", name));
            s.vars.push_back(std::move(var));
            break;
          }
        }
      }
      if (!any)
        throw DriverError(
            fmt::format("{}: empty launch comment; expected key=value items "
                        "(kernel=, grid=, block=, smem=, arg=, var=, blocks=, cluster=, "
                        "cooperative=)",
                        where(s.col)));
      for (const auto& earlier : out) {
        if (s.kernel && earlier.kernel == s.kernel)
          throw DriverError(fmt::format(
              "{}: a second launch comment for kernel '{}' (the first is at line {}); one "
              "comment per kernel",
              where(s.kernel_col), *s.kernel, earlier.line));
        if (!s.kernel && !earlier.kernel)
          throw DriverError(fmt::format(
              "{}: a second launch comment without kernel= (the first is at line {}); name "
              "the kernel of each with kernel=NAME",
              where(s.col), earlier.line));
      }
      out.push_back(std::move(s));
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::optional<LaunchSettings> comment_for_kernel(const std::vector<LaunchSettings>& comments,
                                                 const std::string& mangled_kernel,
                                                 std::size_t kernels_in_file,
                                                 std::string_view file) {
  const LaunchSettings* named = nullptr;
  const LaunchSettings* unnamed = nullptr;
  for (const auto& c : comments) {
    if (!c.kernel) {
      unnamed = &c;
    } else if (kernel_matches(mangled_kernel, *c.kernel)) {
      if (named != nullptr)
        throw DriverError(fmt::format(
            "{}:{}:{}: launch comments at lines {} and {} both name kernel {}; keep one", file,
            c.line, c.kernel_col, named->line, c.line, demangle(mangled_kernel)));
      named = &c;
    }
  }
  if (named != nullptr) return *named;
  if (unnamed == nullptr) return std::nullopt;
  if (kernels_in_file != 1)
    throw DriverError(fmt::format(
        "{}:{}:{}: this launch comment names no kernel, but the file has {} kernels; add "
        "kernel=NAME",
        file, unnamed->line, unnamed->col, kernels_in_file));
  return *unnamed;
}

void check_comment_kernels(const std::vector<LaunchSettings>& comments,
                           const std::vector<std::string>& mangled_kernels, std::string_view file) {
  for (const auto& c : comments) {
    if (!c.kernel) continue;
    bool found = false;
    for (const auto& k : mangled_kernels) found = found || kernel_matches(k, *c.kernel);
    if (found) continue;
    std::string known;
    for (const auto& k : mangled_kernels)
      known += (known.empty() ? "" : ", ") + base_name(demangle(k));
    throw DriverError(fmt::format(
        "{}:{}:{}: no kernel '{}' in this file; {}", file, c.line, c.kernel_col, *c.kernel,
        known.empty() ? std::string("it has no kernels") : "its kernels: " + known));
  }
}

LaunchSettings merge(const LaunchSettings& flags, const LaunchSettings& comment) {
  LaunchSettings m = comment;
  if (flags.kernel) m.kernel = flags.kernel;
  if (flags.grid) m.grid = flags.grid;
  if (flags.block) m.block = flags.block;
  if (flags.smem) m.smem = flags.smem;
  if (flags.blocks) m.blocks = flags.blocks;
  if (flags.cluster) m.cluster = flags.cluster;
  if (flags.cooperative) m.cooperative = flags.cooperative;
  auto merge_named = [](const auto& from, auto& into) {
    for (const auto& [name, value] : from) {
      bool replaced = false;
      for (auto& [cname, cvalue] : into) {
        if (cname == name) {
          cvalue = value;
          replaced = true;
        }
      }
      if (!replaced) into.emplace_back(name, value);
    }
  };
  merge_named(flags.args, m.args);
  merge_named(flags.vars, m.vars);
  return m;
}

}  // namespace bankcheck::driver
