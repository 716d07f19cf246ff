// One warp-wide ldmatrix, stmatrix or cp.async per launch, for measuring with Nsight
// Compute how the H100 counts the shared-memory side of each.
//
// ldmatrix/stmatrix (LDSM/STSM): lanes 8m..8m+7 give the row addresses of matrix m (16
// bytes each); for .x1 and .x2 the other lanes' addresses are still loaded and passed,
// as real code does, and the instruction ignores them. The .aligned forms must be run by
// the whole warp, so these kernels have no partial masks.
// cp.async (LDGSTS): each active lane copies 4, 8 or 16 bytes from a contiguous global
// buffer (lane l reads bytes [l*size, (l+1)*size)) to its own shared address, then the
// warp waits for the copy. The `_zfill` kernels pass a per-lane src-size (0 = all zeros).
//
// Addresses, masks and src-sizes come from global memory. run.sh checks each kernel's
// SASS against the line `// sass: KERNEL FORM...` above it.
//
// Usage: probe_matrix PATTERNS | --list   (format: README.md)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                     \
                   cudaGetErrorString(e_));                                               \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

constexpr unsigned kSmemBytes = 48 * 1024;
constexpr int kLanes = 32;
constexpr unsigned kSrcBytes = 4096;  // the global source of cp.async: 32 lines of 128 bytes

struct Lanes {
  const unsigned* addr;     // byte offset into the shared array, per lane
  const unsigned* act;      // cp.async only: lane active
  const unsigned* srcsize;  // cp.async _zfill: bytes read from global, rest zero;
                            // cp_cg16_from: the 16-byte chunk of src the lane copies
  const unsigned char* src; // cp.async: the global source, kSrcBytes, 128-byte aligned
  unsigned* out;
};

#define SMEM __shared__ __align__(128) unsigned char smem[kSmemBytes]
#define ADDR                        \
  const unsigned lane = threadIdx.x; \
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + L.addr[lane]

// --- ldmatrix --------------------------------------------------------------------------
#define LDSM1(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    unsigned r0;                                                                          \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1" TRANS ".shared.b16 {%0}, [%1];"          \
                 : "=r"(r0) : "r"(a) : "memory");                                         \
    L.out[lane] = r0;                                                                     \
  }
#define LDSM2(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    unsigned r0, r1;                                                                      \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2" TRANS ".shared.b16 {%0, %1}, [%2];"      \
                 : "=r"(r0), "=r"(r1) : "r"(a) : "memory");                               \
    L.out[lane] = r0 ^ r1;                                                                \
  }
#define LDSM4(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    unsigned r0, r1, r2, r3;                                                              \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4" TRANS                                    \
                 ".shared.b16 {%0, %1, %2, %3}, [%4];"                                    \
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");           \
    L.out[lane] = r0 ^ r1 ^ r2 ^ r3;                                                      \
  }
// sass: ldsm_x1 LDSM.16.M88
LDSM1(ldsm_x1, "")
// sass: ldsm_x2 LDSM.16.M88.2
LDSM2(ldsm_x2, "")
// sass: ldsm_x4 LDSM.16.M88.4
LDSM4(ldsm_x4, "")
// sass: ldsm_x1_trans LDSM.16.MT88
LDSM1(ldsm_x1_trans, ".trans")
// sass: ldsm_x2_trans LDSM.16.MT88.2
LDSM2(ldsm_x2_trans, ".trans")
// sass: ldsm_x4_trans LDSM.16.MT88.4
LDSM4(ldsm_x4_trans, ".trans")

// --- stmatrix (sm_90) ---------------------------------------------------------------------
#define STSM1(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned v = L.out[lane];                                                       \
    asm volatile("stmatrix.sync.aligned.m8n8.x1" TRANS ".shared.b16 [%0], {%1};"          \
                 ::"r"(a), "r"(v) : "memory");                                            \
  }
#define STSM2(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned v = L.out[lane];                                                       \
    asm volatile("stmatrix.sync.aligned.m8n8.x2" TRANS ".shared.b16 [%0], {%1, %2};"      \
                 ::"r"(a), "r"(v), "r"(v + 1) : "memory");                                \
  }
