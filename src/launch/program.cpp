// The program and bankcheck's libraries (program.hpp).
#include "program.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "bankcheck/driver/binary_input.hpp"
#include "bankcheck/driver/error.hpp"
#include "bankcheck/launch/launcher.hpp"
#include "bankcheck/sass/cuda_elf.hpp"

namespace bankcheck::launch {

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string f = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(f.c_str(), X_OK) == 0) return f;
  }
  throw LaunchError(fmt::format("{}: no such program on PATH", name));
}

void check_for_emulator(const std::string& path, const std::string& shown,
                        const std::string& arch) {
  if (driver::input_kind(path) != driver::InputKind::HostElf) return;
  std::ifstream f(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(f),
                                        std::istreambuf_iterator<char>()};
  const auto elf = sass::read_cuda_elf(bytes);
  if (!elf.ok()) return;
  const sass::CudaElf& e = elf.value();
  if (e.fatbin.empty() && e.relocatable_fatbin.empty()) return;  // its libraries' kernels, if any
  // Its kernels as `check` reads a binary: PTX for the architecture, or the -gencode to add.
  try {
    const driver::BinaryCode code = driver::read_binary(path, driver::InputKind::HostElf, arch);
    if (!code.sass_only_kernels.empty())
      throw LaunchError(fmt::format("{}: its kernels have {}", shown, code.sass_only_fix));
  } catch (const driver::DriverError& ex) {
    std::string what = ex.what();
    // No kernels of its own: it runs, and its libraries' are said when registered.
    if (what.find("its fat binary has no kernels") != std::string::npos) return;
    if (what.starts_with(path + ": ")) what = what.substr(path.size() + 2);
    throw LaunchError(fmt::format("{}: {}", shown, what));
  }
}

std::string library_dir(const char* env, const char* subdir, const char* file) {
  std::error_code ec;
  if (const char* d = std::getenv(env); d && *d)
    return std::filesystem::exists(std::filesystem::path(d) / file, ec) ? d : "";
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path bin = exe.parent_path();
  for (const std::filesystem::path& dir :
       {bin / ".." / BANKCHECK_INSTALL_LIBDIR / subdir, bin / ".." / ".." / "lib" / subdir})
    if (std::filesystem::exists(dir / file, ec))
      return std::filesystem::weakly_canonical(dir, ec).string();
  return "";
}

namespace {

// The toolkit's compute-sanitizer directory (libsanitizer-public.so): BANKCHECK_SANITIZER_DIR,
// else beside the nvcc on PATH, else /usr/local/cuda. Empty when none has it.
std::string sanitizer_dir() {
  std::vector<std::filesystem::path> dirs;
  if (const char* d = std::getenv("BANKCHECK_SANITIZER_DIR"); d && *d) dirs.emplace_back(d);
  const char* path = std::getenv("PATH");
  std::istringstream ps(path ? path : "");
  std::error_code ec;
  for (std::string dir; std::getline(ps, dir, ':');) {
    const std::filesystem::path nvcc = std::filesystem::path(dir.empty() ? "." : dir) / "nvcc";
    if (::access(nvcc.c_str(), X_OK) == 0)
      dirs.push_back(std::filesystem::canonical(nvcc, ec).parent_path().parent_path() /
                     "compute-sanitizer");
  }
  dirs.emplace_back("/usr/local/cuda/compute-sanitizer");
  for (const auto& d : dirs)
    if (std::filesystem::exists(d / "libsanitizer-public.so", ec)) return d.string();
  return "";
}

// Whether a GPU can run the program: the driver's library and a device node.
bool gpu_present() {
  std::error_code ec;
  if (!std::filesystem::exists("/dev/nvidiactl", ec)) return false;
  void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!cuda) return false;
  ::dlclose(cuda);
  return true;
}

}  // namespace

GpuBackend find_gpu_backend() {
  GpuBackend g;
  g.tool_dir = library_dir("BANKCHECK_GPU_DIR", "bankcheck-gpu", "libbankcheck-gpu.so");
  if (g.tool_dir.empty()) {
    g.why =
        "this bankcheck was built without the GPU backend (it needs the CUDA toolkit's "
        "compute-sanitizer headers at build time)";
    return g;
  }
  if (!gpu_present()) {
    g.why = "no GPU was found (no /dev/nvidiactl or no libcuda.so.1)";
    return g;
  }
  g.sanitizer = sanitizer_dir();
  if (g.sanitizer.empty())
    g.why =
        "the toolkit's compute-sanitizer/libsanitizer-public.so was not found (set "
        "BANKCHECK_SANITIZER_DIR to its directory)";
  return g;
}

}  // namespace bankcheck::launch
