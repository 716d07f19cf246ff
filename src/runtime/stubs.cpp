// The stubs' one message (stubs.hpp).
#include "stubs.hpp"

#include <fmt/format.h>

#include "driver.hpp"

namespace bankcheck::runtime {

int unimplemented(const char* name, const void* caller) {
  const CodeOwner who = owner_of(caller);
  diagnose_once(name, fmt::format("{} was called{}, which bankcheck's CUDA driver does not "
                                  "implement; it returned CUDA_ERROR_NOT_SUPPORTED",
                                  name, who.name.empty() ? "" : " by " + who.name));
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace bankcheck::runtime
