// `bankcheck diff`: two reports read, compared by report::diff, printed; the gates over what
// is new or worse.
#include "diff_cmd.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "bankcheck/install_dirs.hpp"
#include "bankcheck/report/diff.hpp"
#include "bankcheck/report/views.hpp"
#include "cli.hpp"
#include "output.hpp"

namespace bankcheck::tools {

void add_diff(CLI::App& app, DiffCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "diff",
      "Compare two JSON reports of check or run (before and after a change) finding by "
      "finding.\n"
      "\n"
      "  bankcheck check k.cu --format json -o before.json\n"
      "  ... change k.cu ...\n"
      "  bankcheck check k.cu --format json -o after.json\n"
      "  bankcheck diff before.json after.json\n"
      "\n"
      "prints each finding that is new, worse, better or fixed, with its excess (shared\n"
      "wavefronts or global sectors), ways and severity before and after. Findings are matched\n"
      "by file, kernel and rule, then by the source line's text and line number, so a finding\n"
      "whose code moved is still the same finding (@DOCDIR@/reports.md).\n");
  c->add_option("before", o.before, "the earlier report (--format json)")->required();
  c->add_option("after", o.after, "the later report (--format json)")->required();
  c->add_option("--format", o.format, "text (one line per change) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  c->add_option("-o,--output", o.output,
                "write the comparison to this file instead of standard output");
  add_fail_on_option(c, o.fail_on,
                     ". In diff the gates count only the new or worse findings of the later "
                     "report; 'new' fails on any of them");
  c->footer(exit_codes("compared", "a --fail-on threshold was crossed by the new or worse findings",
                       "bad input (a file that is not a JSON report of check or run)"));
}

int run_diff(const DiffCmdOptions& o) {
  // 'new' (or 'worse': the same set) is any new or worse finding not suppressed.
  bool any_new = false;
  std::vector<std::string> specs;
  for (const auto& s : o.fail_on)
    if (s == "new" || s == "worse")
      any_new = true;
    else
      specs.push_back(s);
  const std::vector<report::Gate> gates = parse_gates(specs);
  report::DiffReport before, after;
  try {
    before = report::read_report_file(o.before);
    after = report::read_report_file(o.after);
  } catch (const std::invalid_argument& e) {
    throw UserError(e.what());
  }
  refuse_input_as_output(o.output, o.before);
  refuse_input_as_output(o.output, o.after);
  const report::Diff d = report::diff(before, after);
  write_output(o.format == "json" ? report::json_text(report::diff_to_json(d, o.before, o.after))
                                  : report::render_diff_text(d, o.before, o.after),
               o.output);
  const report::GateInput in = report::gate_input(d);
  std::vector<std::string> crossed;
  if (any_new && !in.items.empty())
    crossed.push_back(fmt::format("--fail-on 'new' crossed: {} finding{} new or worse, the first at {}",
                                  in.items.size(), in.items.size() == 1 ? "" : "s",
                                  in.items.front().where));
  for (const auto& g : gates)
    if (auto line = report::gate_crossed(in, g, "new or worse than " + o.before))
      crossed.push_back(*line);
  for (const auto& line : crossed) std::fprintf(stderr, "bankcheck: %s\n", line.c_str());
  return crossed.empty() ? 0 : 1;
}

}  // namespace bankcheck::tools
