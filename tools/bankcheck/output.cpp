// The one output writer: C stdio so that a full disk or a closed pipe is seen at fwrite,
// fflush or fclose, with errno's reason in the message.
#include "output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli.hpp"

namespace bankcheck::tools {
namespace {

std::string reason() { return errno ? std::strerror(errno) : "write failed"; }

}  // namespace

void refuse_input_as_output(const std::string& output, const std::string& input) {
  if (output.empty()) return;
  struct stat out {
  }, in{};
  const bool same =
      output == input || (::stat(output.c_str(), &out) == 0 && ::stat(input.c_str(), &in) == 0 &&
                          out.st_dev == in.st_dev && out.st_ino == in.st_ino);
  if (same)
    throw UserError(fmt::format("-o: '{}' is the input file; the report would replace it", output));
}

void write_output(std::string_view text, const std::string& path) {
  errno = 0;
  if (path.empty()) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout))
      throw UserError(fmt::format("cannot write to standard output: {}", reason()));
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw UserError(fmt::format("-o: cannot write '{}': {}", path, reason()));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = written && std::fflush(f) == 0;
  const std::string why = written && flushed ? "" : reason();
  if (std::fclose(f) != 0 || !written || !flushed)
    throw UserError(fmt::format("-o: cannot write '{}': {}", path, why.empty() ? reason() : why));
}

}  // namespace bankcheck::tools