#define STSM4(NAME, TRANS)                                                                \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned v = L.out[lane];                                                       \
    asm volatile("stmatrix.sync.aligned.m8n8.x4" TRANS                                    \
                 ".shared.b16 [%0], {%1, %2, %3, %4};"                                    \
                 ::"r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");        \
  }
// sass: stsm_x1 STSM.16.M88
STSM1(stsm_x1, "")
// sass: stsm_x2 STSM.16.M88.2
STSM2(stsm_x2, "")
// sass: stsm_x4 STSM.16.M88.4
STSM4(stsm_x4, "")
// sass: stsm_x1_trans STSM.16.MT88
STSM1(stsm_x1_trans, ".trans")
// sass: stsm_x2_trans STSM.16.MT88.2
STSM2(stsm_x2_trans, ".trans")
// sass: stsm_x4_trans STSM.16.MT88.4
STSM4(stsm_x4_trans, ".trans")

// --- cp.async --------------------------------------------------------------------------
// The copy is predicated per lane (cp.async is not .aligned), then the warp waits for it.
#define CPASYNC(NAME, CACHE, SIZE)                                                        \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned char* g = L.src + lane * SIZE;                                         \
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0;\n"                                \
                 " @p cp.async." CACHE ".shared.global [%0], [%1], " #SIZE "; }"          \
                 ::"r"(a), "l"(g), "r"(L.act[lane]) : "memory");                          \
    asm volatile("cp.async.wait_all;" ::: "memory");                                      \
  }
#define CPASYNC_ZFILL(NAME, CACHE, SIZE)                                                  \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned char* g = L.src + lane * SIZE;                                         \
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0;\n"                                \
                 " @p cp.async." CACHE ".shared.global [%0], [%1], " #SIZE ", %2; }"      \
                 ::"r"(a), "l"(g), "r"(L.srcsize[lane]), "r"(L.act[lane]) : "memory");    \
    asm volatile("cp.async.wait_all;" ::: "memory");                                      \
  }
// sass: cp_ca4 LDGSTS
CPASYNC(cp_ca4, "ca", 4)
// sass: cp_ca8 LDGSTS
CPASYNC(cp_ca8, "ca", 8)
// sass: cp_ca16 LDGSTS
CPASYNC(cp_ca16, "ca", 16)
// sass: cp_cg16 LDGSTS.E.BYPASS
CPASYNC(cp_cg16, "cg", 16)
// Any lane from any global chunk: which lanes a wavefront serves depends on where each
// lane's 16 bytes come from and go to, apart from the lane order (.cg and .ca).
#define CPASYNC_FROM(NAME, CACHE, SIZE)                                                   \
  __global__ void NAME(Lanes L) {                                                         \
    SMEM;                                                                                 \
    ADDR;                                                                                 \
    const unsigned char* g = L.src + L.srcsize[lane] * SIZE;                              \
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0;\n"                                \
                 " @p cp.async." CACHE ".shared.global [%0], [%1], " #SIZE "; }"          \
                 ::"r"(a), "l"(g), "r"(L.act[lane]) : "memory");                          \
    asm volatile("cp.async.wait_all;" ::: "memory");                                      \
  }
// sass: cp_cg16_from LDGSTS.E.BYPASS
CPASYNC_FROM(cp_cg16_from, "cg", 16)
// sass: cp_ca16_from LDGSTS.E.128
CPASYNC_FROM(cp_ca16_from, "ca", 16)
// sass: cp_ca4_from LDGSTS
CPASYNC_FROM(cp_ca4_from, "ca", 4)
// sass: cp_ca8_from LDGSTS
CPASYNC_FROM(cp_ca8_from, "ca", 8)
// sass: cp_ca4_zfill LDGSTS
CPASYNC_ZFILL(cp_ca4_zfill, "ca", 4)
// sass: cp_ca8_zfill LDGSTS
CPASYNC_ZFILL(cp_ca8_zfill, "ca", 8)
// sass: cp_ca16_zfill LDGSTS
CPASYNC_ZFILL(cp_ca16_zfill, "ca", 16)
// sass: cp_cg16_zfill LDGSTS.E.BYPASS
CPASYNC_ZFILL(cp_cg16_zfill, "cg", 16)

