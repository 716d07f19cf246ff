// `bankcheck run`: checks the program (the shared CUDA runtime, PTX for the architecture),
// starts it with bankcheck's libcudart.so.13 in place of the toolkit's, the options in its
// environment, and exits with its exit code (or 1 for a crossed gate, 2 for bankcheck's own
// failure), after the report its runtime wrote at exit.
#include "run_cmd.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bankcheck/runtime/run_options.hpp"
#include "bankcheck/driver/check.hpp"
#include "bankcheck/driver/limits.hpp"
#include "bankcheck/install_dirs.hpp"
#include "bankcheck/sass/cuda_elf.hpp"
#include "bankcheck/sass/decoder.hpp"
#include "bankcheck/sass/fatbin.hpp"
#include "bankcheck/sass/fatbin_select.hpp"
#include "bankcheck/sass/module.hpp"
#include "cli.hpp"

extern char** environ;

namespace bankcheck::tools {

void add_run(CLI::App& app, RunCmdOptions& o) {
  CLI::App* c = app.add_subcommand(
      "run",
      "Run a CUDA program and report every shared-memory bank conflict and uncoalesced global\n"
      "access of the kernels it launches, per source line, when it exits.\n"
      "\n"
      "  bankcheck run -- ./app --size 4096\n"
      "\n"
      "The program runs on the CPU: its CUDA runtime calls go to bankcheck's own runtime and its\n"
      "kernels to the emulator, with the program's own launches, arguments and data. Build it as\n"
      "usual with the shared CUDA runtime and line information:\n"
      "  nvcc -cudart shared -lineinfo -gencode arch=compute_90,code=[sm_90,compute_90] ...\n"
      "  (CMake: CUDA_RUNTIME_LIBRARY Shared, CUDA_ARCHITECTURES 90-real;90-virtual)\n"
      "\n"
      "The first --launches of each kernel and configuration (grid, block, dynamic shared\n"
      "memory) are analysed on every CTA; later ones only execute, or do not run at all when\n"
      "their results are provably in memory already (--repeats). The program's standard output\n"
      "is untouched: the text report goes to standard error, or to -o FILE.\n"
      "\n" +
          exit_codes("the program's own exit code (0 when it succeeded)",
                     "a --fail-on threshold was crossed (and the program succeeded)",
                     "bankcheck's own failure: a program it cannot run (statically linked "
                     "runtime, no PTX), a kernel it could not emulate") +
          "\n  128+N  the program was killed by signal N\n");
  c->add_option("--backend", o.backend,
                "where kernels run: emulator (the CPU, any machine), gpu (the real run, "
                "instrumented; needs a GPU and bankcheck built with the GPU backend) or auto")
      ->check(CLI::IsMember({"auto", "emulator", "gpu"}))
      ->capture_default_str();
  c->add_option("--kernel", o.kernels,
                "analyse only the kernels this names (repeatable; the others still execute)");
  c->add_option("--arch", o.arch, "the device the program sees and the bank model's")
      ->capture_default_str();
  add_format_option(c, o.format, report::ReportKind::Check,
                    "text, json (" BANKCHECK_DOCDIR "/json.md), sarif or html");
  c->add_option("-o,--output", o.output, "write the report to this file (default: standard error)");
  add_color_option(c, o.color);
  add_layout_options(c, o.columns, o.quiet);
  add_fail_on_option(c, o.fail_on, " over the whole run");
  add_baseline_option(c, o.baseline);
  c->add_option("--launches", o.launches,
                "launches analysed per kernel and configuration: N or all (the others only "
                "execute)")
      ->capture_default_str();
  c->add_option("--repeats", o.repeats,
                "skip (a launch beyond those analysed does not run when it repeats an earlier "
                "one, the same arguments, on inputs unchanged since, whose results are still in "
                "memory: invisible to the program) or execute (every launch runs)")
      ->check(CLI::IsMember({"execute", "skip"}))
      ->capture_default_str();
  c->add_option("--threads", o.threads, "worker threads (default: all cores; at most 256)");
  // Hidden: the tier of launches not analysed, `today` the one before the fast tier
  // (bench/run/throughput.sh compares them in one run).
  c->add_option("--tier", o.tier, "launches not analysed: fast, or today (the tier before it)")
      ->check(CLI::IsMember({"fast", "today"}))
      ->group("");
  add_progress_flag(c, o.progress);
  c->add_flag("--stop-on-fault", o.stop_on_fault,
              "end the analysis at a kernel's first global access outside every buffer "
              "(emulator; the program stops as on a GPU fault) instead of reporting it and "
              "going on with the lanes reading zeros and their writes dropped");
  c->add_flag("--ptx-level", o.ptx_level,
              "count shared requests as the PTX states them, not as the cubin's SASS issues them");
  c->add_option("--nvcc", o.nvcc, "the nvcc whose ptxas builds a cubin when the program has none");
  c->add_option("command", o.command, "PROGRAM [ARGS...]")->required();
  c->prefix_command();  // everything after PROGRAM is the program's
}

namespace {

// The program's file, as execvp would find it.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string f = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(f.c_str(), X_OK) == 0) return f;
  }
  throw UserError(fmt::format("{}: no such program on PATH", name));
}

