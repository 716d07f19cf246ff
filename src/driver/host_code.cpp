// The host-code reader's pieces that need no scope: the launch chevrons as nvcc reads them,
// declarators, type sizes; and what is said of a launch once read (its written name, whether
// it launches an instantiation) and the local headers a file includes.
#include "host_code.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/kernel_names.hpp"

namespace bankcheck::driver {
namespace host_code {

using explain::match_backward;
using explain::match_forward;

Token punct(const char* text, std::size_t pos) { return Token{explain::TokKind::Punct, text, pos}; }

// The launch chevrons written with blanks inside (`k << < g, b >> > (p)`, `k< <<...>>>`) as
// the one `<<<` and `>>>` tokens nvcc reads there: `<<` `<` never follow each other elsewhere
// in C++; the closing run of `>` `>>` tokens after such an opening, outside brackets, is
// joined when it closes three and a `(` follows.
Tokens join_chevrons(Tokens t) {
  Tokens out;
  auto is = [&](std::size_t i, const char* s) { return i < t.size() && t[i].is(s); };
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::size_t n = 0;  // tokens of a spaced opening
    if (is(i, "<<") && is(i + 1, "<"))
      n = 2;
    else if (is(i, "<") && is(i + 1, "<<"))
      n = 2;
    else if (is(i, "<") && is(i + 1, "<") && is(i + 2, "<"))
      n = 3;
    if (n == 0 && !is(i, "<<<")) {
      out.push_back(std::move(t[i]));
      continue;
    }
    out.push_back(punct("<<<", t[i].pos));
    i += n == 0 ? 0 : n - 1;
    int depth = 0;
    // The configuration is short: the scan stops at the next `<<<`, a `;` or 4096 tokens,
    // so that it stays linear on any input.
    for (std::size_t j = i + 1; j < t.size() && j < i + 4096 && !t[j].is("<<<"); ++j) {
      if (explain::is_open(t[j])) ++depth;
      if (explain::is_close(t[j]) && --depth < 0) break;
      if (depth > 0) continue;
      if (t[j].is(">>>") || t[j].is(";")) break;
      std::size_t k = j;
      int closes = 0;
      while (k < t.size() && closes < 3 && (t[k].is(">") || t[k].is(">>")))
        closes += explain::angle_closes(t[k++]);
      if (closes == 3 && k > j + 1 && is(k, "(")) {
        for (std::size_t q = i + 1; q < j; ++q) out.push_back(std::move(t[q]));
        out.push_back(punct(">>>", t[j].pos));
        i = k - 1;
        break;
      }
    }
  }
  return out;
}

// Whether the comma at `comma` separates the declarators of a declaration (`dim3 grid(x),
// block(y);`), not the arguments of a call: the statement it is in, outside brackets,
// starts with a type and a name (or a qualified or template type).
bool declares(const Tokens& t, std::size_t comma) {
  std::size_t p = comma;
  while (p > 0) {
    --p;
    if (explain::is_close(t[p])) {
      p = match_backward(t, p);
      if (p >= t.size()) return false;
      continue;
    }
    if (explain::is_open(t[p]))
      return t[p].is("{") && p + 2 < comma && t[p + 1].ident() &&
             (t[p + 2].ident() || t[p + 2].is("::") || t[p + 2].is("<"));
    if (t[p].is(";") || t[p].is("}")) break;
  }
  const std::size_t s = t[p].is(";") || t[p].is("}") ? p + 1 : p;
  return s + 1 < comma && t[s].ident() &&
         (t[s + 1].ident() || t[s + 1].is("::") || t[s + 1].is("<"));
}

int type_size(const std::string& ty) {
  static const std::map<std::string, int> sizes = {
      {"char", 1},    {"bool", 1},     {"int8_t", 1},  {"uint8_t", 1}, {"short", 2},
      {"int16_t", 2}, {"uint16_t", 2}, {"half", 2},    {"__half", 2},  {"__nv_bfloat16", 2},
      {"int", 4},     {"unsigned", 4}, {"float", 4},   {"int32_t", 4}, {"uint32_t", 4},
      {"long", 8},    {"double", 8},   {"size_t", 8},  {"int64_t", 8}, {"uint64_t", 8},
      {"float2", 8},  {"int2", 8},     {"float4", 16}, {"int4", 16},   {"double2", 16},
      {"float3", 12}, {"int3", 12},    {"void*", 8}};
  auto it = sizes.find(ty);
  return it == sizes.end() ? 0 : it->second;
}
// sizeof a struct of `files` (the file, its headers) whose members are scalars of known size
// (`struct P { float x, y, z; };` is 12), with C's alignment; 0 when not such a struct.
int struct_size(const std::string& name, const std::vector<const Tokens*>& files) {
  for (const auto* tt : files) {
    const auto& t = *tt;
    for (std::size_t j = 0; j + 2 < t.size(); ++j) {
      if ((t[j].text != "struct" && t[j].text != "class") || t[j + 1].text != name ||
          t[j + 2].text != "{")
        continue;
      const std::size_t close = match_forward(t, j + 2);
      int size = 0, align = 1;
      std::size_t q = j + 3;
      while (q < close) {
        std::size_t e = q;
        while (e < close && t[e].text != ";") ++e;
        // TYPE a, b, c;
        if (e == q || !t[q].ident()) return 0;
        const int es = type_size(t[q].text);
        if (!es) return 0;
        int names = 0;
        for (std::size_t r = q + 1; r < e; ++r) {
          if (t[r].ident())
            ++names;
          else if (t[r].text != ",")
            return 0;
        }
        for (int k = 0; k < names; ++k) size = (size + es - 1) / es * es + es;
        align = std::max(align, std::min(es, 16));
        q = e + 1;
      }
      return (size + align - 1) / align * align;
    }
  }
  return 0;
}

bool is_type_word(const std::string& w) {
  return type_size(w) > 0 || w == "const" || w == "signed" || w == "std" || w == "size_t" ||
         w == "long" || w == "unsigned";
}

// sizeof(T) of a scalar, a pointer or a struct of the file; 0 when unknown.
int sizeof_type(TokenSpan t, std::size_t from, std::size_t to,
                const std::vector<const Tokens*>& files) {
  std::string ty;  // "unsigned int" -> "int", "long long" -> "long"
  for (std::size_t q = from; q < to; ++q) {
    const std::string& w = t[q].text;
    if (w == "const" || w == "std" || w == "::" || w == "signed" || w == "unsigned" ||
        w == "struct" || (w == "int" && !ty.empty()) || (w == "long" && ty == "long"))
      continue;
    ty += w;
  }
  if (ty.empty()) ty = "int";
  int sz = type_size(ty);
  if (!sz && ty.ends_with("*")) sz = 8;
  if (!sz) sz = struct_size(ty, files);
  return sz;
}

std::optional<std::string> class_body(const Tokens& t, std::size_t i) {
  for (std::size_t j = std::min(i, t.size()); j > 0; --j) {
    const Token& w = t[j - 1];
    if (w.is("struct") || w.is("class") || w.is("union"))
      return j < t.size() && t[j].ident() ? t[j].text : std::string();
    if (!w.ident() && !w.is("::") && !w.is(":") && !w.is(",") && !w.is("<") && !w.is(">"))
      return std::nullopt;
  }
  return std::nullopt;
}

std::size_t expr_end(const Tokens& t, std::size_t from) {
  int depth = 0;
  for (std::size_t j = from; j < t.size(); ++j) {
    if (explain::is_open(t[j])) ++depth;
    if (explain::is_close(t[j])) {
      if (depth == 0) return j;
      --depth;
    }
    if (depth == 0 && (t[j].is(";") || t[j].is(","))) return j;
  }
  return t.size();
}

std::optional<std::size_t> address_passed(const Tokens& t, const std::string& name,
                                          std::size_t from, std::size_t to) {
  for (std::size_t j = std::max<std::size_t>(from, 2); j < to && j < t.size(); ++j) {
    if (!t[j].is(name) || !t[j - 1].is("&")) continue;
    std::size_t o = j - 1;  // the call whose argument `&name` is
    int depth = 0;
    while (o > 0 && !(depth == 0 && t[o].is("("))) {
      if (explain::is_close(t[o])) ++depth;
      if (explain::is_open(t[o]) && depth > 0) --depth;
      if (t[o].is(";") || t[o].is("{")) break;
      --o;
    }
    if (o > 0 && t[o].is("(") && t[o - 1].ident() && !t[o - 1].text.starts_with("cudaMalloc"))
      return o - 1;
  }
  return std::nullopt;
}

}  // namespace host_code

