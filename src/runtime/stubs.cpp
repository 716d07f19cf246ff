// The behaviour of every unimplemented export (stubs.hpp).
#include "stubs.hpp"

#include <string>

#include "runtime.hpp"

namespace bankcheck::runtime {

int unimplemented(const char* name) {
  diagnose_once(std::string("stub ") + name,
                std::string("the program called ") + name +
                    ", which bankcheck's CUDA runtime does not implement; it returned "
                    "cudaErrorNotSupported");
  return record(cudaErrorNotSupported);
}

}  // namespace bankcheck::runtime
