// The progress line of `bankcheck run` (run_progress.hpp).
#include "run_progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace bankcheck::runtime {

RunProgress::RunProgress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}

RunProgress::~RunProgress() {
  {
    std::lock_guard<std::mutex> lock(m_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

driver::Progress* RunProgress::start(const std::string& kernel, std::uint64_t launch,
                                     std::uint64_t ctas, bool analysed) {
  counters_.ctas_done = 0;
  counters_.ctas_planned = ctas;
  if (!enabled_) return &counters_;
  std::lock_guard<std::mutex> lock(m_);
  label_ = fmt::format("launch {}: {} ({})", launch, kernel, analysed ? "analysed" : "executed");
  since_ = std::chrono::steady_clock::now();
  running_ = true;
  if (!thread_.joinable()) thread_ = std::thread([this] { draw_loop(); });
  cv_.notify_all();
  return &counters_;
}

void RunProgress::stop() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(m_);
  running_ = false;
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

void RunProgress::draw_loop() {
  std::unique_lock<std::mutex> lock(m_);
  while (!quit_) {
    cv_.wait_for(lock, std::chrono::milliseconds(250));
    if (quit_ || !running_) continue;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
    if (s < 1.0) continue;
    const std::uint64_t done = counters_.ctas_done.load(std::memory_order_relaxed);
    const std::uint64_t planned = counters_.ctas_planned.load(std::memory_order_relaxed);
    std::string left;
    if (done > 0 && planned > done)
      left = fmt::format(", about {:.0f} s left", s * static_cast<double>(planned - done) /
                                                       static_cast<double>(done));
    std::fprintf(stderr, "\r\033[Kbankcheck: %s: %llu of %llu CTAs, %.0f s%s", label_.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(planned),
                 s, left.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
}

}  // namespace bankcheck::runtime
