// The SASS decoders, one per family of encodings (model::SassFamily), and the choice among
// them: the driver takes the decoder of its architecture's family (model::Arch::sass) and
// reads the cubin with it (read_module, module.hpp).
#pragma once

#include <cstdint>

#include "bankcheck/model/sass_family.hpp"
#include "bankcheck/sass/instruction.hpp"

namespace bankcheck::sass {

// Decodes one 128-bit instruction (low and high 64-bit words as the file stores them) at
// byte `offset` of its kernel's .text section.
using Decoder = Instruction (*)(std::uint64_t lo, std::uint64_t hi, std::uint64_t offset);

// Hopper (sm_90, sm_90a): src/sass/decode.cpp, its fields in docs/sass.md.
Instruction decode_hopper(std::uint64_t lo, std::uint64_t hi, std::uint64_t offset = 0);

// The decoder of `family`; nullptr for SassFamily::None (no decoder: PTX-level counts).
constexpr Decoder decoder_for(model::SassFamily family) {
  switch (family) {
    case model::SassFamily::Hopper:
      return &decode_hopper;
    case model::SassFamily::None:
      return nullptr;
  }
  return nullptr;
}

}  // namespace bankcheck::sass
