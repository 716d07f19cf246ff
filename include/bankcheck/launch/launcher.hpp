// The launcher of `bankcheck run`: the program classified (driver/binary_input.hpp), a job
// directory for it (runtime/run_job.hpp) with the options of the protocol
// (runtime/run_options.hpp), the environment that loads the backend and the run agent, the
// program started under a guard that ends every process it starts when bankcheck ends,
// signals forwarded, the job's parts collected into one report, and bankcheck's exit code.
//
//   CLI ──Request──▶ check_program ─▶ backend's libraries ─▶ JOB/options.json ─▶ environment
//                                                                                    │
//   exit code ◀── write_run_reports ◀── job_reports(read_job) ◀── supervise(program) ◀┘
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::launch {

// Something that stops the program from running under bankcheck, said before it starts
// (bankcheck exits 2 with it).
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Backend : std::uint8_t { Auto, Emulator, Gpu };

struct Request {
  std::vector<std::string> command;  // the program and its arguments
  Backend backend = Backend::Auto;
  std::string arch = "sm_90";   // the emulator's device
  runtime::RunOptions options;  // what the program's side is asked (output as given)
};

// Runs the program; returns bankcheck's exit code: the program's own, 1 for a crossed gate
// (the program succeeded), 2 for bankcheck's own failures, 128+N when the program was killed
// by signal N. Throws LaunchError before the program starts for a program, option or build
// of bankcheck that cannot run.
int run(const Request& request);

// The checks run() makes before it starts anything, on their own (for tests): throws
// LaunchError.
void check_selection(const runtime::LaunchSelection& selection);

}  // namespace bankcheck::launch
