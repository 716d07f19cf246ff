// The GPU backend's device functions: the compute-sanitizer API patches every shared-memory,
// global-memory, ldmatrix/stmatrix, cp.async, wgmma, bulk-copy and cluster instruction of the
// analysed kernels' modules to call one of these with the lane's address (or the
// instruction's operands), and every thread's exit to count it. The active lanes of the warp
// gather their addresses to the lowest one, which costs the request with the model
// (warp_request.hpp, the rules the CPU uses) and adds it to the instruction's counter; nothing
// else leaves the GPU.
//
// Built with: nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch
// (src/device/CMakeLists.txt), loaded by the tool (tool.cpp) with sanitizerAddPatchesFromFile.
#include <sanitizer_patching.h>

#include <cstdint>

#include "bankcheck/device/records.hpp"
#include "bankcheck/device/warp_request.hpp"
#include "bankcheck/model/hopper.hpp"
#include "bankcheck/model/matrix.hpp"

namespace bd = bankcheck::device;
namespace bm = bankcheck::model;

namespace {

__device__ __forceinline__ unsigned lane_id() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// The shard this warp adds to (records.hpp): its SM's.
__device__ __forceinline__ unsigned shard_of(const bd::LaunchRecord* r) {
  return sm_id() & (r->shards - 1);
}

// The counter of `pc` in the launch's table (open addressing on the pc, in the warp's shard),
// claimed on first use; null when the table is full (counted as overflowed). A slot already
// holding the pc is found by a plain read: only a free slot takes an atomic to claim.
__device__ bd::PcCounter* counter_of(bd::LaunchRecord* r, unsigned long long pc, bd::Space space,
                                     bd::Access access, unsigned width, unsigned form) {
  const unsigned cap = r->capacity;
  bd::PcCounter* table = r->counters + static_cast<unsigned long long>(shard_of(r)) * cap;
  unsigned h = static_cast<unsigned>((pc >> 4) * 2654435761ull) & (cap - 1);
  for (unsigned probe = 0; probe < cap; ++probe, h = (h + 1) & (cap - 1)) {
    bd::PcCounter* c = &table[h];
    const unsigned long long seen = *static_cast<volatile unsigned long long*>(&c->pc);
    if (seen == pc) return c;
    if (seen != 0ull) continue;
    const unsigned long long was = atomicCAS(&c->pc, 0ull, pc);
    if (was == 0ull) {  // claimed: what the instruction is
      c->space = static_cast<unsigned char>(space);
      c->access = static_cast<unsigned char>(access);
      c->width = static_cast<unsigned char>(width);
      c->form = static_cast<unsigned char>(form);
      return c;
    }
    if (was == pc) return c;
  }
  atomicAdd(&r->overflowed, 1u);
  return nullptr;
}

__device__ __forceinline__ unsigned form_of(const bd::LaunchRecord* r, unsigned long long pc) {
  if (!r->forms || pc < r->base_pc) return 0;
  const unsigned long long i = (pc - r->base_pc) / 16;
  return i < r->forms_count ? r->forms[i] : 0;
}

__device__ __forceinline__ bd::Access access_of(std::uint32_t flags) {
  const bool read = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ;
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  return read && write ? bd::Access::Atomic : write ? bd::Access::Store : bd::Access::Load;
}

// Adds one costed request to its counter.
__device__ void add(bd::LaunchRecord* r, unsigned long long pc, bd::Space space, bd::Access access,
                    unsigned width, unsigned form, const bd::RequestCost& cost) {
  bd::PcCounter* c = counter_of(r, pc, space, access, width, form);
  if (!c) return;
  atomicAdd(&c->requests, 1ull);
  if (space == bd::Space::Shared) {
    atomicAdd(&c->wavefronts, static_cast<unsigned long long>(cost.wavefronts));
    atomicAdd(&c->ideal, static_cast<unsigned long long>(cost.ideal));
    atomicMax(&c->ways, cost.ways);
    if (cost.sectors) {  // LDGSTS: its global side, on the same instruction
      atomicAdd(&c->sectors, static_cast<unsigned long long>(cost.sectors));
      atomicAdd(&c->ideal_sectors, static_cast<unsigned long long>(cost.ideal_sectors));
    }
  } else {
    atomicAdd(&c->sectors, static_cast<unsigned long long>(cost.sectors));
    atomicAdd(&c->ideal_sectors, static_cast<unsigned long long>(cost.ideal_sectors));
  }
}

// BANKCHECK_GPU_PROBE 3: the request costed but not counted (a cost no request has is
// counted as overflowed, so that the costing is not left out as unused).
__device__ __forceinline__ bool probe_only(bd::LaunchRecord* r, const bd::RequestCost& cost) {
  if (r->probe != 3) return false;
  if (cost.wavefronts == 0xFFFFFFFFu && cost.sectors == 0xFFFFFFFFu) atomicAdd(&r->overflowed, 1u);
  return true;
}

}  // namespace

