// `bankcheck run` from the request to the exit code (launcher.hpp).
#include "bankcheck/launch/launcher.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "bankcheck/runtime/nvtx_ranges.hpp"
#include "bankcheck/runtime/run_job.hpp"
#include "bankcheck/runtime/run_report.hpp"
#include "environment.hpp"
#include "program.hpp"
#include "supervise.hpp"

extern char** environ;

namespace bankcheck::launch {
namespace {

// The job's directory, removed with everything in it when the run is over.
struct JobDir {
  std::string path;
  JobDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/bankcheck-job-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw LaunchError(fmt::format("cannot make a directory for the run in {}: {}",
                                    pattern.substr(0, pattern.rfind('/')), std::strerror(errno)));
    path = pattern;
  }
  ~JobDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

std::string absolute(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).string();
}

// Where a library of bankcheck's is, or why `bankcheck run` cannot go on without it.
std::string required_dir(const char* env, const char* subdir, const char* file, const char* what,
                         const char* needed_by = "") {
  std::string d = library_dir(env, subdir, file);
  if (d.empty())
    throw LaunchError(
        fmt::format("{}{} ({}) was not found beside bankcheck (set {} to its "
                    "directory)",
                    needed_by, what, file, env));
  return d;
}

}  // namespace

void check_selection(const runtime::LaunchSelection& s) {
  for (const auto& k : s.kernels) try {
      runtime::parse_kernel_filter(k);
    } catch (const std::invalid_argument& e) {
      throw LaunchError(fmt::format("--kernel '{}': {}", k, e.what()));
    }
  for (const auto* list : {&s.nvtx_include, &s.nvtx_exclude})
    for (const auto& f : *list) try {
        runtime::parse_nvtx_filter(f);
      } catch (const std::invalid_argument& e) {
        throw LaunchError(
            fmt::format("--nvtx-{} {}", list == &s.nvtx_include ? "include" : "exclude", e.what()));
      }
  if (s.count && *s.count == 0) throw LaunchError("--launch-count: 0 launches analyses nothing");
  if (s.mode == runtime::FilterMode::PerLaunchConfig && s.count && s.launches &&
      *s.count != *s.launches)
    throw LaunchError(fmt::format(
        "--launches {} and --launch-count {} both set the launches analysed per configuration "
        "(--filter-mode per-launch-config); give one",
        *s.launches == 0 ? std::string("all") : std::to_string(*s.launches), *s.count));
}

