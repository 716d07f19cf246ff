// PTX parser: recursive descent over the lexer's tokens into the syntax tree of
// bankcheck/ptx/ast.hpp. Module directives, variables with initializers, functions with
// parameters, performance directives and bodies (instructions, labels, register and
// variable declarations, .loc chains); scoped `{ }` blocks are flattened with their
// declarations renamed (p -> p$s1). Iterative where input controls nesting, so no input
// can exhaust the stack.
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bankcheck/ptx/ast.hpp"
#include "lexer.hpp"
#include "scoped_names.hpp"
#include "words.hpp"

namespace bankcheck::ptx {
namespace {

using detail::is_perf_directive;
using detail::is_state_space;
using detail::Lexer;
using detail::split_dots;
using detail::state_space;
using detail::Tok;
using detail::Token;
using detail::type_size;
using detail::write_element;

constexpr std::uint64_t kMaxFileIndex = 1u << 20;  // .file N: bounds the files table
constexpr int kMaxOperandLevel = 3;                // [base, {x, y}] is the deepest real PTX nests

using detail::NameMap;

struct DeclAttrs {
  std::string type;
  int align = 0;
  int vector = 1;
  bool is_ptr = false;
};

enum class DeclKind { Param, Variable, Register };

class Parser {
 public:
  Parser(std::string_view text, std::string_view source, const ParseOptions& options)
      : lex_(text, source), options_(options) {
    tok_ = lex_.next();
  }

  Module run() {
    while (tok_.kind != Tok::End) {
      if (tok_.kind != Tok::Dot) fail_expected("a directive");
      top_level_directive();
    }
    return std::move(mod_);
  }

 private:
  // ---- tokens ----------------------------------------------------------------------

  void advance() {
    if (has_ahead_) {
      tok_ = ahead_;
      has_ahead_ = false;
    } else {
      tok_ = lex_.next();
    }
  }

  const Token& peek() {
    if (!has_ahead_) {
      ahead_ = lex_.next();
      has_ahead_ = true;
    }
    return ahead_;
  }

  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of input";
    std::string s(t.text.substr(0, 40));
    if (t.text.size() > 40) s += "...";
    return "'" + s + "'";
  }

  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    lex_.fail(t, message);
  }
  [[noreturn]] void fail_expected(const std::string& what) const {
    fail(tok_, "expected " + what + ", found " + describe(tok_));
  }

  void expect(char c) {
    if (!tok_.is(c)) fail_expected(std::string("'") + c + "'");
    advance();
  }

  bool is_dot(std::string_view d) const { return tok_.kind == Tok::Dot && tok_.text == d; }

  // An unsigned integer literal (what: for the message). Leaves the token consumed.
  std::uint64_t expect_uint(const char* what) {
    if (tok_.kind != Tok::Number) fail_expected(what);
    detail::Number n;
    const std::string err = detail::decode_number(tok_.text, n);
    if (!err.empty()) fail(tok_, err);
    if (n.is_float) fail_expected(what);
    advance();
    return n.value;
  }

  int expect_int(const char* what, std::uint64_t max = INT_MAX) {
    const Token t = tok_;
    const std::uint64_t v = expect_uint(what);
    if (v > max) fail(t, std::string(what) + " out of range: " + std::string(t.text));
    return static_cast<int>(v);
  }

  // ---- module level ------------------------------------------------------------------

