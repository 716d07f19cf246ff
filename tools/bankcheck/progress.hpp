// A progress line on standard error for runs longer than a second, when standard error is
// a terminal: "bankcheck: kernel 2 of 4: 12,345 of 65,536 CTAs". Cleared when the run ends.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "bankcheck/driver/check.hpp"

namespace bankcheck::tools {

class ProgressLine {
 public:
  // Shows nothing unless standard error is a terminal (and TERM is not "dumb").
  explicit ProgressLine(const driver::Progress& progress);
  ~ProgressLine();  // stops and erases the line (also when the run throws)
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  static bool wanted();  // standard error is a terminal

 private:
  void loop();
  const driver::Progress& progress_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool shown_ = false;
  std::thread thread_;
};

// The progress line of one run (check, fix), shown when `enabled` (no --no-progress) and
// standard error is a terminal: it points `options.progress` at its counters, and the line
// goes when this does. Make it before the run and let it end right after.
class RunProgress {
 public:
  RunProgress(bool enabled, driver::CheckOptions& options) {
    if (!enabled || !ProgressLine::wanted()) return;
    options.progress = &progress_;
    line_.emplace(progress_);
  }
  // Erases the line now (before printing something else on standard error); the counters
  // stay for the run.
  void stop() { line_.reset(); }

 private:
  driver::Progress progress_;
  std::optional<ProgressLine> line_;
};

}  // namespace bankcheck::tools
