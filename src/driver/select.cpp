// Launches from the settings: the kernels a run checks (--kernel, launch comments, the host
// code's launches, the only kernel), each with its settings merged (flags over comments over
// the host code), validated against the architecture and bound (scalars, buffers filled).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "args.hpp"
#include "bankcheck/analysis/check.hpp"
#include "bankcheck/driver/binary_input.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/explain/cuda_source.hpp"
#include "bankcheck/explain/tokens.hpp"
#include "bankcheck/model/launch_limits.hpp"

namespace bankcheck::driver {
namespace {

// "file.cu:12: kernel k: reason (PTX line 40: text)", for an error that stops the run.
// The file an instruction's .loc names: the input's own name for the main file, a header's
// path as the PTX gives it.
std::string loc_file(const Loaded& l, int file) {
  if (file == l.program.main_file || file < 0 ||
      static_cast<size_t>(file) >= l.program.files.size() ||
      l.program.files[static_cast<size_t>(file)].empty())
    return l.input;
  return l.program.files[static_cast<size_t>(file)];
}

std::string unsupported_message(const Loaded& l, const ptx::UnsupportedKernel& u) {
  const std::string where =
      u.pos.line > 0 && u.pos.file >= 0 && static_cast<size_t>(u.pos.file) < l.program.files.size()
          ? fmt::format("{}:{}:{}", loc_file(l, u.pos.file), u.pos.line, std::max(u.pos.col, 1))
          : l.input;
  return fmt::format("{}: kernel {} is not analysed: {}", where, base_name(demangle(u.name)),
                     analysis::refusal_text(u.reason, u.ptx_line, u.ptx, u.families,
                                            [&](int file) { return loc_file(l, file); }));
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

// Where the source declares the extern __shared__ array `ptx_name` (PTX keeps a C++ name
// as it is, and mangles one inside a template as _Z...E<length><name>): "file:line:col", or
// the file alone when the source does not say.
std::string extern_shared_where(const Loaded& l, const std::string& ptx_name) {
  if (l.source_text.empty()) return l.input;
  const std::string code = explain::code_only(l.source_text);
  const explain::Tokens t = explain::tokenize(code);
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].is("extern")) continue;
    std::size_t j = i + 1;
    bool shared = false;
    std::string name;
    for (; j < t.size() && !t[j].is(";") && !t[j].is("[") && !t[j].is("{"); ++j) {
      if (t[j].is("__shared__")) shared = true;
      if (t[j].ident()) name = t[j].text;
      if (t[j].is("(")) j = explain::past_group(t, j) - 1;
    }
    if (!shared || name.empty() || j >= t.size()) continue;
    if (ptx_name == name || ptx_name.ends_with(std::to_string(name.size()) + name)) {
      const std::size_t pos = t[j - 1].pos;
      const auto line =
          std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
      const std::size_t bol = code.rfind('\n', pos);
      return fmt::format("{}:{}:{}", l.input, line + 1,
                         pos - (bol == std::string::npos ? 0 : bol + 1) + 1);
    }
  }
  return l.input;
}

// A kernel with dynamic shared memory (`.extern .shared` in its PTX: extern __shared__ in the
// source) and no size for it from a flag, a launch comment or the host code: 0 bytes would
// run its accesses out of bounds, reported as the kernel's own error. Throws DriverError.
void check_dynamic_shared_given(const Loaded& l, const ptx::Kernel& k, const std::string& kernel,
                                const LaunchSettings& s) {
  const auto dynamic = std::find_if(k.shared.begin(), k.shared.end(),
                                    [](const ptx::SharedVar& v) { return v.is_extern; });
  if (dynamic == k.shared.end()) return;
  std::string host;
  for (const auto& [setting, expr] : s.unresolved)
    if (setting == "smem")
      host = fmt::format(" (the host code has `{}`, not a constant bankcheck can evaluate)", expr);
  throw DriverError(fmt::format(
      "{}: kernel {}: the size of its dynamic shared memory (extern __shared__ {}) is unknown{}; "
      "give it: --smem BYTES, or smem=BYTES in the launch comment // bankcheck: kernel={} ...",
      extern_shared_where(l, dynamic->name), kernel, dynamic->name, host, kernel));
}

// For missing_settings: a binary's source file ("" when not found), or nullopt for a .cu or
// .ptx.
std::optional<std::string> binary_source(const Loaded& l) {
  if (l.binary.empty()) return std::nullopt;
  return l.source_text.empty() ? std::string() : l.input;
}

// The shortest name that --kernel matches to `mangled` alone among `names`: its qualified
// name with template arguments ("reduce<128, float>"), else its signature
// ("scale(float*, int)"), else the mangled name.
std::string exact_name(const std::string& mangled, const std::vector<std::string>& names) {
  const std::string signature = demangle(mangled);
  for (const std::string& candidate : {base_name(signature), signature}) {
    const auto matching = std::count_if(names.begin(), names.end(), [&](const std::string& n) {
      return kernel_matches(n, candidate);
    });
    if (matching == 1) return candidate;
  }
  return mangled;
}

// What missing_settings needs of one kernel.
KernelSettings kernel_settings(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s) {
  const KernelSignature& sig = l.signature(k);
  std::vector<bool> pointer;
  for (std::size_t i = 0; i < k.params.size(); ++i)
    // By-value structs (`.b8 NAME[SIZE]` in PTX) have a default too, so far as missing
    // settings go: the binder asks for them with their fields.
    pointer.push_back(k.params[i].type == ".b8" ||
                      (i < sig.param_types.size()
                           ? sig.param_types[i].find('*') != std::string::npos
                           : k.params[i].is_pointer_sized));
  return {sig.name,        &s,      sig.param_names,
          sig.param_types, pointer, exact_name(k.name, l.kernel_names())};
}

