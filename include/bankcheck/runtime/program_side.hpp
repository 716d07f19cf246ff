// The program's side of a job of `bankcheck run` (run_job.hpp), for either backend: this
// process's part written as it goes, its journal, its last word whatever ends it, and what a
// forked child must forget.
//
//   backend (executor, GPU tool)            ProgramSide                     JOB/
//   ledger decides to analyse ──began(id)──▶ journal "b ID MANGLED" ──────▶ P.journal
//   counts merged ────────────counted(id)──▶ journal "c ID"; a part at once
//                                            when the last is 0.5 s old (or
//                                            20 times its writing time), else
//                                            by a thread when it is ──────▶ P.part
//   exit handler ─────────────exited()─────▶ the last part (Exited)
//   run agent: fatal signal, _exit ────────▶ P.end, then a part if the
//                                            backend's lock can be had ───▶ P.part
//
// Parts are built by the backend (`Snapshot`): its reports so far, with the ledger's
// analysed launches not yet counted as kPendingLaunch. Without a job (no `bankcheck run`)
// nothing is written and the backend reports by itself.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bankcheck/runtime/run_job.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {

// Where a part is asked for, which says what the backend's own lock is doing.
enum class SnapshotFrom : std::uint8_t {
  Launch,   // from the backend's launch handling: the caller holds the backend's lock
  Outside,  // from the exit handler or the part's own thread: the lock may be waited for
  Ending,   // from a signal handler or _exit: take the lock only if it is free
};

class ProgramSide {
 public:
  // Fills `part.reports`, `failures`, `launches`, `analysed`; false when it could
  // not (the lock was taken).
  using Snapshot = std::function<bool(ProcessPart& part, SnapshotFrom from)>;

  ProgramSide(const RunOptions& options, std::string backend, Snapshot snapshot);
  ~ProgramSide();
  ProgramSide(const ProgramSide&) = delete;
  ProgramSide& operator=(const ProgramSide&) = delete;

  bool in_job() const { return files_ != nullptr; }
  // True once in a forked child that inherited this object: its files are its own from then
  // on, and the backend forgets the parent's launches (ledger reset).
  bool forked_child();

  void began(std::uint64_t id, const std::string& mangled);
  // From the backend's launch handling, its lock held: a part when the last is old enough,
  // else one by the part's own thread when it is (counts never wait long to be saved).
  void counted(std::uint64_t id);
  void lost(std::uint64_t id, const std::string& reason);
  // At exit, from the backend's exit handler: the last part.
  void exited();
  // How long parts may lag behind the counts at least (more when writing one takes over a
  // twentieth of that: parts cost at most 5% of the run).
  static constexpr std::chrono::milliseconds kInterval{500};
  // The run agent's call (run_agent.h): `ending` a bankcheck_ending, `self` this object.
  static void on_ending(void* self, int ending, int value);

 private:
  void write(PartState state, int status, SnapshotFrom from);
  void flush_later();
  void stop_flusher();
  std::string job_, backend_;
  bool root_ = false;
  Snapshot snapshot_;
  std::unique_ptr<PartFiles> files_;
  std::int64_t owner_ = 0;  // the pid the files are for
  std::uint64_t start_time_ = 0;
  std::atomic<bool> writing_{false};
  std::atomic<bool> wrote_{false};
  std::atomic<std::chrono::steady_clock::time_point> last_{};
  std::atomic<std::chrono::steady_clock::duration> interval_{kInterval};
  // The thread that writes a part the interval held back (made when first needed; a forked
  // child, which does not have it, makes its own).
  std::thread* flusher_ = nullptr;
  std::mutex flush_mutex_;
  std::condition_variable flush_cv_;
  bool dirty_ = false, stop_ = false;
};

}  // namespace bankcheck::runtime
