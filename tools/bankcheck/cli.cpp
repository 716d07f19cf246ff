// Subcommand wiring and error reporting for the bankcheck command line.
#include "cli.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/explain/expr.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/version.hpp"
#include "check_cmd.hpp"
#include "docgen.hpp"
#include "explain_cmd.hpp"
#include "fix_cmd.hpp"
#include "run_cmd.hpp"

namespace bankcheck::tools {

void add_format_option(CLI::App* c, report::Format& format, report::ReportKind kind,
                       const std::string& help) {
  c->add_option_function<std::string>(
       "--format",
       [&format, kind](const std::string& name) { format = report::parse_format(name, kind); },
       help)
      ->check(CLI::Validator(
          [kind](std::string& name) {
            try {
              report::parse_format(name, kind);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          },
          report::format_choices(kind)))
      ->default_str(std::string(report::format_name(format)));
}

void add_color_option(CLI::App* c, std::string& color) {
  c->add_option("--color", color,
                "colour the text report: auto (when standard output is a terminal), always or "
                "never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

bool use_color(const std::string& color, const std::string& output) {
  if (color == "always") return true;
  if (color == "never" || !output.empty()) return false;
  const char* term = std::getenv("TERM");
  return std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO) &&
         !(term && std::strcmp(term, "dumb") == 0);
}

void add_fail_on_option(CLI::App* c, std::vector<std::string>& fail_on, const std::string& scope) {
  c->add_option("--fail-on", fail_on,
                "exit 1 with a one-line summary when the report crosses a threshold: 'ways>N' "
                "(a shared line with more than N ways) or 'excess>P%' (a kernel with more than "
                "P% of its shared wavefronts in excess); may be repeated" +
                    scope);
}

std::vector<report::Gate> parse_gates(const std::vector<std::string>& specs) {
  std::vector<report::Gate> gates;
  for (const auto& spec : specs) try {
      gates.push_back(report::parse_gate(spec));
    } catch (const std::invalid_argument& e) {
      throw UserError(e.what());
    }
  return gates;
}

bool gates_crossed(const analysis::CheckReport& r, const std::vector<report::Gate>& gates) {
  std::string summary;
  int crossed = 0;
  for (const auto& g : gates)
    if (auto line = report::gate_crossed(r, g)) {
      if (crossed++ == 0)
        summary = *line;
      else
        summary += fmt::format("; also '{}'", g.spec);
    }
  if (crossed) std::fprintf(stderr, "bankcheck: %s\n", summary.c_str());
  return crossed > 0;
}

void add_progress_flag(CLI::App* c, bool& progress) {
  c->add_flag("!--no-progress", progress,
              "no progress line on standard error (shown only on a terminal, after a second)");
}

std::string exit_codes(const std::string& zero, const std::string& one, const std::string& two) {
  std::string s = "Exit codes:\n  0  " + zero + "\n";
  if (!one.empty()) s += "  1  " + one + "\n";
  return s + "  2  " + two;
}

std::string error_message(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const explain::ExprError& e) {
    const std::string where = e.column > 0 ? fmt::format("{}:1:{}", e.source, e.column) : e.source;
    std::string out = fmt::format("{}: {}", where, e.what());
    const std::string caret = explain::caret_line(e);
    if (!caret.empty()) {
      out += "\n  ";
      for (char c : caret) out += c == '\n' ? std::string("\n  ") : std::string(1, c);
    }
    return out;
  } catch (const ptx::ParseError& e) {
    return fmt::format("{}:{}:{}: {}\n  {}\n  {}^", e.source, e.pos.line, e.pos.col, e.what(),
                       e.line_text,
                       std::string(e.pos.col > 1 ? static_cast<size_t>(e.pos.col) - 1 : 0, ' '));
  } catch (const ptx::DecodeError& e) {
    return fmt::format("{}: PTX line {}: {}: {}", e.source, e.line, e.what(), e.text);
  } catch (const std::bad_alloc&) {
    return "out of memory (give smaller --arg buffer sizes, fewer --threads or a smaller "
           "--max-memory; " BANKCHECK_DOCDIR "/limits.md)";
  } catch (const std::exception& e) {
    // UserError, DriverError and the last resort alike: their message says what and where.
    return e.what();
  } catch (...) {
    return "an unexpected failure";
  }
}

int run(int argc, char** argv) {
  CLI::App app{"bankcheck: finds, explains and fixes shared-memory bank conflicts in CUDA kernels",
               "bankcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bankcheck " BANKCHECK_VERSION);
  ExplainOptions explain;
  add_explain(app, explain);
  CheckCmdOptions check;
  add_check(app, check);
  FixCmdOptions fix;
  add_fix(app, fix);
  OccupancyCmdOptions occupancy;
  add_occupancy(app, occupancy);
  RunCmdOptions run;
  add_run(app, run);
  // The hidden --generate-man and --generate-completion bash (docgen.hpp).
  if (const std::optional<int> generated = generate_docs(app, argc, argv)) return *generated;
  // CLI11 reads an unknown word where a subcommand goes as a stray positional and says
  // "A subcommand is required"; name the word instead.
  bool known = false;
  if (argc > 1)
    for (const CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{}))
      known = known || sub->get_name() == argv[1];
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr,
                 "bankcheck: error: unknown subcommand '%s' (expected explain, check, fix, "
                 "occupancy or run)\n(run 'bankcheck --help' for usage)\n",
                 argv[1]);
    return 2;
  }
  // check and fix: everything after `--` goes to nvcc, wherever the `--` stands; run: the
  // program and its arguments, after `--` or from the first word that is not an option.
  const bool is_run = argc > 1 && std::strcmp(argv[1], "run") == 0;
  const std::vector<std::string> nvcc_flags =
      is_run ? std::vector<std::string>{} : take_nvcc_flags(argc, argv);
  check.nvcc_flags = nvcc_flags;
  fix.nvcc_flags = nvcc_flags;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "bankcheck: error: %s\n(run 'bankcheck --help' for usage)\n", e.what());
    return 2;
  }
  try {
    if (app.got_subcommand("explain")) return run_explain(explain);
    if (app.got_subcommand("check")) return run_check(check);
    if (app.got_subcommand("fix")) return run_fix(fix);
    if (app.got_subcommand("occupancy")) return run_occupancy(occupancy);
    if (app.got_subcommand("run")) return run_program(run);
  } catch (...) {
    // Every failure is one message and exit 2, never an abort. Worker threads are joined
    // before an exception leaves the driver (run_ctas.cpp).
    std::fprintf(stderr, "bankcheck: error: %s\n", error_message(std::current_exception()).c_str());
    return 2;
  }
  return 2;
}

}  // namespace bankcheck::tools
