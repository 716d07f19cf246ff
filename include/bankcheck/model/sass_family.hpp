// SASS families: the machine-code encodings bankcheck decodes, one per GPU generation whose
// cubins it reads. model::Arch names the family of its cubins (Arch::sass); the sass layer
// gives the decoder of a family (sass/decoder.hpp), so the choice of decoder is data of
// the architecture, not a comparison of names.
#pragma once

#include <cstdint>

namespace bankcheck::model {

enum class SassFamily : std::uint8_t {
  None,    // no decoder: shared requests are counted as the PTX states them
  Hopper,  // sm_90 and sm_90a (src/sass/decode.cpp; fields verified in docs/sass.md)
};

}  // namespace bankcheck::model
