// The protocol between `bankcheck run` and the program's side: the options' table round trip,
// a process's part, journal and end marker read back into the job's reports (each process's
// ending and what is incomplete in words), and the program's environment built from its table.
#include "bankcheck/runtime/run_job.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bankcheck/launch/launcher.hpp"
#include "bankcheck/runtime/program_side.hpp"
#include "bankcheck/runtime/run_options.hpp"
#include "environment.hpp"

using namespace bankcheck;
using namespace bankcheck::runtime;
using nlohmann::json;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    std::string p = (std::filesystem::temp_directory_path() / "run-job-test-XXXXXX").string();
    path = ::mkdtemp(p.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

RunOptions unusual() {
  RunOptions o;
  o.format = "sarif";
  o.output = "/tmp/r.sarif";
  o.color = "never";
  o.columns = 77;
  o.quiet = true;
  o.selection.kernels = {"gemm", "regex:^soft"};
  o.selection.name_base = KernelNameBase::Demangled;
  o.selection.mode = FilterMode::Global;
  o.selection.skip = 3;
  o.selection.count = 9;
  o.selection.launches = 0;
  o.selection.nvtx_include = {"step/"};
  o.selection.nvtx_exclude = {"warmup"};
  o.skip_repeats = true;
  o.fail_on = {"ways>1"};
  o.baseline = "/tmp/b.json";
  o.threads = 3;
  o.progress = false;
  o.sass = false;
  o.stop_on_fault = true;
  o.nvcc = "/opt/nvcc";
  o.program = "./app";
  return o;
}

// A kernel report as a backend's part holds it.
analysis::KernelReport kernel(const std::string& mangled, std::vector<std::uint64_t> ids,
                              std::vector<analysis::IncompleteLaunch> incomplete = {}) {
  analysis::KernelReport k;
  k.mangled = mangled;
  k.name = std::string(1, mangled[3]);  // "_Z1av": a
  analysis::LaunchSummary s;
  s.launches = s.analysed = ids.size();
  s.analysed_ids = std::move(ids);
  k.launches = {s};
  k.incomplete = std::move(incomplete);
  return k;
}

ProcessPart part(std::int64_t pid, bool root, PartState state, int status = 0) {
  ProcessPart p;
  p.process.pid = pid;
  p.process.ppid = 1;
  p.process.command = {"./app", std::to_string(pid)};
  p.process.root = root;
  p.start_time = static_cast<std::uint64_t>(pid);
  p.backend = "emulator";
  p.state = state;
  p.status = status;
  analysis::CheckReport r;
  r.input = "app.cu";
  r.kernels.push_back(kernel("_Z1av", {0, 2}, {{2, kPendingLaunch}}));
  p.reports.push_back(r);
  p.launches = 3;
  p.analysed = 2;
  return p;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST(RunOptions, EveryFieldRoundTrips) {
  const RunOptions o = unusual();
  std::string error;
  const RunOptions back = run_options_from_json(json::parse(run_options_to_json(o).dump()), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(run_options_to_json(back), run_options_to_json(o));
  EXPECT_NE(run_options_to_json(back), run_options_to_json(RunOptions{}));  // nothing left default
  EXPECT_EQ(back.selection.count, std::optional<std::uint64_t>(9));
  EXPECT_EQ(back.selection.launches, std::optional<std::uint64_t>(0));
  EXPECT_EQ(back.selection.mode, FilterMode::Global);
}

TEST(RunOptions, NamesWhatIsWrong) {
  auto error_of = [](json j) {
    std::string e;
    run_options_from_json(j, e);
    return e;
  };
  EXPECT_EQ(error_of({{"launch_skip", "two"}}), "the option 'launch_skip' is \"two\", not a count");
  EXPECT_EQ(error_of({{"color", "pink"}}),
            "the option 'color' is \"pink\", not one of the values it takes");
  EXPECT_EQ(error_of({{"filter_mode", "per-gpu"}}),
            "the option 'filter_mode' is \"per-gpu\", not per-launch-config or global");
  EXPECT_EQ(error_of({{"kernels", {1, 2}}}),
            "the option 'kernels' is [1,2], not a list of strings");
  EXPECT_NE(error_of({{"format", "xml"}}).find("the option 'format': xml not in"),
            std::string::npos);
  EXPECT_EQ(error_of(json::array()), "the options are not a JSON object");
  EXPECT_EQ(error_of(json::object()), "");  // every default
}

TEST(RunOptions, FromTheJobInTheEnvironment) {
  TempDir job;
  write_run_options(job.path, unusual());
  ::setenv(kJobVariable, job.path.c_str(), 1);
  ::setenv(kRootVariable, std::to_string(::getpid()).c_str(), 1);
  std::string error;
  RunOptions o = run_options_from_environment(error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(o.job, job.path);
  EXPECT_TRUE(o.root);
  EXPECT_EQ(o.selection.kernels, unusual().selection.kernels);
  ::setenv(kRootVariable, "1", 1);
  EXPECT_FALSE(run_options_from_environment(error).root);  // a descendant
  ::unsetenv(kJobVariable);
  ::unsetenv(kRootVariable);
  o = run_options_from_environment(error);
  EXPECT_TRUE(o.job.empty() && o.root && o.format == "text");  // no bankcheck run: the defaults
}

TEST(RunJob, PartRoundTrips) {
  const ProcessPart p = part(42, true, PartState::Signal, 11);
  const ProcessPart back = part_from_json(json::parse(part_to_json(p).dump()), "p");
  EXPECT_EQ(part_to_json(back), part_to_json(p));
  json bad = part_to_json(p);
  bad["state"] = "sleeping";
  EXPECT_THROW(part_from_json(bad, "p"), std::invalid_argument);
}

// The root exited normally; its last part is final: the pending launch was never read back.
TEST(RunJob, AnExitedProcess) {
  TempDir job;
  PartFiles files(job.path);
  ASSERT_TRUE(files.write(part(::getpid(), true, PartState::Exited)));
  const auto j = read_job(job.path);
  ASSERT_EQ(j.size(), 1u);
  const JobReports r = job_reports(j, {{::getpid(), 0}});
  ASSERT_EQ(r.reports.size(), 1u);
  const analysis::ProcessInfo& p = *r.reports[0].process;
  EXPECT_EQ(p.ending, "exited with code 0");
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_TRUE(p.incomplete.empty());
  ASSERT_EQ(r.reports[0].kernels[0].incomplete.size(), 1u);
  EXPECT_EQ(r.reports[0].kernels[0].incomplete[0].reason, kNotReadBack);
}

// Killed with SIGKILL after its last part: the journal says launch 2 was counted after the part
// and launch 3 began and never ended; launch 4 of a kernel the part never saw began too.
TEST(RunJob, AKilledProcessAndItsJournal) {
  TempDir job;
  PartFiles files(job.path);
  ASSERT_TRUE(files.write(part(::getpid(), true, PartState::Running)));
  files.began(0, "_Z1av");
  files.counted(0);
  files.began(2, "_Z1av");
  files.counted(2);
  files.began(3, "_Z1av");
  files.began(4, "_Z1bv");
  files.began(5, "_Z1av");
  files.lost(5, "the kernel faulted\non two lines");
  const JobReports r = job_reports(read_job(job.path), {{::getpid(), SIGKILL}});
  ASSERT_EQ(r.reports.size(), 1u);
  const analysis::ProcessInfo& p = *r.reports[0].process;
  EXPECT_EQ(p.signal, SIGKILL);
  EXPECT_EQ(p.ending, "killed by SIGKILL (Killed)");
  ASSERT_EQ(p.incomplete.size(), 2u);
  EXPECT_EQ(p.incomplete[0],
            "./app was killed by SIGKILL (Killed): the kernels it would have "
            "launched after that are not in the report");
  EXPECT_NE(p.incomplete[1].find("kernel b: 1 analysed launch after the process's last record"),
            std::string::npos);
  const auto& inc = r.reports[0].kernels[0].incomplete;
  ASSERT_EQ(inc.size(), 3u);
  EXPECT_EQ(inc[0].id, 2u);
  EXPECT_NE(inc[0].reason.find("counts were taken after the process's last record"),
            std::string::npos);
  EXPECT_EQ(inc[1].id, 3u);
  EXPECT_EQ(inc[1].reason, "it had not ended when the process was killed by SIGKILL (Killed)");
  EXPECT_EQ(inc[2].id, 5u);
  EXPECT_EQ(inc[2].reason, "the kernel faulted on two lines");
}

// A descendant bankcheck did not reap: its end marker says how it ended; the root comes first.
TEST(RunJob, ADescendantsEndMarker) {
  TempDir job;
  {
    PartFiles files(job.path);
    ASSERT_TRUE(files.write(part(::getpid(), true, PartState::Exited)));
  }
  const pid_t child = ::fork();
  if (child == 0) {
    PartFiles files(job.path);
    ProcessPart p = part(::getpid(), false, PartState::Running);
    p.process.rank = "1";
    files.write(p);
    files.mark_end("signal", SIGSEGV);
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  const JobReports r = job_reports(read_job(job.path), {{::getpid(), 0}});
  ASSERT_EQ(r.reports.size(), 2u);
  EXPECT_TRUE(r.reports[0].process->root);
  EXPECT_EQ(r.reports[1].process->rank, "1");
  EXPECT_EQ(r.reports[1].process->signal, SIGSEGV);
  EXPECT_EQ(r.reports[1].process->ending, "killed by SIGSEGV (Segmentation fault)");
  EXPECT_EQ(r.processes, 2u);
}

TEST(RunJob, AnUnreadablePartIsAProblem) {
  TempDir job;
  write(job.path + "/77-5.part", "{not json");
  write(job.path + "/77-5.journal", "b 0 _Z1av\n");
  const JobReports r = job_reports(read_job(job.path), {});
  EXPECT_TRUE(r.reports.empty());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("process 77-5 analysed 1 launch but left no readable record"),
            std::string::npos);
}

// The program's side: a part when asked, none from a forked child that never launched.
TEST(ProgramSide, WritesPartsAndForgetsInAForkedChild) {
  TempDir job;
  RunOptions o;
  o.job = job.path;
  o.root = true;
  int snapshots = 0;
  ProgramSide side(o, "emulator", [&](ProcessPart& p, SnapshotFrom) {
    ++snapshots;
    p.launches = 1;
    return true;
  });
  EXPECT_TRUE(side.in_job());
  side.began(0, "_Z1av");
  side.counted(0);  // the first part at once
  EXPECT_EQ(snapshots, 1);
  side.counted(1);  // the next waits for the interval (then the part's own thread writes it)
  EXPECT_EQ(snapshots, 1);
  const pid_t child = ::fork();
  if (child == 0) {
    const int before = snapshots;
    side.exited();  // never launched here: nothing
    ::_exit(snapshots == before ? 0 : 1);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  side.exited();
  EXPECT_GE(snapshots, 2);  // the part's own thread may have written the held-back one first
  const auto j = read_job(job.path);
  ASSERT_EQ(j.size(), 1u);  // the child wrote no part
  ASSERT_TRUE(j[0].part);
  EXPECT_EQ(j[0].part->state, PartState::Exited);
  EXPECT_EQ(j[0].began.size(), 1u);
}

TEST(Launcher, TheEnvironmentFromItsTable) {
  launch::EnvironmentPlan plan;
  plan.job = "/tmp/job";
  plan.preload = {"/lib/a.so", "/lib/b.so"};
  plan.libraries = {"/lib"};
  plan.arch = "sm_80";
  const std::vector<std::string> env = launch::program_environment(
      {"PATH=/bin", "LD_PRELOAD=/user/x.so", "LD_LIBRARY_PATH=/user", "BANKCHECK_RUN_FORMAT=json",
       "BANKCHECK_ARCH=sm_90", "BANKCHECK_EXECUTOR=record", "NVTX_INJECTION64_PATH=/user/nvtx.so"},
      plan);
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "NVTX_INJECTION64_PATH=/user/nvtx.so",
                                           "BANKCHECK_RUN_JOB=/tmp/job",
                                           "LD_PRELOAD=/lib/a.so /lib/b.so /user/x.so",
                                           "LD_LIBRARY_PATH=/lib:/user", "BANKCHECK_ARCH=sm_80"}));
  plan.nvtx_injection = "/lib/nvtx.so";
  plan.arch.clear();
  const std::vector<std::string> with_nvtx =
      launch::program_environment({"NVTX_INJECTION64_PATH=/user/nvtx.so"}, plan);
  EXPECT_EQ(with_nvtx.back(), "NVTX_INJECTION64_PATH=/lib/nvtx.so");
  EXPECT_EQ(std::count_if(with_nvtx.begin(), with_nvtx.end(),
                          [](const std::string& e) { return e.starts_with("NVTX_"); }),
            1);
}

// On the GPU the real driver serves the program: bankcheck's own libcuda.so.1, where an outer
// run left it in LD_PRELOAD or LD_LIBRARY_PATH, is withheld; the user's other items stay.
TEST(Launcher, TheGpuEnvironmentWithholdsBankchecksDriver) {
  launch::EnvironmentPlan plan;
  plan.job = "/tmp/job";
  plan.preload = {"/bc/lib/bankcheck-run/libbankcheck-run.so",
                  "/bc/lib/bankcheck-gpu/libbankcheck-gpu.so"};
  plan.libraries = {"/cuda/compute-sanitizer"};
  plan.withheld = {"/bc/lib/bankcheck-cuda"};
  const std::vector<std::string> env = launch::program_environment(
      {"LD_PRELOAD=/bc/lib/bankcheck-cuda/libcuda.so.1 /user/x.so:/bc/lib/bankcheck-cuda/../"
       "bankcheck-cuda/libcuda.so.1",
       "LD_LIBRARY_PATH=/bc/lib/bankcheck-cuda/:/user/lib::/bc/lib/bankcheck-cuda", "HOME=/h"},
      plan);
  EXPECT_EQ(env, (std::vector<std::string>{
                     "HOME=/h", "BANKCHECK_RUN_JOB=/tmp/job",
                     "LD_PRELOAD=/bc/lib/bankcheck-run/libbankcheck-run.so "
                     "/bc/lib/bankcheck-gpu/libbankcheck-gpu.so /user/x.so",
                     "LD_LIBRARY_PATH=/cuda/compute-sanitizer:/user/lib:"}));  // "": the cwd
  // Nothing of the user's left: only bankcheck's own items.
  const std::vector<std::string> only_ours =
      launch::program_environment({"LD_PRELOAD=/bc/lib/bankcheck-cuda/libcuda.so.1"}, plan);
  EXPECT_EQ(only_ours[1],
            "LD_PRELOAD=/bc/lib/bankcheck-run/libbankcheck-run.so "
            "/bc/lib/bankcheck-gpu/libbankcheck-gpu.so");
  // Without a withheld directory the user's lists stay as written.
  plan.withheld.clear();
  const std::vector<std::string> as_written =
      launch::program_environment({"LD_LIBRARY_PATH=/a;/b::/c"}, plan);
  EXPECT_EQ(as_written.back(), "LD_LIBRARY_PATH=/cuda/compute-sanitizer:/a;/b::/c");
}

TEST(Launcher, RefusesSelectionsBeforeStarting) {
  auto error_of = [](LaunchSelection s) {
    try {
      launch::check_selection(s);
    } catch (const launch::LaunchError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  LaunchSelection s;
  EXPECT_EQ(error_of(s), "");
  s.count = 2;
  s.launches = 3;
  EXPECT_EQ(error_of(s),
            "--launches 3 and --launch-count 2 both set the launches analysed per "
            "configuration (--filter-mode per-launch-config); give one");
  s.mode = FilterMode::Global;
  EXPECT_EQ(error_of(s), "");  // global: a count in all, and a cap per configuration
  s.count = 0;
  EXPECT_EQ(error_of(s), "--launch-count: 0 launches analyses nothing");
  s.count.reset();
  s.nvtx_exclude = {"[a/[b"};
  EXPECT_NE(error_of(s).find("--nvtx-exclude '[a/[b': column 4: '[' may only begin"),
            std::string::npos);
}
