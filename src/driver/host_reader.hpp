// The host-code reader (private to the driver): the file's functions and their scopes, the
// evaluator of host expressions through them, and the launch sites, as one Reader over the
// tokens of the preprocessor's taken branches. host_scopes.cpp finds functions and where
// names get their values, host_values.cpp evaluates expressions, host_launch.cpp reads the
// launches.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/evaluate.hpp"
#include "bankcheck/explain/tokens.hpp"
#include "host_code.hpp"

namespace bankcheck::driver::host_code {

// A function of the file: its name, parameters, template parameters and body.
struct Function {
  std::string name;
  std::vector<std::string> params, tparams;
  // Per parameter, the tokens of its default argument (`int m = 4096`); empty when none.
  std::vector<std::pair<std::size_t, std::size_t>> param_defaults;
  std::size_t body_open = 0, body_close = 0;  // token indices of { and }
  std::size_t name_tok = 0;
  bool global = false;
  std::string cls;  // the class of a method ("" for a free function)
};

// One place where a name gets its value.
struct Binding {
  std::size_t from = 0, to = 0;  // the expression's tokens (for a dim3 constructor: the list)
  bool ctor = false;             // `dim3 b(16, 16)`: [from, to) is the argument list
  bool pointer = false;          // a pointer's (`const char* s = ...`): never an integer
};

// Where names are looked up: a function's body up to a token, its parameters bound to the
// arguments of one call (evaluated in the caller's scope), then the file scope.
struct Scope {
  const Function* fn = nullptr;
  std::size_t limit = 0;  // declarations before this token count
  std::map<std::string, std::pair<Binding, const Scope*>> bound;
  std::map<std::string, std::int64_t> values;  // a called function's parameters
  const Scope* caller = nullptr;
};

struct Dim {
  std::optional<std::int64_t> v[3];
};

class Reader {
 public:
  Reader(const HostSource& hs, std::string_view headers,
         const std::map<std::string, std::string>& command_line, const HostValues& host_values);

  std::vector<HostLaunch> launches();

 private:
  Tokens t_, header_tokens_;
  std::vector<std::size_t> line_starts_;
  std::map<std::string, std::string> defines_;
  std::map<std::string, explain::FunctionMacro> function_macros_;
  HostValues host_values_;
  std::vector<std::pair<std::string, int>> origin_;  // per line of the text (HostSource)
  std::string text_;                                 // the taken branches of the file, as written
  std::string code_;  // the text the tokens t_ point into (code_only of text_)
  // The names whose values an evaluation lacked, with why (HostLaunch::needs, ::why).
  std::vector<std::string> missing_;
  std::map<std::string, std::string> why_;
  std::map<std::string, HostDefault> defaults_;  // a missing name's default in the source
  std::vector<std::string> used_;                // the --host-arg names a launch's evaluation used
  std::vector<Function> fns_;
  std::vector<std::string> classes_;  // find_functions' class names of open braces
  // Per token: its function's index, -1 namespace level, -2 other braces, -3 a function's
  // parameter list (a default argument binds no name of the file).
  std::vector<int> owner_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  int depth_ = 0;
  // Names resolved and calls evaluated in all: a bound on the work of hostile input (a
  // function or macro that calls itself twice), far above what real host code needs.
  static constexpr long kMaxWork = 1'000'000;
  long work_ = 0;

  // The line of the read text (1-based), and where it comes from: the input's or an included
  // .cu's line (HostSource::origin).
  int code_line(std::size_t tok) const {
    const std::size_t pos = t_[tok].pos;
    return static_cast<int>(std::upper_bound(line_starts_.begin(), line_starts_.end(), pos) -
                            line_starts_.begin());
  }
  const std::pair<std::string, int>* origin(std::size_t tok) const {
    const auto l = static_cast<std::size_t>(code_line(tok) - 1);
    return l < origin_.size() ? &origin_[l] : nullptr;
  }
  int line_of(std::size_t tok) const {
    const auto* o = origin(tok);
    return o ? o->second : code_line(tok);
  }
  std::string file_of(std::size_t tok) const {
    const auto* o = origin(tok);
    return o ? o->first : std::string();
  }
  // "line 12" in the input, "kernels.cu:12" in an included file.
  std::string place(std::size_t tok) const {
    const std::string f = file_of(tok);
    return f.empty() ? fmt::format("line {}", line_of(tok)) : fmt::format("{}:{}", f, line_of(tok));
  }
  int col_of(std::size_t tok) const {
    const int line = code_line(tok);
    return static_cast<int>(t_[tok].pos - line_starts_[static_cast<std::size_t>(line - 1)]) + 1;
  }

  void find_functions();

  int add_function(std::size_t close_paren, std::size_t open_brace);

  // The last declaration or assignment of `name` in tokens [from, to) of `t` whose owner
  // passes `owned`.
  std::optional<Binding> find_binding(const Tokens& t, std::size_t from, std::size_t to,
                                      const std::string& name,
                                      const std::function<bool(std::size_t)>& owned) const;

  // Where `name` gets its value in `scope`: the function's body before the limit, the
  // call's bound parameters, the file scope, the headers. nullopt when nowhere.
  struct Found {
    Binding b;
    const Scope* scope = nullptr;  // null: file scope (main tokens) or a header
    bool header = false;
  };
  std::optional<Found> lookup(const std::string& name, const Scope* s) const;

  const Tokens& toks(const Found& f) const { return f.header ? header_tokens_ : t_; }

