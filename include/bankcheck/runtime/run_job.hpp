// A job of `bankcheck run`: the directory bankcheck makes for one run of a program. Each
// process of the program that runs kernels leaves its part there as it goes, and bankcheck
// writes the one report of the job from the parts, whatever became of the processes.
//
//   JOB/options.json             what the processes are asked to do (run_options.hpp)
//   JOB/P.part                   a process's reports so far (ProcessPart as JSON), replaced
//                                whole (written aside, then renamed) after analysed launches,
//                                at exit, at a fatal signal, at _exit
//   JOB/P.journal                its analysed launches as they begin, are counted or are lost,
//                                one line each, appended as they happen ("b ID MANGLED",
//                                "c ID", "l ID REASON"): what happened after the last part
//   JOB/P.end                    how it ended when that was a signal or _exit, written from
//                                the signal handler before anything that could fail
//   (P: the process's pid and start time, "4242-1718000000": no process overwrites another)
//
// The program's side writes through PartFiles; bankcheck reads the job with read_job and
// turns it into reports with job_reports (job_report.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/fix.hpp"

namespace bankcheck::runtime {

// The reason a part gives an analysed launch that was neither counted nor lost when the part
// was written; bankcheck words it from how the process ended.
inline constexpr const char* kPendingLaunch = "pending";
// The same launch in a report a process writes itself at exit (no job).
inline constexpr const char* kNotReadBack =
    "its counts were never read back before the program exited";

// How a part came to be written.
enum class PartState : std::uint8_t {
  Running,  // after an analysed launch: the process went on
  Exited,   // at exit (exit(), a return from main): its last word
  ExitNow,  // at _exit or _Exit (`status`)
  Signal,   // at a fatal signal (`status`: its number), before the process died of it
};
std::string_view part_state_name(PartState s);

// One process's part of a job.
struct ProcessPart {
  analysis::ProcessInfo process;  // pid, ppid, command, rank, root (ending: bankcheck's words)
  std::uint64_t start_time = 0;   // in clock ticks since boot (/proc/PID/stat), for the order
  std::string backend;            // "emulator" or "gpu"
  PartState state = PartState::Running;
  int status = 0;
  // One report per module with an analysed kernel, in the order of their first analysed
  // launches (or refused ones). Analysed launches not counted whole are each kernel's
  // `incomplete`, pending ones with the reason kPendingLaunch.
  std::vector<analysis::CheckReport> reports;
  // fix's advice for each report's kernels (parallel to `reports`), in the part written at
  // exit (the advisor replays the recorded requests once, at the end); empty otherwise.
  std::vector<std::vector<analysis::KernelFix>> fixes;
  std::vector<std::string> failures;  // bankcheck's own errors: the run exits 2
  std::uint64_t launches = 0, analysed = 0;
};

nlohmann::json part_to_json(const ProcessPart& part);
// Throws std::invalid_argument naming `what` and the field.
ProcessPart part_from_json(const nlohmann::json& j, const std::string& what);

// This process as a part describes it: pid, ppid, command line, rank from the environment.
analysis::ProcessInfo this_process();
// This process's start time in clock ticks since boot (0 when /proc does not say).
std::uint64_t this_process_start_time();

// The files of one process in a job (the program's side).
class PartFiles {
 public:
  // For this process (its pid and start time). Nothing is made until something is written.
  explicit PartFiles(const std::string& job);
  ~PartFiles();
  PartFiles(const PartFiles&) = delete;
  PartFiles& operator=(const PartFiles&) = delete;

  // Replaces the part whole. Returns false (errno set) when it cannot be written.
  bool write(const ProcessPart& part);
  void began(std::uint64_t id, const std::string& mangled);
  void counted(std::uint64_t id);
  void lost(std::uint64_t id, const std::string& reason);
  // Async-signal-safe: JOB/P.end says "signal N" or "exit N".
  void mark_end(const char* how, int n) noexcept;
  const std::string& name() const { return name_; }

 private:
  void append(const std::string& line);
  std::string job_, name_;
  int journal_ = -1;
  char end_path_[4096] = {};
};

// A process of a job as bankcheck finds it.
struct JobProcess {
  std::string name;                 // P
  std::optional<ProcessPart> part;  // null when its part is missing or unreadable
  std::string problem;              // why it is
  // From the journal: analysed launches, and which were counted or lost (with the reason).
  std::map<std::uint64_t, std::string> began;                 // id -> mangled
  std::map<std::uint64_t, std::optional<std::string>> ended;  // counted: nullopt; lost: reason
  std::optional<std::pair<std::string, int>> end;  // from P.end: ("signal", 11), ("exit", 3)
};

// Every process of the job in `dir`, the program bankcheck started first, then by start time.
std::vector<JobProcess> read_job(const std::string& dir);

// What bankcheck knows of a process's end beyond its files: the wait status of the processes
// it reaped (the program, and descendants orphaned to it), by pid.
using WaitStatuses = std::map<std::int64_t, int>;

// The job's reports, each with its process (ending, incompleteness in words) and the launches
// its process analysed after its last part placed among its kernels' incomplete ones.
// `failures` gets every process's own errors. Launches that did not run are in the reports
// (CheckReport::not_run). Reports of several processes come in the order of read_job.
struct JobReports {
  std::vector<analysis::CheckReport> reports;
  // fix's advice for each report's kernels (parallel to `reports`) when every process that
  // has reports gave it (they reached their exit); empty otherwise.
  std::vector<std::vector<analysis::KernelFix>> fixes;
  std::vector<std::string> failures;  // the processes' own errors (each said by its process)
  std::vector<std::string> problems;  // the job's: a process whose record is unreadable
  std::size_t processes = 0;          // processes with a part
};
JobReports job_reports(const std::vector<JobProcess>& job, const WaitStatuses& statuses);

// "killed by SIGSEGV (Segmentation fault)", "exited with code 3".
std::string describe_wait_status(int status);
std::string signal_words(int signal);

}  // namespace bankcheck::runtime
