// fix's advice over a running program's kernels, and --apply (run_fix.hpp).
#include "run_fix.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "bankcheck/analysis/collector.hpp"
#include "bankcheck/driver/fix.hpp"
#include "bankcheck/driver/global_code.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/shared_source.hpp"

namespace bankcheck::runtime {

const analysis::SharedRecorder* recorded(const driver::KernelAnalysis& a) {
  const auto* r = analysis::find_collector<analysis::RecorderCollector>(a.collectors());
  return r ? &r->recorder() : nullptr;
}

namespace {

// One module's advice, kernel by kernel in the report's order.
ReportFixes advise_module(const ModuleReport& m, const analysis::CheckReport& r, int top,
                          const model::Arch& arch, bool all) {
  ReportFixes out;
  const driver::Loaded* l = m.unit ? m.unit->loaded.get() : nullptr;
  // The names in a declaration's dimensions: the file's own and its local headers' (the
  // program's compile command is not known).
  driver::SourceMacros macros;
  if (l && !l->source_text.empty())
    macros.headers = driver::local_headers_text(l->source_text, l->input, {});
  const analysis::SharedRecorder none;
  for (const analysis::KernelReport& k : r.kernels) {
    analysis::KernelFix& kf = out.emplace_back();
    kf.kernel = k.name;
    const ptx::Kernel* kernel = nullptr;
    if (l)
      for (const ptx::Kernel& c : l->program.kernels)
        if (c.name == k.mangled) kernel = &c;
    if (!kernel) continue;
    // A kernel without bank conflicts has no suggestion to carry: its replay is skipped.
    if (all || k.shared_wavefronts > k.shared_ideal_wavefronts) {
      const auto rec = m.recorded.find(k.mangled);
      analysis::AdviseInput in;
      in.kernel = kernel;
      in.report = &k;
      in.recorder = rec != m.recorded.end() && rec->second ? rec->second : &none;
      in.arch = &arch;
      const analysis::SharedSource source =
          driver::read_shared_source(r.source_lines, k.name, macros);
      in.source = &source;
      in.main_file = r.main_file;
      in.top = top;
      if (const auto it = l->registers.find(k.mangled); it != l->registers.end())
        in.registers = it->second;
      else
        in.registers_note = l->registers_note.empty()
                                ? std::string("registers unknown: the cubin has no such kernel")
                                : l->registers_note;
      kf = analysis::advise(in);
      kf.kernel = k.name;
    }
    kf.globals = analysis::advise_global(k);
    for (analysis::GlobalFix& g : kf.globals)
      driver::write_global_code(g, r.source_lines, r.main_file, k, l->signature(*kernel), arch);
  }
  return out;
}

}  // namespace

std::vector<ReportFixes> module_fixes(const std::vector<ModuleReport>& modules,
                                      const std::vector<analysis::CheckReport>& reports,
                                      const RunOptions& o, const model::Arch& arch) {
  std::vector<ReportFixes> out;
  for (std::size_t i = 0; i < modules.size() && i < reports.size(); ++i)
    out.push_back(advise_module(modules[i], reports[i], o.fix.top, arch, o.fix.report));
  return out;
}

void apply_run_fixes(std::vector<analysis::FixReport>& reports, const RunFixOptions& o,
                     std::vector<std::string>& errors) {
  // The sources with something to write, and the path each goes to.
  struct Patch {
    analysis::FixReport* report;
    std::string source, patched;
  };
  std::vector<Patch> patches;
  for (analysis::FixReport& fr : reports) {
    const analysis::CheckReport& r = fr.check;
    std::string text;
    for (const std::string& line : r.source_lines) text += line + "\n";
    if (r.source_lines.empty()) {
      fr.apply_note =
          fmt::format("the source of {} was not found, so there is nothing to patch", r.input);
      continue;
    }
    std::vector<std::string> changes;
    if (auto patched = analysis::apply_fixes(text, fr.kernels, &changes)) {
      fr.applied_changes = std::move(changes);
      patches.push_back({&fr, r.input, *patched});
    } else {
      const std::vector<std::string> why = analysis::not_applied(fr.kernels);
      if (why.empty()) {
        fr.apply_note =
            "no shared array has bank conflicts to remove, and no global line "
            "sectors to save";
      } else {
        fr.apply_note =
            "no change bankcheck can write (a declaration padding, a global line's "
            "code):";
        for (const auto& w : why) fr.apply_note += "\n  " + w;
      }
    }
  }
  if (!o.apply_to.empty() && patches.size() > 1) {
    errors.push_back(
        fmt::format("--apply-to: {} sources have fixes to write ({} and {}); give "
                    "--apply alone to write each beside its source",
                    patches.size(), patches[0].source, patches[1].source));
    return;
  }
  for (Patch& p : patches) {
    const std::filesystem::path in(p.source);
    const std::string path =
        !o.apply_to.empty()
            ? o.apply_to
            : (in.parent_path() / (in.stem().string() + ".fixed" + in.extension().string()))
                  .string();
    try {
      // The program is not rebuilt here: the copy is written as is, for the user to build and
      // run again.
      driver::write_fixed_copy(path, p.patched, o.force);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
      continue;
    }
    p.report->applied = true;
    p.report->patched_path = path;
    p.report->apply_skipped = analysis::not_applied(p.report->kernels);
  }
}

}  // namespace bankcheck::runtime
