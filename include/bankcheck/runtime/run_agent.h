/* bankcheck's run agent (libbankcheck-run.so): the small library `bankcheck run` preloads into
 * every process of the program, beside the backend (bankcheck's CUDA library or the GPU tool).
 * It tells the backend when the process is about to end in a way no exit handler sees:
 *
 *   a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS; SIGTERM, SIGINT,
 *   SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ) whose disposition is the default when
 *   the backend registers: the agent's handler calls the backend, then the process dies of
 *   the signal as it would have (its exit status, its core dump). A handler the program
 *   installs later replaces the agent's, and the program's own handling stands. The call is
 *   given a deadline (BANKCHECK_AGENT_DEADLINE seconds, 5 by default): a process stuck in it
 *   (a lock held by the code the signal interrupted) still dies of its signal.
 *   _exit and _Exit, interposed: the backend is called, then the process exits.
 *
 * A backend finds the registration with dlsym(RTLD_DEFAULT, BANKCHECK_AGENT_REGISTER); without
 * the agent (the backend loaded by other means) nothing of this happens. */
#ifndef BANKCHECK_RUNTIME_RUN_AGENT_H
#define BANKCHECK_RUNTIME_RUN_AGENT_H

#define BANKCHECK_AGENT_REGISTER "bankcheck_agent_register"

#ifdef __cplusplus
extern "C" {
#endif

enum bankcheck_ending {
  BANKCHECK_ENDING_SIGNAL = 1,   /* value: the signal's number */
  BANKCHECK_ENDING_EXIT_NOW = 2, /* value: the status given to _exit or _Exit */
};

/* Called in the process that is ending, from a signal handler or from _exit: it may only
 * take locks it can give up on, and must return. */
typedef void (*bankcheck_ending_fn)(void* context, enum bankcheck_ending ending, int value);

/* One callback per process (a later registration replaces it); installs the signal handlers. */
typedef void (*bankcheck_agent_register_fn)(bankcheck_ending_fn fn, void* context);

#ifdef __cplusplus
}
#endif

#endif
