// kernels.cuh: the SGEMM ladder, C = alpha * A * B + beta * C, row-major, one header per
// step.
#pragma once

#include "kernels/1_naive.cuh"
#include "kernels/2_coalesced.cuh"
#include "kernels/3_smem_tiled.cuh"
#include "kernels/5_1d_blocktiling.cuh"
#include "kernels/6_2d_blocktiling.cuh"
#include "kernels/7_vectorized.cuh"