// The directory of one of bankcheck's libraries: beside an installed bankcheck
// (PREFIX/LIBDIR/SUBDIR), or in the build tree (build/lib/SUBDIR beside
// build/tools/bankcheck); `env` names it instead. Empty when not found.
std::string library_dir(const char* env, const char* subdir, const char* file) {
  if (const char* d = std::getenv(env); d && *d) return d;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path bin = exe.parent_path();
  for (const std::filesystem::path& dir :
       {bin / ".." / BANKCHECK_INSTALL_LIBDIR / subdir, bin / ".." / ".." / "lib" / subdir})
    if (std::filesystem::exists(dir / file, ec))
      return std::filesystem::weakly_canonical(dir, ec).string();
  return "";
}

// Where bankcheck's libcudart.so.13 is.
std::string cudart_dir() {
  std::string d = library_dir("BANKCHECK_CUDART_DIR", "bankcheck-cudart", "libcudart.so.13");
  if (d.empty())
    throw UserError(
        "bankcheck's CUDA runtime (libcudart.so.13) was not found beside bankcheck: it is built "
        "only where the CUDA toolkit's headers are (set BANKCHECK_CUDART_DIR to its directory)");
  return d;
}

// The toolkit's compute-sanitizer directory (libsanitizer-public.so): BANKCHECK_SANITIZER_DIR,
// else beside the nvcc on PATH, else /usr/local/cuda. Empty when none has it.
std::string sanitizer_dir() {
  std::vector<std::filesystem::path> dirs;
  if (const char* d = std::getenv("BANKCHECK_SANITIZER_DIR"); d && *d) dirs.emplace_back(d);
  const char* path = std::getenv("PATH");
  std::istringstream ps(path ? path : "");
  std::error_code ec;
  for (std::string dir; std::getline(ps, dir, ':');) {
    const std::filesystem::path nvcc = std::filesystem::path(dir.empty() ? "." : dir) / "nvcc";
    if (::access(nvcc.c_str(), X_OK) == 0)
      dirs.push_back(std::filesystem::canonical(nvcc, ec).parent_path().parent_path() /
                     "compute-sanitizer");
  }
  dirs.emplace_back("/usr/local/cuda/compute-sanitizer");
  for (const auto& d : dirs)
    if (std::filesystem::exists(d / "libsanitizer-public.so", ec)) return d.string();
  return "";
}

// Whether a GPU can run the program: the driver's library and a device node.
bool gpu_present() {
  std::error_code ec;
  if (!std::filesystem::exists("/dev/nvidiactl", ec)) return false;
  void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!cuda) return false;
  ::dlclose(cuda);
  return true;
}

// The GPU backend's pieces, or why it cannot run here (`why` empty: it can).
struct GpuBackend {
  std::string tool_dir, sanitizer;
  std::string why;
};