// Where the message of missing settings points: the run's command, a binary's source, the
// program `bankcheck run` would take (a .cu's, an executable given as input).
MissingContext missing_context(const Loaded& l, const CheckOptions& o, std::size_t selected) {
  MissingContext c;
  c.rerun = o.rerun;
  if (c.rerun.input.empty()) c.rerun.input = o.input;
  c.binary_source = binary_source(l);
  const InputKind kind = input_kind(o.input);
  if (kind == InputKind::Source)
    c.program = "PROGRAM";
  else if (kind == InputKind::HostElf && ::access(o.input.c_str(), X_OK) == 0)
    c.program = o.input.find('/') == std::string::npos ? "./" + o.input : o.input;
  c.kernels_selected = selected;
  return c;
}

// Every setting the kernel lacks (missing_settings), with the command that adds them.
std::optional<std::string> missing_for(const Loaded& l, const ptx::Kernel& k,
                                       const LaunchSettings& s, const CheckOptions& o) {
  return missing_settings(missing_context(l, o, 1), {kernel_settings(l, k, s)});
}

// A --kernel name that matches several kernels (overloads, a template's instantiations) is
// refused with the exact name of each: one of them picked, or all of them run with the same
// --grid, --block and --arg, would each be wrong for some. Throws DriverError.
void refuse_ambiguous_kernel(const std::string& wanted,
                             const std::vector<const ptx::Kernel*>& matched,
                             const std::vector<const ptx::UnsupportedKernel*>& refused,
                             const std::vector<std::string>& names) {
  std::vector<std::string> all;
  for (const auto* k : matched) all.push_back(k->name);
  for (const auto* u : refused) all.push_back(u->name);
  if (all.size() < 2) return;
  std::string msg = fmt::format("--kernel {}: the name matches {} kernels; give one of them:",
                                shell_quote(wanted), all.size());
  std::vector<std::string> exact;
  std::size_t width = 0;
  for (const auto& m : all) {
    exact.push_back("--kernel " + shell_quote(exact_name(m, names)));
    width = std::max(width, exact.back().size());
  }
  for (std::size_t i = 0; i < all.size(); ++i)
    msg += fmt::format("\n  {:<{}}  ({})", exact[i], width, demangle(all[i]));
  msg +=
      "\n(without --kernel, the kernels the host code launches or the launch comments name are "
      "checked, each with its own launch)";
  throw DriverError(msg);
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
  auto list = [&]() {  // the first 40 of a module of thousands
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 40; ++i) s += "\n  " + demangle(names[i]);
    if (names.size() > 40) s += fmt::format("\n  ... ({} kernels in all)", names.size());
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
    throw DriverError(
        fmt::format("--launch {}: the launches of a binary's host code are not read ({}); give the "
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
      found += fmt::format(
          "\n  {}: {} at {} in {}", h.index, h.written(),
          h.file.empty() ? fmt::format("line {}", h.line) : fmt::format("{}:{}", h.file, h.line),
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
    refuse_ambiguous_kernel(*o.flags.kernel, matched, refused, names);
    stop_if_only_refused(matched.size());
    if (matched.empty() && o.kernel_may_be_absent) return out;
    if (matched.empty())
      throw DriverError(fmt::format(
          "--kernel: no kernel named '{}'{}; the kernels are:{}", *o.flags.kernel,
          o.launch ? fmt::format(" launched by --launch {}", o.launch) : std::string(), list()));
    out.push_back({matched[0], settings_for(*matched[0], comment_of(*matched[0]))});
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
  if (!s.smem) check_dynamic_shared_given(l, k, sig.name, s);
  KernelLaunch kl;
  kl.kernel = &k;
  kl.sources = s.sources;
  kl.blocks = s.blocks;
  kl.launch.grid = *s.grid;
  kl.launch.block = *s.block;
  kl.launch.dynamic_smem = s.smem.value_or(0);
  kl.launch.budget = o.budget;
  if (s.cluster) kl.launch.cluster = *s.cluster;
  kl.launch.cooperative = s.cooperative.value_or(false);
  kl.where = s.line ? fmt::format("{}:{}", l.input, s.line) : std::string("flags");
  check_launch(k, kl.launch, arch, kl.where);
  // The cluster tiles the grid, as the driver requires (cudaErrorInvalidClusterSize).
  const emu::Dim3 cl = emu::cluster_shape(k, kl.launch);
  if (kl.launch.grid.x % cl.x || kl.launch.grid.y % cl.y || kl.launch.grid.z % cl.z ||
      cl.count() > 16)
    throw DriverError(fmt::format(
        "{}: a cluster of {},{},{} CTAs {} (grid {},{},{})", kl.where, cl.x, cl.y, cl.z,
        cl.count() > 16 ? "is larger than an sm_90 allows (16 CTAs)" : "does not tile the grid",
        kl.launch.grid.x, kl.launch.grid.y, kl.launch.grid.z));
  kl.own_memory = std::make_unique<emu::GlobalMemory>();
  kl.memory = kl.own_memory.get();
  place_module_variables(l.program, *kl.memory);
  BoundArgs args =
      bind_arguments(l, k, s, sig.name, sig.signature, o, *kl.memory, kl.launch.params);
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
    // Every kernel's missing settings at once, in one message, before any kernel runs.
    std::vector<KernelSettings> kernels;
    for (const auto& [kernel, settings] : selected_)
      kernels.push_back(kernel_settings(l, *kernel, settings));
    if (auto m = missing_settings(missing_context(l, o, selected_.size()), kernels))
      throw DriverError(*m);
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
