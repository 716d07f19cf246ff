// The report of `bankcheck run` (run_report.hpp).
#include "run_report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

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
    std::istringstream ss(l->source_text);
    for (std::string line; std::getline(ss, line);) r.source_lines.push_back(line);
  }
  for (auto& [first, k] : m.kernels) r.kernels.push_back(std::move(k));
  r.unsupported = m.refused;
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
                   std::vector<std::string>& errors) {
  const bool fix_view = o.fix.report && fixes.size() == reports.size();
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
  if (reports.empty() && format == report::Format::Text)
    return "bankcheck: the program launched no kernel that was analysed\n";
  if (fix_view && reports.size() == 1) return v.fix(*fixes[0], text);
  if (fix_view && format == report::Format::Text) {
    std::string out;
    for (std::size_t i = 0; i < fixes.size(); ++i)
      out += fmt::format("== {} ({} of {}) ==\n",
                         report::display_path(fixes[i]->check.input, o.working_dir), i + 1,
                         fixes.size()) +
             v.fix(*fixes[i], text);
    return out;
  }
  if (fix_view && format == report::Format::Json) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto* f : fixes) files.push_back(report::fix_to_json(*f));
    return report::json_text({{"files", files}});
  }
  if (reports.size() == 1) return v.check(reports[0], fix_of(0), text);
  if (!v.files) {
    errors.push_back(fmt::format("--format {}: {}", v.name, report::refuse_files(v, reports.size())));
    return "";
  }
  std::vector<report::FileResult> files;
  for (std::size_t i = 0; i < reports.size(); ++i)
    files.push_back({reports[i].input, &reports[i], "", "", fix_of(i)});
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

}  // namespace

void write_run_reports(const std::vector<analysis::CheckReport>& reports, const RunOptions& o,
                       const std::vector<std::string>& failures,
                       const std::vector<const analysis::FixReport*>& fixes,
                       const std::vector<std::string>& status_lines) {
  std::vector<std::string> errors;
  write(render(reports, fixes, o, errors), o, errors);
  bool crossed = false;
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
      said[gi] = crossed = true;
    }
  for (const auto& e : errors) std::fprintf(stderr, "bankcheck: error: %s\n", e.c_str());
  if (o.status.empty()) return;
  std::ofstream status(o.status, std::ios::trunc);
  if (crossed) status << "gate\n";
  for (const auto& f : failures) status << "error: " << f << "\n";
  for (const auto& e : errors) status << "error: " << e << "\n";
  for (const auto& l : status_lines) status << l << "\n";
  status << "done\n";
}

void write_run_report(std::vector<ModuleReport>& modules, const RunOptions& o,
                      const model::Arch& arch, const std::vector<std::string>& failures) {
  std::vector<analysis::CheckReport> reports;
  for (auto& m : modules) {
    reports.push_back(check_report(m, o, arch));
    // Without -lineinfo the PTX has no .loc: sites can be placed by PTX line only.
    const driver::Loaded* l = m.unit ? m.unit->loaded.get() : nullptr;
    if (l && l->program.files.empty())
      std::fprintf(stderr,
                   "bankcheck: %s has no line information: build it with -lineinfo to see its "
                   "source lines (the report places each access at line 0)\n",
                   reports.back().input.c_str());
  }
  // fix's advice for every unit with a source: the suggestions run's reports carry, or
  // `bankcheck fix PROGRAM`'s report. A failure of the advisor costs the suggestions, never the
  // report.
  std::vector<analysis::FixReport> fixed;
  std::vector<std::string> more_failures = failures, status_lines;
  try {
    for (std::size_t i = 0; i < modules.size() && (o.fix.suggest || o.fix.report); ++i) {
      if (!modules[i].unit) {
        fixed.emplace_back();
        fixed.back().check = reports[i];
        continue;
      }
      fixed.push_back(advise_unit(*modules[i].unit, reports[i], modules[i].recorded, o.fix.top,
                                  arch, o.fix.report));
    }
  } catch (const std::exception& e) {
    fixed.clear();
    std::fprintf(stderr, "bankcheck: no fix suggestions: %s\n", e.what());
    if (o.fix.report) more_failures.push_back(fmt::format("fix: {}", e.what()));
  }
  if (o.fix.apply && !fixed.empty()) {
    std::vector<std::string> errors;
    apply_run_fixes(fixed, o.fix, errors);
    for (const auto& e : errors) more_failures.push_back(e);
    bool any = false;
    for (const auto& f : fixed) any = any || f.applied;
    if (!any && errors.empty()) {
      std::string why;
      for (const auto& f : fixed)
        if (!f.apply_note.empty()) why += (why.empty() ? "" : "; ") + f.apply_note;
      std::fprintf(stderr, "bankcheck: --apply: nothing written: %s\n",
                   why.empty() ? "the program launched no kernel that was analysed" : why.c_str());
      status_lines.push_back("apply: nothing written");
    }
    for (const auto& f : fixed) {
      if (f.applied)
        std::fprintf(stderr,
                     "bankcheck: --apply: wrote %s: build the program from it and run it again\n",
                     f.patched_path.c_str());
      for (const auto& why : f.apply_skipped)
        std::fprintf(stderr, "bankcheck: --apply: not written: %s\n", why.c_str());
    }
  }
  std::vector<const analysis::FixReport*> fixes;
  for (const auto& f : fixed) fixes.push_back(&f);
  write_run_reports(reports, o, more_failures, fixes, status_lines);
}

}  // namespace bankcheck::runtime