GpuBackend find_gpu_backend() {
  GpuBackend g;
  g.tool_dir = library_dir("BANKCHECK_GPU_DIR", "bankcheck-gpu", "libbankcheck-gpu.so");
  if (g.tool_dir.empty()) {
    g.why = "this bankcheck was built without the GPU backend (it needs the CUDA toolkit's "
            "compute-sanitizer headers at build time)";
    return g;
  }
  if (!gpu_present()) {
    g.why = "no GPU was found (no /dev/nvidiactl or no libcuda.so.1)";
    return g;
  }
  g.sanitizer = sanitizer_dir();
  if (g.sanitizer.empty())
    g.why = "the toolkit's compute-sanitizer/libsanitizer-public.so was not found (set "
            "BANKCHECK_SANITIZER_DIR to its directory)";
  return g;
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// What stops the program from running under bankcheck, said before it starts: a statically
// linked CUDA runtime, or kernels with no PTX for the architecture. A file that is not ELF
// (a script) or has no fat binary runs as it is.
void check_program(const std::string& path, const std::string& shown, const std::string& arch) {
  const std::vector<std::uint8_t> bytes = read_bytes(path);
  const auto elf = sass::read_cuda_elf(bytes);
  if (!elf.ok()) return;
  const sass::CudaElf& e = elf.value();
  if (e.runtime == sass::CudaRuntimeLink::Static)
    throw UserError(fmt::format(
        "{} is linked with the static CUDA runtime (nvcc's default), which bankcheck cannot "
        "stand in for: rebuild it with -cudart shared (CMake: set_target_properties(TARGET "
        "PROPERTIES CUDA_RUNTIME_LIBRARY Shared))",
        shown));
  if (e.fatbin.empty()) return;
  const auto entries = sass::read_fatbin(e.fatbin);
  if (!entries.ok()) return;  // said again, with the module, when it is registered
  const unsigned sm = static_cast<unsigned>(std::atoi(arch.c_str() + (arch.starts_with("sm_") ? 3 : 0)));
  for (const auto& container : sass::split_by_container(entries.value())) {
    const sass::FatbinSelection pick = sass::select_for_arch(container, sm);
    if (pick.ptx || !pick.cubin) continue;
    // A cubin without kernels is the device link's; one with kernels needs its PTX.
    const auto m = sass::read_module(pick.cubin->payload, &sass::decode_hopper);
    if (!m.ok() || m.value().kernels.empty()) continue;
    if (e.relocatable_fatbin.empty()) {
      std::string why;
      for (const auto& s : pick.missing) why += (why.empty() ? "" : "; ") + s;
      throw UserError(fmt::format("{}: its kernels cannot be emulated: {}", shown, why));
    }
  }
}

std::string signal_name(int sig) {
  const char* d = strsignal(sig);
  return d ? d : fmt::format("signal {}", sig);
}

}  // namespace

