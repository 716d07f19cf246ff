// The command line: subcommands, exit codes (0 done, 1 threshold crossed, 2 bad input).
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/report/diff.hpp"
#include "bankcheck/report/gate.hpp"
#include "bankcheck/report/views.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

// Bad input: the message already says what and where ("--addrs:1:9: ...").
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run(int argc, char** argv);

// A repeatable NAME=VALUE option (--arg, --var, --host-arg, --set) that gives one NAME twice
// is refused, naming both: one value winning silently hides the other. `assignments` are
// the option's values as given ("n=1"); the name is what comes before the first '='.
void refuse_repeated_names(const std::string& flag, const std::vector<std::string>& assignments);

// --format NAME: one of the formats whose view renders `kind` (report/views.hpp), stored
// parsed in `format` (its value there is the default); the help lists them and another
// name is refused with parse_format's message.
void add_format_option(CLI::App* c, report::Format& format, report::ReportKind kind,
                       const std::string& help);

// ---- the flags `check` and `fix` share for their text report and their CI gate

// --color auto|always|never.
void add_color_option(CLI::App* c, std::string& color);
// Whether the text report is coloured: always; never; auto: standard output is a terminal
// (not -o FILE), NO_COLOR is unset and TERM is not "dumb".
bool use_color(const std::string& color, const std::string& output);

// --fail-on SPEC (repeatable); `scope` ends its help text (what the gate tests).
void add_fail_on_option(CLI::App* c, std::vector<std::string>& fail_on, const std::string& scope);
// The parsed gates; a bad one is a UserError that says what is accepted.
std::vector<report::Gate> parse_gates(const std::vector<std::string>& specs);
// --baseline FILE.
void add_baseline_option(CLI::App* c, std::string& baseline);
// The baseline's findings (nullopt for no path); a file that is not a report is a UserError.
std::optional<report::DiffReport> read_baseline(const std::string& path);
// Tests `r` against every gate (report::crossed_gates: suppressed findings not counted; with
// a baseline, only new or worse ones): the first crossed one's summary on standard error, the
// others named after it ("bankcheck: --fail-on 'ways>1' crossed: ...; also 'excess>5%'").
// Returns whether any was crossed (the command then exits 1).
bool gates_crossed(const analysis::CheckReport& r, const std::vector<report::Gate>& gates,
                   const report::DiffReport* baseline = nullptr,
                   const std::string& baseline_name = "");

// --columns N and --quiet, the text report's layout (`columns` 0: not given).
void add_layout_options(CLI::App* c, int& columns, bool& quiet);
// The columns the text report may take: --columns when given; none (0) when it goes to a
// file (-o); the terminal's width when `fd` (where it goes) is a terminal; else $COLUMNS
// when set to a number; else none, so that pipes and files keep the full picture.
int text_columns(int flag, const std::string& output, int fd);

// --source-root DIR (SARIF's originalUriBaseIds).
void add_source_root_option(CLI::App* c, std::string& source_root);
// The source root of a SARIF log, absolute: --source-root when given (it must be a
// directory); else the root of the git repository holding the first input (the nearest
// directory above it with a .git); else the current directory.
std::string source_root(const std::string& flag, const std::vector<std::string>& inputs);

// --no-progress (the flag clears `progress`).
void add_progress_flag(CLI::App* c, bool& progress);

// The --help footer that lists a subcommand's exit codes: "Exit codes: 0 ...; 1 ...; 2 ...".
// `one`: what exit 1 means for it (empty: it never exits 1).
std::string exit_codes(const std::string& zero, const std::string& one, const std::string& two);

// What `bankcheck: error: ` is followed by for a failure: its located message (with the
// source line and a caret where there is one), printable(). Used for the run's error and
// for each file's error in a run over several files.
std::string error_message(const std::exception_ptr& failure);
// The same as the failure says it, control bytes and all.
std::string error_text(const std::exception_ptr& failure);
// `text` with its control bytes but line breaks and tabs written as \xNN: an input's byte
// 0x1b or 0x07 echoed in a message would drive the terminal, not be read.
std::string printable(const std::string& text);

}  // namespace bankcheck::tools
