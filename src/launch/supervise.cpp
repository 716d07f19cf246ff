// The program under a guard (supervise.hpp).
#include "supervise.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "bankcheck/launch/launcher.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::launch {
namespace {

// Guard to bankcheck.
enum : std::int32_t { kStarted = 1, kReaped = 2, kDone = 3, kExecFailed = 4, kStopping = 5 };
struct Record {
  std::int32_t kind = 0, pid = 0, value = 0;
};
// Bankcheck to guard: kForward then the signal's number; kStopRest.
constexpr char kForward = 'F', kStopRest = 'T';

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

int g_signal_pipe = -1;  // bankcheck's handler writes (signal, from the terminal) here

void on_forwarded(int sig, siginfo_t* info, void*) {
  const int saved = errno;
  const unsigned char msg[2] = {static_cast<unsigned char>(sig),
                                static_cast<unsigned char>(info && info->si_code == SI_KERNEL)};
  [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe, msg, 2);
  errno = saved;
}

void send(int fd, const Record& r) { [[maybe_unused]] const ssize_t n = ::write(fd, &r, sizeof r); }

// Every process below `root` in the process tree, from /proc.
std::vector<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (*end || pid <= 0) continue;
      std::ifstream stat(fmt::format("/proc/{}/stat", pid));
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      const std::size_t close = text.rfind(')');
      if (close == std::string::npos || close + 4 >= text.size()) continue;
      // ") S PPID ...": the state, then the parent.
      const long ppid = std::strtol(text.c_str() + close + 4, nullptr, 10);
      children.emplace(static_cast<pid_t>(ppid), static_cast<pid_t>(pid));
    }
    ::closedir(d);
  }
  std::vector<pid_t> out, todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

int signal_descendants(int sig) {
  const std::vector<pid_t> all = descendants(::getpid());
  for (const pid_t p : all) ::kill(p, sig);
  return static_cast<int>(all.size());
}

// The guard: the program's parent and every orphan's (see supervise.hpp). Never returns.
[[noreturn]] void guard(int status_fd, int command_fd, bool own_group, const std::string& path,
                        const std::vector<std::string>& argv, const std::vector<std::string>& envp,
                        const std::string& job, const struct sigaction* original,
                        const sigset_t& mask) {
  if (own_group) ::setpgid(0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  for (const int s : kForwarded) ::signal(s, SIG_IGN);  // the program's, not the guard's
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  ::sigemptyset(&chld);
  ::sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  const int sfd = ::signalfd(-1, &chld, SFD_CLOEXEC);
  const pid_t self = ::getpid();
  const pid_t program = ::fork();
  if (program == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != self) ::_exit(127);  // the guard is gone already
    for (std::size_t i = 0; i < std::size(kForwarded); ++i)
      ::sigaction(kForwarded[i], &original[i], nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    std::vector<std::string> env = envp;
    env.push_back(fmt::format("{}={}", runtime::kRootVariable, ::getpid()));
    std::vector<char*> a, e;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    ::execve(path.c_str(), a.data(), e.data());
    send(status_fd, {kExecFailed, 0, errno});
    ::_exit(127);
  }
  send(status_fd, {kStarted, program, 0});
  bool stopping = false, program_reaped = false;
  auto kill_at = std::chrono::steady_clock::time_point::max();
  for (;;) {
    int timeout = -1;
    if (stopping)
      timeout = static_cast<int>(std::max<long long>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(kill_at -
                                                                   std::chrono::steady_clock::now())
                 .count()));
    pollfd fds[2] = {{sfd, POLLIN, 0}, {command_fd, POLLIN, 0}};
    ::poll(fds, 2, timeout);
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info[8];
      [[maybe_unused]] const ssize_t n = ::read(sfd, info, sizeof info);
    }
    // Whatever woke it, reap what has ended.
    for (;;) {
      int st = 0;
      const pid_t pid = ::waitpid(-1, &st, WNOHANG);
      if (pid > 0) {
        program_reaped = program_reaped || pid == program;
        send(status_fd, {kReaped, pid, st});
        continue;
      }
      if (pid < 0 && errno == ECHILD) {
        send(status_fd, {kDone, 0, 0});
        ::_exit(0);
      }
      break;
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      char cmd[64];
      const ssize_t n = ::read(command_fd, cmd, sizeof cmd);
      if (n <= 0) {
        // bankcheck has ended, however it ended: nothing it started stays, nor its job.
        for (;;) {
          signal_descendants(SIGKILL);
          int st = 0;
          if (::waitpid(-1, &st, 0) < 0 && errno == ECHILD) {
            std::error_code ec;
            std::filesystem::remove_all(job, ec);
            ::_exit(0);
          }
        }
      }
      for (ssize_t i = 0; i < n; ++i) {
        if (cmd[i] == kForward && i + 1 < n) {
          const int sig = static_cast<unsigned char>(cmd[++i]);
          if (!program_reaped) ::kill(program, sig);  // not reaped: the pid is still the program's
        } else if (cmd[i] == kStopRest && !stopping) {
          stopping = true;
          send(status_fd, {kStopping, 0, signal_descendants(SIGTERM)});
          kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        }
      }
    }
    if (stopping && std::chrono::steady_clock::now() >= kill_at) {
      signal_descendants(SIGKILL);
      kill_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    }
  }
}

}  // namespace