  // An integer expression, tokens [from, to) of `t`, in `scope`: its casts dropped (C casts
  // to scalar types, static_cast<T>, reinterpret_cast<T>), then evaluated with names resolved
  // through `operand`.
  std::optional<std::int64_t> eval_int(TokenSpan t, std::size_t from, std::size_t to,
                                       const Scope* scope);

  // The operand at e[at] (an identifier) of an expression in `scope`: true and false, std::,
  // sizeof(T), NAME.x / .y / .z of a dim3, min(a, b) and max(a, b), else a name's value.
  std::optional<explain::Operand> operand(TokenSpan e, std::size_t at, const Scope* scope,
                                          std::map<std::string, std::int64_t>& known);

  bool function_named(const std::string& name) const {
    return function_macros_.count(name) ||
           std::any_of(fns_.begin(), fns_.end(),
                       [&](const Function& f) { return !f.global && f.name == name; });
  }

  // The value of the call e[name] ... e[close] (`(` at e[open]) in `scope`: a function-like
  // macro expanded and evaluated; a function of the file evaluated (call_function); else
  // min, max and ceil_div (std::, cute::, cutlass::). nullopt for any other call.
  std::optional<std::int64_t> call_value(TokenSpan e, std::size_t name, std::size_t open,
                                         std::size_t close, const Scope* scope);

  // A function of the file called with `values` (and the template arguments written at
  // e[targs], a `<`, when there): its parameters take the values, and its body is read
  // statement by statement: declarations count for the names after them, `if (c) return x;`
  // returns x when c holds, `return x;` returns x. A loop, switch or goto in the body, or a
  // return it does not reach: not evaluated.
  std::optional<std::int64_t> call_function(const Function& fn,
                                            const std::vector<std::int64_t>& values, TokenSpan e,
                                            std::size_t targs, const Scope* caller);

  std::optional<std::int64_t> resolve_int(const std::string& name, const Scope* scope);

  void note_missing(const std::string& name, std::string why);

  // The value the source gives `name` where the binding `f` it uses is not a constant: an
  // earlier assignment or the declaration's initialiser (`int n = 4096; if (argc > 1) n =
  // atoi(argv[1]);`), the one branch of a `?:` that evaluates (`s ? atoi(s) : 4096`); noted
  // in defaults_ for the message to offer, never used as the value.
  void note_default(const std::string& name, const Found& f);
  // A launcher parameter's default argument (`void launch(int n = 4096)`), noted likewise.
  void note_parameter_default(const std::string& name, const Scope* scope);
  // A value computed without noting what it lacks (missing_, why_ and used_ as they were).
  std::optional<std::int64_t> quiet_eval(TokenSpan t, std::size_t from, std::size_t to,
                                         const Scope* scope);

  // Tokens [from, to) of t_ as the file writes them (`++i`, not `+ + i`), blanks and line
  // breaks between them made one blank.
  std::string written(std::size_t from, std::size_t to) const;

  // Why a name that nothing binds has no value: a launcher's parameter nobody passes, a
  // variable a runtime call writes through `&name`, or a name the file does not define.
  std::string unknown_reason(const std::string& name, const Scope* scope) const;

  // "set at run time by F (line L)" when tokens [from, to) pass `&name` to a call F
  // (`cudaDeviceGetAttribute(&sms, ...)`, `cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n,
  // ...)`): the call writes the value at run time.
  std::optional<std::string> written_through(const std::string& name, std::size_t from,
                                             std::size_t to) const;

  // A dim3 expression: dim3(a, b, c), dim3{...}, {a, b}, a dim3 variable, or an integer.
  Dim eval_dim(TokenSpan t, std::size_t from, std::size_t to, const Scope* scope);

  static std::optional<Dim3> to_dim3(const Dim& d);

  // A float literal through names: "1.5f", "-2.0".
  std::optional<std::string> eval_float(const Tokens& t, std::size_t from, std::size_t to,
                                        const Scope* scope, int depth = 0);

  // A pointer argument: "null", "zeros:BYTES" from the cudaMalloc of the same variable, or
  // nullopt (the default buffer).
  std::optional<std::string> eval_pointer(const Tokens& t, std::size_t from, std::size_t to,
                                          const Scope* scope, int depth = 0);

  std::string describe(const Scope* s) const;

  // The scopes a launch in `fn` runs in: one per call of `fn` from another function (its
  // parameters bound), recursively; the bare function when nobody calls it.
  std::vector<const Scope*> scopes_for(const Function& fn, std::size_t at, int depth = 0);

  // A template argument: an integer, or a type's text with template parameters replaced.
  std::string eval_targ(std::size_t from, std::size_t to, const Scope* s, bool& known);

  void fill(HostLaunch& h, const Scope* s, std::size_t grid_a, std::size_t grid_b,
            std::size_t block_a, std::size_t block_b,
            std::optional<std::pair<std::size_t, std::size_t>> smem,
            const std::vector<std::pair<std::size_t, std::size_t>>& args);

  // The kernel named before position `end` (exclusive), with template arguments: the
  // tokens of its name and of its argument list.
  struct Named {
    std::string name;
    std::vector<std::pair<std::size_t, std::size_t>> targs;
    bool ok = false;
  };
  Named kernel_before(std::size_t end, std::size_t floor) const;

  void chevron_launch(std::size_t i, std::vector<HostLaunch>& out);

  // cudaLaunchKernel((void*)k, grid, block, args, smem, stream) with `void* args[] = {&a,
  // ...}`; cudaLaunchKernelEx(&config, k, a, b, ...) with config.gridDim / blockDim /
  // dynamicSmemBytes assigned.
  void api_launch(std::size_t i, std::vector<HostLaunch>& out);
};

}  // namespace bankcheck::driver::host_code
