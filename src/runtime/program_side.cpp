// The program's side of a job (program_side.hpp).
#include "bankcheck/runtime/program_side.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include "bankcheck/runtime/run_agent.h"

namespace bankcheck::runtime {
namespace {

// The agent's callback (a C function type): ProgramSide's own handler does the rest.
void ending_from_agent(void* self, bankcheck_ending ending, int value) {
  ProgramSide::on_ending(self, static_cast<int>(ending), value);
}

}  // namespace

ProgramSide::ProgramSide(const RunOptions& options, std::string backend, Snapshot snapshot)
    : job_(options.job),
      backend_(std::move(backend)),
      root_(options.root),
      snapshot_(std::move(snapshot)) {
  if (job_.empty()) return;
  files_ = std::make_unique<PartFiles>(job_);
  owner_ = ::getpid();
  start_time_ = this_process_start_time();
  // The run agent, when bankcheck run preloaded it, says when no exit handler will run.
  if (const auto reg = reinterpret_cast<bankcheck_agent_register_fn>(
          ::dlsym(RTLD_DEFAULT, BANKCHECK_AGENT_REGISTER)))
    reg(&ending_from_agent, this);
}

ProgramSide::~ProgramSide() { stop_flusher(); }

bool ProgramSide::forked_child() {
  if (!files_ || ::getpid() == owner_) return false;
  owner_ = ::getpid();
  start_time_ = this_process_start_time();
  files_ = std::make_unique<PartFiles>(job_);
  root_ = false;
  wrote_ = false;
  last_ = std::chrono::steady_clock::time_point{};
  // The parent's thread is not here: its object is the parent's (left alone), and the lock and
  // flags start afresh.
  flusher_ = nullptr;
  new (&flush_mutex_) std::mutex;
  new (&flush_cv_) std::condition_variable;
  dirty_ = stop_ = false;
  return true;
}

void ProgramSide::flush_later() {
  std::lock_guard<std::mutex> lock(flush_mutex_);
  dirty_ = true;
  if (!flusher_ && !stop_)
    flusher_ = new std::thread([this] {
      std::unique_lock<std::mutex> lock(flush_mutex_);
      for (;;) {
        flush_cv_.wait(lock, [this] { return dirty_ || stop_; });
        if (stop_) return;
        // The part is written when the last one is old enough.
        const auto due = last_.load() + interval_.load();
        if (flush_cv_.wait_until(lock, due, [this] { return stop_; })) return;
        dirty_ = false;
        lock.unlock();
        write(PartState::Running, 0, SnapshotFrom::Outside);
        lock.lock();
      }
    });
  flush_cv_.notify_one();
}

void ProgramSide::stop_flusher() {
  std::thread* t = nullptr;
  {
    std::lock_guard<std::mutex> lock(flush_mutex_);
    stop_ = true;
    t = flusher_;
    flusher_ = nullptr;
  }
  flush_cv_.notify_all();
  if (t && t->joinable()) t->join();
  delete t;
}

void ProgramSide::began(std::uint64_t id, const std::string& mangled) {
  if (files_ && ::getpid() == owner_) files_->began(id, mangled);
}

void ProgramSide::counted(std::uint64_t id) {
  if (!files_ || ::getpid() != owner_) return;
  files_->counted(id);
  if (!wrote_ || std::chrono::steady_clock::now() - last_.load() >= interval_.load())
    write(PartState::Running, 0, SnapshotFrom::Launch);
  else
    flush_later();
}

void ProgramSide::lost(std::uint64_t id, const std::string& reason) {
  if (files_ && ::getpid() == owner_) files_->lost(id, reason);
}

void ProgramSide::exited() {
  if (!files_ || forked_child()) return;  // a forked child that never ran a kernel says nothing
  stop_flusher();
  write(PartState::Exited, 0, SnapshotFrom::Outside);
}

void ProgramSide::on_ending(void* self, int ending, int value) {
  auto* s = static_cast<ProgramSide*>(self);
  // A vfork child shares this memory, a fork child has not used it yet: not theirs to write.
  if (!s->files_ || ::getpid() != s->owner_) return;
  const bool signal = ending == BANKCHECK_ENDING_SIGNAL;
  s->files_->mark_end(signal ? "signal" : "exit", value);
  s->write(signal ? PartState::Signal : PartState::ExitNow, value, SnapshotFrom::Ending);
}

void ProgramSide::write(PartState state, int status, SnapshotFrom from) {
  bool idle = false;
  if (!writing_.compare_exchange_strong(idle, true)) return;  // a signal while writing one
  ProcessPart part;
  part.process = this_process();
  part.process.root = root_;
  part.start_time = start_time_;
  part.backend = backend_;
  part.state = state;
  part.status = status;
  const auto began = std::chrono::steady_clock::now();
  const bool taken = snapshot_(part, from);
  if (!taken && from == SnapshotFrom::Ending && !wrote_) {
    // Ending inside the process's first analysed launch, whose state the executor holds: a
    // part without reports, so that the job still has the process, its end, and (from the
    // journal) the launch it was in. A part already written keeps its reports.
    part.reports.clear();
    part.failures.clear();
    if (files_->write(part)) wrote_ = true;
  }
  if (taken) {
    // A descendant that never launched a kernel leaves no part (the program always does).
    const bool anything = root_ || part.launches || !part.reports.empty() || !part.failures.empty();
    if (anything && files_->write(part)) {
      wrote_ = true;
      last_ = std::chrono::steady_clock::now();
      // Parts cost at most a twentieth of the run: a large report is written less often.
      interval_ =
          std::max<std::chrono::steady_clock::duration>(kInterval, 20 * (last_.load() - began));
    }
  }
  writing_ = false;
}

}  // namespace bankcheck::runtime