using Kernel = void (*)(Lanes);
struct Probe {
  const char* name;
  Kernel fn;
  unsigned align;   // every address a multiple of this
  bool whole_warp;  // .aligned: no inactive lanes allowed
  bool from = false;  // ADDR:INDEX gives the global element (of `align` bytes), not a src-size
};
#define P(name, align, whole) {#name, name, align, whole}
static const Probe kProbes[] = {
    P(ldsm_x1, 16, true),       P(ldsm_x2, 16, true),       P(ldsm_x4, 16, true),
    P(ldsm_x1_trans, 16, true), P(ldsm_x2_trans, 16, true), P(ldsm_x4_trans, 16, true),
    P(stsm_x1, 16, true),       P(stsm_x2, 16, true),       P(stsm_x4, 16, true),
    P(stsm_x1_trans, 16, true), P(stsm_x2_trans, 16, true), P(stsm_x4_trans, 16, true),
    P(cp_ca4, 4, false),        P(cp_ca8, 8, false),        P(cp_ca16, 16, false),
    P(cp_cg16, 16, false),      P(cp_ca4_zfill, 4, false),  P(cp_ca8_zfill, 8, false),
    P(cp_ca16_zfill, 16, false), P(cp_cg16_zfill, 16, false),
    {"cp_cg16_from", cp_cg16_from, 16, false, true},
    {"cp_ca16_from", cp_ca16_from, 16, false, true},
    {"cp_ca4_from", cp_ca4_from, 4, false, true},
    {"cp_ca8_from", cp_ca8_from, 8, false, true},
};

static const Probe* find(const std::string& name) {
  for (const Probe& p : kProbes)
    if (name == p.name) return &p;
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Probe& p : kProbes) std::printf("%s %u\n", p.name, p.align);
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: probe_matrix PATTERNS | --list\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "probe_matrix: cannot open %s\n", argv[1]);
    return 2;
  }
  unsigned *d_addr, *d_act, *d_size, *d_out;
  unsigned char* d_src;
  CHECK(cudaMalloc(&d_addr, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_act, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_size, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_src, kSrcBytes));
  CHECK(cudaMemset(d_src, 0x5a, kSrcBytes));
  unsigned init[kLanes];
  for (int l = 0; l < kLanes; ++l) init[l] = 0x10001u * (l + 1);
  std::string line;
  int lineno = 0, launched = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string id, op, tok;
    ss >> id >> op;
    const Probe* probe = find(op);
    if (!probe) {
      std::fprintf(stderr, "%s:%d: no kernel named %s\n", argv[1], lineno, op.c_str());
      return 2;
    }
    unsigned addr[kLanes], act[kLanes], size[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      if (!(ss >> tok)) {
        std::fprintf(stderr, "%s:%d: fewer than 32 lanes\n", argv[1], lineno);
        return 2;
      }
      act[l] = tok != "-";
      addr[l] = 0;
      size[l] = probe->from ? static_cast<unsigned>(l) : probe->align;
      if (!act[l]) {
        if (probe->whole_warp) {
          std::fprintf(stderr, "%s:%d: %s needs every lane\n", argv[1], lineno, op.c_str());
          return 2;
        }
        continue;
      }
      // ADDR[:SRCSIZE], or ADDR[:INDEX] for the _from kernels (default: the lane's own)
      char* end = nullptr;
      addr[l] = static_cast<unsigned>(std::strtoul(tok.c_str(), &end, 0));
      if (*end == ':') size[l] = static_cast<unsigned>(std::strtoul(end + 1, &end, 0));
      if (*end != '\0' || addr[l] + 16 > kSmemBytes || addr[l] % probe->align ||
          size[l] > (probe->from ? kSrcBytes / probe->align - 1 : probe->align)) {
        std::fprintf(stderr, "%s:%d: lane %d: bad token '%s' (range, alignment or syntax)\n",
                     argv[1], lineno, l, tok.c_str());
        return 2;
      }
    }
    CHECK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_act, act, sizeof act, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_size, size, sizeof size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_out, init, sizeof init, cudaMemcpyHostToDevice));
    probe->fn<<<1, kLanes>>>(Lanes{d_addr, d_act, d_size, d_src, d_out});
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++launched;
  }
  std::printf("probe_matrix: %d launches\n", launched);
  return 0;
}
