// The tile's side, from a directory only the build's -I names.
#pragma once
constexpr int SIDE = TILE_BASE * 2;
