// Kernel names: demangling PTX entry names, parsing a name into its parts, matching them
// against what a user types, and reading a kernel's parameter names from its CUDA source. All
// of it over explain's tokens (bankcheck/explain/tokens.hpp).
#include "bankcheck/driver/kernel_names.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/declarations.hpp"
#include "bankcheck/explain/tokens.hpp"

namespace bankcheck::driver {
namespace {

using explain::Tokens;
using explain::TokenSpan;

// The tokens' texts, a blank kept only where the text had one between two identifier
// characters ("unsigned int"): the form in which names are compared.
std::string squeeze_blanks(std::string_view s) {
  const Tokens t = explain::tokenize(s);
  std::string out;
  for (std::size_t j = 0; j < t.size(); ++j) {
    if (j > 0 && t[j - 1].end() < t[j].pos && explain::is_ident_char(out.back()) &&
        explain::is_ident_char(t[j].text.front()))
      out += ' ';
    out += t[j].text;
  }
  return out;
}

// The texts of the parts of `text` between its top-level commas (template arguments nest).
std::vector<std::string> comma_parts(std::string_view text) {
  const Tokens t = explain::tokenize(text);
  std::vector<std::string> out;
  for (auto [a, b] : explain::split_commas(t, 0, t.size(), true))
    out.emplace_back(explain::slice(text, t, a, b));
  return out;
}

// ---- Source scanning for kernel_param_names ----

struct Candidate {
  std::vector<std::string> names;
  std::vector<std::string> types;  // each parameter's type, as same_type compares it
  bool definition = false;
};

// A parameter's type reduced to what a demangled signature and a declaration both spell the
// same way: its words and `*`/`&` without cv-qualifiers, restrict, `struct`, blanks.
// "const float* __restrict__" and "float const*" are both "float*".
std::string type_key(std::string_view type) {
  std::string out;
  for (const explain::Token& t : explain::tokenize(type)) {
    if (t.is("const") || t.is("volatile") || t.is("__restrict__") || t.is("__restrict") ||
        t.is("restrict") || t.is("struct") || t.is("class") || t.is("typename"))
      continue;
    if (!out.empty() && t.ident() &&
        (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_'))
      out += ' ';
    out += t.text;
  }
  return out;
}

// Reads the parameter list that opens at toks[open] ("(") and what follows it.
Candidate read_candidate(TokenSpan toks, std::size_t open) {
  Candidate cand;
  const std::size_t close = explain::match_forward(toks, open);
  std::vector<TokenSpan> params;
  for (auto [a, b] : explain::split_commas(toks, open + 1, close, true))
    params.push_back(toks.subspan(a, explain::default_value(toks, a, b) - a));
  const bool no_params =
      params.empty() || (params.size() == 1 && params[0].size() == 1 && params[0][0].is("void"));
  if (!no_params)
    for (TokenSpan p : params) {
      cand.names.push_back(explain::parameter_name(p));
      // The type: the parameter's text without its name (the last occurrence of it).
      std::string type;
      bool named = false;
      for (std::size_t q = p.size(); q-- > 0;) {
        if (!named && !cand.names.back().empty() && p[q].is(cand.names.back())) {
          named = true;
          continue;
        }
        type = std::string(p[q].text) + " " + type;
      }
      cand.types.push_back(type_key(type));
    }

  for (std::size_t j = close + 1; j < toks.size(); ++j) {
    if (toks[j].is("{")) {
      cand.definition = true;
      break;
    }
    if (toks[j].is(";") || toks[j].is("}") || toks[j].is("=")) break;
    if (toks[j].is("(")) j = explain::past_group(toks, j) - 1;
  }
  return cand;
}

}  // namespace

KernelName parse_kernel_name(std::string_view text) {
  text = explain::trim_blanks(text);
  const Tokens t = explain::tokenize(text);
  KernelName k;
  // The parameter list: the final (...) group, unless it is all there is.
  std::size_t name_end = t.size();
  if (!t.empty() && t.back().is(")")) {
    const std::size_t open = explain::match_backward(t, t.size() - 1);
    if (open > 0 && open < t.size()) {
      k.has_params = true;
      k.params = comma_parts(text.substr(t[open].end(), t.back().pos - t[open].end()));
      if (k.params.size() == 1 && k.params[0] == "void") k.params.clear();
      name_end = open;
    }
  }
  // The name starts after the last blank outside brackets (the return type is before it).
  std::size_t begin = 0, last_colons = t.size(), list_open = t.size(), angle_open = 0;
  int angle = 0;
  for (std::size_t j = 0; j < name_end; ++j) {
    if (k.has_params && angle == 0 && j > 0 && t[j - 1].end() < t[j].pos) {
      begin = j;
      last_colons = list_open = t.size();
    }
    if (explain::is_open(t[j])) {
      j = explain::match_forward(t, j);
      if (j >= name_end) break;
      continue;
    }
    if (t[j].is("<") && angle++ == 0) angle_open = j;
    if (const int n = explain::angle_closes(t[j]); n > 0 && angle > 0) {
      angle = std::max(0, angle - n);
      if (angle == 0 && j + 1 == name_end) list_open = angle_open;
    }
    if (t[j].is("::") && angle == 0) last_colons = j;
  }
  const std::size_t name_stop = std::min(list_open, name_end);
  k.name = std::string(explain::slice(text, t, begin, name_end));
  k.qualified = std::string(explain::slice(text, t, begin, name_stop));
  k.base = last_colons < name_stop
               ? std::string(explain::slice(text, t, last_colons + 1, name_stop))
               : k.qualified;
  if (list_open < name_end) {
    k.template_list = std::string(explain::slice(text, t, list_open, name_end));
    // Inside the list's `<` and its last `>` (a `>>` ends a nested list too).
    const std::size_t from = t[list_open].end(), to = t[name_end - 1].end() - 1;
    k.template_args = comma_parts(text.substr(from, to - from));
  }
  return k;
}

std::optional<std::int64_t> template_argument_value(std::string_view arg) {
  const Tokens t = explain::tokenize(arg);
  if (t.size() == 1 && t[0].is("true")) return 1;
  if (t.size() == 1 && t[0].is("false")) return 0;
  std::size_t i = 0;
  if (!t.empty() && t[0].is("(")) i = explain::past_group(t, 0);  // a cast: (unsigned char)3
  const bool negative = i < t.size() && t[i].is("-");
  if (negative) ++i;
  if (i + 1 != t.size() || !t[i].number()) return std::nullopt;
  const explain::IntegerLiteral lit = explain::integer_literal(t[i].text);
  if (!lit.ok()) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(lit.value))
                  : lit.value;
}

std::string demangle(const std::string& name) {
  // nvcc's prefix of a kernel with internal linkage under -rdc=true (the translation unit's
  // count, hash and file name), before the mangled name: "__nv_static_..._cu_<id>__Z...".
  std::string mangled = name;
  if (name.starts_with("__nv_static_"))
    if (const auto z = name.find("__Z", 12); z != std::string::npos) mangled = name.substr(z + 1);
  // Only _Z names: __cxa_demangle also reads bare type encodings ("i" -> "int").
  if (!mangled.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return name;
  return out.get();
}

std::string base_name(const std::string& demangled) { return parse_kernel_name(demangled).name; }

bool kernel_matches(const std::string& mangled, const std::string& wanted) {
  const std::string want = squeeze_blanks(wanted);
  if (want.empty()) return false;
  if (want == mangled) return true;
  const std::string full = demangle(mangled);
  const KernelName k = parse_kernel_name(full);
  for (const std::string& form : {full, k.name, k.qualified, k.unqualified(), k.base})
    if (squeeze_blanks(form) == want) return true;
  return false;
}

std::vector<std::string> kernel_param_names(std::string_view source_text,
                                            std::string_view kernel_base) {
  const std::string wanted = parse_kernel_name(kernel_base).base;
  if (wanted.empty()) return {};

  const Tokens toks = explain::tokenize(explain::code_only(source_text));
  std::vector<Candidate> found;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (!toks[i].is("__global__")) continue;
    // Forward to the first NAME( or NAME<...>( that is not an attribute call.
    for (std::size_t j = i + 1; j < toks.size();) {
      const explain::Token& t = toks[j];
      if (t.is(";") || t.is("{") || t.is("}") || t.is(")")) break;
      if (t.is("[") || t.is("(")) {
        j = explain::past_group(toks, j);
        continue;
      }
      if (!t.ident() || j + 1 >= toks.size()) {
        ++j;
        continue;
      }
      const explain::Token& next = toks[j + 1];
      if (next.is("(") && explain::is_attribute_call(t)) {
        j = explain::past_group(toks, j + 1);
        continue;
      }
      std::size_t open = toks.size();
      std::size_t after = j + 1;
      if (next.is("(")) {
        open = j + 1;
      } else if (next.is("<")) {
        const std::size_t close = explain::angle_forward(toks, j + 1);
        after = close < toks.size() ? close + 1 : toks.size();
        if (after < toks.size() && toks[after].is("(")) open = after;
      }
      if (open < toks.size()) {
        if (t.text == wanted) found.push_back(read_candidate(toks, open));
        break;
      }
      j = after;
    }
  }

  std::vector<const Candidate*> defs, decls;
  for (const auto& c : found) (c.definition ? defs : decls).push_back(&c);
  // Overloads: the definition whose parameter types are the signature's, when it gives them.
  const KernelName k = parse_kernel_name(kernel_base);
  if (defs.size() > 1 && k.has_params) {
    std::vector<std::string> want;
    for (const auto& t : k.params) want.push_back(type_key(t));
    std::vector<const Candidate*> same;
    for (const Candidate* d : defs)
      if (d->types == want) same.push_back(d);
    if (same.size() == 1) return same[0]->names;
  }
  if (defs.size() == 1) return defs[0]->names;
  if (!defs.empty() || decls.empty()) return {};
  // Declarations only (prototypes, explicit instantiations): they must agree.
  std::vector<std::string> names = decls[0]->names;
  for (const Candidate* d : decls) {
    if (d->names.size() != names.size()) return {};
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (names[k].empty())
        names[k] = d->names[k];
      else if (!d->names[k].empty() && d->names[k] != names[k])
        return {};
    }
  }
  return names;
}

}  // namespace bankcheck::driver
