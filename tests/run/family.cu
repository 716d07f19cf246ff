// A program for `bankcheck run`'s tests of jobs of several processes: it starts copies of
// itself (fork then exec, each with RANK in its environment) that launch kernels too.
//
//   family ranks N     N workers, each launching a conflicting kernel once, the launcher one
//                      of its own; the launcher waits for them and prints "done"
//   family tree        a worker that starts a grandchild; each prints its pid and waits to be
//                      killed (for the tests that kill bankcheck)
//   family crash N     N workers, worker 1 dies of SIGSEGV after its launch
//   family worker R [tree|crash]   (what the workers run)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

__global__ void column(float* out, int stride) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][threadIdx.y * stride % 32] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

void launch(int stride) {
  float* out = nullptr;
  cudaMalloc(&out, 1024 * sizeof(float));
  column<<<1, dim3(32, 32)>>>(out, stride);
  cudaDeviceSynchronize();
}

pid_t start(const char* self, const std::vector<std::string>& args, int rank) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("RANK", std::to_string(rank).c_str(), 1);
    std::vector<char*> argv = {const_cast<char*>(self)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(self, argv.data());
    _exit(127);
  }
  return pid;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ranks";
  if (mode == "worker") {
    const int rank = std::atoi(argv[2]);
    const std::string what = argc > 3 ? argv[3] : "";
    launch(rank + 1);
    if (what == "crash" && rank == 1) raise(SIGSEGV);
    if (what == "tree") {
      if (rank < 2) start(argv[0], {"worker", std::to_string(rank + 1), "tree"}, rank + 1);
      std::printf("pid %d\n", getpid());
      std::fflush(stdout);
      for (;;) pause();
    }
    return 0;
  }
  launch(1);
  const int workers = mode == "tree" ? 1 : argc > 2 ? std::atoi(argv[2]) : 2;
  std::vector<pid_t> pids;
  for (int r = 1; r <= workers; ++r)
    pids.push_back(start(argv[0], {"worker", std::to_string(r), mode == "ranks" ? "" : mode}, r));
  if (mode == "tree") {
    std::printf("pid %d\n", getpid());
    std::fflush(stdout);
  }
  int failed = 0;
  for (const pid_t p : pids) {
    int st = 0;
    waitpid(p, &st, 0);
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  std::printf("done, %d failed\n", failed);
  return failed ? 6 : 0;
}
