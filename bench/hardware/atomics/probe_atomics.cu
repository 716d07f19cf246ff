// One warp-wide shared atomic per launch, in each SASS form ptxas emits, for measuring
// its wavefronts with Nsight Compute.
//
// The forms differ in cost (ATOMS.POPC.INC merges lanes on one word, a plain ATOMS.ADD
// does not, a warp-uniform address is aggregated into one lane), and ptxas picks the form
// from what it can prove: whether the result is used, whether the operand is the constant
// 1, whether the address is warp-uniform. So most kernels are written the way users write
// them (atomicAdd and friends), each shaped so that exactly one form comes out; run.sh
// checks each kernel's SASS against the line `// sass: KERNEL FORM...` above it and
// records what came out when it differs.
//
// Lane addresses, the active mask and the operands come from global memory, so nothing
// about a pattern is known at compile time. Before the atomic each active lane stores the
// documented initial value to its word (an STS, counted apart from the atomic's pipe), so
// that CAS hits and misses and MIN/MAX updates are reproducible.
//
// Usage: probe_atomics PATTERNS   (format: README.md)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// What every kernel reads: per-lane byte offsets into the shared array, active flags,
// operands and CAS compare values; `uni` is the first active lane's offset, passed as a
// kernel parameter so that ptxas can prove it warp-uniform.
struct Lanes {
  const unsigned* addr;
  const unsigned* act;
  const long long* val;
  const long long* cmp;
  long long* out;
  unsigned uni;
};

// Initial value of the word at byte offset a (README.md): integers 1000 + a, floats the
// same number as a float.
__device__ __host__ inline unsigned init32(unsigned a) { return 1000u + a; }
__device__ __host__ inline unsigned long long init64(unsigned a) { return 1000ull + a; }

#define SMEM __shared__ __align__(16) unsigned char smem[kSmemBytes]
#define LANE                          \
  const unsigned lane = threadIdx.x;  \
  const bool on = L.act[lane] != 0u;  \
  const unsigned off = L.addr[lane]
// The initial store, then a warp barrier so that it lands before any lane's atomic.
#define INIT32(OFF)                                                   \
  if (on) *reinterpret_cast<unsigned*>(smem + (OFF)) = init32(OFF);  \
  __syncwarp()
#define INIT64(OFF)                                                                 \
  if (on) *reinterpret_cast<unsigned long long*>(smem + (OFF)) = init64(OFF);      \
  __syncwarp()
#define INITF(OFF)                                                                  \
  if (on) *reinterpret_cast<float*>(smem + (OFF)) = static_cast<float>(init32(OFF)); \
  __syncwarp()
#define U32(OFF) reinterpret_cast<unsigned*>(smem + (OFF))
#define S32(OFF) reinterpret_cast<int*>(smem + (OFF))
#define U64(OFF) reinterpret_cast<unsigned long long*>(smem + (OFF))
#define F32(OFF) reinterpret_cast<float*>(smem + (OFF))

// --- increments: the constant 1 with an unused result ---------------------------------
// sass: inc_unused ATOMS.POPC.INC
__global__ void inc_unused(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) atomicAdd(U32(off), 1u);
}
// The same request written as PTX `red`, as a hand-written kernel would.
// sass: inc_unused_red_ptx ATOMS.POPC.INC
__global__ void inc_unused_red_ptx(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + off;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p red.shared.add.u32 [%0], 1; }"
               ::"r"(a), "r"(static_cast<unsigned>(on)) : "memory");
}
// A warp-uniform address by construction (a kernel parameter): ptxas aggregates the warp.
// sass: inc_uniform_param ATOMS.ADD
__global__ void inc_uniform_param(Lanes L) {
  SMEM;
  LANE;
  (void)off;
  INIT32(L.uni);
  if (on) atomicAdd(U32(L.uni), 1u);
}
// Uniform through a shuffle from lane 0 (every lane's address slot holds the same offset).
// sass: inc_uniform_shfl ATOMS.ADD
__global__ void inc_uniform_shfl(Lanes L) {
  SMEM;
  LANE;
  const unsigned u = __shfl_sync(0xffffffffu, off, 0);
  INIT32(u);
  if (on) atomicAdd(U32(u), 1u);
}
// Uniform address, lane-dependent operand, unused result: a warp reduction, then one lane.
// sass: add_uniform_param_val ATOMS.ADD
__global__ void add_uniform_param_val(Lanes L) {
  SMEM;
  LANE;
  (void)off;
  INIT32(L.uni);
  if (on) atomicAdd(U32(L.uni), static_cast<unsigned>(L.val[lane]));
}
// The constant 1 with the result used.
// sass: inc_used ATOMS.ADD
__global__ void inc_used(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicAdd(U32(off), 1u);
}