  void top_level_directive() {
    const std::string_view d = tok_.text;
    if (d == ".version") {
      advance();
      if (tok_.kind != Tok::Number) fail_expected("a version number");
      mod_.version = std::string(tok_.text);
      advance();
    } else if (d == ".target") {
      advance();
      if (tok_.kind != Tok::Word) fail_expected("a target name");
      mod_.target = std::string(tok_.text);
      advance();
      while (tok_.is(',')) {
        advance();
        if (tok_.kind != Tok::Word) fail_expected("a target option");
        advance();
      }
    } else if (d == ".address_size") {
      advance();
      const Token t = tok_;
      const std::uint64_t v = expect_uint("an address size");
      if (v != 32 && v != 64) fail(t, "address size must be 32 or 64");
      mod_.address_size = static_cast<int>(v);
    } else if (d == ".file") {
      file_directive();
    } else if (d == ".section") {
      skip_section();
    } else if (d == ".pragma") {
      advance();
      pragma_rest();
    } else if (d == ".alias") {
      advance();
      for (int k = 0; k < 2; ++k) {
        if (tok_.kind != Tok::Word) fail_expected("a function name");
        advance();
        if (k == 0) expect(',');
      }
      expect(';');
    } else if (d == ".loc") {
      loc_directive();
    } else if (d == ".visible" || d == ".extern" || d == ".weak" || d == ".common" ||
               d == ".entry" || d == ".func" || (is_state_space(d) && d != ".param")) {
      declaration();
    } else {
      fail(tok_, "unknown directive '" + std::string(d) + "'");
    }
  }

  // .file N "path" [, timestamp, size]
  void file_directive() {
    advance();
    const Token t = tok_;
    const std::uint64_t index = expect_uint("a file index");
    if (index > kMaxFileIndex) fail(t, "file index out of range: " + std::string(t.text));
    if (tok_.kind != Tok::String) fail_expected("a file name string");
    std::string path = detail::decode_string(tok_.text);
    advance();
    for (int k = 0; k < 2 && tok_.is(','); ++k) {
      advance();
      expect_uint(k == 0 ? "a timestamp" : "a file size");
    }
    if (mod_.files.size() <= index) mod_.files.resize(index + 1);
    mod_.files[index] = std::move(path);
  }

  // .section NAME { ... }: debug sections, skipped whole.
  void skip_section() {
    advance();
    if (tok_.kind != Tok::Dot && tok_.kind != Tok::Word) fail_expected("a section name");
    advance();
    const Token open = tok_;
    if (open.is('{') && !has_ahead_) {  // debug sections run to megabytes: scanned, not lexed
      const bool closed = lex_.skip_braced() != 0;
      advance();
      if (!closed) fail_unclosed(open, ".section");
      return;
    }
    expect('{');
    int depth = 1;
    while (depth > 0) {
      if (tok_.kind == Tok::End) fail_unclosed(open, ".section");
      if (tok_.is('{')) ++depth;
      if (tok_.is('}')) --depth;
      advance();
    }
  }

  [[noreturn]] void fail_unclosed(const Token& open, const char* what) const {
    fail(tok_, std::string("expected '}' to close the ") + what + " opened at line " +
                   std::to_string(open.line) + ", column " + std::to_string(open.col) + ", found " +
                   describe(tok_));
  }

  // After `.pragma`: "string" [, "string"]* ;
  void pragma_rest() {
    for (;;) {
      if (tok_.kind != Tok::String) fail_expected("a pragma string");
      advance();
      if (!tok_.is(',')) break;
      advance();
    }
    expect(';');
  }

  // .loc F L C [, function_name LABEL[+N]] [, inlined_at F L C]
  void loc_directive() {
    advance();
    std::vector<SourceLoc> chain;
    chain.push_back(loc_triple());
    while (tok_.is(',')) {
      advance();
      if (tok_.kind == Tok::Word && tok_.text == "function_name") {
        advance();
        if (tok_.kind != Tok::Word) fail_expected("a label after function_name");
        advance();
        if (tok_.is('+')) {
          advance();
          expect_uint("an offset");
        }
      } else if (tok_.kind == Tok::Word && tok_.text == "inlined_at") {
        advance();
        chain.push_back(loc_triple());
      } else {
        fail_expected("'function_name' or 'inlined_at'");
      }
    }
    // A .loc names one inlined_at frame; the frames above it come from the .loc that set
    // that call site's own line (nvcc writes it first): tex2D<T>'s body inlined into the
    // wrapper it calls, inlined into the program's line.
    if (chain.size() > 1) {
      const auto key = [](const SourceLoc& l) { return std::tuple{l.file, l.line, l.col}; };
      const SourceLoc site = chain[1];
      if (const auto it = outer_frames_.find(key(site)); it != outer_frames_.end())
        for (const SourceLoc& l : it->second)
          if (chain.size() < 16) chain.push_back(l);
      outer_frames_[key(chain[0])].assign(chain.begin() + 1, chain.end());
    }
    loc_ = std::move(chain);
  }

