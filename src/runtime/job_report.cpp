// A job's parts turned into its reports (run_job.hpp's job_reports): each process's ending in
// words, and every way its report falls short of what it did (killed, launches that had not
// ended, launches analysed after its last part) said where it applies.
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/runtime/run_job.hpp"

namespace bankcheck::runtime {
namespace {

// The program by its name; a descendant by its pid too (the job's processes often share a name).
std::string program_of(const analysis::ProcessInfo& p) {
  if (p.command.empty()) return fmt::format("process {}", p.pid);
  return p.root ? p.command.front() : fmt::format("process {} ({})", p.pid, p.command.front());
}

// How a process ended, from the best source there is: its wait status (bankcheck reaped it),
// its end marker (its signal handler or _exit wrote it), its last part.
struct Ending {
  std::string words;  // "killed by SIGSEGV (Segmentation fault)", "exited with code 0"
  int exit_code = -1;
  int signal = 0;
  bool known = true;      // false: it ended without a word (SIGKILL, or not yet ended)
  bool exit_now = false;  // _exit
};

Ending ending_of(const JobProcess& jp, const WaitStatuses& statuses) {
  Ending e;
  const ProcessPart* part = jp.part ? &*jp.part : nullptr;
  if (part)
    if (const auto it = statuses.find(part->process.pid); it != statuses.end()) {
      const int st = it->second;
      e.words = describe_wait_status(st);
      if (WIFEXITED(st)) e.exit_code = WEXITSTATUS(st);
      if (WIFSIGNALED(st)) e.signal = WTERMSIG(st);
      // A process that ended with _exit says so in its part or end marker.
      e.exit_now = (jp.end && jp.end->first == "exit") || (part->state == PartState::ExitNow);
      if (e.exit_now && e.exit_code >= 0)
        e.words = fmt::format("ended with _exit({})", e.exit_code);
      return e;
    }
  if (jp.end && jp.end->first == "signal") {
    e.signal = jp.end->second;
    e.words = "killed by " + signal_words(e.signal);
    return e;
  }
  if (jp.end && jp.end->first == "exit") {
    e.exit_code = jp.end->second;
    e.exit_now = true;
    e.words = fmt::format("ended with _exit({})", e.exit_code);
    return e;
  }
  if (part && part->state == PartState::Exited) {
    e.words = "exited";
    return e;
  }
  if (part && part->state == PartState::ExitNow) {
    e.exit_code = part->status;
    e.exit_now = true;
    e.words = fmt::format("ended with _exit({})", e.exit_code);
    return e;
  }
  if (part && part->state == PartState::Signal) {
    e.signal = part->status;
    e.words = "killed by " + signal_words(e.signal);
    return e;
  }
  e.known = false;
  e.words = "ended without a last word (killed by SIGKILL, or by a signal it could not catch)";
  return e;
}

// "was killed by SIGKILL (Killed)", "exited with code 0": what the process did, after "the
// process".
std::string did(const Ending& e) { return (e.signal ? "was " : "") + e.words; }

// Why an analysed launch that was never counted whole is missing, from how its process ended.
std::string pending_reason(const Ending& e, bool after_last_part) {
  if (after_last_part)
    return "its counts were taken after the process's last record, and the process " + did(e) +
           " before writing another";
  if (e.signal) return "it had not ended when the process was " + e.words;
  if (e.exit_now) return "it had not ended when the process " + e.words;
  if (!e.known) return "it had not ended when the process " + e.words;
  return kNotReadBack;
}

}  // namespace

std::string signal_words(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  const char* text = sigdescr_np(signal);
  if (!abbrev) return fmt::format("signal {}", signal);
  return fmt::format("SIG{}{}", abbrev, text ? fmt::format(" ({})", text) : "");
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return "killed by " + signal_words(WTERMSIG(status));
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  return "ended";
}

JobReports job_reports(const std::vector<JobProcess>& job, const WaitStatuses& statuses) {
  JobReports out;
  bool all_advised = true;  // every process with reports gave fix's advice
  for (const JobProcess& jp : job) {
    if (!jp.part) {
      if (!jp.began.empty())
        out.problems.push_back(
            fmt::format("process {} analysed {} launch{} but left no readable record of them{}",
                        jp.name, jp.began.size(), jp.began.size() == 1 ? "" : "es",
                        jp.problem.empty() ? "" : " (" + jp.problem + ")"));
      continue;
    }
    ++out.processes;
    const ProcessPart& part = *jp.part;
    const Ending e = ending_of(jp, statuses);
    analysis::ProcessInfo info = part.process;
    info.ending = e.words;
    info.exit_code = e.exit_code;
    info.signal = e.signal;
    const std::string program = program_of(info);
    if (e.signal)
      info.incomplete.push_back(fmt::format(
          "{} was {}: the kernels it would have launched after that are not in the report", program,
          e.words));
    else if (!e.known)
      info.incomplete.push_back(fmt::format(
          "{} {}: what it analysed after its last record is missing", program, e.words));
    for (const auto& f : part.failures) out.failures.push_back(f);

    std::vector<analysis::CheckReport> reports = part.reports;
    // The launches each kernel's report covers (counted, or incomplete already).
    std::set<std::uint64_t> in_part;
    for (auto& r : reports)
      for (auto& k : r.kernels) {
        for (const auto& c : k.launches)
          in_part.insert(c.analysed_ids.begin(), c.analysed_ids.end());
        for (auto& l : k.incomplete) {
          if (l.reason != kPendingLaunch) continue;
          // Counted or lost after the part was written: the journal says which.
          const auto ended = jp.ended.find(l.id);
          if (ended != jp.ended.end() && ended->second)
            l.reason = *ended->second;
          else if (ended != jp.ended.end())
            l.reason = pending_reason(e, /*after_last_part=*/true);
          else
            l.reason = pending_reason(e, false);
        }
      }
    // Analysed after the last part: the kernel's report when there is one, else the process's.
    std::map<std::string, std::vector<std::uint64_t>> unplaced;  // mangled -> ids
    for (const auto& [id, mangled] : jp.began) {
      if (in_part.count(id)) continue;
      const auto ended = jp.ended.find(id);
      const std::string reason = ended != jp.ended.end() && ended->second
                                     ? *ended->second
                                     : pending_reason(e, ended != jp.ended.end());
      analysis::KernelReport* k = nullptr;
      for (auto& r : reports)
        for (auto& kr : r.kernels)
          if (kr.mangled == mangled) k = &kr;
      if (k)
        k->incomplete.push_back({id, reason});
      else
        unplaced[mangled].push_back(id);
    }
    for (const auto& [mangled, ids] : unplaced)
      info.incomplete.push_back(fmt::format(
          "kernel {}: {} analysed launch{} after the process's last record, not counted: the "
          "process {} before writing another",
          driver::base_name(driver::demangle(mangled)), ids.size(), ids.size() == 1 ? "" : "es",
          did(e)));
    for (auto& r : reports)
      for (auto& k : r.kernels)
        std::sort(k.incomplete.begin(), k.incomplete.end(),
                  [](const auto& a, const auto& b) { return a.id < b.id; });
    // A process whose report would be empty still says what it is missing.
    if (reports.empty() && !info.incomplete.empty()) {
      analysis::CheckReport r;
      r.input = info.command.empty() ? program : info.command.front();
      reports.push_back(std::move(r));
    }
    // fix's advice, where the process reached its exit (its last part has it).
    const bool advised = !part.fixes.empty() && part.fixes.size() == reports.size();
    all_advised = all_advised && (advised || reports.empty());
    for (std::size_t i = 0; i < reports.size(); ++i) {
      reports[i].process = info;
      out.reports.push_back(std::move(reports[i]));
      out.fixes.push_back(advised ? part.fixes[i] : std::vector<analysis::KernelFix>{});
    }
  }
  if (!all_advised) out.fixes.clear();
  return out;
}

}  // namespace bankcheck::runtime
