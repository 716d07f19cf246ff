// `bankcheck explain` in expression mode: a C-like declaration (or element type) and an index
// expression become the shared-memory requests that every warp of one thread block makes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/model/access.hpp"
#include "bankcheck/model/dims.hpp"

namespace bankcheck::explain {

using Dim3 = model::Dim3;

inline constexpr std::uint32_t kMaxBlockThreads = 1024;

struct ExplainInput {
  std::optional<std::string> type;  // --type T: element type of a flat `__shared__ T s[]`;
                                    //   expr is the element index
  std::optional<std::string> decl;  // --decl 'float tile[32][33]' (exactly one of type/decl)
  std::string expr;                 // --expr
  Dim3 block{32, 1, 1};             // --block X,Y,Z (default 32,1,1)
  std::map<std::string, std::int64_t> vars;  // --set NAME=INT (shadow every builtin name)
  std::optional<std::string> active;         // --active COND: lanes where COND != 0 take part
  model::Op op = model::Op::Load;
};

// One instruction the access compiles to.
struct Request {
  std::string label;                     // "tile[threadIdx.x][threadIdx.y]", "a[tid].y"
  int width = 4;                         // bytes: 1, 2, 4, 8 or 16
  std::vector<model::WarpAccess> warps;  // one per warp of the block, in warp order;
                                         //   a warp with no active lane has active == 0
};

struct Lowered {
  std::string array_name;         // "tile" (for --type: "s")
  std::string element_type;       // spelled type of the accessed value: "float", "float3",
                                  //   "struct { char c; float f; }"
  std::uint64_t array_bytes = 0;  // size of the declared array (0 = unbounded)
  std::vector<Request> requests;  // in member order when the value is split
};

struct ExprError : std::runtime_error {
  ExprError(const std::string& message, std::string source, std::string text, int column)
      : std::runtime_error(message),
        source(std::move(source)),
        text(std::move(text)),
        column(column) {}

  std::string source;  // "--expr", "--decl", "--active", "--type", "--block", "--set"
  std::string text;    // the full text of that argument
  int column = 0;      // 1-based column of the offending character in text (0 if none);
                       //   text.size() + 1 for "at the end of the text"
};

// Lowers expression mode to requests. Throws ExprError on any bad input.
Lowered lower(const ExplainInput& in);

// `e.text`, a newline, then spaces (tabs under tabs) and '^' under `e.column`; no trailing
// newline. Just `e.text` when the column is 0.
std::string caret_line(const ExprError& e);

// Command-line helpers; both throw ExprError.
// "X", "X,Y" or "X,Y,Z": each at least 1, x*y*z <= 1024, z <= 64 (source "--block").
Dim3 parse_block(std::string_view text);
// "NAME=INT": NAME an identifier, optionally dotted (blockIdx.x); INT a decimal, hex, octal
// or binary literal with an optional sign (source "--set").
std::pair<std::string, std::int64_t> parse_set(std::string_view text);

}  // namespace bankcheck::explain
