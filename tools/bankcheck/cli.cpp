// Subcommand wiring and error reporting for the bankcheck command line.
#include "cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "bankcheck/driver/check.hpp"
#include "bankcheck/explain/expr.hpp"
#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"
#include "bankcheck/version.hpp"
#include "check_cmd.hpp"
#include "explain_cmd.hpp"
#include "fix_cmd.hpp"

namespace bankcheck::tools {

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
           "--max-memory; docs/limits.md)";
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
  // CLI11 reads an unknown word where a subcommand goes as a stray positional and says
  // "A subcommand is required"; name the word instead.
  bool known = false;
  if (argc > 1)
    for (const CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{}))
      known = known || sub->get_name() == argv[1];
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr,
                 "bankcheck: error: unknown subcommand '%s' (expected explain, check, fix or "
                 "occupancy)\n(run 'bankcheck --help' for usage)\n",
                 argv[1]);
    return 2;
  }
  // check and fix: everything after `--` goes to nvcc, wherever the `--` stands.
  const std::vector<std::string> nvcc_flags = take_nvcc_flags(argc, argv);
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
  } catch (...) {
    // Every failure is one message and exit 2, never an abort. Worker threads are joined
    // before an exception leaves the driver (run_ctas.cpp).
    std::fprintf(stderr, "bankcheck: error: %s\n", error_message(std::current_exception()).c_str());
    return 2;
  }
  return 2;
}

}  // namespace bankcheck::tools
