// The report of `bankcheck run` (run_report.hpp, and the emulator's module reports).
#include "run_report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/diff.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/report/views.hpp"
#include "run_fix.hpp"

namespace bankcheck::runtime {
namespace {

analysis::CheckReport check_report(ModuleReport& m, const RunOptions& o, const model::Arch& arch) {
  analysis::CheckReport r;
  r.arch = &arch;
  const driver::Loaded* l = m.unit ? m.unit->loaded.get() : nullptr;
  r.input = l ? l->input : m.unit ? m.unit->options.input : o.program;
  if (l) {
    r.files = l->program.files;
    r.main_file = l->program.main_file;
    r.level = l->sass ? analysis::CountLevel::Sass : analysis::CountLevel::Ptx;
    r.level_reason = l->ptx_level_reason;
    r.source_lines = analysis::split_source_lines(l->source_text);
  }
  for (auto& [first, k] : m.kernels) r.kernels.push_back(std::move(k));
  driver::quote_other_files(r);
  r.unsupported = m.refused;
  r.not_run = m.not_run;
  return r;
}

bool use_color(const RunOptions& o) {
  if (o.color == "always") return true;
  if (o.color == "never" || !o.output.empty()) return false;
  const char* term = std::getenv("TERM");
  return std::getenv("NO_COLOR") == nullptr && isatty(STDERR_FILENO) &&
         !(term && std::strcmp(term, "dumb") == 0);
}

// The reports through the format's view: one report as `check` renders one file, several as
// it renders several files, each with fix's report where there is one (`fixes`, parallel to
// `reports`, or empty); with `bankcheck fix PROGRAM`, fix's own view of each.
std::string render(const std::vector<analysis::CheckReport>& reports,
                   const std::vector<const analysis::FixReport*>& fixes, const RunOptions& o,
                   bool name_processes, std::vector<std::string>& errors) {
  const bool fix_view = o.fix.report && fixes.size() == reports.size() && !reports.empty();
  report::Format format = report::Format::Text;
  try {
    format = report::parse_format(o.format,
                                  fix_view ? report::ReportKind::Fix : report::ReportKind::Check);
  } catch (const std::invalid_argument& e) {
    errors.push_back(fmt::format("--format: {}", e.what()));
  }
  const report::View& v = report::view(format);
  const report::TextOptions text{.color = use_color(o),
                                 .columns = o.columns,
                                 .quiet = o.quiet,
                                 .source_root = {},
                                 .working_dir = o.working_dir,
                                 .fix_command = o.fix.command};
  const auto fix_of = [&](std::size_t i) { return i < fixes.size() ? fixes[i] : nullptr; };
  const auto heading = [&](std::size_t i) {
    return name_processes && reports[i].process ? report::process_line(*reports[i].process)
                                                : std::string();
  };
  if (reports.empty() && format == report::Format::Text)
    return "bankcheck: the program launched no kernel that was analysed\n";
  if (fix_view && reports.size() == 1 && !name_processes) return v.fix(*fixes[0], text);
  if (fix_view && format == report::Format::Text) {
    std::string out;
    for (std::size_t i = 0; i < fixes.size(); ++i) {
      out += fmt::format("== {} ({} of {}) ==\n",
                         report::display_path(fixes[i]->check.input, o.working_dir), i + 1,
                         fixes.size());
      if (const std::string h = heading(i); !h.empty()) out += h + "\n";
      out += v.fix(*fixes[i], text);
    }
    return out;
  }
  if (fix_view && format == report::Format::Json) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto* f : fixes) files.push_back(report::fix_to_json(*f));
    return report::json_text({{"files", files}});
  }
  if (reports.size() == 1 && !name_processes) return v.check(reports[0], fix_of(0), text);
  if (!v.files) {
    errors.push_back(fmt::format("--format {}: {}", v.name, report::refuse_files(v, reports.size())));
    return "";
  }
  std::vector<report::FileResult> files;
  for (std::size_t i = 0; i < reports.size(); ++i)
    files.push_back({reports[i].input, &reports[i], "", heading(i), fix_of(i)});
  return v.files(files, text);
}

void write(const std::string& text, const RunOptions& o, std::vector<std::string>& errors) {
  if (text.empty()) return;
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    return;
  }
  std::ofstream f(o.output, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) errors.push_back(fmt::format("-o: cannot write '{}': {}", o.output, std::strerror(errno)));
}