// The fast paths: the warp's lanes cost the request together with warp intrinsics, each
// keeping its own address (no gather into an array, no lane working alone through the
// model). Each computes a rule of the model exactly (tests/device_test.cpp pins the rule to
// model::analyze and model::count_sectors); a request outside it takes the model's path.
//
// A shared load or store on a GPU of the Maxwell rule (sm_50 and later, sm_90 included),
// model::detail::phased: the warp goes in phases (32 lanes up to 4 bytes, 16 for 8 bytes, 8
// for 16; a load whose lanes n and n^1, or n^2, share their addresses pairs two phases into
// one), and a phase costs the most distinct 4-byte words one bank delivers; ideal one a phase.
// A lane's words are an aligned block (its address over the width, or its word below 4
// bytes), so two lanes' words are the same block or apart: a bank gets one word from each
// distinct block of its bank group (the block modulo the groups, 128 / width of them). One
// lane speaks for each distinct block of its phase; a speaker's count is the speakers of its
// group. Not for atomics (their own rules) or a misaligned lane (the model's error).
// `mask`: the warp's active lanes (all take part); `req`: those in the request (an ldmatrix
// has the rows of its matrices only).
__device__ __forceinline__ bool shared_words(unsigned mask, unsigned req, std::uint32_t mine,
                                             int width, bd::Access access, const bm::Arch& arch,
                                             bd::RequestCost& cost) {
  if (access == bd::Access::Atomic || arch.rule != bm::BankRule::Maxwell || arch.banks != 32)
    return false;
  const unsigned lane = lane_id();
  const bool mine_in = (req >> lane) & 1u;
  if (__any_sync(mask, mine_in && (mine & static_cast<std::uint32_t>(width - 1)))) return false;
  int phase = width <= 4 ? 32 : width == 8 ? 16 : 8;
  if (width >= 8 && access == bd::Access::Load && arch.load_pair_merge) {
    // model::detail::pairs_share: every pair of active lanes n, n^d on one address.
    for (int d = 1; d <= 2; d *= 2) {
      const std::uint32_t other = __shfl_xor_sync(mask, mine, d);
      const bool partner = (req >> (lane ^ static_cast<unsigned>(d))) & 1u;
      if (__all_sync(mask, !mine_in || !partner || other == mine)) {
        phase *= 2;
        break;
      }
    }
  }
  const std::uint32_t block = width <= 4 ? mine >> 2 : mine / static_cast<std::uint32_t>(width);
  const std::uint32_t groups = width <= 4 ? 32u : 128u / static_cast<std::uint32_t>(width);
  const unsigned long long my_phase = lane / static_cast<unsigned>(phase);
  // A lane outside the request matches no other.
  const unsigned same_block =
      __match_any_sync(mask, mine_in ? (my_phase << 32) | block : (1ull << 40) + lane);
  const bool speaks = mine_in && lane == static_cast<unsigned>(__ffs(same_block) - 1);
  const unsigned same_group = __match_any_sync(
      mask, speaks ? (my_phase << 32) | (block & (groups - 1)) : (1ull << 40) + lane);
  const unsigned count = speaks ? static_cast<unsigned>(__popc(same_group)) : 0u;
  // Each phase's most, bit by bit with votes (a tools patch may not use redux).
  cost = {};
  for (int first = 0; first < 32; first += phase) {
    const unsigned lanes = (phase == 32 ? 0xFFFFFFFFu : ((1u << phase) - 1u) << first) & req;
    if (!lanes) continue;
    const bool in = (lanes >> lane) & 1u;
    unsigned most = 0;
    for (int bit = 5; bit >= 0; --bit)
      if (__any_sync(mask, in && count >= (most | (1u << bit)))) most |= 1u << bit;
    cost.wavefronts += most;
    cost.ideal += 1;
    cost.ways = most > cost.ways ? most : cost.ways;
  }
  return true;
}

