// Kernel names: PTX entry names demangled, a name parsed once into its parts (KernelName),
// matched against what a user types, and a kernel's parameter names read from its CUDA source.
// Every place that splits a kernel name (the launch comment's kernel=, --kernel, the host
// code's launches, the argument binder's parameter types, the `__shared__` declaration reader)
// goes through parse_kernel_name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::driver {

// A kernel's name in parts. From a demangled signature "void ns::k<int, 4>(float*, int)":
// name "ns::k<int, 4>", qualified "ns::k", base "k", template_list "<int, 4>",
// template_args {"int", "4"}, params {"float*", "int"}. From a name without a parameter list
// ("ns::k<int, 4>", "k") the same without params. Texts are as written in the input.
struct KernelName {
  std::string name;           // qualified, with template arguments, without return type
  std::string qualified;      // without the template arguments: "ns::k", "(anonymous namespace)::f"
  std::string base;           // the last component of qualified: "k"
  std::string template_list;  // "<int, 4>"; "" when the name has none
  std::vector<std::string> template_args;
  bool has_params = false;          // the input ends with a parameter list
  std::vector<std::string> params;  // its parameter types; none for "()" and "(void)"
  // The last component with its template arguments: "k<int, 4>".
  std::string unqualified() const { return base + template_list; }
};

// Parses a demangled signature or a kernel name (see KernelName): the parameter list is the
// final parenthesised group (when the text ends with one), the return type whatever comes
// before the last blank outside brackets before it, the template arguments the final <...> of
// the name, the base what follows its last `::` outside brackets.
KernelName parse_kernel_name(std::string_view text);

// The value of a template argument as a demangled name or the host code spells an integer:
// "32", "64u", "8ul", "-1", "(unsigned char)3", "true" (1), "false" (0); nullopt for a type
// ("float") or anything else.
std::optional<std::int64_t> template_argument_value(std::string_view arg);

// PTX entries are Itanium-mangled (`_Z6reducePKfPfi`) or plain for extern "C" kernels.
// demangle("_Z6reducePKfPfi") == "reduce(float const*, float*, int)"; any name that does
// not demangle is returned unchanged. A kernel with internal linkage (static, or in an
// anonymous namespace) compiled with -rdc=true has a name unique to its translation unit,
// "__nv_static_25__cac1ee34_8_clock_cu_main__Z14timedReductionPKfPfPl": its mangled
// part is demangled ("timedReduction(float const*, float*, long*)").
std::string demangle(const std::string& name);
// The function's qualified name, with template arguments, without return type and
// parameters: "reduce(float const*, float*, int)" -> "reduce",
// "void ns::k<int>(int*)" -> "ns::k<int>", "(anonymous namespace)::f(int*)" ->
// "(anonymous namespace)::f". A name without a parameter list is returned unchanged.
std::string base_name(const std::string& demangled);
// True when `wanted` names the kernel `mangled` as one of: the mangled name; the full
// demangled signature; the qualified base name ("ns::k<int>"); that without template
// arguments ("ns::k"); the unqualified base name ("k<int>"); that without template
// arguments ("k"). Blanks are compared loosely ("ns::k<32,float>" matches
// "ns::k<32, float>").
bool kernel_matches(const std::string& mangled, const std::string& wanted);

// The declared parameter names of the __global__ function `kernel_base` (a base name as
// base_name returns, or any suffix of it; only its last component without template
// arguments is compared) in `source_text`, in order; "" for a parameter without a name.
// Comments, strings and preprocessor lines are skipped; __launch_bounds__(...) and other
// __x__(...) attributes, templates, line breaks are handled. The definition is preferred
// over declarations and explicit instantiations; of several definitions (overloads), the
// one whose parameter types are those of `kernel_base` when it is a signature
// ("scale(float*, int)"; cv-qualifiers, restrict and blanks aside). Empty when the kernel is
// not found, has no parameters, or is ambiguous.
std::vector<std::string> kernel_param_names(std::string_view source_text,
                                            std::string_view kernel_base);

}  // namespace bankcheck::driver
