// Subcommand wiring and error reporting for the bankcheck command line.
#include "cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "bankcheck/explain/expr.hpp"
#include "explain_cmd.hpp"

namespace bankcheck::tools {

int run(int argc, char** argv) {
  CLI::App app{"bankcheck: finds, explains and fixes shared-memory bank conflicts in CUDA kernels",
               "bankcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bankcheck 0.1.0");
  ExplainOptions explain;
  add_explain(app, explain);
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
  } catch (const explain::ExprError& e) {
    const std::string where = e.column > 0 ? fmt::format("{}:1:{}", e.source, e.column) : e.source;
    std::fprintf(stderr, "bankcheck: error: %s: %s\n", where.c_str(), e.what());
    std::string caret = explain::caret_line(e);
    if (!caret.empty()) {
      std::string indented = "  ";
      for (char c : caret) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
      std::fprintf(stderr, "%s\n", indented.c_str());
    }
    return 2;
  } catch (const UserError& e) {
    std::fprintf(stderr, "bankcheck: error: %s\n", e.what());
    return 2;
  }
  return 2;
}

}  // namespace bankcheck::tools
