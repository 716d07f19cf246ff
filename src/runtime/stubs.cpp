// The stubs' one message (stubs.hpp).
#include "stubs.hpp"

#include <fmt/format.h>

#include <mutex>
#include <string_view>

#include "driver.hpp"

namespace bankcheck::runtime {

int unimplemented(const char* name, const void* caller) {
  const CodeOwner who = owner_of(caller);
  diagnose_once(name, fmt::format("{} was called{}, which bankcheck's CUDA driver does not "
                                  "implement; it returned CUDA_ERROR_NOT_SUPPORTED",
                                  name, who.name.empty() ? "" : " by " + who.name));
  // A launch through an entry point of its own (cuLaunchGrid, cuLaunchCooperativeKernelMultiDevice)
  // ran nothing: the report lists it with the launches that did not run.
  if (std::string_view(name).starts_with("cuLaunch")) try {
      Driver& d = Driver::get();
      std::lock_guard<std::recursive_mutex> lock(d.mutex);
      if (Executor* e = d.executor()) e->not_run(name, who.name);
    } catch (...) {
      // The call's answer stands; only the report misses it.
    }
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace bankcheck::runtime
