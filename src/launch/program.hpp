// The program `bankcheck run` is asked to run, and what it needs to: found on PATH as execvp
// finds it, classified by content (driver/binary_input.hpp), refused before it starts when a
// backend cannot run it; and where bankcheck's own libraries are.
#pragma once

#include <string>

namespace bankcheck::launch {

// The program's file, as execvp would find `name`. Throws LaunchError.
std::string find_program(const std::string& name);

// For the emulator: throws LaunchError when the program is an ELF file whose kernels have no
// PTX for `arch`. A file that is not ELF (a script), or has no CUDA code of its own, runs as it
// is; so does any CUDA runtime, static or shared (it runs on bankcheck's driver).
void check_for_emulator(const std::string& path, const std::string& shown, const std::string& arch);

// The directory of one of bankcheck's libraries (`file` in it): `env` names it, else beside an
// installed bankcheck (PREFIX/LIBDIR/SUBDIR), else in the build tree (build/lib/SUBDIR); empty
// when `file` is not there.
std::string library_dir(const char* env, const char* subdir, const char* file);

// The GPU backend's pieces, or why it cannot run here (`why` empty: it can).
struct GpuBackend {
  std::string tool_dir, sanitizer;
  std::string why;
};
GpuBackend find_gpu_backend();

}  // namespace bankcheck::launch