// A global request whose every lane stays within one 32-byte sector (every aligned access of
// up to 16 bytes): the distinct sectors, and the ideal as model::count_sectors has it (the
// lanes' bytes packed, never more than the sectors touched).
__device__ __forceinline__ bool global_sectors(unsigned mask, unsigned long long mine, int width,
                                               bd::RequestCost& cost) {
  const unsigned long long sector = mine >> 5;
  if (__any_sync(mask, sector != (mine + static_cast<unsigned>(width) - 1) >> 5)) return false;
  const unsigned same = __match_any_sync(mask, sector);
  const unsigned firsts = __ballot_sync(mask, lane_id() == static_cast<unsigned>(__ffs(same) - 1));
  const unsigned sectors = __popc(firsts);
  const unsigned packed = (static_cast<unsigned>(__popc(mask)) * width + 31) / 32;
  cost.sectors = sectors;
  cost.ideal_sectors = sectors < packed ? sectors : packed;
  return true;
}

// Whether every global request goes through the model's path (BANKCHECK_GPU_PROBE 2 and 4).
__device__ __forceinline__ bool model_only(const bd::LaunchRecord* r) {
  return r->probe == 2 || r->probe == 4;
}

__device__ __forceinline__ bool leads(unsigned mask) {
  return lane_id() == static_cast<unsigned>(__ffs(mask) - 1);
}

// What the shared fast path leaves (atomics, misaligned lanes): the lanes' addresses
// gathered to the lowest, which costs the request alone (warp_request.hpp's
// shared_request_left: no bank tables, a frame of a few hundred bytes). Inlined, as
// everything a patch calls: with the model's path in a function of its own (a 26 KB frame
// under a 48-byte patch) a cuBLAS kernel faulted on the H200 with an illegal address, and
// inlined it ran; the sanitizer seems to size a patched kernel's stack from the patch
// function's own frame. That frame is every patched thread's stack: keep it small.
__device__ __forceinline__ void shared_left(bd::LaunchRecord* r, unsigned long long pc,
                                            unsigned mask, unsigned req, std::uint32_t mine,
                                            int width, bd::Access access, unsigned form) {
  std::uint32_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = __shfl_sync(mask, mine, l);
  if (!leads(mask) || r->probe == 2) return;
  bd::RequestCost cost;
#ifdef BANKCHECK_PATCHES_LEAN
  cost.wavefronts = addr[0] + addr[31];
#else
  if (form & bd::kSpin && width == 8)
    cost = bd::spin_pass(addr, req);
  else
    cost = bd::shared_request_left(addr, req, width, access, static_cast<bd::Form>(form & 3u),
                                   r->arch);
#endif
  if (probe_only(r, cost)) return;
  add(r, pc, bd::Space::Shared, access, static_cast<unsigned>(width), form, cost);
}

// A shared request of the warp (`req` its lanes; `form` its SASS form, records.hpp), counted
// at `pc`: by the fast path, or what it leaves by the lowest lane.
__device__ __forceinline__ void shared_request(bd::LaunchRecord* r, unsigned long long pc,
                                               unsigned mask, unsigned req, std::uint32_t mine,
                                               int width, bd::Access access, unsigned form) {
  bd::RequestCost cost;
  if (!shared_words(mask, req, mine, width, access, r->arch, cost)) {
    shared_left(r, pc, mask, req, mine, width, access, form);
    return;
  }
  if (!leads(mask) || probe_only(r, cost)) return;
  add(r, pc, bd::Space::Shared, access, static_cast<unsigned>(width), form, cost);
}

__device__ __forceinline__ void global_by_model(bd::LaunchRecord* r, unsigned long long pc,
                                                unsigned mask, unsigned long long mine, int width,
                                                bd::Access access) {
  std::uint64_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = __shfl_sync(mask, mine, l);
  if (!leads(mask) || r->probe == 2) return;
  const bd::RequestCost cost = bd::global_request(addr, mask, width);
  if (probe_only(r, cost)) return;
  add(r, pc, bd::Space::Global, access, static_cast<unsigned>(width), 0, cost);
}

// LDS, STS and ATOMS: `ptr` is the lane's offset in the CTA's shared window.
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_shared_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r || r->probe == 1) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  const auto mine = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(ptr));
  shared_request(r, pc, mask, mask, mine, bd::instruction_width(size), access_of(flags),
                 form_of(r, pc));
  return SANITIZER_PATCH_SUCCESS;
}

// LD/ST/ATOM/RED to global memory: `ptr` is the lane's address.
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_global_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r || r->probe == 1) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  const auto mine = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(ptr));
  const int width = bd::instruction_width(size);
  bd::RequestCost cost;
  if (model_only(r) || !global_sectors(mask, mine, width, cost)) {
    global_by_model(r, pc, mask, mine, width, access_of(flags));
    return SANITIZER_PATCH_SUCCESS;
  }
  if (!leads(mask) || probe_only(r, cost)) return SANITIZER_PATCH_SUCCESS;
  add(r, pc, bd::Space::Global, access_of(flags), static_cast<unsigned>(width), 0, cost);
  return SANITIZER_PATCH_SUCCESS;
}

