// The kept threads (src/driver/workers.hpp): every part runs once per job, on as many
// threads as asked, job after job on the same threads; an exception comes back to the
// caller after every part returned; a second caller while a job runs runs its own parts
// itself; a child process that fork() made runs its jobs on threads of its own.
#include "workers.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bankcheck::driver {
namespace {

TEST(Workers, EveryPartRunsOncePerJob) {
  for (unsigned n : {1u, 2u, 3u, 5u, 2u, 8u}) {
    for (int job = 0; job < 50; ++job) {
      std::vector<std::atomic<int>> runs(n);
      run_parts(n, [&](unsigned i) { runs[i].fetch_add(1); });
      for (unsigned i = 0; i < n; ++i) ASSERT_EQ(runs[i].load(), 1) << "part " << i << " of " << n;
    }
  }
}

TEST(Workers, PartsRunOnThreadsKeptFromJobToJob) {
  std::mutex m;
  std::set<std::thread::id> ids;
  const auto job = [&] {
    std::atomic<int> waiting{0};
    run_parts(3, [&](unsigned) {
      {
        std::lock_guard<std::mutex> lock(m);
        ids.insert(std::this_thread::get_id());
      }
      // Every part waits for the others: three threads at once, not one after another.
      waiting.fetch_add(1);
      while (waiting.load() < 3) std::this_thread::yield();
    });
  };
  job();
  EXPECT_EQ(ids.size(), 3u);
  for (int i = 0; i < 20; ++i) job();
  EXPECT_EQ(ids.size(), 3u);  // the same two kept threads and the caller's
}

TEST(Workers, AnExceptionReachesTheCallerAfterEveryPart) {
  std::atomic<int> finished{0};
  EXPECT_THROW(run_parts(4,
                         [&](unsigned i) {
                           if (i == 2) throw std::runtime_error("part 2");
                           std::this_thread::sleep_for(std::chrono::milliseconds(5));
                           finished.fetch_add(1);
                         }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 3);
  // The pool goes on.
  std::atomic<int> runs{0};
  run_parts(4, [&](unsigned) { runs.fetch_add(1); });
  EXPECT_EQ(runs.load(), 4);
}

TEST(Workers, ASecondCallerRunsItsPartsItself) {
  std::atomic<bool> inside{false}, release{false};
  std::thread first([&] {
    run_parts(2, [&](unsigned i) {
      if (i == 0) {
        inside = true;
        while (!release) std::this_thread::yield();
      }
    });
  });
  while (!inside) std::this_thread::yield();
  std::set<std::thread::id> ids;
  run_parts(3, [&](unsigned) { ids.insert(std::this_thread::get_id()); });  // no lock: one thread
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
  release = true;
  first.join();
}

TEST(Workers, AForkedChildRunsJobsOnThreadsOfItsOwn) {
  run_parts(2, [](unsigned) {});  // the parent's pool exists
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::atomic<int> runs{0};
    run_parts(3, [&](unsigned) { runs.fetch_add(1); });
    ::_exit(runs.load() == 3 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace bankcheck::driver
