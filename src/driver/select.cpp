// Launches from the settings: the kernels a run checks (--kernel, launch comments, the host
// code's launches, the only kernel), each with its settings merged (flags over comments over
// the host code), validated against the architecture and bound (scalars, buffers filled).
#include <fmt/format.h>

#include <algorithm>

#include "args.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/model/launch_limits.hpp"

namespace bankcheck::driver {
namespace {

// The macros nvcc's command line defines (-D NAME[=VALUE], in --, -D and -p's entry): the
// host code's launches see them over the file's own #defines, as an `#ifndef`-guarded
// default would (`-D BLOCK=128` over `#ifndef BLOCK / #define BLOCK 256`).
std::map<std::string, std::string> command_line_defines(const NvccOptions& n) {
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& def) {
    const auto eq = def.find('=');
    if (def.empty() || eq == 0) return;
    out[def.substr(0, eq)] = eq == std::string::npos ? "1" : def.substr(eq + 1);
  };
  for (const auto& d : n.defines) add(d);
  for (std::size_t i = 0; i < n.extra.size(); ++i) {
    const std::string& t = n.extra[i];
    if ((t == "-D" || t == "--define-macro") && i + 1 < n.extra.size())
      add(n.extra[++i]);
    else if (t.starts_with("--define-macro="))
      add(t.substr(15));
    else if (t.starts_with("-D"))
      add(t.substr(2));
    else if ((t == "-U" || t == "--undefine-macro") && i + 1 < n.extra.size())
      out.erase(n.extra[++i]);
    else if (t.starts_with("-U"))
      out.erase(t.substr(2));
  }
  return out;
}

// "file.cu:12: kernel k: reason (PTX line 40: text)", for an error that stops the run.
std::string unsupported_message(const Loaded& l, const ptx::UnsupportedKernel& u) {
  const std::string where =
      u.pos.line > 0 && u.pos.file >= 0 && static_cast<size_t>(u.pos.file) < l.program.files.size()
          ? fmt::format("{}:{}", l.input, u.pos.line)
          : l.input;
  return fmt::format("{}: kernel {} is not analysed: {} (PTX line {}: {})", where,
                     base_name(demangle(u.name)), u.reason, u.ptx_line, u.ptx);
}

// Launch validation: the block's threads and the shared memory per block against the
// architecture's limits.
void check_launch(const ptx::Kernel& k, const emu::Launch& launch, const model::Arch& arch,
                  const std::string& where) {
  if (launch.block.count() > 1024)
    throw DriverError(
        fmt::format("{}: a block of {} threads (at most 1024)", where, launch.block.count()));
  const std::uint64_t limit = static_cast<std::uint64_t>(model::max_shared_per_block(arch));
  if (launch.dynamic_smem > limit)  // before the sum, which a value near 2^64 would wrap
    throw DriverError(
        fmt::format("{}: --smem {} is more dynamic shared memory than a block has "
                    "({} bytes on sm_{})",
                    where, launch.dynamic_smem, limit, arch.cc));
  if (k.dynamic_shared_offset + launch.dynamic_smem > limit)
    throw DriverError(fmt::format("{}: {} bytes of shared memory per block (at most {} on sm_{})",
                                  where, k.dynamic_shared_offset + launch.dynamic_smem, limit,
                                  arch.cc));
}

// For missing_settings: a binary's source file ("" when not found), or nullopt for a .cu or
// .ptx.
std::optional<std::string> binary_source(const Loaded& l) {
  if (l.binary.empty()) return std::nullopt;
  return l.source_text.empty() ? std::string() : l.input;
}

// Every setting the kernel lacks (missing_settings), with the command that adds them.
std::optional<std::string> missing_for(const Loaded& l, const ptx::Kernel& k,
                                       const LaunchSettings& s, const CheckOptions& o) {
  const KernelSignature& sig = l.signature(k);
  std::vector<bool> pointer;
  for (std::size_t i = 0; i < k.params.size(); ++i)
    pointer.push_back(i < sig.param_types.size()
                          ? sig.param_types[i].find('*') != std::string::npos
                          : k.params[i].is_pointer_sized);
  Rerun rerun = o.rerun;
  if (rerun.input.empty()) rerun.input = o.input;
  return missing_settings(rerun, sig.name, s, sig.param_names, sig.param_types, pointer,
                          binary_source(l));
}

}  // namespace