int run_program(const RunCmdOptions& o) {
  const std::vector<std::string>& cmd = o.command;
  if (cmd.empty()) throw UserError("run: no program given (bankcheck run -- PROGRAM [ARGS...])");
  if (o.launches != "all" &&
      (o.launches.empty() || o.launches.find_first_not_of("0123456789") != std::string::npos ||
       std::strtoull(o.launches.c_str(), nullptr, 10) == 0))
    throw UserError(fmt::format("--launches: '{}' is not a positive count or all", o.launches));
  if (o.threads) driver::check_threads(o.threads);
  parse_gates(o.fail_on);  // a bad gate or baseline stops the run before the program starts
  read_baseline(o.baseline);
  const std::string program = find_program(cmd[0]);
  GpuBackend gpu;
  if (o.backend != "emulator") {
    gpu = find_gpu_backend();
    if (o.backend == "gpu" && !gpu.why.empty())
      throw UserError(fmt::format("--backend gpu: {}; use --backend emulator", gpu.why));
  }
  const bool on_gpu = o.backend != "emulator" && gpu.why.empty();
  if (on_gpu && o.ptx_level)
    throw UserError("--ptx-level: the GPU backend counts the requests the SASS issues; use "
                    "--backend emulator for PTX-level counts");
  // The GPU backend runs the program as it is built (any runtime, any code); the emulator
  // needs the shared runtime and PTX.
  std::string lib;
  if (!on_gpu) {
    check_program(program, cmd[0], o.arch);
    lib = cudart_dir();
  }

  char status_path[] = "/tmp/bankcheck-run-XXXXXX";
  const int fd = ::mkstemp(status_path);
  if (fd < 0) throw UserError(fmt::format("cannot make a temporary file: {}", std::strerror(errno)));
  ::close(fd);
  struct Remove {
    const char* path;
    ~Remove() { ::unlink(path); }
  } remove_status{status_path};

  runtime::RunOptions ro;
  ro.format = std::string(report::format_name(o.format));
  ro.output = o.output.empty() ? "" : std::filesystem::absolute(o.output).string();
  ro.color = o.color;
  // The report goes to standard error unless -o names a file.
  ro.columns = text_columns(o.columns, o.output, STDERR_FILENO);
  ro.quiet = o.quiet;
  ro.kernels = o.kernels;
  ro.launches = o.launches == "all" ? 0 : std::strtoull(o.launches.c_str(), nullptr, 10);
  ro.skip_repeats = o.repeats == "skip";
  ro.fast_tier = o.tier == "fast";
  ro.fail_on = o.fail_on;
  ro.baseline = o.baseline.empty() ? "" : std::filesystem::absolute(o.baseline).string();
  ro.status = status_path;
  ro.threads = o.threads;
  ro.progress = o.progress && !o.quiet;
  ro.sass = !o.ptx_level;
  ro.stop_on_fault = o.stop_on_fault;
  ro.nvcc = o.nvcc;
  ro.program = cmd[0];
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view v(*e);
    if (v.starts_with("BANKCHECK_RUN_") || v.starts_with("BANKCHECK_EXECUTOR=") ||
        v.starts_with("BANKCHECK_ARCH=") || v.starts_with("LD_PRELOAD=") ||
        v.starts_with("LD_LIBRARY_PATH=") || v.starts_with("BANKCHECK_GPU_PATCHES=") ||
        v.starts_with("BANKCHECK_RUN_ROOT="))
      continue;
    env.emplace_back(v);
  }
  for (const auto& [k, v] : runtime::run_environment(ro)) env.push_back(k + "=" + v);
  const char* preload = std::getenv("LD_PRELOAD");
  const char* library_path = std::getenv("LD_LIBRARY_PATH");
  const std::string more_preload = preload && *preload ? std::string(" ") + preload : "";
  const std::string more_path =
      library_path && *library_path ? std::string(":") + library_path : "";
  if (on_gpu) {
    // The tool, preloaded; the sanitizer library it opens, on the library path.
    env.push_back("LD_PRELOAD=" + gpu.tool_dir + "/libbankcheck-gpu.so" + more_preload);
    env.push_back("LD_LIBRARY_PATH=" + gpu.sanitizer + more_path);
    env.push_back("BANKCHECK_GPU_PATCHES=" + gpu.tool_dir + "/bankcheck-patches.fatbin");
  } else {
    env.push_back("BANKCHECK_ARCH=" + o.arch);
    env.push_back("LD_PRELOAD=" + lib + "/libcudart.so.13" + more_preload);
    env.push_back("LD_LIBRARY_PATH=" + lib + more_path);
  }

  std::vector<char*> argv, envp;
  for (const auto& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw UserError(fmt::format("cannot start {}: {}", cmd[0], std::strerror(errno)));
  if (child == 0) {
    // The program itself, as opposed to the processes it starts (which inherit the tool).
    std::string root = "BANKCHECK_RUN_ROOT=" + std::to_string(::getpid());
    envp.insert(envp.end() - 1, root.data());
    ::execve(program.c_str(), argv.data(), envp.data());
    std::fprintf(stderr, "bankcheck: error: cannot start %s: %s\n", cmd[0].c_str(),
                 std::strerror(errno));
    ::_exit(127);
  }
  // Ctrl-C reaches the program (the same process group); bankcheck waits for it.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);

  bool done = false, gate = false, failed = false;
  {
    std::ifstream status(status_path);
    for (std::string line; std::getline(status, line);) {
      done = done || line == "done";
      gate = gate || line == "gate";
      failed = failed || line.starts_with("error: ");
    }
  }
  if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    std::fprintf(stderr, "bankcheck: %s was killed by %s%s\n", cmd[0].c_str(),
                 signal_name(sig).c_str(), done ? "" : "; no report was written");
    return 128 + sig;
  }
  const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 2;
  if (!done) {
    if (on_gpu)
      std::fprintf(stderr,
                   "bankcheck: %s ended without running its exit handlers (no report was "
                   "written)\n",
                   cmd[0].c_str());
    else
      std::fprintf(stderr,
                   "bankcheck: %s made no call to the CUDA runtime that reached bankcheck's (no "
                   "kernel ran under bankcheck, so there is no report)\n",
                   cmd[0].c_str());
    return code == 0 ? 2 : code;
  }
  if (failed) return 2;
  if (code != 0) return code;
  return gate ? 1 : 0;
}

}  // namespace bankcheck::tools