namespace {

// Whether a template argument of a launch and one of an instantiation are the same: the same
// integer (`(unsigned int)256` and `256`; `true` and `(SWZ > 0)` evaluated to 1), else the
// same text apart from blanks (types).
bool same_template_argument(const std::string& launch, const std::string& instantiation) {
  const auto a = template_argument_value(launch), b = template_argument_value(instantiation);
  if (a || b) return a == b;
  std::string x = launch, y = instantiation;
  std::erase(x, ' ');
  std::erase(y, ' ');
  return x == y;
}

}  // namespace

std::string HostLaunch::written() const {
  std::string s = kernel;
  if (!template_args.empty()) {
    s += "<";
    for (std::size_t i = 0; i < template_args.size(); ++i) s += (i ? ", " : "") + template_args[i];
    s += ">";
  }
  return s;
}

bool launch_matches(const HostLaunch& launch, const std::string& mangled) {
  if (!kernel_matches(mangled, launch.kernel)) return false;
  if (launch.template_args.empty()) return true;
  // The instantiation's template arguments, from the demangled name.
  const KernelName k = parse_kernel_name(demangle(mangled));
  if (k.template_list.empty() || k.template_args.size() < launch.template_args.size()) return false;
  for (std::size_t i = 0; i < launch.template_args.size(); ++i)
    if (!same_template_argument(launch.template_args[i], k.template_args[i])) return false;
  return true;
}