bool selected(const Loaded& l, const CheckOptions& o, const std::string& mangled) {
  const size_t total = l.program.kernels.size() + l.program.unsupported.size();
  if (o.flags.kernel) return kernel_matches(mangled, *o.flags.kernel);
  if (comment_for_kernel(l.comments, mangled, total, l.input)) return true;
  return total == 1;
}

std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> select_kernels(const Loaded& l,
                                                                          const CheckOptions& o) {
  std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> out;
  const auto& ks = l.program.kernels;
  const std::vector<std::string> names = l.kernel_names();
  auto list = [&]() {
    std::string s;
    for (const auto& k : names) s += "\n  " + demangle(k);
    return s;
  };
  // A file of a multi-file run without kernels (a .cu of host code only) is reported as
  // such; checked on its own, it is an error.
  if (names.empty() && o.kernel_may_be_absent && l.program.unsupported.empty()) return out;
  if (names.empty())
    throw DriverError(fmt::format("{}: no kernel (.entry) in the program", o.input));
  // A refused kernel the run asks for: when nothing else is asked for, the run stops with
  // its reason; otherwise the others run and the report names it (start_report).
  std::vector<const ptx::UnsupportedKernel*> refused;
  for (const auto& u : l.program.unsupported)
    if (selected(l, o, u.name)) refused.push_back(&u);
  const auto stop_if_only_refused = [&](size_t runnable) {
    if (runnable == 0 && !refused.empty()) {
      std::string msg = unsupported_message(l, *refused[0]);
      for (size_t i = 1; i < refused.size(); ++i)
        (msg += '\n') += unsupported_message(l, *refused[i]);
      throw DriverError(msg);
    }
  };
  // The launches the file's host code makes (host_launch.hpp); --launch N picks one. A
  // binary's are not read: the host code's values depend on how it was built, which the
  // binary does not record.
  if (!l.binary.empty() && o.launch > 0)
    throw DriverError(fmt::format(
        "--launch {}: the launches of a binary's host code are not read ({}); give the "
        "launch as --kernel, --grid, --block and --arg, or in a comment in its source",
        o.launch, l.binary));
  const std::vector<HostLaunch> launches =
      l.source_text.empty() || !l.binary.empty()
          ? std::vector<HostLaunch>{}
          : find_host_launches(
                with_included_cu(l.source_text, l.input, include_search_dirs(o.nvcc)),
                local_headers_text(l.source_text, l.input, include_search_dirs(o.nvcc)),
                command_line_defines(o.nvcc), o.host_values);
  if (o.launch > 0 && static_cast<std::size_t>(o.launch) > launches.size()) {
    std::string found;
    for (const auto& h : launches)
      found += fmt::format("\n  {}: {} at {} in {}", h.index, h.written(),
                           h.file.empty() ? fmt::format("line {}", h.line)
                                          : fmt::format("{}:{}", h.file, h.line),
                           h.via);
    throw DriverError(fmt::format("--launch {}: the host code of {} has {} launch{}{}", o.launch,
                                  o.input, launches.size(), launches.size() == 1 ? "" : "es",
                                  found));
  }
  auto launch_for = [&](const ptx::Kernel& k) -> const HostLaunch* {
    for (const auto& h : launches)
      if ((o.launch == 0 || h.index == o.launch) && launch_matches(h, k.name)) return &h;
    return nullptr;
  };
  auto settings_for = [&](const ptx::Kernel& k, const std::optional<LaunchSettings>& comment) {
    return settle(o.flags, comment, launch_for(k), l.signature(k).param_names, l.input);
  };
  auto comment_of = [&](const ptx::Kernel& k) {
    return comment_for_kernel(l.comments, k.name, names.size(), l.input);
  };
  if (o.flags.kernel) {
    std::vector<const ptx::Kernel*> matched;
    for (const auto& k : ks)
      if (kernel_matches(k.name, *o.flags.kernel) && (o.launch == 0 || launch_for(k)))
        matched.push_back(&k);
    stop_if_only_refused(matched.size());
    if (matched.empty() && o.kernel_may_be_absent) return out;
    if (matched.empty())
      throw DriverError(fmt::format(
          "--kernel: no kernel named '{}'{}; the kernels are:{}", *o.flags.kernel,
          o.launch ? fmt::format(" launched by --launch {}", o.launch) : std::string(), list()));
    // Every instantiation a name matches is checked; the report says which.
    std::string which;
    for (const auto* k : matched) which += (which.empty() ? "" : "; ") + demangle(k->name);
    for (const auto* k : matched) {
      LaunchSettings s = settings_for(*k, comment_of(*k));
      if (matched.size() > 1)
        s.sources.front().where += fmt::format(" (one of the {} kernels it names, all checked: {})",
                                               matched.size(), which);
      out.push_back({k, std::move(s)});
    }
    return out;
  }
  // The kernels launch comments name, in the program's order; then the other kernels the
  // host code launches, each with its first launch (or the one --launch picks), in the
  // order of those launches: a comment adds a kernel or settles its settings, and never
  // drops the kernels the program launches.
  for (const auto& k : ks) {
    const auto c = comment_of(k);
    if (c) out.push_back({&k, settings_for(k, c)});
  }
  for (const auto& h : launches) {
    if (o.launch && h.index != o.launch) continue;
    for (const auto& k : ks)
      if (launch_matches(h, k.name) &&
          std::none_of(out.begin(), out.end(), [&](const auto& e) { return e.first == &k; }))
        out.push_back({&k, settings_for(k, std::nullopt)});
  }
  stop_if_only_refused(out.size());
  if (!out.empty()) return out;
  if (names.size() == 1 && !ks.empty()) return {{&ks[0], settings_for(ks[0], comment_of(ks[0]))}};
  throw DriverError(fmt::format(
      "{}: {} kernels and no --kernel, launch comment or launch in the host code to choose; the "
      "kernels are:{}",
      o.input, names.size(), list()));
}

