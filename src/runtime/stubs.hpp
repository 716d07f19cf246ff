// What an exported function this runtime does not implement does: say so once on standard
// error and return cudaErrorNotSupported (the generated cudart_stubs.cpp calls these; it
// cannot include the CUDA headers, whose declarations its stubs would contradict).
#pragma once

namespace bankcheck::runtime {

// Returns cudaErrorNotSupported (801) as the last error of the calling thread.
int unimplemented(const char* name);

}  // namespace bankcheck::runtime
