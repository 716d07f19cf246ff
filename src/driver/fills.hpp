// The fills of buffers and variables that `random` and `iota` ask for (fills.cpp); private to
// the driver.
#pragma once

#include <cstdint>

#include "bankcheck/driver/check.hpp"

namespace bankcheck::driver {

// `random`: floats uniform in [-1000, 1000] in steps of 0.001, integers in [0, 1000) (an
// element of 1 or 2 bytes takes that value's low bytes). Chunks of 1M elements, each from
// its own seed, filled on all cores (`threads`, 0: every core): the same bytes whatever the
// number of threads. `progress`, when given, counts the bytes filled (Progress::fill_done of
// fill_total), for the progress line of a fill longer than a second.
void fill_random(std::uint8_t* data, std::uint64_t bytes, int element_size, bool is_float,
                 std::uint64_t seed, unsigned threads, Progress* progress = nullptr);

// `iota`: element i holds i (as a float for 4-byte float elements).
void fill_iota(std::uint8_t* data, std::uint64_t bytes, int element_size, bool is_float);

}  // namespace bankcheck::driver