// --- add ----------------------------------------------------------------------------
// sass: add_u32_used ATOMS.ADD
__global__ void add_u32_used(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicAdd(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: add_u32_unused ATOMS.ADD
__global__ void add_u32_unused(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) atomicAdd(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: red_add_u32_ptx ATOMS.ADD
__global__ void red_add_u32_ptx(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + off;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p red.shared.add.u32 [%0], %1; }"
               ::"r"(a), "r"(static_cast<unsigned>(L.val[lane])), "r"(static_cast<unsigned>(on))
               : "memory");
}
// 64-bit add: on sm_90 a CAS loop (bench/hardware/measured/patterns_merge/sass.txt).
// sass: add_u64_used LDS.64 ATOMS.CAST.SPIN.64
__global__ void add_u64_used(Lanes L) {
  SMEM;
  LANE;
  INIT64(off);
  if (on) L.out[lane] = static_cast<long long>(
              atomicAdd(U64(off), static_cast<unsigned long long>(L.val[lane])));
}
// float add: a native ATOMS.ADD.F32 or a CAS loop; run.sh records which.
// sass: add_f32_used ATOMS.ADD.F32
__global__ void add_f32_used(Lanes L) {
  SMEM;
  LANE;
  INITF(off);
  if (on) {
    const float r = atomicAdd(F32(off), static_cast<float>(L.val[lane]));
    L.out[lane] = static_cast<long long>(__float_as_uint(r));
  }
}
// sass: add_f32_unused ATOMS.ADD.F32
__global__ void add_f32_unused(Lanes L) {
  SMEM;
  LANE;
  INITF(off);
  if (on) atomicAdd(F32(off), static_cast<float>(L.val[lane]));
}

// --- compare-and-swap, exchange ---------------------------------------------------------
// sass: cas_b32 ATOMS.CAS
__global__ void cas_b32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on)
    L.out[lane] = atomicCAS(U32(off), static_cast<unsigned>(L.cmp[lane]),
                            static_cast<unsigned>(L.val[lane]));
}
// sass: cas_b64 ATOMS.CAS.64
__global__ void cas_b64(Lanes L) {
  SMEM;
  LANE;
  INIT64(off);
  if (on)
    L.out[lane] = static_cast<long long>(
        atomicCAS(U64(off), static_cast<unsigned long long>(L.cmp[lane]),
                  static_cast<unsigned long long>(L.val[lane])));
}
// sass: exch_b32 ATOMS.EXCH
__global__ void exch_b32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicExch(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: exch_b64 ATOMS.EXCH.64
__global__ void exch_b64(Lanes L) {
  SMEM;
  LANE;
  INIT64(off);
  if (on)
    L.out[lane] = static_cast<long long>(
        atomicExch(U64(off), static_cast<unsigned long long>(L.val[lane])));
}

// --- min / max, signed and unsigned -------------------------------------------------------
// sass: min_s32 ATOMS.MIN.S32
__global__ void min_s32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicMin(S32(off), static_cast<int>(L.val[lane]));
}
// sass: max_s32 ATOMS.MAX.S32
__global__ void max_s32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicMax(S32(off), static_cast<int>(L.val[lane]));
}
// sass: min_u32 ATOMS.MIN
__global__ void min_u32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicMin(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: max_u32 ATOMS.MAX
__global__ void max_u32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicMax(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: min_u64 ATOMS.MIN.64
__global__ void min_u64(Lanes L) {
  SMEM;
  LANE;
  INIT64(off);
  if (on)
    L.out[lane] = static_cast<long long>(
        atomicMin(U64(off), static_cast<unsigned long long>(L.val[lane])));
}

// --- bitwise, wrapping increment --------------------------------------------------------
// sass: and_b32 ATOMS.AND
__global__ void and_b32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicAnd(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: or_b32 ATOMS.OR
__global__ void or_b32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicOr(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: xor_b32 ATOMS.XOR
__global__ void xor_b32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicXor(U32(off), static_cast<unsigned>(L.val[lane]));
}
// sass: inc_wrap_u32 ATOMS.INC
__global__ void inc_wrap_u32(Lanes L) {
  SMEM;
  LANE;
  INIT32(off);
  if (on) L.out[lane] = atomicInc(U32(off), static_cast<unsigned>(L.val[lane]));
}

using Kernel = void (*)(Lanes);
struct Probe {
  const char* name;
  Kernel fn;
  unsigned width;  // bytes per lane; addresses must be aligned to it
};
#define P(name, width) {#name, name, width}
static const Probe kProbes[] = {
    P(inc_unused, 4),     P(inc_unused_red_ptx, 4), P(inc_uniform_param, 4),
    P(inc_uniform_shfl, 4), P(add_uniform_param_val, 4), P(inc_used, 4),
    P(add_u32_used, 4),   P(add_u32_unused, 4),     P(red_add_u32_ptx, 4),
    P(add_u64_used, 8),   P(add_f32_used, 4),       P(add_f32_unused, 4),
    P(cas_b32, 4),        P(cas_b64, 8),            P(exch_b32, 4),
    P(exch_b64, 8),       P(min_s32, 4),            P(max_s32, 4),
    P(min_u32, 4),        P(max_u32, 4),            P(min_u64, 8),
    P(and_b32, 4),        P(or_b32, 4),             P(xor_b32, 4),
    P(inc_wrap_u32, 4),
};

static const Probe* find(const std::string& name) {
  for (const Probe& p : kProbes)
    if (name == p.name) return &p;
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Probe& p : kProbes) std::printf("%s %u\n", p.name, p.width);
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: probe_atomics PATTERNS | --list\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "probe_atomics: cannot open %s\n", argv[1]);
    return 2;
  }
  unsigned *d_addr, *d_act;
  long long *d_val, *d_cmp, *d_out;
  CHECK(cudaMalloc(&d_addr, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_act, kLanes * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_val, kLanes * sizeof(long long)));
  CHECK(cudaMalloc(&d_cmp, kLanes * sizeof(long long)));
  CHECK(cudaMalloc(&d_out, kLanes * sizeof(long long)));
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
    unsigned addr[kLanes], act[kLanes];
    long long val[kLanes], cmp[kLanes], out[kLanes];
    bool any = false;
    unsigned uni = 0;
    for (int l = 0; l < kLanes; ++l) {
      if (!(ss >> tok)) {
        std::fprintf(stderr, "%s:%d: fewer than 32 lanes\n", argv[1], lineno);
        return 2;
      }
      act[l] = tok != "-";
      addr[l] = 0;
      val[l] = 1;
      cmp[l] = 0;
      out[l] = 0;
      if (!act[l]) continue;
      // ADDR[:VAL[:CMP]]
      char* end = nullptr;
      addr[l] = static_cast<unsigned>(std::strtoul(tok.c_str(), &end, 0));
      if (*end == ':') val[l] = std::strtoll(end + 1, &end, 0);
      if (*end == ':') cmp[l] = std::strtoll(end + 1, &end, 0);
      if (*end != '\0' || addr[l] + probe->width > kSmemBytes || addr[l] % probe->width) {
        std::fprintf(stderr, "%s:%d: lane %d: bad token '%s' (range, alignment or syntax)\n",
                     argv[1], lineno, l, tok.c_str());
        return 2;
      }
      if (!any) uni = addr[l];
      any = true;
    }
    // Inactive lanes hold the first active lane's offset: harmless to every kernel, and
    // what the shuffle of inc_uniform_shfl needs when lane 0 is inactive.
    for (int l = 0; l < kLanes; ++l)
      if (!act[l]) addr[l] = uni;
    CHECK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_act, act, sizeof act, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, val, sizeof val, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_cmp, cmp, sizeof cmp, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_out, out, sizeof out, cudaMemcpyHostToDevice));
    probe->fn<<<1, kLanes>>>(Lanes{d_addr, d_act, d_val, d_cmp, d_out, uni});
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++launched;
  }
  std::printf("probe_atomics: %d launches\n", launched);
  return 0;
}
