// What `bankcheck run` decides about a running program's launches, for both backends (the
// emulator's executor and the GPU tool call it alike): which kernels exist and which the
// filters select, each launch's number and configuration, whether it is analysed, which
// analysed launches were counted whole, and the order reports list kernels in.
//
// Selection, as Nsight Compute's options select launches:
//
//   --kernel NAME|regex:RE   kernels by name (NAME: kernel_matches's forms; RE: a regular
//                            expression that matches anywhere in --kernel-name-base's name)
//   --nvtx-include/-exclude  the calling thread inside (outside) NVTX ranges (nvtx_ranges.hpp:
//                            the ranges the NVTX injection library records in the process)
//   a launch that passes both is *matched*; of the matched launches
//   --filter-mode per-launch-config (the default): per kernel and configuration (grid, block,
//                            dynamic shared memory), skip the first --launch-skip, analyse the
//                            next --launch-count (or --launches: N or all; default 1)
//   --filter-mode global     over all matched launches in program order, skip the first
//                            --launch-skip, analyse the next --launch-count (default: all),
//                            at most --launches of each configuration when given
//
//   launch(k, config) ──▶ Decision{id, analyse}   every launch, in the program's order
//   counted(id)          an analysed launch's counts are in its kernel's totals
//   lost(id, reason)     an analysed launch's counts are partial or missing
//   report time: an analysed launch neither counted nor lost is incomplete ("it had not ended")
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/model/dims.hpp"

namespace bankcheck::runtime {

enum class FilterMode : std::uint8_t { PerLaunchConfig, Global };
// The name --kernel is matched against (ncu's --kernel-name-base): the function's base name
// ("k" of "void ns::k<int>(float*)"), the whole demangled signature, or the mangled name.
enum class KernelNameBase : std::uint8_t { Function, Demangled, Mangled };

// "per-launch-config", "global"; "function", "demangled", "mangled".
std::string_view filter_mode_name(FilterMode m);
std::string_view kernel_name_base_name(KernelNameBase b);
std::optional<FilterMode> parse_filter_mode(std::string_view text);
std::optional<KernelNameBase> parse_kernel_name_base(std::string_view text);

// One --kernel: a name or "regex:RE".
struct KernelFilter {
  std::string text;                      // as given
  std::shared_ptr<const std::regex> re;  // regex:; null for a name
  bool matches(const std::string& mangled, KernelNameBase base) const;
};
// Throws std::invalid_argument for an empty name or a regular expression that does not parse.
KernelFilter parse_kernel_filter(std::string_view text);

struct LaunchSelection {
  std::vector<std::string> kernels;  // --kernel; empty: every kernel
  KernelNameBase name_base = KernelNameBase::Function;
  FilterMode mode = FilterMode::PerLaunchConfig;
  std::uint64_t skip = 0;                 // --launch-skip
  std::optional<std::uint64_t> count;     // --launch-count
  std::optional<std::uint64_t> launches;  // --launches (0: all)
  std::vector<std::string> nvtx_include, nvtx_exclude;
  // Analysed per configuration (0: all) and in all (0: all), as the mode makes them.
  std::uint64_t per_configuration() const;
  std::uint64_t in_all() const;
};

struct LaunchConfig {
  model::Dim3 grid, block;
  std::uint64_t dynamic_smem = 0;
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};

class LaunchLedger {
 public:
  // Throws std::invalid_argument for a --kernel or an NVTX filter that does not parse.
  explicit LaunchLedger(LaunchSelection selection);

  using Kernel = std::size_t;
  // The kernel the backend's `key` (its ptx::Kernel, its CUfunction) stands for, recorded
  // when first seen with its mangled name and `module` (reports group kernels by module).
  Kernel kernel(const void* key, const std::string& mangled, std::uint64_t module);
  // `key` may stand for another kernel from now on (its module was unloaded); the kernel's
  // entry stays for the report.
  void retire(const void* key);
  bool selected(Kernel k) const;

  struct Decision {
    std::uint64_t id = 0;  // the launch's number among all the program's launches, from 0
    bool analyse = false;
    std::size_t config = 0;  // the kernel's configuration
  };
  // Every launch of the program, in its order (the backend's launch lock held).
  Decision launch(Kernel k, const LaunchConfig& config);
  // A launch of a kernel not known to the ledger (one the backend cannot run or find): it is
  // numbered, nothing else.
  std::uint64_t launch_unknown();
  // --repeats skip: launch `id`, not analysed, was not executed.
  void skipped(Kernel k, std::size_t config);
  // An analysed launch's counts are in its kernel's totals, whole.
  void counted(std::uint64_t id);
  // An analysed launch's counts are partial or missing, and why.
  void lost(std::uint64_t id, std::string reason);

  // The NVTX question, asked at a launch of a selected kernel when the selection has NVTX
  // filters (the default: the calling thread in the process's ranges, nvtx_process_ranges).
  void set_nvtx_question(std::function<bool(const LaunchSelection&)> question);

  // Report time.
  struct Entry {
    std::string mangled;
    std::uint64_t module = 0;
    bool selected = true;
    std::uint64_t first_analysed = ~0ull;                 // its first analysed launch's number
    std::vector<analysis::LaunchSummary> configurations;  // in the order first seen
    std::vector<std::uint64_t> matched;  // per configuration: launches the filters matched
    // Analysed launches, in order: counted, lost (with the reason), or neither yet.
    std::map<std::uint64_t, std::optional<std::string>> lost_or_pending;
    bool analysed() const { return first_analysed != ~0ull; }
  };
  Entry entry(Kernel k) const;
  // The analysed kernels grouped by module, modules in the order of their first analysed
  // launch, each module's kernels in the order of theirs.
  std::vector<std::vector<Kernel>> report_order() const;
  // Kernel k's analysed launches not counted whole: lost ones with their reasons, pending
  // ones with `pending_reason`.
  std::vector<analysis::IncompleteLaunch> incomplete(Kernel k,
                                                     const std::string& pending_reason) const;
  std::uint64_t launches() const;  // numbered so far
  std::uint64_t analysed() const;  // analysed so far
  std::uint64_t pending() const;   // analysed, neither counted nor lost
  const LaunchSelection& selection() const { return selection_; }

  // The child of a fork starts a ledger of its own: what the parent launched is the parent's.
  void reset();

 private:
  bool nvtx_included();
  LaunchSelection selection_;
  std::vector<KernelFilter> filters_;
  std::function<bool(const LaunchSelection&)> nvtx_question_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::map<const void*, Kernel> by_key_;
  std::map<std::uint64_t, Kernel> analysed_by_id_;
  std::uint64_t launches_ = 0, matched_ = 0, analysed_ = 0;
};

}  // namespace bankcheck::runtime