KernelLaunch bind_launch(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                         const model::Arch& arch, const CheckOptions& o) {
  const KernelSignature& sig = l.signature(k);
  if (auto missing = missing_for(l, k, s, o)) throw DriverError(*missing);
  KernelLaunch kl;
  kl.kernel = &k;
  kl.sources = s.sources;
  kl.blocks = s.blocks;
  kl.launch.grid = *s.grid;
  kl.launch.block = *s.block;
  kl.launch.dynamic_smem = s.smem.value_or(0);
  kl.launch.budget = o.budget;
  kl.where = s.line ? fmt::format("{}:{}", l.input, s.line) : std::string("flags");
  check_launch(k, kl.launch, arch, kl.where);
  kl.own_memory = std::make_unique<emu::GlobalMemory>();
  kl.memory = kl.own_memory.get();
  place_module_variables(l.program, *kl.memory);
  BoundArgs args = bind_arguments(l, k, s, sig.name, sig.signature, o, *kl.memory, kl.launch.params);
  kl.args = std::move(args.reports);
  kl.buffers = std::move(args.buffers);
  return kl;
}

namespace {

// `check`'s launch source: the selected kernels in order, each bound when it is asked for,
// so that an error in a later kernel's settings comes after the earlier kernels ran.
class SettingsLaunches : public LaunchSource {
 public:
  SettingsLaunches(const Loaded& l, const CheckOptions& o, const model::Arch& arch)
      : loaded_(l), options_(o), arch_(arch), selected_(select_kernels(l, o)) {
    // Every kernel's missing settings at once, before any kernel runs.
    std::vector<std::string> missing;
    for (const auto& [kernel, settings] : selected_)
      if (auto m = missing_for(l, *kernel, settings, o)) missing.push_back(std::move(*m));
    if (missing.size() == 1) throw DriverError(missing[0]);
    if (missing.empty()) return;
    std::string msg = fmt::format("{} of the {} kernels lack launch settings:", missing.size(),
                                  selected_.size());
    for (const auto& m : missing) msg += "\n" + m;
    throw DriverError(msg);
  }
  std::optional<KernelLaunch> next() override {
    if (next_ >= selected_.size()) return std::nullopt;
    const auto& [kernel, settings] = selected_[next_++];
    return bind_launch(loaded_, *kernel, settings, arch_, options_);
  }
  std::optional<std::size_t> count() const override { return selected_.size(); }

 private:
  const Loaded& loaded_;
  const CheckOptions& options_;
  const model::Arch& arch_;
  std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> selected_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<LaunchSource> settings_launches(const Loaded& l, const CheckOptions& o,
                                                const model::Arch& arch) {
  return std::make_unique<SettingsLaunches>(l, o, arch);
}

}  // namespace bankcheck::driver
