// The process's NVTX ranges connected to bankcheck's NVTX injection library
// (nvtx_ranges.hpp's connect_nvtx_ranges): its sink interface (bankcheck/nvtx/sink.hpp) handing
// every push, pop, start and end to nvtx_process_ranges(). A bankcheck built without that
// library has nothing to connect.
#include <cstdlib>
#include <string>

#include "bankcheck/runtime/launch_ledger.hpp"
#include "bankcheck/runtime/nvtx_ranges.hpp"

#if __has_include("bankcheck/nvtx/sink.hpp")
#include "bankcheck/nvtx/sink.hpp"

namespace bankcheck::runtime {
namespace {

class RangesSink final : public nvtx::Sink {
 public:
  explicit RangesSink(NvtxRanges& r) : r_(r) {}
  void push(std::string_view domain, std::string_view message) override {
    r_.push(domain, message);
  }
  void pop(std::string_view domain) override { r_.pop(domain); }
  void start(std::uint64_t id, std::string_view domain, std::string_view message) override {
    r_.start(id, domain, message);
  }
  void end(std::uint64_t id) override { r_.end(id); }

 private:
  NvtxRanges& r_;
};

}  // namespace

std::string connect_nvtx_ranges(const std::string& library) {
  static RangesSink* sink = new RangesSink(nvtx_process_ranges());  // outlives NVTX's calls
  return nvtx::connect(*sink, library);
}

}  // namespace bankcheck::runtime
#else
namespace bankcheck::runtime {

std::string connect_nvtx_ranges(const std::string&) {
  return "this bankcheck was built without its NVTX injection library (libbankcheck-nvtx.so)";
}

}  // namespace bankcheck::runtime
#endif

namespace bankcheck::runtime {

std::string connect_nvtx(const LaunchSelection& selection) {
  if (selection.nvtx_include.empty() && selection.nvtx_exclude.empty()) return "";
  const char* library = std::getenv("NVTX_INJECTION64_PATH");
  if (!library || !*library)
    return "--nvtx-include: NVTX_INJECTION64_PATH is not set, so no NVTX range is seen";
  const std::string why = connect_nvtx_ranges(library);
  return why.empty() ? "" : "--nvtx-include: " + why;
}

}  // namespace bankcheck::runtime
