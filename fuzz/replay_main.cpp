// Replays every file of a corpus directory (argv[1]) through LLVMFuzzerTestOneInput without
// a fuzzing engine, so that CTest checks the corpus with any compiler: prints
// "N passed, M failed" (a failure is an exception escaping the target or a nonzero return;
// crashes and failed postconditions abort).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR\n";
    return 2;
  }
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[1], ec)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  if (ec) {
    std::cerr << argv[1] << ": " << ec.message() << "\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  int passed = 0;
  int failed = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      if (LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                 bytes.size()) == 0) {
        ++passed;
      } else {
        ++failed;
        std::cerr << "FAILED " << path.string() << ": nonzero return\n";
      }
    } catch (const std::exception& e) {
      ++failed;
      std::cerr << "FAILED " << path.string() << ": " << e.what() << "\n";
    } catch (...) {
      ++failed;
      std::cerr << "FAILED " << path.string() << ": unknown exception\n";
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}
