// Test input: __forceinline__ helpers from another header, so .loc lines carry inlined_at.
#pragma once
__device__ __forceinline__ float load_tile(const float* tile, int i) { return tile[i ^ 1]; }
__device__ __forceinline__ float twice(const float* tile, int i) { return load_tile(tile, i) + load_tile(tile, i + 32); }
