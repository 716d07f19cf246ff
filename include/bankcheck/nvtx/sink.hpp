// The program's NVTX ranges, as `bankcheck run` sees them (--nvtx-include): bankcheck's NVTX
// injection library (libbankcheck-nvtx.so, src/nvtx/injection.cpp) is the library NVTX loads
// when NVTX_INJECTION64_PATH names it, NVTX's documented mechanism, and it hands every range
// push, pop, start and end to one Sink in the process. Either backend connects its sink (the
// launch ledger's range stacks) before the program's first NVTX call; nvtx3's C and C++ API,
// the older libnvToolsExt and PyTorch's torch.cuda.nvtx all go through it. Host code only, no
// CUDA needed: tests/nvtx_test.cpp runs it with a CPU program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bankcheck::nvtx {

// What the program's ranges say. Strings are UTF-8 (wide messages converted, registered strings
// resolved) and valid only during the call; the default domain is "". A message of no known
// type is "". Calls come from the program's threads, concurrently.
class Sink {
 public:
  virtual ~Sink() = default;
  // nvtxRangePush{A,W,Ex}, nvtxDomainRangePushEx: a range opened on the calling thread.
  virtual void push(std::string_view domain, std::string_view message) = 0;
  // nvtxRangePop, nvtxDomainRangePop: the calling thread's innermost range of `domain` closed
  // (a pop with none open is not passed on: NVTX returns an error for it).
  virtual void pop(std::string_view domain) = 0;
  // nvtxRangeStart{A,W,Ex}, nvtxDomainRangeStartEx: a range of the process, which any thread
  // may end; `id` is unique in the process and never 0.
  virtual void start(std::uint64_t id, std::string_view domain, std::string_view message) = 0;
  // nvtxRangeEnd, nvtxDomainRangeEnd (an id never started is passed on as it is).
  virtual void end(std::uint64_t id) = 0;
};

// Loads the injection library `library` (the file NVTX_INJECTION64_PATH names for the program)
// and makes `sink` its receiver; NVTX, on the program's first call, loads the same library
// and initialises it. `sink` must outlive the process's NVTX calls. Returns "" when done, else
// why not (the library cannot be loaded or is not bankcheck's).
std::string connect(Sink& sink, const std::string& library);

// The C interface between the injection library and the process it is loaded into.
extern "C" {
struct bankcheck_nvtx_sink {
  unsigned version;  // kSinkVersion
  void* self;
  void (*push)(void* self, const char* domain, std::size_t domain_size, const char* message,
               std::size_t message_size);
  void (*pop)(void* self, const char* domain, std::size_t domain_size);
  void (*start)(void* self, std::uint64_t id, const char* domain, std::size_t domain_size,
                const char* message, std::size_t message_size);
  void (*end)(void* self, std::uint64_t id);
};
// Exported by libbankcheck-nvtx.so: makes `sink` (copied; null: none) the receiver of the
// ranges from now on. Returns kSinkVersion.
using SetSinkFn = int (*)(const bankcheck_nvtx_sink* sink);
}
inline constexpr unsigned kSinkVersion = 1;
inline constexpr const char* kSetSinkSymbol = "bankcheck_nvtx_set_sink";

}  // namespace bankcheck::nvtx