Supervised supervise(const std::string& path, const std::vector<std::string>& argv,
                     const std::vector<std::string>& envp, const std::string& job, int grace_ms) {
  int status_pipe[2], command_pipe[2], signal_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0 || ::pipe2(command_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw LaunchError(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  // From a terminal's foreground, the program stays in the terminal's process group.
  const bool interactive = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
  struct sigaction original[std::size(kForwarded)];
  sigset_t mask;
  ::sigprocmask(SIG_SETMASK, nullptr, &mask);
  g_signal_pipe = signal_pipe[1];
  for (std::size_t i = 0; i < std::size(kForwarded); ++i) {
    struct sigaction sa {};
    sa.sa_sigaction = on_forwarded;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(kForwarded[i], &sa, &original[i]);
  }
  std::fflush(nullptr);
  const pid_t g = ::fork();
  if (g < 0) throw LaunchError(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (g == 0) {
    ::close(status_pipe[0]);
    ::close(command_pipe[1]);
    ::close(signal_pipe[0]);
    ::close(signal_pipe[1]);
    guard(status_pipe[1], command_pipe[0], !interactive, path, argv, envp, job, original, mask);
  }
  ::close(status_pipe[1]);
  ::close(command_pipe[0]);
  if (!interactive) ::setpgid(g, g);  // as the guard does itself: whichever runs first

  Supervised out;
  pid_t program = 0;
  bool program_ended = false, told = false;
  int exec_errno = 0;
  auto ended_at = std::chrono::steady_clock::now();
  for (;;) {
    int timeout = -1;
    if (program_ended && !told)
      timeout = static_cast<int>(
          std::max<long long>(0, grace_ms - std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::steady_clock::now() - ended_at)
                                                .count()));
    pollfd fds[2] = {{status_pipe[0], POLLIN, 0}, {signal_pipe[0], POLLIN, 0}};
    if (::poll(fds, 2, timeout) < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLIN) {
      unsigned char msg[2];
      while (::read(signal_pipe[0], msg, 2) == 2) {
        // The terminal's own signals reach the program directly when it shares the group.
        if (interactive && msg[1]) continue;
        const char cmd[2] = {kForward, static_cast<char>(msg[0])};
        [[maybe_unused]] const ssize_t n = ::write(command_pipe[1], cmd, 2);
      }
    }
    bool done = false;
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      Record r;
      const ssize_t n = ::read(status_pipe[0], &r, sizeof r);
      if (n != static_cast<ssize_t>(sizeof r)) {
        done = true;  // the guard is gone
      } else if (r.kind == kStarted) {
        program = r.pid;
      } else if (r.kind == kReaped) {
        out.reaped[r.pid] = r.value;
        if (r.pid == program) {
          out.status = r.value;
          program_ended = true;
          ended_at = std::chrono::steady_clock::now();
        }
      } else if (r.kind == kExecFailed) {
        exec_errno = r.value;
      } else if (r.kind == kStopping) {
        out.stopped = r.value;
      } else if (r.kind == kDone) {
        done = true;
      }
    }
    if (done) break;
    if (program_ended && !told &&
        std::chrono::steady_clock::now() - ended_at >= std::chrono::milliseconds(grace_ms)) {
      const char cmd = kStopRest;
      [[maybe_unused]] const ssize_t n = ::write(command_pipe[1], &cmd, 1);
      told = true;
    }
  }
  int st = 0;
  while (::waitpid(g, &st, 0) < 0 && errno == EINTR) {
  }
  for (std::size_t i = 0; i < std::size(kForwarded); ++i)
    ::sigaction(kForwarded[i], &original[i], nullptr);
  g_signal_pipe = -1;
  ::close(status_pipe[0]);
  ::close(command_pipe[1]);
  ::close(signal_pipe[0]);
  ::close(signal_pipe[1]);
  if (exec_errno)
    throw LaunchError(fmt::format("cannot start {}: {}", argv[0], std::strerror(exec_errno)));
  return out;
}

}  // namespace bankcheck::launch
