// The kept threads (workers.hpp): one pool for the process, its threads waiting between
// jobs, never joined (the process ends with them waiting). A thread that finished a job
// spins a little before it sleeps, and so does the caller waiting for the parts: a
// launch-heavy program launches its next kernel within microseconds, and a futex's sleep
// and wake-up cost more than the small launches' own work. A child process that fork()
// made has none of its parent's threads: it starts a pool of its own.
#include "workers.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace bankcheck::driver {
namespace {

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until done() or about `us` microseconds have passed; true when done.
template <typename Done>
bool spin(Done done, int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      relax();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

constexpr int kSpinMicroseconds = 200;

struct Pool {
  std::mutex busy;  // one caller's job at a time; another caller runs its parts itself
  std::mutex m;     // guards the sleeps and the fields below that are not atomic
  std::condition_variable start, finished;
  std::vector<std::thread> threads;  // thread i runs part i + 1
  const std::function<void(unsigned)>* part = nullptr;
  unsigned parts = 0;                 // the current job's parts
  std::atomic<std::uint64_t> job{0};  // the current job's number: a thread runs each once
  std::atomic<unsigned> running{0};   // its parts on kept threads not yet returned
  std::exception_ptr error;

  void loop(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      if (!spin([&] { return job.load(std::memory_order_acquire) != seen; }, kSpinMicroseconds)) {
        std::unique_lock<std::mutex> lock(m);
        start.wait(lock, [&] { return job.load(std::memory_order_acquire) != seen; });
      }
      const std::function<void(unsigned)>* p;
      {
        std::lock_guard<std::mutex> lock(m);
        seen = job.load(std::memory_order_acquire);
        if (index + 1 >= parts) continue;
        p = part;
      }
      std::exception_ptr e;
      try {
        (*p)(index + 1);
      } catch (...) {
        e = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m);
      if (e && !error) error = e;
      if (running.fetch_sub(1, std::memory_order_acq_rel) == 1) finished.notify_all();
    }
  }
};

Pool& pool() {
  // Never destroyed: its threads stay until the process ends. After a fork() the child
  // makes its own (the parent's threads are not in the child, and its mutexes may have been
  // held).
  static pid_t owner = 0;
  static Pool* p = nullptr;
  static std::mutex made;
  std::lock_guard<std::mutex> lock(made);
  if (!p || owner != ::getpid()) {
    p = new Pool;
    owner = ::getpid();
  }
  return *p;
}

}  // namespace

void run_parts(unsigned n, const std::function<void(unsigned)>& part) {
  if (n <= 1) {
    part(0);
    return;
  }
  Pool& p = pool();
  std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
  unsigned kept = 0;  // parts 1 .. kept run on kept threads
  if (busy.owns_lock()) {
    std::lock_guard<std::mutex> lock(p.m);
    while (p.threads.size() + 1 < n) {
      try {
        const unsigned index = static_cast<unsigned>(p.threads.size());
        p.threads.emplace_back([&p, index] { p.loop(index); });
      } catch (...) {
        break;  // fewer threads: the calling thread runs the rest
      }
    }
    kept = std::min<unsigned>(n - 1, static_cast<unsigned>(p.threads.size()));
    p.part = &part;
    p.parts = kept + 1;
    p.error = nullptr;
    p.running.store(kept, std::memory_order_relaxed);
    p.job.fetch_add(1, std::memory_order_release);
    p.start.notify_all();
  }
  std::exception_ptr error;
  try {
    part(0);
  } catch (...) {
    error = std::current_exception();
  }
  for (unsigned i = kept + 1; i < n; ++i) {
    try {
      part(i);
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (kept) {
    const auto done = [&] { return p.running.load(std::memory_order_acquire) == 0; };
    spin(done, kSpinMicroseconds);
    std::unique_lock<std::mutex> lock(p.m);
    p.finished.wait(lock, done);
    if (p.error && !error) error = p.error;
    p.part = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace bankcheck::driver