  SourceLoc loc_triple() {
    SourceLoc l;
    l.file = expect_int("a file index");
    l.line = expect_int("a line number");
    l.col = expect_int("a column number");
    return l;
  }

  // Linking directives, then a function or a module-scope variable.
  void declaration() {
    bool visible = false;
    bool external = false;
    for (;;) {
      if (tok_.kind != Tok::Dot) fail_expected("'.entry', '.func' or a state space");
      const std::string_view d = tok_.text;
      if (d == ".visible" || d == ".weak" || d == ".common") {
        visible = true;  // .weak and .common symbols are visible outside the module too
      } else if (d == ".extern") {
        external = true;
      } else if (d == ".entry" || d == ".func") {
        function(d == ".entry", visible);
        return;
      } else if (is_state_space(d) && d != ".param") {
        const StateSpace space = state_space(d);
        advance();
        variable_decl(space, external, visible, mod_.variables);
        return;
      } else {
        fail_expected("'.entry', '.func' or a state space");
      }
      advance();
    }
  }

  // ---- declarations ------------------------------------------------------------------

  // Qualifiers of a parameter, variable or register declaration, up to its first name.
  void decl_attrs(DeclAttrs& a, DeclKind kind) {
    while (tok_.kind == Tok::Dot) {
      const Token t = tok_;
      if (t.text == ".attribute" && kind == DeclKind::Variable) {  // .attribute(.managed)
        advance();
        skip_parenthesized();
        continue;
      }
      const auto parts = split_dots(t.text);
      bool align_pending = false;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::string_view p = parts[k];
        const int size = type_size(p);
        if (size >= 0) {
          if (!a.type.empty())
            fail(t, "more than one type in declaration: '" + std::string(p) + "' after '" + a.type +
                        "'");
          a.type = std::string(p);
        } else if (p == ".v2" || p == ".v4" || p == ".v8") {
          a.vector = p[2] - '0';
        } else if (p == ".align" && kind != DeclKind::Register) {
          if (k + 1 != parts.size()) fail(t, "expected an alignment after .align");
          align_pending = true;
        } else if (p == ".ptr" && kind == DeclKind::Param) {
          a.is_ptr = true;
        } else if (kind == DeclKind::Param && is_state_space(p) && p != ".param") {
          // .ptr.global etc.: the space a pointer parameter points to
        } else {
          fail(t, "unexpected '" + std::string(p) + "' in declaration");
        }
      }
      advance();
      if (align_pending) a.align = expect_int("an alignment");
    }
  }

  // ( ... ) with nesting, contents ignored (.attribute(.managed)).
  void skip_parenthesized() {
    const Token open = tok_;
    expect('(');
    int depth = 1;
    while (depth > 0) {
      if (tok_.kind == Tok::End)
        fail(tok_, "expected ')' to match the '(' at line " + std::to_string(open.line) +
                       ", column " + std::to_string(open.col) + ", found end of input");
      if (tok_.is('(')) ++depth;
      if (tok_.is(')')) --depth;
      advance();
    }
  }

  void dims(std::vector<std::int64_t>& out) {
    while (tok_.is('[')) {
      advance();
      if (tok_.is(']')) {
        out.push_back(-1);
      } else {
        const Token t = tok_;
        const std::uint64_t v = expect_uint("an array size");
        if (v > static_cast<std::uint64_t>(INT64_MAX)) fail(t, "array size out of range");
        out.push_back(static_cast<std::int64_t>(v));
      }
      expect(']');
    }
  }

  // After the state space: qualifiers, then name [dims] [= init] {, name ...} ;
  void variable_decl(StateSpace space, bool external, bool visible, std::vector<Variable>& out) {
    DeclAttrs a;
    decl_attrs(a, DeclKind::Variable);
    if (a.type.empty()) fail_expected("a type");
    for (;;) {
      if (tok_.kind != Tok::Word && tok_.kind != Tok::Reg) fail_expected("a variable name");
      Variable v;
      v.space = space;
      v.type = a.type;
      v.align = a.align;
      v.vector = a.vector;
      v.is_extern = external;
      v.is_visible = visible;
      v.pos = tok_.pos();
      v.name = names_.declare(tok_.text, false, 0);
      advance();
      dims(v.dims);
      if (tok_.is('=')) {
        advance();
        initializer(v);
      }
      out.push_back(std::move(v));
      if (!tok_.is(',')) break;
      advance();
    }
    expect(';');
  }

  // = value | = { values, nested braces }: little-endian bytes per element.
  void initializer(Variable& v) {
    const int size = type_size(v.type);
    if (size <= 0) fail(tok_, "a variable of type '" + v.type + "' cannot be initialized");
    if (!tok_.is('{')) {
      init_element(v, size);
      return;
    }
    advance();
    int depth = 1;
    bool need_element = true;
    bool just_opened = true;
    while (depth > 0) {
      if (need_element) {
        if (tok_.is('{')) {
          ++depth;
          advance();
          just_opened = true;
          continue;
        }
        if (tok_.is('}') && just_opened) {
          --depth;
          advance();
          need_element = false;
          just_opened = false;
          continue;
        }
        init_element(v, size);
        need_element = false;
        just_opened = false;
      } else if (tok_.is(',')) {
        advance();
        need_element = true;
      } else if (tok_.is('}')) {
        --depth;
        advance();
      } else {
        fail_expected("',' or '}'");
      }
    }
  }

  void init_element(Variable& v, int size) {
    bool negative = false;
    if (tok_.is('-')) {
      negative = true;
      advance();
    }
    if (tok_.kind == Tok::Number) {
      detail::Number n;
      const std::string err = detail::decode_number(tok_.text, n);
      if (!err.empty()) fail(tok_, err);
      advance();
      if (!negative && !n.is_float && tok_.is('(')) {
        // 0xFF00(generic(sym)+4): a byte mask of an address (LLVM's byte-wise pointers).
        advance();
        address_expression(nullptr);
        expect(')');
        v.init.insert(v.init.end(), static_cast<std::size_t>(size), 0);
        return;
      }
      write_element(v, size, n, negative);
      return;
    }
    if (negative || tok_.kind != Tok::Word) fail_expected("an initializer value");
    // An address: its bytes zero here, and a relocation for who knows where `sym` is (a
    // pointer-sized element only; a narrower one keeps its zeros).
    Relocation r;
    r.offset = v.init.size();
    address_expression(&r);
    if (size == 8) v.relocations.push_back(std::move(r));
    v.init.insert(v.init.end(), static_cast<std::size_t>(size), 0);
  }

  // sym, generic(sym), optionally + or - an offset: into `r` when given.
  void address_expression(Relocation* r) {
    if (tok_.kind != Tok::Word) fail_expected("a symbol");
    if (tok_.text == "generic" && peek().is('(')) {
      advance();
      advance();
      if (tok_.kind != Tok::Word) fail_expected("a symbol");
      if (r) r->symbol = tok_.text;
      advance();
      expect(')');
    } else {
      if (r) r->symbol = tok_.text;
      advance();
    }
    if (tok_.is('+') || tok_.is('-')) {
      const bool minus = tok_.is('-');
      advance();
      const std::uint64_t off = expect_uint("an offset");
      if (r) r->addend = minus ? -static_cast<std::int64_t>(off) : static_cast<std::int64_t>(off);
    }
  }

  // ( .param type name [dims], ... ) or ()
  void params(std::vector<Param>& out) {
    expect('(');
    if (tok_.is(')')) {
      advance();
      return;
    }
    for (;;) {
      if (!is_dot(".param") && !is_dot(".reg")) fail_expected("'.param'");
      advance();
      DeclAttrs a;
      decl_attrs(a, DeclKind::Param);
      if (a.type.empty()) fail_expected("a parameter type");
      if (tok_.kind != Tok::Word && tok_.kind != Tok::Reg) fail_expected("a parameter name");
      Param p;
      p.type = a.vector > 1 ? ".v" + std::to_string(a.vector) + a.type : a.type;
      p.align = a.align;
      p.is_ptr = a.is_ptr;
      p.name = std::string(tok_.text);
      p.pos = tok_.pos();
      advance();
      dims(p.dims);
      out.push_back(std::move(p));
      if (tok_.is(')')) {
        advance();
        return;
      }
      if (!tok_.is(',')) fail_expected("',' or ')'");
      advance();
    }
  }

  // ---- functions ---------------------------------------------------------------------

  void function(bool entry, bool visible) {
    advance();  // .entry / .func
    Function f;
    f.is_entry = entry;
    f.is_visible = visible;
    if (!entry && tok_.is('(')) params(f.returns);
    if (tok_.kind != Tok::Word) fail_expected("a function name");
    f.name = std::string(tok_.text);
    f.pos = tok_.pos();
    advance();
    if (tok_.is('(')) params(f.params);
    while (tok_.kind == Tok::Dot) {
      const std::string_view d = tok_.text;
      if (d == ".pragma") {
        advance();
        pragma_rest();
        continue;
      }
      if (!is_perf_directive(d)) fail(tok_, "unknown directive '" + std::string(d) + "'");
      std::pair<std::string, std::vector<std::int64_t>> dir{std::string(d), {}};
      advance();
      while (tok_.kind == Tok::Number) {
        const Token t = tok_;
        const std::uint64_t v = expect_uint("a directive value");
        if (v > static_cast<std::uint64_t>(INT64_MAX)) fail(t, "directive value out of range");
        dir.second.push_back(static_cast<std::int64_t>(v));
        if (!tok_.is(',') || peek().kind != Tok::Number) break;
        advance();
      }
      f.directives.push_back(std::move(dir));
    }
    bool has_body = false;
    if (tok_.is('{') && entry && !has_ahead_ && options_.keep_entry &&
        !options_.keep_entry(f.name)) {
      const Token open = tok_;
      f.body_begin = open.offset;
      f.body_end = lex_.skip_braced();
      advance();
      if (f.body_end == 0) fail_unclosed(open, "function body");
      f.body_skipped = true;
      has_body = true;
    } else if (tok_.is('{')) {
      body(f);
      has_body = true;
    } else if (tok_.is(';')) {
      advance();
    } else {
      fail_expected("'{' or ';'");
    }
    f.is_extern = !has_body;
    add_function(std::move(f), has_body);
  }

  // One Function per name: a definition replaces an earlier body-less declaration in place;
  // a declaration after the name is known adds nothing.
  void add_function(Function f, bool has_body) {
    const auto it = functions_.find(f.name);
    if (it != functions_.end()) {
      Function& known = mod_.functions[it->second.first];
      if (has_body && !it->second.second) {
        known = std::move(f);
        it->second.second = true;
        return;
      }
      if (!has_body) return;
      // A second definition: kept, for later stages to reject.
      mod_.functions.push_back(std::move(f));
      return;
    }
    functions_.emplace(f.name, std::make_pair(mod_.functions.size(), has_body));
    mod_.functions.push_back(std::move(f));
  }

  void body(Function& f) {
    loc_.clear();
    outer_frames_.clear();
    names_.enter_function();
    f.body_begin = tok_.offset;
    std::vector<Token> opens{tok_};
    advance();  // {
    for (;;) {
      switch (tok_.kind) {
        case Tok::End:
          fail_unclosed(opens.back(), opens.size() == 1 ? "function body" : "block");
        case Tok::Punct:
          if (tok_.is('}')) {
            names_.close();
            opens.pop_back();
            if (opens.empty()) f.body_end = tok_.end();
            advance();
            if (opens.empty()) {
              names_.rename_label_uses([&](std::size_t st, std::size_t op) -> std::string& {
                return f.body[st].instruction.operands[op].name;
              });
              return;
            }
          } else if (tok_.is('{')) {
            opens.push_back(tok_);
            names_.open_block();
            advance();
          } else if (tok_.is('@')) {
            instruction(f);
          } else {
            fail_expected("an instruction, label or directive");
          }
          break;
        case Tok::Dot:
          body_directive(f);
          break;
        case Tok::Word:
          if (peek().is(':')) {
            label(f);
          } else {
            instruction(f);
          }
          break;
        default:
          fail_expected("an instruction, label or directive");
      }
    }
  }

  void label(Function& f) {
    Statement s;
    s.is_label = true;
    s.label = names_.declare_label(tok_.text);
    advance();
    advance();  // :
    // `name: .callprototype ...;`, `.branchtargets`, `.calltargets` name declarations,
    // not branch targets; they have no place in the syntax tree and are skipped.
    if (is_dot(".callprototype") || is_dot(".branchtargets") || is_dot(".calltargets")) {
      skip_statement();
      return;
    }
    f.body.push_back(std::move(s));
  }

  // Up to and including the next ';' outside parentheses.
  void skip_statement() {
    int depth = 0;
    for (;;) {
      if (tok_.kind == Tok::End) fail_expected("';'");
      if (tok_.is('(')) ++depth;
      if (tok_.is(')') && depth > 0) --depth;
      if (tok_.is(';') && depth == 0) break;
      advance();
    }
    advance();
  }

  void body_directive(Function& f) {
    const std::string_view d = tok_.text;
    if (d == ".reg") {
      advance();
      register_decl(f);
    } else if (is_state_space(d)) {
      const StateSpace space = state_space(d);
      advance();
      variable_decl(space, false, false, f.variables);
    } else if (d == ".loc") {
      loc_directive();
    } else if (d == ".file") {
      file_directive();
    } else if (d == ".pragma") {
      advance();
      pragma_rest();
    } else {
      fail(tok_, "unknown directive '" + std::string(d) + "'");
    }
  }

  // After `.reg`: [.vN] type name[<count>] {, name[<count>]} ;
  void register_decl(Function& f) {
    DeclAttrs a;
    decl_attrs(a, DeclKind::Register);
    if (a.type.empty()) fail_expected("a register type");
    const std::string type = a.vector > 1 ? ".v" + std::to_string(a.vector) + a.type : a.type;
    for (;;) {
      if (tok_.kind != Tok::Word && tok_.kind != Tok::Reg) fail_expected("a register name");
      const Token name = tok_;
      advance();
      int count = 0;
      if (tok_.is('<')) {
        advance();
        const Token t = tok_;
        const std::uint64_t v = expect_uint("a register count");
        if (v == 0 || v > INT_MAX) fail(t, "register count out of range: " + std::string(t.text));
        count = static_cast<int>(v);
        expect('>');
      }
      RegisterDecl r;
      r.type = type;
      r.count = count;
      r.pos = name.pos();
      r.name = names_.declare(name.text, true, count);
      f.registers.push_back(std::move(r));
      if (!tok_.is(',')) break;
      advance();
    }
    expect(';');
  }

  // ---- instructions ------------------------------------------------------------------

  void instruction(Function& f) {
    const Token start = tok_;
    Statement s;
    Instruction& ins = s.instruction;
    ins.pos = start.pos();
    if (tok_.is('@')) {
      advance();
      if (tok_.is('!')) {
        ins.guard_negated = true;
        advance();
      }
      if (tok_.kind != Tok::Reg && tok_.kind != Tok::Word) fail_expected("a predicate register");
      bool is_reg = false;
      ins.guard = names_.resolve(tok_.text, is_reg);
      advance();
    }
    if (tok_.kind != Tok::Word || !((tok_.text[0] >= 'a' && tok_.text[0] <= 'z') ||
                                    (tok_.text[0] >= 'A' && tok_.text[0] <= 'Z'))) {
      fail_expected(ins.guard ? "an opcode" : "an instruction, label or directive");
    }
    {
      const std::string_view op = tok_.text;
      std::size_t dot = op.find('.');
      ins.opcode = std::string(op.substr(0, dot));
      while (dot != std::string_view::npos) {
        const std::size_t next = op.find('.', dot + 1);
        ins.modifiers.emplace_back(op.substr(dot, next - dot));
        dot = next;
      }
    }
    advance();
    if (!tok_.is(';')) {
      for (;;) {
        ins.operands.push_back(operand(0));
        if (!tok_.is(',')) break;
        advance();
      }
    }
    if (!tok_.is(';')) fail_expected("';'");
    ins.text = instruction_text(start.offset, tok_.end());
    advance();
    ins.loc_chain = loc_;
    if (ins.opcode == "bra")  // its label may be a nested block's
      for (std::size_t i = 0; i < ins.operands.size(); ++i)
        if (ins.operands[i].kind == Operand::Kind::Symbol) names_.label_use(f.body.size(), i);
    f.body.push_back(std::move(s));
  }

  // The instruction's source; an instruction written over several lines is joined into
  // one, each line break (with the blanks and comments around it) becoming one space.
  std::string instruction_text(std::size_t b, std::size_t e) const {
    const std::string_view src = lex_.text().substr(b, e - b);
    if (src.find('\n') == std::string_view::npos) return std::string(src);
    std::string out;
    out.reserve(src.size());
    std::size_t k = 0;
    while (k < src.size()) {
      const char c = src[k];
      const bool comment =
          c == '/' && k + 1 < src.size() && (src[k + 1] == '/' || src[k + 1] == '*');
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\v' && c != '\f' && !comment) {
        out += c;
        ++k;
        continue;
      }
      // A gap: blanks and comments.
      const std::size_t g = k;
      bool newline = false;
      while (k < src.size()) {
        const char d = src[k];
        if (d == '\n') {
          newline = true;
          ++k;
        } else if (d == ' ' || d == '\t' || d == '\r' || d == '\v' || d == '\f') {
          ++k;
        } else if (d == '/' && k + 1 < src.size() && src[k + 1] == '/') {
          while (k < src.size() && src[k] != '\n') ++k;
        } else if (d == '/' && k + 1 < src.size() && src[k + 1] == '*') {
          const std::size_t close = src.find("*/", k + 2);
          const std::size_t stop = close == std::string_view::npos ? src.size() : close + 2;
          if (src.substr(k, stop - k).find('\n') != std::string_view::npos) newline = true;
          k = stop;
        } else {
          break;
        }
      }
      if (newline) {
        out += ' ';
      } else {
        out.append(src.substr(g, k - g));
      }
    }
    return out;
  }

  // +N, +-N or -N after an address base or a symbol.
  std::int64_t offset_suffix() {
    bool negative = false;
    if (tok_.is('+')) {
      advance();
      if (tok_.is('-')) {
        negative = true;
        advance();
      }
    } else {
      negative = true;
      advance();  // '-'
    }
    const std::uint64_t v = expect_uint("an integer offset");
    return static_cast<std::int64_t>(negative ? 0 - v : v);
  }

  Operand operand(int level) {
    Operand op;
    op.pos = tok_.pos();
    if (level > kMaxOperandLevel) fail(tok_, "operand nested too deeply");
    if (tok_.is('!')) {
      advance();
      if (tok_.kind != Tok::Reg && tok_.kind != Tok::Word) fail_expected("a predicate after '!'");
      bool is_reg = false;
      op.name = names_.resolve(tok_.text, is_reg);
      op.kind = is_reg ? Operand::Kind::Register : Operand::Kind::Symbol;
      op.negated = true;
      advance();
      return op;
    }
    if (tok_.kind == Tok::Reg || tok_.kind == Tok::Word) {
      bool is_reg = false;
      op.name = names_.resolve(tok_.text, is_reg);
      op.kind = is_reg ? Operand::Kind::Register : Operand::Kind::Symbol;
      advance();
      if (tok_.is('|')) {
        advance();
        Operand second;
        second.pos = tok_.pos();
        if (tok_.kind != Tok::Reg && tok_.kind != Tok::Word) fail_expected("a register after '|'");
        bool second_reg = false;
        second.name = names_.resolve(tok_.text, second_reg);
        second.kind = second_reg ? Operand::Kind::Register : Operand::Kind::Symbol;
        advance();
        Operand pair;
        pair.kind = Operand::Kind::Pair;
        pair.pos = op.pos;
        pair.elems.push_back(std::move(op));
        pair.elems.push_back(std::move(second));
        return pair;
      }
      // sym+8 as a value (the offset in `imm`).
      if (!is_reg && (tok_.is('+') || tok_.is('-'))) op.imm = offset_suffix();
      return op;
    }
    if (tok_.kind == Tok::Number || tok_.is('-')) return number_operand();
    if (tok_.is('{') || tok_.is('(')) {
      const char close = tok_.is('{') ? '}' : ')';
      op.kind = Operand::Kind::Vector;
      advance();
      if (!tok_.is(close)) {
        for (;;) {
          op.elems.push_back(operand(level + 1));
          if (!tok_.is(',')) break;
          advance();
        }
      }
      expect(close);
      return op;
    }
    if (tok_.is('[')) {
      op.kind = Operand::Kind::Address;
      advance();
      if (tok_.kind == Tok::Reg || tok_.kind == Tok::Word) {
        op.name = names_.resolve(tok_.text, op.base_is_reg);
        advance();
      } else if (tok_.kind == Tok::Number) {
        op.imm = static_cast<std::int64_t>(expect_uint("an address"));
      } else {
        fail_expected("an address");
      }
      if (tok_.is('+') || tok_.is('-')) {
        op.imm = static_cast<std::int64_t>(static_cast<std::uint64_t>(op.imm) +
                                           static_cast<std::uint64_t>(offset_suffix()));
      }
      // [tex, {x, y}], [tensormap, {c0, c1}]: further components in `elems`.
      while (tok_.is(',')) {
        advance();
        op.elems.push_back(operand(level + 1));
      }
      expect(']');
      return op;
    }
    fail_expected("an operand");
  }

  Operand number_operand() {
    Operand op;
    op.pos = tok_.pos();
    bool negative = false;
    if (tok_.is('-')) {
      negative = true;
      advance();
      if (tok_.kind != Tok::Number) fail_expected("a number after '-'");
    }
    detail::Number n;
    const std::string err = detail::decode_number(tok_.text, n);
    if (!err.empty()) fail(tok_, err);
    advance();
    if (n.is_float) {
      op.kind = Operand::Kind::FloatImm;
      op.fbits = n.fbits;
      op.bits = n.bits;
      op.fvalue = n.fvalue;
      if (negative) {
        op.bits ^= std::uint64_t{1} << (n.fbits - 1);
        op.fvalue = -op.fvalue;
      }
    } else {
      op.kind = Operand::Kind::Immediate;
      op.imm = static_cast<std::int64_t>(negative ? 0 - n.value : n.value);
    }
    return op;
  }

  Lexer lex_;
  Token tok_;
  Token ahead_;
  bool has_ahead_ = false;
  ParseOptions options_;
  Module mod_;
  NameMap<std::pair<std::size_t, bool>> functions_;  // name -> index, has a body
  std::vector<SourceLoc> loc_;                       // .loc chain in force
  // Per function: a frame's (file, line, column) -> the frames it was inlined into, outwards.
  std::map<std::tuple<int, int, int>, std::vector<SourceLoc>> outer_frames_;
  detail::ScopedNames names_;  // declarations of the function body's { } scopes
};

}  // namespace

Module parse(std::string_view text, std::string_view source, const ParseOptions& options) {
  Parser p(text, source, options);
  return p.run();
}

}  // namespace bankcheck::ptx
