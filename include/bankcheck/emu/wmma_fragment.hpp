// Which element of its 16x16 matrix each lane holds in a wmma m16n16k16 fragment, and where
// that element lies in memory. The PTX ISA leaves wmma's fragments unspecified; these are
// the H100's, measured by bench/hardware/wmma/probe_wmma.cu (results/wmma_layout.txt: A
// row-major, B column-major and an f32 accumulator row-major, leading dimensions 16, 24,
// 32 and 64; tests/emu_wmma_test.cpp checks every lane and element of the file against
// wmma_element). They are the fragments of mma.m16n8k16, the two n8 halves side by side,
// which is how ptxas runs wmma.mma: two HMMA.16816 (wmma_sass.txt).
//
//   lane l = 4g + t; fragment::x[e]: pair p = (e / 2) % 4, j = e % 2
//   A (m x k), C, D (m x n):  row g + 8 (p & 1),      col 2t + j + 8 (p >> 1)
//   B (k x n):                k   2t + j + 8 (p & 1), n   g + 8 (p >> 1)
//
//   lane 0 of A:  x[0..7] = (0,0) (0,1) (8,0) (8,1) (0,8) (0,9) (8,8) (8,9)
//
// f16 and bf16 fragments keep pair p in register p (j = 0 in the low half); an f16 A or B
// fragment has 8 registers (16 elements), x[8..15] repeating x[0..7] (measured). f32
// accumulators keep element e in register e. Layouts not measured (A column-major, B
// row-major, column-major and f16 accumulators, bf16) are taken to hold the same elements:
// the mapping is a property of the fragment, not of where the matrix was read from.
#pragma once

#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::emu {

// A position in a matrix: (row, column) of A (m, k), B (k, n), C or D (m, n), or of the
// matrix as stored (memory row, memory column).
struct WmmaPos {
  int row = 0, col = 0;
  friend constexpr bool operator==(WmmaPos, WmmaPos) = default;
};

// The element of the fragment's matrix that fragment::x[e] of `lane` holds.
// Pre: lane in [0, 32), e in [0, 16) (an f16 A or B fragment's 16 elements; the others have
// 8). Example: wmma_element(WmmaFrag::B, 5, 2) == {8 + 2, 1}: lane 5 is g = 1, t = 1.
constexpr WmmaPos wmma_element(ptx::WmmaFrag f, int lane, int e) {
  const int g = lane / 4, t = lane % 4, p = (e / 2) % 4, j = e % 2;
  if (f == ptx::WmmaFrag::B) return {2 * t + j + 8 * (p & 1), g + 8 * (p >> 1)};
  return {g + 8 * (p & 1), 2 * t + j + 8 * (p >> 1)};
}

// Where element `at` of the fragment's matrix lies in memory: a row-major matrix's memory
// rows are its rows; a column-major one's are its columns.
constexpr WmmaPos wmma_memory(WmmaPos at, bool col_major) {
  return col_major ? WmmaPos{at.col, at.row} : at;
}

}  // namespace bankcheck::emu
