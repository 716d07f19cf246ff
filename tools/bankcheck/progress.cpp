// The progress line: a thread that wakes every 100 ms, waits out the first second, then
// redraws one line on standard error.
#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bankcheck::tools {
namespace {

constexpr auto kDelay = std::chrono::seconds(1);
constexpr auto kTick = std::chrono::milliseconds(100);

std::string thousands(std::uint64_t n) {
  std::string s = std::to_string(n), o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) o += ',';
    o += s[i];
  }
  return o;
}

}  // namespace

bool ProgressLine::wanted() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
}

ProgressLine::ProgressLine(const driver::Progress& progress) : progress_(progress) {
  if (wanted()) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void ProgressLine::loop() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!cv_.wait_for(lock, kTick, [this] { return stop_; })) {
    if (std::chrono::steady_clock::now() - start < kDelay) continue;
    const int kernel = progress_.kernel.load(std::memory_order_relaxed);
    const auto fill_total = progress_.fill_total.load(std::memory_order_relaxed);
    std::string line;
    if (fill_total > 0) {  // a `random` buffer of a gigabyte takes a second or more
      const auto fill_done = progress_.fill_done.load(std::memory_order_relaxed);
      line = fmt::format("bankcheck: filling a buffer with random data: {} of {} MiB ({:.0f}%)",
                         thousands(fill_done >> 20), thousands(fill_total >> 20),
                         100.0 * static_cast<double>(fill_done) / static_cast<double>(fill_total));
    } else if (kernel == 0) {
      line = "bankcheck: compiling and loading ...";
    } else {
      const auto done = progress_.ctas_done.load(std::memory_order_relaxed);
      const auto planned = progress_.ctas_planned.load(std::memory_order_relaxed);
      line = fmt::format("bankcheck: kernel {} of {}: {}{} CTA{}", kernel,
                         progress_.kernels.load(std::memory_order_relaxed), thousands(done),
                         planned ? " of " + thousands(planned) : std::string(),
                         (planned ? planned : done) == 1 ? "" : "s");
      if (planned)
        line += fmt::format(" ({:.0f}%)",
                            100.0 * static_cast<double>(done) / static_cast<double>(planned));
    }
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
}

}  // namespace bankcheck::tools