// --apply over the run's fix reports (run_fix.hpp), said on standard error: what was written
// and what was left; true when nothing was written.
bool apply(std::vector<analysis::FixReport>& fixed, const RunOptions& o,
           std::vector<std::string>& errors) {
  apply_run_fixes(fixed, o.fix, errors);
  bool any = false;
  for (const auto& f : fixed) any = any || f.applied;
  for (const auto& f : fixed) {
    if (f.applied)
      std::fprintf(stderr,
                   "bankcheck: --apply: wrote %s: build the program from it and run it again\n",
                   f.patched_path.c_str());
    for (const auto& why : f.apply_skipped)
      std::fprintf(stderr, "bankcheck: --apply: not written: %s\n", why.c_str());
  }
  if (any || !errors.empty()) return false;
  std::string why;
  for (const auto& f : fixed)
    if (!f.apply_note.empty()) why += (why.empty() ? "" : "; ") + f.apply_note;
  std::fprintf(stderr, "bankcheck: --apply: nothing written: %s\n",
               why.empty() ? "the program launched no kernel that was analysed" : why.c_str());
  return true;
}

}  // namespace

RunReportOutcome write_run_reports(const std::vector<analysis::CheckReport>& reports,
                                   const RunOptions& o, bool name_processes,
                                   const std::vector<ReportFixes>& fixes) {
  RunReportOutcome out;
  std::vector<std::string>& errors = out.errors;
  // fix's reports, where the program's side advised (its last part, at exit).
  std::vector<analysis::FixReport> fixed;
  if (fixes.size() == reports.size())
    for (std::size_t i = 0; i < reports.size(); ++i) {
      analysis::FixReport& f = fixed.emplace_back();
      f.check = reports[i];
      f.kernels = fixes[i];
      f.kernels.resize(f.check.kernels.size());  // one per kernel, as the views expect
    }
  // The advice is made at the program's exit: a program that died has its report, not fix's.
  if (o.fix.report && fixed.empty() && !reports.empty())
    std::fprintf(stderr,
                 "bankcheck: fix: no advice: the program did not reach its exit (the report "
                 "below is run's)\n");
  if (o.fix.apply && !fixed.empty()) out.nothing_applied = apply(fixed, o, errors);
  std::vector<const analysis::FixReport*> fix_views;
  for (const auto& f : fixed) fix_views.push_back(&f);
  write(render(reports, fix_views, o, name_processes, errors), o, errors);
  std::vector<report::Gate> gates;
  for (const auto& spec : o.fail_on) try {
      gates.push_back(report::parse_gate(spec));
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  std::optional<report::DiffReport> baseline;
  if (!o.baseline.empty()) try {
      baseline = report::read_report_file(o.baseline);
    } catch (const std::exception& e) {
      errors.push_back(fmt::format("--baseline: {}", e.what()));
    }
  // Each gate's first crossing over the run's reports (suppressed findings not counted; with a
  // baseline, only new or worse ones).
  std::vector<bool> said(gates.size() + 1, false);
  for (const auto& r : reports)
    for (std::size_t gi = 0; gi <= gates.size(); ++gi) {
      if (said[gi] || (gi == gates.size() && (!baseline || !gates.empty()))) continue;
      const std::vector<report::Gate> one =
          gi < gates.size() ? std::vector<report::Gate>{gates[gi]} : std::vector<report::Gate>{};
      const auto lines =
          report::crossed_gates(r, one, baseline ? &*baseline : nullptr, o.baseline);
      if (lines.empty()) continue;
      std::fprintf(stderr, "bankcheck: %s\n", lines[0].c_str());
      said[gi] = out.gate = true;
    }
  for (const auto& e : errors) std::fprintf(stderr, "bankcheck: error: %s\n", e.c_str());
  return out;
}

std::vector<analysis::CheckReport> module_reports(std::vector<ModuleReport>& modules,
                                                  const RunOptions& o, const model::Arch& arch) {
  std::vector<analysis::CheckReport> reports;
  for (auto& m : modules) reports.push_back(check_report(m, o, arch));
  return reports;
}

}  // namespace bankcheck::runtime