int run(const Request& req) {
  const std::vector<std::string>& cmd = req.command;
  if (cmd.empty())
    throw LaunchError("run: no program given (bankcheck run [OPTIONS] PROGRAM [ARGS...])");
  check_selection(req.options.selection);
  const std::string program = find_program(cmd[0]);
  GpuBackend gpu;
  if (req.backend != Backend::Emulator) {
    gpu = find_gpu_backend();
    if (req.backend == Backend::Gpu && !gpu.why.empty())
      throw LaunchError(fmt::format("--backend gpu: {}; use --backend emulator", gpu.why));
  }
  const bool on_gpu = req.backend != Backend::Emulator && gpu.why.empty();
  if (on_gpu && !req.options.sass)
    throw LaunchError(
        "--ptx-level: the GPU backend counts the requests the SASS issues; use "
        "--backend emulator for PTX-level counts");

  EnvironmentPlan plan;
  plan.preload.push_back(required_dir("BANKCHECK_RUN_AGENT_DIR", "bankcheck-run",
                                      "libbankcheck-run.so", "bankcheck's run agent") +
                         "/libbankcheck-run.so");
  if (on_gpu) {
    // The tool, preloaded; the sanitizer library it opens, on the library path.
    plan.preload.push_back(gpu.tool_dir + "/libbankcheck-gpu.so");
    plan.libraries.push_back(gpu.sanitizer);
    plan.gpu_patches = gpu.tool_dir + "/bankcheck-patches.fatbin";
    // The real driver serves a GPU run: bankcheck's own, where an outer run put it in the
    // environment, is withheld.
    if (std::string d = library_dir("BANKCHECK_CUDA_DIR", "bankcheck-cuda", "libcuda.so.1");
        !d.empty())
      plan.withheld.push_back(d);
  } else {
    // The emulator needs PTX (the GPU runs the program as it is built). The program's own CUDA
    // runtime, static or shared, and those inside its libraries run on bankcheck's driver.
    check_for_emulator(program, cmd[0], req.arch);
    const std::string lib =
        required_dir("BANKCHECK_CUDA_DIR", "bankcheck-cuda", "libcuda.so.1",
                     "bankcheck's CUDA driver (built only where the CUDA toolkit's headers are)");
    plan.preload.push_back(lib + "/libcuda.so.1");
    // NVRTC's cubins come with their PTX (nvrtc_shim.cpp), where the build has the shim.
    if (access((lib + "/libbankcheck-nvrtc.so").c_str(), R_OK) == 0)
      plan.preload.push_back(lib + "/libbankcheck-nvrtc.so");
    plan.libraries.push_back(lib);
    plan.arch = req.arch;
  }
  const runtime::LaunchSelection& sel = req.options.selection;
  if (!sel.nvtx_include.empty() || !sel.nvtx_exclude.empty())
    plan.nvtx_injection =
        required_dir("BANKCHECK_NVTX_DIR", "bankcheck-nvtx", "libbankcheck-nvtx.so",
                     "bankcheck's NVTX injection library", "--nvtx-include: ") +
        "/libbankcheck-nvtx.so";

  JobDir job;
  runtime::RunOptions o = req.options;
  o.output = absolute(o.output);
  o.baseline = absolute(o.baseline);
  o.program = cmd[0];
  try {
    runtime::write_run_options(job.path, o);
  } catch (const std::exception& e) {
    throw LaunchError(e.what());
  }
  plan.job = job.path;
  std::vector<std::string> inherited;
  for (char** e = environ; *e; ++e) inherited.emplace_back(*e);
  const Supervised s = supervise(program, cmd, program_environment(inherited, plan), job.path);

  const runtime::JobReports jr = runtime::job_reports(runtime::read_job(job.path), s.reaped);
  if (s.stopped)
    std::fprintf(stderr,
                 "bankcheck: %d process%s that %s started %s still running when it ended: "
                 "stopped (SIGTERM, then SIGKILL)\n",
                 s.stopped, s.stopped == 1 ? "" : "es", cmd[0].c_str(),
                 s.stopped == 1 ? "was" : "were");
  for (const auto& p : jr.problems) std::fprintf(stderr, "bankcheck: error: %s\n", p.c_str());
  const bool signaled = WIFSIGNALED(s.status);
  const int code = signaled              ? 128 + WTERMSIG(s.status)
                   : WIFEXITED(s.status) ? WEXITSTATUS(s.status)
                                         : 2;
  if (signaled)
    std::fprintf(stderr, "bankcheck: %s was %s%s\n", cmd[0].c_str(),
                 runtime::describe_wait_status(s.status).c_str(),
                 jr.processes ? "" : "; no kernel had been analysed");
  if (jr.processes == 0) {
    if (signaled) return code;
    if (on_gpu)
      std::fprintf(stderr,
                   "bankcheck: %s ran no kernel under bankcheck's GPU tool (there is no report)\n",
                   cmd[0].c_str());
    else
      std::fprintf(stderr,
                   "bankcheck: %s neither launched a kernel nor allocated device memory "
                   "through bankcheck's CUDA driver, so there is no report\n",
                   cmd[0].c_str());
    return code == 0 ? 2 : code;
  }
  const runtime::RunReportOutcome out =
      runtime::write_run_reports(jr.reports, o, /*name_processes=*/jr.processes > 1, jr.fixes);
  if (signaled) return code;
  if (!jr.failures.empty() || !jr.problems.empty() || !out.errors.empty()) return 2;
  if (code != 0) return code;
  if (out.nothing_applied) return 3;  // fix --apply PROGRAM wrote nothing (docs/fix.md)
  return out.gate ? 1 : 0;
}

}  // namespace bankcheck::launch
