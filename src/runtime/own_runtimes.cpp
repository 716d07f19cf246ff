// Which loaded libraries bring their own CUDA runtime (own_runtimes.hpp).
#include "own_runtimes.hpp"

#include <link.h>

#include <string>
#include <string_view>
#include <vector>

#include "runtime.hpp"

namespace bankcheck::runtime {

namespace {

// The toolkit's libraries that link the static runtime (none of them needs libcudart.so:
// readelf -d on CUDA 13.0's lib64).
constexpr std::string_view kOwnRuntime[] = {
    "libcublas.so", "libcublasLt.so", "libcudnn",  "libcufft", "libcurand",  "libcusparse",
    "libcusolver",  "libnccl.so",     "libnvjpeg", "libnpp",   "libcutensor"};

int collect(dl_phdr_info* info, std::size_t, void* data) {
  const std::string_view path = info->dlpi_name ? info->dlpi_name : "";
  const std::string_view name = path.substr(path.find_last_of('/') + 1);
  for (const std::string_view prefix : kOwnRuntime)
    if (name.starts_with(prefix)) static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

}  // namespace

void note_libraries_with_their_own_runtime() {
  std::vector<std::string> names;
  dl_iterate_phdr(collect, &names);
  for (const std::string& name : names)
    diagnose_once("own runtime " + name,
                  name +
                      " is loaded: it carries its own CUDA runtime and calls the GPU driver "
                      "itself, so bankcheck neither sees nor runs its work (without a driver, "
                      "its calls fail)");
}

}  // namespace bankcheck::runtime
