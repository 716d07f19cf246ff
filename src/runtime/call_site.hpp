// Where the program called from: the first frame of the calling thread's stack that lies in
// the program's own code (its executable or its own libraries), past bankcheck's driver, the
// CUDA runtime and NVIDIA's libraries, for a report that names the program's call into a
// library whose work did not run.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace bankcheck::runtime {

// "gemm.cu:42 (main)" where the frame's file has DWARF line information; else
// "main+0x1f (gemm)" from its symbol table; else "gemm+0x1a2f"; "" when no frame of the stack
// is the program's. Frames in this library, in files named in `skip` and in NVIDIA's CUDA
// libraries (libcudart, libcublas, libcublasLt, libcudnn, ...) are passed over.
std::string program_call_site(std::span<const std::string> skip);

// Whether a shared library's file name is one of NVIDIA's CUDA libraries.
bool nvidia_library(std::string_view name);

}  // namespace bankcheck::runtime
