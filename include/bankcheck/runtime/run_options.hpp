// The protocol between `bankcheck run` and the program's side (the emulator's executor in
// bankcheck's CUDA library, the GPU tool): what the program's side is asked to do.
//
//   bankcheck run ──writes──▶ JOB/options.json (run_options_to_json: one member per field of
//                             the one table, typed) and sets BANKCHECK_RUN_JOB=JOB
//   each process of the program ──reads──▶ run_options_from_environment()
//
// A program started under bankcheck's library without `bankcheck run` (no BANKCHECK_RUN_JOB)
// gets the defaults: a text report on standard error at exit. What the program's side answers
// (its reports, how it ended) is a part of the job: run_job.hpp.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/runtime/launch_ledger.hpp"

namespace bankcheck::runtime {

// The environment variables of the protocol: the job directory, and the pid of the program
// `bankcheck run` started (its descendants are the other processes of the job).
inline constexpr const char* kJobVariable = "BANKCHECK_RUN_JOB";
inline constexpr const char* kRootVariable = "BANKCHECK_RUN_ROOT";
// The file in the job directory that holds the options.
inline constexpr const char* kOptionsFile = "options.json";

// What `bankcheck fix PROGRAM` asks of the run, and how `run`'s reports name that command.
struct RunFixOptions {
  // Record every shared request and give each finding fix's suggestion (run --no-fix: not).
  bool suggest = true;
  bool report = false;   // the report is fix's (each array's suggestions), not check's
  int top = 4;           // suggestions per array (fix --top)
  bool apply = false;    // write each source with its applicable fixes (FILE.fixed.cu)
  std::string apply_to;  // --apply-to: the one patched copy's path
  bool force = false;    // --force: replace an existing file there
  // The command that shows the suggestions of this run ("bankcheck fix ./app -n 4"; with
  // --apply after `fix`, writes them), for the reports to name.
  std::string command;
};

struct RunOptions {
  std::string format = "text";  // a format's name (report/views.hpp)
  std::string output;           // the report's file; empty: standard error
  std::string color = "auto";   // auto, always or never (text on standard error)
  int columns = 0;              // text: columns a bank picture may take (0: no limit)
  bool quiet = false;           // text: the findings only (report::TextOptions::quiet)
  // Which launches are analysed: --kernel, --kernel-name-base, --filter-mode, --launch-skip,
  // --launch-count, --launches, --nvtx-include, --nvtx-exclude (launch_ledger.hpp).
  LaunchSelection selection;
  // A launch beyond those analysed whose results are provably in memory already (it repeats
  // an earlier execution whose reads are unchanged and whose writes still hold:
  // src/driver/repeats.hpp) is not executed; false: every launch runs.
  bool skip_repeats = true;
  // Launches not analysed run on the fast tier (driver CheckOptions::fast_tier).
  bool fast_tier = true;
  // The fast tier runs runs of ALU instructions as native code (--native; CheckOptions::native).
  bool native = true;
  std::vector<std::string> fail_on;  // --fail-on specifications
  std::string baseline;              // --baseline: an earlier JSON report (absolute path)
  unsigned threads = 0;              // 0: every core
  bool progress = true;              // a progress line on a terminal
  bool sass = true;                  // false: --ptx-level
  bool stop_on_fault = false;        // --stop-on-fault
  std::string nvcc;                  // for ptxas, when a cubin must be built
  std::string program;               // the program as the user named it
  RunFixOptions fix;                 // fix's suggestions and --apply
  std::string working_dir;           // text: paths below it are shown relative to it

  // Not in the file: where it came from.
  std::string job;   // the job directory (empty: no `bankcheck run`)
  bool root = true;  // this process is the program bankcheck started (not a descendant)
};

// The options as the job's options file holds them, and back. A missing member keeps its
// default; a member of the wrong type or value is named in `error` (the default kept).
nlohmann::json run_options_to_json(const RunOptions& options);
RunOptions run_options_from_json(const nlohmann::json& j, std::string& error);

// Writes JOB/options.json. Throws std::runtime_error when it cannot.
void write_run_options(const std::string& job, const RunOptions& options);

// This process's options: the job BANKCHECK_RUN_JOB names (root when BANKCHECK_RUN_ROOT is this
// process's pid), or the defaults without one; a problem is a sentence in `error`.
RunOptions run_options_from_environment(std::string& error);

}  // namespace bankcheck::runtime
