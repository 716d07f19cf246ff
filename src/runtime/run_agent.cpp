// bankcheck's run agent, libbankcheck-run.so (run_agent.h): the fatal signals' handlers and
// _exit/_Exit, which tell the registered backend that the process is ending. It uses nothing
// but the C library, so that loading it into every process of a program costs nothing.
#include "bankcheck/runtime/run_agent.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define AGENT_API extern "C" __attribute__((visibility("default")))
#define AGENT_EXIT extern "C" __attribute__((visibility("default"), noreturn))

namespace {

bankcheck_ending_fn g_fn = nullptr;
void* g_context = nullptr;
unsigned g_deadline = 5;  // seconds the backend is given to write its last part
volatile sig_atomic_t g_busy = 0;
// What the deadline ends: the signal being handled, or an _exit's status.
volatile sig_atomic_t g_ending = 0, g_value = 0;

// Signals whose default action ends the process, and whose end the backend must hear of.
constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT, SIGTRAP, SIGSYS, SIGTERM,
                          SIGINT,  SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ};

[[noreturn]] void exit_group(int status) {
  for (;;) ::syscall(SYS_exit_group, status);
}

// The process dies of `sig` as it would have without the agent (exit status, core dump).
void die_of(int sig) {
  ::signal(sig, SIG_DFL);
  sigset_t set;
  ::sigemptyset(&set);
  ::sigaddset(&set, sig);
  ::raise(sig);  // pending while blocked in its own handler; delivered when unblocked
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// The backend did not return in time (a lock held by the code the signal interrupted).
void on_deadline(int) {
  if (g_ending == BANKCHECK_ENDING_EXIT_NOW) exit_group(g_value);
  die_of(g_value);
  exit_group(128 + g_value);  // a signal that does not end the process by default
}

// Calls the backend with a deadline; false when another call is under way (a signal in it).
bool tell(bankcheck_ending ending, int value) {
  if (!g_fn || g_busy) return false;
  g_busy = 1;
  g_ending = ending;
  g_value = value;
  const bool timed = !(ending == BANKCHECK_ENDING_SIGNAL && value == SIGALRM) && g_deadline;
  if (timed) {
    struct sigaction sa {};
    sa.sa_handler = on_deadline;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGALRM, &sa, nullptr);
    sigset_t set;
    ::sigemptyset(&set);
    ::sigaddset(&set, SIGALRM);
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    ::alarm(g_deadline);
  }
  g_fn(g_context, ending, value);
  if (timed) ::alarm(0);
  return true;
}

void on_signal(int sig, siginfo_t*, void*) {
  tell(BANKCHECK_ENDING_SIGNAL, sig);
  die_of(sig);
}

}  // namespace

AGENT_API void bankcheck_agent_register(bankcheck_ending_fn fn, void* context) {
  g_fn = fn;
  g_context = context;
  if (const char* d = ::getenv("BANKCHECK_AGENT_DEADLINE"); d && *d)
    g_deadline = static_cast<unsigned>(::strtoul(d, nullptr, 10));
  for (const int sig : kFatal) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    // The program's own handlers, and signals it ignores (nohup's SIGHUP), stay as they are.
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL) continue;
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction != on_signal) continue;
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

AGENT_EXIT void _exit(int status) {
  tell(BANKCHECK_ENDING_EXIT_NOW, status);
  exit_group(status);
}

AGENT_EXIT void _Exit(int status) {
  tell(BANKCHECK_ENDING_EXIT_NOW, status);
  exit_group(status);
}
