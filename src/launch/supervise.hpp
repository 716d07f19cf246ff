// The program run under a guard, so that no process it starts outlives bankcheck:
//
//   bankcheck ──fork──▶ guard (subreaper: every orphaned descendant becomes its child) ──fork──▶
//                       program (PR_SET_PDEATHSIG: dies with the guard) ──▶ its descendants
//
//   bankcheck ◀──status pipe── guard: "started", "reaped PID STATUS" (the program and every
//                              orphan it reaps), "done" (no descendant left)
//   bankcheck ──command pipe─▶ guard: "forward SIGNAL to the program", "stop the rest";
//                              end of file (bankcheck ended, however: SIGKILL too): the guard
//                              kills every descendant and leaves
//
// Signals sent to bankcheck (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) reach the
// program through the guard. Run from a terminal's foreground, the guard and the program stay
// in bankcheck's process group (the terminal's own signals and input reach the program as
// they would without bankcheck, and are not forwarded twice); otherwise they are a process
// group of their own, which a signal to bankcheck's group (a CI runner's timeout) does not
// reach except through bankcheck.
#pragma once

#include <string>
#include <vector>

#include "bankcheck/runtime/run_job.hpp"

namespace bankcheck::launch {

struct Supervised {
  int status = 0;                // the program's wait status
  runtime::WaitStatuses reaped;  // every process the guard reaped (the program included)
  int stopped = 0;               // descendants still running when the program ended, stopped
};

// Starts `path` with `argv` and `envp` (BANKCHECK_RUN_ROOT is added: the program's own pid)
// and returns when the program and every process it started have ended. Descendants still
// running `grace_ms` after the program ended get SIGTERM, then SIGKILL. When bankcheck ends
// first, the guard removes `job` (the job's directory) once every descendant is gone. Throws
// LaunchError when nothing could be started.
Supervised supervise(const std::string& path, const std::vector<std::string>& argv,
                     const std::vector<std::string>& envp, const std::string& job,
                     int grace_ms = 2000);

}  // namespace bankcheck::launch
