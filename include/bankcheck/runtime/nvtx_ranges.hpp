// NVTX ranges as Nsight Compute's `--nvtx-include` and `--nvtx-exclude` select launches: the
// expressions (parse_nvtx_filter), the ranges a process has open (push/pop ranges per thread
// and domain, start/end ranges per process: NvtxRanges), and the question the launch ledger
// asks at each launch: is the calling thread inside a range the filters include?
//
// Expressions, as ncu writes them:
//
//   push/pop ranges (a `/`, `[` or `]` in the expression), matched against the calling
//   thread's stack of the domain, bottom to top:
//     A/            the range A is open (anywhere in the stack)
//     A/B           B opened directly inside A
//     A/*/B         B inside A, with zero or more ranges between them
//     A/+/B         B inside A, with exactly one range between them
//     [A/B          A is the bottom of the stack        B]   B is the top of the stack
//   start/end ranges (no `/`), matched against the process's open start/end ranges:
//     A             the range A is open (started on any thread, not yet ended)
//     A,B           both A and B are open
//   D@...           the ranges of the domain D (without `@`: NVTX's default domain)
//   regex:...       every name (domain and ranges) is an ECMAScript regular expression that
//                   matches anywhere in the name (anchor it with ^ and $ for a whole name)
//   \c              the character c itself (a name with a `/`, `@`, `,`, `[`, `]`, `*`, `+`)
//
// A launch is included when no include expression is given or one of them matches, and no
// exclude expression matches.
//
// bankcheck's NVTX injection library (libbankcheck-nvtx.so, which NVTX_INJECTION64_PATH names:
// bankcheck/nvtx/sink.hpp) hands the program's pushes, pops, starts and ends to the process's
// NvtxRanges (nvtx_process_ranges), once a backend has connected them (connect_nvtx_ranges).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::runtime {

// One name of an expression: literal, a regular expression, or a wildcard of a push/pop
// stack (`*`: zero or more ranges, `+`: exactly one).
struct NvtxName {
  enum class Kind : std::uint8_t { Literal, Regex, AnyMany, AnyOne };
  Kind kind = Kind::Literal;
  std::string text;                      // the name, or the regular expression's source
  std::shared_ptr<const std::regex> re;  // Kind::Regex
  bool matches(std::string_view name) const;
};

struct NvtxFilter {
  std::string text;  // as given
  NvtxName domain;   // Literal "" : the default domain
  bool push_pop = false;
  // push/pop: the stack's pattern, bottom to top, and the anchors `[` and `]`.
  bool bottom = false, top = false;
  // push/pop: the stack pattern; start/end: every range that must be open.
  std::vector<NvtxName> names;
};

// Parses one expression. Throws std::invalid_argument with what is wrong and its column
// ("--nvtx-include 'A/[B': column 3: '[' may only begin the expression").
NvtxFilter parse_nvtx_filter(std::string_view text);

// Whether a push/pop pattern matches `stack` (bottom to top), with its anchors.
bool nvtx_stack_matches(const NvtxFilter& filter, const std::vector<std::string>& stack);

// The ranges open in a process. Push/pop stacks belong to the thread that pushed (as NVTX
// defines them); start/end ranges to the process (they may end on another thread).
class NvtxRanges {
 public:
  NvtxRanges();
  ~NvtxRanges();
  NvtxRanges(const NvtxRanges&) = delete;
  NvtxRanges& operator=(const NvtxRanges&) = delete;

  // The calling thread's stack of `domain` ("" : the default domain).
  void push(std::string_view domain, std::string_view message);
  // Pops the calling thread's innermost range of `domain`; a pop with none open is ignored
  // (NVTX returns an error to the program, and nothing changes).
  void pop(std::string_view domain);
  void start(std::uint64_t id, std::string_view domain, std::string_view message);
  void end(std::uint64_t id);  // an id not open is ignored

  // The calling thread's stack of `domain`, bottom to top.
  std::vector<std::string> stack(std::string_view domain) const;
  // Whether the calling thread is inside the ranges `include` asks for (any; none: every
  // launch) and outside every `exclude`.
  bool included(const std::vector<NvtxFilter>& include,
                const std::vector<NvtxFilter>& exclude) const;

 private:
  bool matches(const NvtxFilter& f) const;
  struct Open {
    std::uint64_t id;
    std::string domain, message;
  };
  std::uint64_t instance_;  // tells this object's per-thread stacks from another's
  mutable std::mutex mutex_;
  std::vector<Open> open_;  // start/end ranges
};

// The process's ranges, as the injection library records them.
NvtxRanges& nvtx_process_ranges();

// Makes nvtx_process_ranges() the receiver of the ranges of the injection library `library`
// (the file NVTX_INJECTION64_PATH names), before the program's first NVTX call. Returns "" when
// done, else why not (a bankcheck built without its NVTX injection library, a library that
// cannot be loaded).
std::string connect_nvtx_ranges(const std::string& library);

struct LaunchSelection;
// For a backend: when `selection` has NVTX filters, the ranges connected to the library
// NVTX_INJECTION64_PATH names (bankcheck run sets it); "" when done or not needed, else the
// sentence that says why the filters cannot work.
std::string connect_nvtx(const LaunchSelection& selection);

}  // namespace bankcheck::runtime