// LDSM and STSM: lane 8m+r gives row r of matrix m; `count` matrices of 16-byte rows.
extern "C" __device__ __noinline__ SanitizerPatchResult
bankcheck_matrix_access(void* userdata, uint64_t pc, uint32_t address, uint32_t size,
                        uint32_t flags, uint32_t count, const void*) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  const bool store = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  // model::analyze_matrix: each matrix one phase of its eight 16-byte rows, never paired (a
  // 16-byte store's rule, lanes 0 to 8 x count - 1); an instruction it does not know, or a
  // misaligned row, costs nothing (its error).
  const bool known = (count == 1 || count == 2 || count == 4) && r->arch.cc >= (store ? 90 : 75);
  const unsigned req = known ? mask & (count == 4 ? 0xFFFFFFFFu : (1u << (8 * count)) - 1u) : 0u;
  bd::RequestCost cost;
#ifdef BANKCHECK_PATCHES_LEAN
  cost.wavefronts = address;
#else
  if (!req || !shared_words(mask, req, address, 16, bd::Access::Store, r->arch, cost)) cost = {};
#endif
  if (!leads(mask)) return SANITIZER_PATCH_SUCCESS;
  add(r, pc, bd::Space::Shared, store ? bd::Access::Store : bd::Access::Load, size * count,
      form_of(r, pc), cost);
  return SANITIZER_PATCH_SUCCESS;
}

// LDGSTS (cp.async): `dst` the lane's shared offset, `src` its global source. Both sides
// are costed here: the shared wavefronts and the global sectors of the same instruction
// (model::ldgsts_sectors), as the Source Counters give both on the LDGSTS row.
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_async_copy(void* userdata,
                                                                             uint64_t pc, void* src,
                                                                             uint32_t dst,
                                                                             uint32_t size) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  // A lane whose src-size is 0 (a zero fill: the predicate or src-size form) is given no
  // source address: it reads nothing (AsyncCopy::reads), its shared side alone is charged.
  const auto global = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(src));
  bm::AsyncCopy c;
  std::uint64_t ga[32];
  c.reads = __ballot_sync(mask, src != nullptr);
  for (int l = 0; l < 32; ++l) {
    c.addr[l] = __shfl_sync(mask, dst, l);
    ga[l] = __shfl_sync(mask, global, l);
    c.global_addr[l] = static_cast<std::uint32_t>(ga[l]);
  }
  if (lane_id() != static_cast<unsigned>(__ffs(mask) - 1)) return SANITIZER_PATCH_SUCCESS;
  const unsigned form = form_of(r, pc);
  c.width = static_cast<std::uint8_t>(size);
  c.active = mask;
  c.bypass = form & bd::kBypass;
  c.src_size = form & bd::kZfill;
#ifdef BANKCHECK_PATCHES_LEAN
  const bm::Verdict v{c.addr[0], c.addr[31], 1};
  const bm::SectorCount sc{c.global_addr[0], c.global_addr[1], 0};
#else
  const bm::Verdict v = bm::analyze_ldgsts(c, r->arch);
  const bm::SectorCount sc = bm::ldgsts_sectors(c, ga);
#endif
  bd::RequestCost cost;
  cost.wavefronts = v.wavefronts;
  cost.ideal = v.ideal_wavefronts;
  cost.ways = v.ways;
  cost.sectors = sc.sectors;
  cost.ideal_sectors = sc.ideal;
  add(r, pc, bd::Space::Shared, bd::Access::Store, size, form, cost);
  return SANITIZER_PATCH_SUCCESS;
}

// A thread's exit (the patched block exit): the threads of the analysed launches that ran the
// patched code to their end, so that the host knows a count that is not whole
// (instrumentation.hpp). The active lanes are counted by the lowest.
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_block_exit(void* userdata,
                                                                             uint64_t) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  // Measuring the patches (probe 1 to 3): no exit counted, so that the kernel reads as
  // incomplete.
  if (!r || (r->probe && r->probe != 4)) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  if (lane_id() == static_cast<unsigned>(__ffs(mask) - 1))
    atomicAdd(r->exits ? &r->exits[shard_of(r) * bd::kExitStride] : &r->exited,
              static_cast<unsigned long long>(__popc(mask)));
  return SANITIZER_PATCH_SUCCESS;
}

