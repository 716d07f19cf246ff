// Out-of-line device functions inlined into their callers before decoding
// (inline_calls.cpp).
#pragma once

#include <functional>
#include <string>

#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::ptx::detail {

// How deep calls may nest (a recursive function stops its kernel at this depth).
inline constexpr int kMaxCallDepth = 16;

using CallError = std::function<DecodeError(const Instruction&, const std::string&)>;

// `f` with every direct call to a .func of `m` that has a body replaced by that body.
Function inline_calls(const Module& m, const Function& f, const CallError& error);

}  // namespace bankcheck::ptx::detail
