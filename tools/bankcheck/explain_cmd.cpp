// `bankcheck explain`: builds the block's requests (raw addresses or an expression),
// runs them through the analysis and prints a view.
#include "explain_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>

#include "bankcheck/analysis/explain.hpp"
#include "bankcheck/explain/expr.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/report/views.hpp"
#include "cli.hpp"
#include "output.hpp"

namespace bankcheck::tools {
namespace {

using model::Op;

// "--addrs:1:COL: message", then the text with a caret under COL.
[[noreturn]] void fail_at(const std::string& source, const std::string& text, size_t col,
                          const std::string& message) {
  throw explain::ExprError(message, source, text, static_cast<int>(col));
}

Op parse_op(const std::string& op) {
  if (op == "ld" || op == "load") return Op::Load;
  if (op == "st" || op == "store") return Op::Store;
  if (op == "atom" || op == "red") return Op::Atomic;
  if (op == "cas" || op == "atom.cas") return Op::AtomicCas;
  fail_at("--op", op, 1, "unknown operation '" + op + "' (expected ld, st, atom or cas)");
}

const model::Arch& parse_arch(const std::string& name) {
  if (const model::Arch* a = model::find_arch(name)) return *a;
  std::string known;
  for (const auto& a : model::kArchs) known += std::string(known.empty() ? "" : ", ") + a.name;
  throw UserError(fmt::format("--arch: unknown architecture '{}' (known: {})", name, known));
}

// "0,4,8,-,..." -> 32 lane addresses and the active mask.
model::WarpAccess parse_addrs(const std::string& text, Op op, int width) {
  model::WarpAccess a;
  a.op = op;
  a.width = static_cast<std::uint8_t>(width);
  a.active = 0;
  size_t pos = 0;
  int lane = 0;
  while (true) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    size_t b = pos, e = end;
    while (b < e && (text[b] == ' ' || text[b] == '\t')) ++b;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
    const std::string tok = text.substr(b, e - b);
    if (lane >= model::kWarpSize)
      fail_at("--addrs", text, b + 1, fmt::format("more than {} lane addresses", model::kWarpSize));
    if (tok.empty())
      fail_at("--addrs", text, b + 1, fmt::format("missing address for lane {}", lane));
    if (tok != "-") {
      std::uint64_t v = 0;
      const bool hex = tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
      const char* first = tok.data() + (hex ? 2 : 0);
      const char* last = tok.data() + tok.size();
      auto [ptr, ec] = std::from_chars(first, last, v, hex ? 16 : 10);
      if (ec != std::errc() || ptr != last || v > 0xFFFFFFFFull)
        fail_at("--addrs", text, b + 1,
                fmt::format("lane {}: '{}' is not a byte address (decimal, 0x hex, or '-' for an "
                            "inactive lane)",
                            lane, tok));
      a.addr[lane] = static_cast<std::uint32_t>(v);
      a.active |= 1u << lane;
      if (v % static_cast<std::uint64_t>(width) != 0)
        fail_at("--addrs", text, b + 1,
                fmt::format("lane {}: address {} is not a multiple of the access width ({} bytes)",
                            lane, v, width));
    }
    ++lane;
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (lane != model::kWarpSize)
    fail_at("--addrs", text, text.size() + 1,
            fmt::format("expected {} lane addresses, got {}", model::kWarpSize, lane));
  return a;
}

// --swizzle's mode: none, 32B, 64B, 128B (or the driver's names, CU_TENSOR_MAP_SWIZZLE_*).
int parse_swizzle(std::string s) {
  const std::string prefix = "CU_TENSOR_MAP_SWIZZLE_";
  if (s.rfind(prefix, 0) == 0) s = s.substr(prefix.size());
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (s == "NONE" || s == "0") return 0;
  if (s == "32B" || s == "32") return 1;
  if (s == "64B" || s == "64") return 2;
  if (s == "128B" || s == "128") return 3;
  throw UserError(fmt::format("--swizzle: '{}' is not a swizzle mode (none, 32B, 64B, 128B)", s));
}

void check_width(int width) {
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
    throw UserError(fmt::format("--width: {} is not an access width (1, 2, 4, 8 or 16)", width));
}

analysis::ExplainResult build(const ExplainOptions& o, const model::Arch& arch) {
  const Op op = parse_op(o.op);
  analysis::ExplainResult r;
  r.arch = &arch;
  if (o.addrs) {
    if (o.type || o.decl || o.expr)
      throw UserError("--addrs: give either raw addresses or --type/--decl with --expr, not both");
    const int width = o.width ? o.width : 4;
    check_width(width);
    r.requests.push_back({"addresses", op, width});
    analysis::WarpResult w;
    w.requests.push_back({parse_addrs(*o.addrs, op, width), {}, {}});
    r.warps.push_back(std::move(w));
    return r;
  }
  if (!o.expr) throw UserError("explain: give --addrs, or --type or --decl with --expr");
  explain::ExplainInput in;
  in.type = o.type;
  in.decl = o.decl;
  in.expr = *o.expr;
  in.active = o.active;
  in.op = op;
  in.block = explain::parse_block(o.block);
  refuse_repeated_names("--set", o.sets);
  for (const auto& s : o.sets) in.vars.insert(explain::parse_set(s));
  explain::Lowered low = explain::lower(in);
  if (o.width && (low.requests.size() != 1 || low.requests[0].width != o.width))
    throw UserError(fmt::format(
        "--width {} does not match the accessed type {} ({} request{} of {} bytes)", o.width,
        low.element_type, low.requests.size(), low.requests.size() == 1 ? "" : "s",
        low.requests.empty() ? 0 : low.requests[0].width));
  r.array_name = low.array_name;
  r.element_type = low.element_type;
  r.array_bytes = low.array_bytes;
  r.block[0] = in.block.x;
  r.block[1] = in.block.y;
  r.block[2] = in.block.z;
  const size_t warps = low.requests.empty() ? 0 : low.requests[0].warps.size();
  for (const auto& q : low.requests) r.requests.push_back({q.label, op, q.width});
  for (size_t w = 0; w < warps; ++w) {
    analysis::WarpResult wr;
    wr.warp = static_cast<int>(w);
    for (const auto& q : low.requests) wr.requests.push_back({q.warps[w], {}, {}});
    r.warps.push_back(std::move(wr));
  }
  return r;
}

}  // namespace

void add_explain(CLI::App& app, ExplainOptions& o) {
  CLI::App* c = app.add_subcommand(
      "explain",
      "Explain one warp request (--addrs) or every warp of a block (--type/--decl with --expr): "
      "wavefronts, ideal, N-way, and which lanes collide in which bank.");
  c->add_option("--op", o.op, "ld, st, atom (add/exch/min/..., red) or cas")->capture_default_str();
  c->add_option("--width", o.width,
                "access width in bytes: 1, 2, 4, 8 or 16 (raw addresses: default 4)");
  c->add_option("--addrs", o.addrs, "32 byte addresses A0,...,A31; '-' marks an inactive lane");
  c->add_option("--type", o.type,
                "element type of a flat __shared__ array; --expr is the element index");
  c->add_option("--decl", o.decl,
                "a declaration, e.g. 'float tile[32][33]' or 'struct { float x, y; } s[64]'");
  c->add_option("--expr", o.expr, "the index (with --type) or the accessed element (with --decl)");
  c->add_option("--block", o.block, "block size X[,Y[,Z]]")->capture_default_str();
  c->add_option("--set", o.sets, "NAME=INT: a variable the expressions may use (repeatable)");
  c->add_option("--active", o.active, "only lanes where this condition is non-zero access");
  c->add_option("--arch", o.arch,
                "architecture: sm_10 ... sm_121; sm_3x-8byte for Kepler's 8-byte bank mode")
      ->capture_default_str();
  add_format_option(c, o.format, report::ReportKind::Explain, "text or json");
  c->add_option("-o,--output", o.output,
                "write the report to this file instead of standard output");
  c->add_option("--swizzle", o.swizzle,
                "none, 32B, 64B or 128B: the array is a tile a tensor copy (cp.async.bulk.tensor) "
                "writes in this swizzle mode of its tensor map (CU_TENSOR_MAP_SWIZZLE_*), so each "
                "address is moved as the mode moves its element; the report then gives the "
                "block's cost in the other modes that lower it");
  c->add_option("--columns", o.columns,
                "columns the picture may take: a wider one is folded into groups of banks "
                "(default: the terminal's width; a pipe: $COLUMNS when set; -o FILE and "
                "otherwise: unlimited)")
      ->check(CLI::Range(40, 100000));
  c->footer(exit_codes("done", "",
                       "bad input: the argument and column named (--expr:1:COL: ...) with a "
                       "caret under it"));
}

int run_explain(const ExplainOptions& o) {
  const model::Arch& arch = parse_arch(o.arch);
  analysis::ExplainResult r = build(o, arch);
  if (r.warps.empty()) throw UserError("explain: the block has no threads");
  if (o.swizzle) analysis::apply_swizzle(r, parse_swizzle(*o.swizzle));
  const analysis::InvalidAccess bad = analysis::analyze_block(r);
  if (bad.request >= 0) {
    const auto& wr =
        r.warps[static_cast<size_t>(bad.warp)].requests[static_cast<size_t>(bad.request)];
    std::string where = r.warps.size() > 1 ? fmt::format("warp {}: ", bad.warp) : "";
    if (wr.verdict.error == model::AccessError::Misaligned)
      where += fmt::format("lane {}: address {}: ", static_cast<int>(wr.verdict.error_lane),
                           wr.access.addr[wr.verdict.error_lane]);
    throw UserError(fmt::format("{}: {}{} ({} of {} bytes on {})", o.expr ? "--expr" : "--addrs",
                                where, model::error_message(wr.verdict.error),
                                model::op_name(wr.access.op), static_cast<int>(wr.access.width),
                                arch.name));
  }
  if (o.swizzle) analysis::swizzle_options(r);
  write_output(
      report::view(o.format).explain(r, {.color = false,
                                         .columns = text_columns(o.columns, o.output,
                                                                 STDOUT_FILENO),
                                         .quiet = false,
                                         .source_root = {}}),
      o.output);
  return 0;
}

}  // namespace bankcheck::tools
