// The check command as a library: a module loaded, `check`'s launches taken one by one, each
// kernel analysed (kernel_analysis.cpp) and its report added.
#include "bankcheck/driver/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/launch.hpp"

namespace bankcheck::driver {
namespace {

// A launch's kernel analysed: its report, its memory and, for fix, its recorder.
KernelRun analyse(const Loaded& l, KernelLaunch&& kl, const model::Arch& arch,
                  const CheckOptions& o) {
  KernelAnalysis a(l, *kl.kernel, arch, o);
  a.run(kl);
  KernelRun run;
  run.report = a.report();
  run.memory = std::move(kl.own_memory);
  run.arg_buffers = std::move(kl.buffers);
  if (auto* r = analysis::find_collector<analysis::RecorderCollector>(a.collectors()))
    run.recorder = r->take();
  return run;
}

}  // namespace

KernelRun run_kernel(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                     const model::Arch& arch, const CheckOptions& o) {
  return analyse(l, bind_launch(l, k, s, arch, o), arch, o);
}

analysis::CheckReport start_report(const Loaded& l, const CheckOptions& o,
                                   const model::Arch& arch) {
  analysis::CheckReport r;
  r.input = l.input;
  r.files = l.program.files;
  r.main_file = l.program.main_file;
  r.arch = &arch;
  r.level = l.sass ? analysis::CountLevel::Sass : analysis::CountLevel::Ptx;
  r.level_reason = l.ptx_level_reason;
  r.source_lines = analysis::split_source_lines(l.source_text);
  for (const auto& u : l.program.unsupported)
    r.unsupported.push_back({base_name(demangle(u.name)), u.reason, u.pos.file, u.pos.line,
                             u.ptx_line, u.ptx, selected(l, o, u.name), u.pos.col, u.families});
  return r;
}

void run_selected(const Loaded& l, const CheckOptions& o, const model::Arch& arch,
                  const std::function<void(const ptx::Kernel&, KernelRun&)>& each) {
  const std::unique_ptr<LaunchSource> launches = settings_launches(l, o, arch);
  const std::size_t count = launches->count().value_or(1);
  if (count == 0) return;       // --kernel names none here (kernel_may_be_absent)
  CheckOptions per_kernel = o;  // the default sample budget is shared by the run's kernels
  per_kernel.sample_instructions = std::max<std::uint64_t>(o.sample_instructions / count, 1);
  per_kernel.whole_grid_instructions = std::max(o.whole_grid_instructions, o.sample_instructions);
  if (o.progress) o.progress->kernels = static_cast<int>(count);
  while (std::optional<KernelLaunch> kl = launches->next()) {
    if (o.progress) ++o.progress->kernel;
    const ptx::Kernel& kernel = *kl->kernel;
    KernelRun run = analyse(l, std::move(*kl), arch, per_kernel);
    each(kernel, run);
  }
}

analysis::CheckReport check(const CheckOptions& o) {
  const model::Arch& arch = find_arch(o);
  Loaded l = load(o);
  analysis::CheckReport r = start_report(l, o, arch);
  run_selected(l, o, arch, [&](const ptx::Kernel&, KernelRun& run) {
    r.kernels.push_back(std::move(run.report));
  });
  quote_other_files(r);
  return r;
}

void quote_other_files(analysis::CheckReport& r) {
  std::map<int, std::set<int>> wanted;  // file -> lines
  for (const auto& k : r.kernels)
    for (const auto& s : k.sites)
      if (s.file != r.main_file && s.file >= 0 && static_cast<std::size_t>(s.file) < r.files.size() &&
          s.line > 0)
        wanted[s.file].insert(s.line);
  for (const auto& [file, lines] : wanted) {
    std::ifstream in(r.files[static_cast<std::size_t>(file)], std::ios::binary);
    if (!in) continue;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<std::string> all = analysis::split_source_lines(text);
    for (const int line : lines)
      if (static_cast<std::size_t>(line) <= all.size())
        r.quoted_lines.push_back({file, line, all[static_cast<std::size_t>(line) - 1]});
  }
}

}  // namespace bankcheck::driver
