// One warp-wide shared-memory instruction per launch, for measuring wavefronts with ncu.
//
// Each kernel issues exactly one LDS / STS / ATOMS of the intended width (run.sh checks the
// SASS). Addresses and the active-lane mask come from global memory so that nothing about
// the pattern is known at compile time. Inactive lanes are predicated off inside the
// instruction itself (`@p`), so the request is one instruction with a partial mask.
//
// Usage: probe PATTERNS   (one pattern a line: "id op width a0 ... a31", '-' = inactive)
// op: ld, st, atom (add), atom.exch, atom.cas, red (add).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <fstream>
#include <sstream>

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
                   cudaGetErrorString(e_));                                          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

constexpr unsigned kSmemBytes = 48 * 1024;

__global__ void ld_u8(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.shared.u8 %0, [%1]; }"
               : "+r"(v) : "r"(a), "r"(act[lane]) : "memory");
  out[lane] = v;
}
__global__ void ld_u16(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned short v = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.shared.u16 %0, [%1]; }"
               : "+h"(v) : "r"(a), "r"(act[lane]) : "memory");
  out[lane] = v;
}
__global__ void ld_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.shared.u32 %0, [%1]; }"
               : "+r"(v) : "r"(a), "r"(act[lane]) : "memory");
  out[lane] = v;
}
__global__ void ld_u64(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v0 = 0, v1 = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p ld.shared.v2.u32 {%0, %1}, [%2]; }"
               : "+r"(v0), "+r"(v1) : "r"(a), "r"(act[lane]) : "memory");
  out[lane] = v0 ^ v1;
}
__global__ void ld_u128(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v0 = 0, v1 = 0, v2 = 0, v3 = 0;
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %5, 0; @p ld.shared.v4.u32 {%0, %1, %2, %3}, [%4]; }"
      : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3) : "r"(a), "r"(act[lane]) : "memory");
  out[lane] = v0 ^ v1 ^ v2 ^ v3;
}
__global__ void st_u8(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned short v = (unsigned short)out[lane];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.u8 [%0], %1; }"
               :: "r"(a), "h"(v), "r"(act[lane]) : "memory");
}
__global__ void st_u16(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned short v = (unsigned short)out[lane];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.u16 [%0], %1; }"
               :: "r"(a), "h"(v), "r"(act[lane]) : "memory");
}
__global__ void st_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.u32 [%0], %1; }"
               :: "r"(a), "r"(v), "r"(act[lane]) : "memory");
}
__global__ void st_u64(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p st.shared.v2.u32 [%0], {%1, %2}; }"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(act[lane]) : "memory");
}
__global__ void st_u128(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane];
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %5, 0; @p st.shared.v4.u32 [%0], {%1, %2, %3, %4}; }"
      :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3), "r"(act[lane]) : "memory");
}
__global__ void atom_add_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane], r = 0;  // a lane-dependent operand keeps ptxas from POPC.INC
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p atom.shared.add.u32 %0, [%1], %2; }"
               : "+r"(r) : "r"(a), "r"(v), "r"(act[lane]) : "memory");
  out[lane] = r;
}
__global__ void atom_exch_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane], r = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p atom.shared.exch.b32 %0, [%1], %2; }"
               : "+r"(r) : "r"(a), "r"(v), "r"(act[lane]) : "memory");
  out[lane] = r;
}
__global__ void atom_cas_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane], r = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %4, 0; @p atom.shared.cas.b32 %0, [%1], %2, %3; }"
               : "+r"(r) : "r"(a), "r"(v), "r"(v + 7), "r"(act[lane]) : "memory");
  out[lane] = r;
}
__global__ void red_add_u32(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned v = out[lane];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p red.shared.add.u32 [%0], %1; }"
               :: "r"(a), "r"(v), "r"(act[lane]) : "memory");
}
__global__ void atom_add_u64(const unsigned* addr, const unsigned* act, unsigned* out) {
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  unsigned lane = threadIdx.x, a = (unsigned)__cvta_generic_to_shared(smem) + addr[lane];
  unsigned long long v = out[lane], r = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p atom.shared.add.u64 %0, [%1], %2; }"
               : "+l"(r) : "r"(a), "l"(v), "r"(act[lane]) : "memory");
  out[lane] = (unsigned)r;
}

using Kernel = void (*)(const unsigned*, const unsigned*, unsigned*);

static Kernel pick(const std::string& op, int width) {
  if (op == "ld") {
    switch (width) { case 1: return ld_u8; case 2: return ld_u16; case 4: return ld_u32;
                     case 8: return ld_u64; case 16: return ld_u128; }
  } else if (op == "st") {
    switch (width) { case 1: return st_u8; case 2: return st_u16; case 4: return st_u32;
                     case 8: return st_u64; case 16: return st_u128; }
  } else if (op == "atom" && width == 4) {
    return atom_add_u32;
  } else if (op == "atom" && width == 8) {
    return atom_add_u64;
  } else if (op == "atom.exch" && width == 4) {
    return atom_exch_u32;
  } else if (op == "atom.cas" && width == 4) {
    return atom_cas_u32;
  } else if (op == "red" && width == 4) {
    return red_add_u32;
  }
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc != 2) { std::fprintf(stderr, "usage: probe PATTERNS\n"); return 2; }
  std::ifstream in(argv[1]);
  if (!in) { std::fprintf(stderr, "probe: cannot open %s\n", argv[1]); return 2; }
  unsigned *d_addr, *d_act, *d_out;
  CHECK(cudaMalloc(&d_addr, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_act, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, 32 * sizeof(unsigned)));
  std::vector<unsigned> init(32);
  for (unsigned i = 0; i < 32; ++i) init[i] = i + 1;
  std::string line;
  int lineno = 0, launched = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string id, op, tok;
    int width = 0;
    ss >> id >> op >> width;
    unsigned addr[32], act[32];
    for (int l = 0; l < 32; ++l) {
      if (!(ss >> tok)) { std::fprintf(stderr, "%s:%d: fewer than 32 lanes\n", argv[1], lineno); return 2; }
      act[l] = tok != "-";
      addr[l] = act[l] ? (unsigned)std::strtoul(tok.c_str(), nullptr, 0) : 0u;
      if (addr[l] >= kSmemBytes || addr[l] % width) {
        std::fprintf(stderr, "%s:%d: lane %d address %u out of range or misaligned\n", argv[1], lineno, l, addr[l]);
        return 2;
      }
    }
    Kernel k = pick(op, width);
    if (!k) { std::fprintf(stderr, "%s:%d: no kernel for %s %d\n", argv[1], lineno, op.c_str(), width); return 2; }
    CHECK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_act, act, sizeof act, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_out, init.data(), 32 * sizeof(unsigned), cudaMemcpyHostToDevice));
    k<<<1, 32>>>(d_addr, d_act, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++launched;
  }
  std::printf("probe: %d launches\n", launched);
  return 0;
}
