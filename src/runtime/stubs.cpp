// The behaviour of every unimplemented export (stubs.hpp).
#include "stubs.hpp"

#include <mutex>
#include <string>
#include <string_view>

#include "runtime.hpp"

namespace bankcheck::runtime {

int unimplemented(const char* name) {
  diagnose_once(std::string("stub ") + name,
                std::string("the program called ") + name +
                    ", which bankcheck's CUDA runtime does not implement; it returned "
                    "cudaErrorNotSupported");
  // A graph's launch runs kernels the report then does not cover.
  const std::string_view n(name);
  if (n.starts_with("cudaGraphLaunch")) {
    Runtime& rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (Executor* e = rt.executor()) e->not_run(n);
  }
  return record(cudaErrorNotSupported);
}

}  // namespace bankcheck::runtime
