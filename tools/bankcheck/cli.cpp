// Subcommand wiring and error reporting for the bankcheck command line.
#include "cli.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/explain/expr.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/version.hpp"
#include "check_cmd.hpp"
#include "diff_cmd.hpp"
#include "doc_paths.hpp"
#include "docgen.hpp"
#include "explain_cmd.hpp"
#include "fix_cmd.hpp"
#include "program_args.hpp"
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
                "(a shared line with more than N ways), 'excess>P%' (a kernel with more than "
                "P% of its shared wavefronts in excess), 'global-waste>P%' (a kernel with more "
                "than P% of its global sectors in excess) or 'severity>=LEVEL' (a finding of "
                "that severity or above; LEVEL alone says the same: note, warning, error); "
                "findings suppressed in the source are not counted; may be repeated" +
                    scope);
}

void add_baseline_option(CLI::App* c, std::string& baseline) {
  c->add_option("--baseline", baseline,
                "a JSON report of an earlier check or run (--format json): the gates count only "
                "the findings that are new or worse than there; without --fail-on, any such "
                "finding exits 1");
}

std::optional<report::DiffReport> read_baseline(const std::string& path) {
  if (path.empty()) return std::nullopt;
  try {
    return report::read_report_file(path);
  } catch (const std::invalid_argument& e) {
    throw UserError(fmt::format("--baseline: {}", e.what()));
  }
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

bool gates_crossed(const analysis::CheckReport& r, const std::vector<report::Gate>& gates,
                   const report::DiffReport* baseline, const std::string& baseline_name) {
  const std::vector<std::string> lines = report::crossed_gates(r, gates, baseline, baseline_name);
  if (lines.empty()) return false;
  std::string summary = lines[0];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    // "; also 'SPEC'" for each further crossed gate.
    const auto q = lines[i].find('\'');
    const auto e = q == std::string::npos ? q : lines[i].find('\'', q + 1);
    summary += e == std::string::npos ? "; also " + lines[i]
                                      : "; also " + lines[i].substr(q, e - q + 1);
  }
  std::fprintf(stderr, "bankcheck: %s\n", summary.c_str());
  return true;
}

void add_layout_options(CLI::App* c, int& columns, bool& quiet) {
  c->add_option("--columns", columns,
                "columns the text report may take: a wider bank picture is folded into groups "
                "of banks (default: the terminal's width; a pipe: $COLUMNS when set; -o FILE "
                "and otherwise: unlimited)")
      ->check(CLI::Range(40, 100000));
  c->add_flag("-q,--quiet", quiet,
              "text: only the findings at warning or above (with their source line) and, on "
              "standard error, errors and the --fail-on result; no pictures, tables, notes, "
              "nvcc warnings or progress line");
}

int text_columns(int flag, const std::string& output, int fd) {
  if (flag > 0) return flag;
  if (!output.empty()) return 0;
  if (isatty(fd)) {
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  }
  if (const char* env = std::getenv("COLUMNS"); env && *env) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 0;
}

void add_source_root_option(CLI::App* c, std::string& source_root) {
  c->add_option("--source-root", source_root,
                "sarif: the directory the log's paths are relative to (originalUriBaseIds "
                "SRCROOT; default: the git repository of the first file, else the current "
                "directory)");
}

std::string source_root(const std::string& flag, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!flag.empty()) {
    if (!fs::is_directory(flag, ec))
      throw UserError(fmt::format("--source-root: '{}' is not a directory", flag));
    return (cwd / flag).lexically_normal().string();
  }
  if (!inputs.empty()) {
    fs::path dir = (cwd / inputs.front()).lexically_normal().parent_path();
    for (; !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / ".git", ec)) return dir.string();
      if (dir == dir.root_path()) break;
    }
  }
  return cwd.string();
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
           "--max-memory; " +
           doc_path("limits.md") + ")";
  } catch (const std::exception& e) {
    // UserError, DriverError and the last resort alike: their message says what and where.
    return e.what();
  } catch (...) {
    return "an unexpected failure";
  }
}

namespace {

// Where a program starts on the command line: for `run`, always; for `fix`, when the words
// after `--` come before any file (`fix -- ./app`), or when the first file is an executable
// and --no-run was not given before it (`fix ./app --size 64`). nullopt: no program (check
// and fix of a file, and the other subcommands).
std::optional<ProgramWords> program_words(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string sub = argv[1];
  if (sub != "run" && sub != "fix") return std::nullopt;
  const CLI::App* c = app.get_subcommand(sub);
  const ProgramWords w = find_program(*c, 2, argc, argv);
  if (sub == "run") return w;
  if (w.program < 0) return std::nullopt;
  for (int i = 2; i < w.end; ++i)
    if (std::strcmp(argv[i], "--no-run") == 0) return std::nullopt;
  if (w.after_dashes || is_program(argv[w.program])) return w;
  return std::nullopt;
}

}  // namespace

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
  DiffCmdOptions diff;
  add_diff(app, diff);
  // A repeatable option takes one value each time it is given: `--fail-on ways>1 a.cu` leaves
  // a.cu to the files (CLI11 would give the option every word up to the next option), so a
  // pre-commit hook or a CI step can put its files after its options.
  for (CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{}))
    for (CLI::Option* opt : sub->get_options())
      if (!opt->get_positional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  // The documents the help texts name, where they are; the manual page and the completion
  // name the install's (doc_paths.hpp).
  resolve_doc_paths(app, argc >= 2 && (std::strcmp(argv[1], "--generate-man") == 0 ||
                                       std::strcmp(argv[1], "--generate-completion") == 0));
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
                 "occupancy, run or diff)\n(run 'bankcheck --help' for usage)\n",
                 argv[1]);
    return 2;
  }
  // run, and fix of a program: the program and its arguments, from the first word that is
  // neither an option nor its value, or after `--` (program_args.hpp); the parser sees only
  // bankcheck's own words. check and fix of a file: everything after `--` goes to nvcc,
  // wherever the `--` stands.
  std::vector<std::string> program;
  if (const std::optional<ProgramWords> w = program_words(app, argc, argv)) {
    if (w->program >= 0) program.assign(argv + w->program, argv + argc);
    argc = w->end;
  }
  const std::vector<std::string> nvcc_flags = argc > 1 && std::strcmp(argv[1], "run") == 0
                                                  ? std::vector<std::string>{}
                                                  : take_nvcc_flags(argc, argv);
  check.nvcc_flags = nvcc_flags;
  fix.nvcc_flags = nvcc_flags;
  try {
    app.parse(argc, argv);
    run.command = program;
    fix.program = program;
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
    if (app.got_subcommand("diff")) return run_diff(diff);
  } catch (...) {
    // Every failure is one message and exit 2, never an abort. Worker threads are joined
    // before an exception leaves the driver (run_ctas.cpp).
    std::fprintf(stderr, "bankcheck: error: %s\n", error_message(std::current_exception()).c_str());
    return 2;
  }
  return 2;
}

}  // namespace bankcheck::tools
