// The tile edge the project's kernels share; a build may set it with -DTILE=N.
#pragma once

#ifndef TILE
#define TILE 32
#endif
