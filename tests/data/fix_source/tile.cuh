// The tile's side, as a project's header defines it.
#pragma once
#define TILE 32