std::string local_headers_text(std::string_view source, const std::string& input,
                               const std::vector<std::string>& include_dirs) {
  namespace fs = std::filesystem;
  std::string out;
  std::set<std::string> seen;
  std::function<void(std::string_view, const fs::path&, int)> walk =
      [&](std::string_view text, const fs::path& dir, int depth) {
        if (depth > 8) return;
        std::istringstream ss{std::string(text)};
        for (std::string line; std::getline(ss, line);) {
          const auto h = line.find_first_not_of(" \t");
          if (h == std::string::npos || line[h] != '#') continue;
          const auto inc = line.find("include", h);
          const auto q = line.find('"', h);
          if (inc == std::string::npos || q == std::string::npos || q < inc) continue;
          const auto q2 = line.find('"', q + 1);
          if (q2 == std::string::npos) continue;
          const std::string name = line.substr(q + 1, q2 - q - 1);
          std::vector<fs::path> tries{dir / name};
          for (const auto& d : include_dirs) tries.push_back(fs::path(d) / name);
          for (const auto& p : tries) {
            std::error_code ec;
            if (!fs::is_regular_file(p, ec)) continue;
            const std::string key = fs::weakly_canonical(p, ec).string();
            if (!seen.insert(key).second) break;
            std::ifstream f(p, std::ios::binary);
            std::stringstream content;
            content << f.rdbuf();
            out += content.str() + "\n";
            walk(content.str(), p.parent_path(), depth + 1);
            break;
          }
        }
      };
  walk(source, fs::path(input).parent_path(), 0);
  return out;
}

namespace {

// The name a line includes with quotes (`#include "kernels.cu"`), or "".
std::string quoted_include(std::string_view line) {
  line = explain::trim_blanks(line);
  if (!line.starts_with('#')) return {};
  line = explain::trim_blanks(line.substr(1));
  if (!line.starts_with("include")) return {};
  line = explain::trim_blanks(line.substr(7));
  if (!line.starts_with('"')) return {};
  const auto close = line.find('"', 1);
  return close == std::string_view::npos ? std::string() : std::string(line.substr(1, close - 1));
}

}  // namespace

HostSource with_included_cu(std::string_view source, const std::string& input,
                            const std::vector<std::string>& include_dirs) {
  namespace fs = std::filesystem;
  HostSource out;
  std::set<std::string> seen;
  bool included = false;
  std::function<void(std::string_view, const fs::path&, const std::string&, int)> walk =
      [&](std::string_view text, const fs::path& dir, const std::string& file, int depth) {
        int line_no = 0;
        for (std::size_t start = 0; start < text.size();) {
          std::size_t nl = text.find('\n', start);
          if (nl == std::string_view::npos) nl = text.size();
          const std::string_view line = text.substr(start, nl - start);
          start = nl + 1;
          ++line_no;
          const std::string name = quoted_include(line);
          if (depth < 8 && name.ends_with(".cu")) {
            std::vector<fs::path> tries{dir / name};
            for (const auto& d : include_dirs) tries.push_back(fs::path(d) / name);
            bool done = false;
            for (const auto& p : tries) {
              std::error_code ec;
              if (!fs::is_regular_file(p, ec)) continue;
              done = true;
              if (!seen.insert(fs::weakly_canonical(p, ec).string()).second) break;
              std::ifstream f(p, std::ios::binary);
              std::stringstream content;
              content << f.rdbuf();
              included = true;
              walk(content.str(), p.parent_path(), p.lexically_normal().string(), depth + 1);
              break;
            }
            if (done) continue;
          }
          (out.text += line) += '\n';
          out.origin.emplace_back(file, line_no);
        }
      };
  walk(source, fs::path(input).parent_path(), "", 0);
  if (!included) return HostSource{std::string(source), {}};
  return out;
}

}  // namespace bankcheck::driver
