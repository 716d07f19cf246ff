// A progress line for `bankcheck run` on a terminal: the launch being emulated, its CTAs done
// and an estimate of the time left, redrawn on standard error while a launch takes longer
// than a second, and cleared when it ends (the program's own output is never overwritten:
// nothing is drawn while no launch runs).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "bankcheck/driver/check.hpp"

namespace bankcheck::runtime {

class RunProgress {
 public:
  // Draws only when `enabled` and standard error is a terminal.
  explicit RunProgress(bool enabled);
  ~RunProgress();
  // A launch begins; returns the counters its analysis updates.
  driver::Progress* start(const std::string& kernel, std::uint64_t launch, std::uint64_t ctas,
                          bool analysed);
  // The launch ended (or failed): the line, if drawn, is cleared.
  void stop();

 private:
  void draw_loop();
  bool enabled_ = false;
  driver::Progress counters_;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool running_ = false, drawn_ = false, quit_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace bankcheck::runtime