// wgmma (HGMMA, QGMMA, IGMMA): each of the warpgroup's four warps calls this; each is one
// execution, as Nsight Compute counts them, and the warpgroup's first warp adds the operand
// reads (model::wgmma_request: every operand byte once, 128 a wavefront, whatever the
// descriptors say; bench/hardware/wgmma). N and A's source come from the SASS (the form);
// without a form, the operand sizes the sanitizer hands over (bytes) stand in.
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_wgmma(void* userdata, uint64_t pc,
                                                                        uint32_t, uint32_t size_a,
                                                                        uint32_t, uint32_t size_b,
                                                                        uint32_t,
                                                                        uint32_t warp_mask) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  if (lane_id() != static_cast<unsigned>(__ffs(mask) - 1)) return SANITIZER_PATCH_SUCCESS;
  const unsigned form = form_of(r, pc);
  bm::WgmmaOperands o;
  if (form & bd::kGmma) {
    o = bm::wgmma_operands(bd::gmma_form_n(form), !(form & bd::kGmmaARegisters));
  } else {
    o.a_bytes = size_a;
    o.b_bytes = size_b;
  }
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  bd::RequestCost cost;
  if (warp_mask != 0 && (thread / 32) % bm::kWgmmaWarps == 0) {
    const bm::Verdict v = bm::wgmma_request(o);
    cost.wavefronts = v.wavefronts;
    cost.ideal = v.ideal_wavefronts;
    cost.ways = v.ways;
  }
  add(r, pc, bd::Space::Shared, bd::Access::Load, 16, form, cost);
  return SANITIZER_PATCH_SUCCESS;
}

// What Nsight Compute lists with no shared wavefront and no sector (model/hopper.hpp): the TMA
// unit's bulk copies and requests to another CTA's shared memory. Counted as warp executions.
__device__ __forceinline__ void count_other(void* userdata, uint64_t pc, bd::OtherKind kind) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r) return;
  const unsigned mask = __activemask();
  if (lane_id() != static_cast<unsigned>(__ffs(mask) - 1)) return;
  bd::PcCounter* c = counter_of(r, pc, bd::Space::Other, static_cast<bd::Access>(kind), 0, 0);
  if (c) atomicAdd(&c->requests, 1ull);
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_bulk_to_shared(
    void* userdata, uint64_t pc, uint64_t, uint32_t, uint32_t, uint32_t, uint32_t) {
  count_other(userdata, pc, bd::OtherKind::BulkToShared);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_bulk_to_global(void* userdata,
                                                                                 uint64_t pc,
                                                                                 uint64_t, uint32_t,
                                                                                 uint32_t) {
  count_other(userdata, pc, bd::OtherKind::BulkToGlobal);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
bankcheck_bulk_to_cluster(void* userdata, uint64_t pc, uint32_t, uint32_t, uint32_t, uint32_t) {
  count_other(userdata, pc, bd::OtherKind::BulkToCluster);
  return SANITIZER_PATCH_SUCCESS;
}

// st.async (STAS) into a CTA of the cluster: measured to another CTA, where Nsight Compute
// lists nothing (bench/hardware/dsmem).
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_async_store(void* userdata,
                                                                              uint64_t pc, uint32_t,
                                                                              uint32_t, void*,
                                                                              uint32_t) {
  count_other(userdata, pc, bd::OtherKind::AsyncStore);
  return SANITIZER_PATCH_SUCCESS;
}

// ld/st/atom to a shared::cluster address the sanitizer names remote. To another CTA's shared
// memory Nsight Compute lists nothing; to the CTA itself (through the cluster window) the
// request is an ordinary shared one (bench/hardware/dsmem). The CTA is the address's bits 24
// and up, as ptxas forms the window (SR_CgaCtaId << 24).
extern "C" __device__ __noinline__ SanitizerPatchResult bankcheck_remote_shared(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
  auto* r = static_cast<bd::LaunchRecord*>(userdata);
  if (!r) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  const auto mine = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(ptr));
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const bool own = bm::cluster_request_counted(rank, mine >> 24);
  // Every lane of a request names one CTA; lanes that differ count where the leader's goes.
  if (!__shfl_sync(mask, own, __ffs(mask) - 1)) {
    if (leads(mask)) count_other(userdata, pc, bd::OtherKind::RemoteShared);
    return SANITIZER_PATCH_SUCCESS;
  }
  shared_request(r, pc, mask, mask, mine & 0xFFFFFFu, bd::instruction_width(size), access_of(flags),
                 0u);
  return SANITIZER_PATCH_SUCCESS;
}
