// The emulator and its warp loop: a kernel compiled once into micro-ops, then its CTAs run
// warp by warp; a SIMT stack per warp reconverging at immediate post-dominators; warps run
// until a barrier, then released together. Instructions run as micro-ops (uop_run.hpp) or,
// without a handler or with Options::fast off, by the reference semantics (reference.cpp).
//
// CTAs that run together (a cluster's, or a cooperative launch's whole grid: run_ctas):
// each CTA runs until none of its warps can (they wait at a barrier, on an mbarrier, at
// barrier.cluster.wait, or spin on a load whose bytes do not change), then the next; a
// wait another CTA can end (a remote mbarrier arrive or complete_tx, the cluster barrier,
// a write to the polled bytes) wakes the warp. When no CTA can run, each may release one
// waiter (an mbarrier wait returns false, as try_wait may; a spinning load reads once
// more), once per change of the group; when nothing is left to release, it is a deadlock,
// named at the wait. One CTA alone (run_cta) takes the same path without the turns.
#include "bankcheck/emu/emulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "cta.hpp"
#include "native.hpp"
#include "uop_run.hpp"

namespace bankcheck::emu {

void merge_faults(std::vector<SurvivedFault>& into, const std::vector<SurvivedFault>& more,
                  bool keep_earlier) {
  for (const SurvivedFault& f : more) {
    auto same = std::find_if(into.begin(), into.end(), [&](const SurvivedFault& g) {
      return g.instr == f.instr && g.access.op == f.access.op;
    });
    if (same == into.end()) {
      into.push_back(f);
      continue;
    }
    const std::uint64_t lanes = same->lanes + f.lanes;
    if (!keep_earlier && f.cta < same->cta) *same = f;
    same->lanes = lanes;
  }
}

Dim3 cluster_shape(const ptx::Kernel& kernel, const Launch& launch) {
  if (launch.cluster.count() > 1) return launch.cluster;
  if (kernel.cluster[0] > 0)
    return {kernel.cluster[0], std::max(kernel.cluster[1], 1u), std::max(kernel.cluster[2], 1u)};
  return {1, 1, 1};
}

// The micro-op handlers and the CTA state.
using namespace detail;  // NOLINT(google-build-using-namespace)

namespace {

// The release of a barrier that reduces (bar.red, __syncthreads_count/and/or): every
// waiting warp's lanes at a bar.red get the count of true predicates over the CTA, or
// whether all or any were true.
template <typename Cta, typename Code>
void release_bar_red(Ctx& c, Cta& st, const Code& code) {
  std::uint32_t count = 0;
  bool all = true, any = false, reducing = false;
  for (const auto& wp : st.warps) {
    if (!wp.at_barrier ||
        code[static_cast<size_t>(wp.barrier_instr)].mod.barred == ptx::BarRed::None)
      continue;
    reducing = true;
    count += static_cast<std::uint32_t>(std::popcount(wp.red_true));
    all = all && wp.red_true == wp.red_lanes;
    any = any || wp.red_true != 0;
  }
  if (!reducing) return;
  for (auto& wp : st.warps) {
    if (!wp.at_barrier) continue;
    const ptx::Instr& in = code[static_cast<size_t>(wp.barrier_instr)];
    if (in.mod.barred == ptx::BarRed::None) continue;
    const std::uint64_t v = in.mod.barred == ptx::BarRed::Popc  ? count
                            : in.mod.barred == ptx::BarRed::And ? all
                                                                : any;
    for (int l = 0; l < 32; ++l)
      if ((wp.red_lanes >> l) & 1u) c.set(in.dst[0], wp.id, l, v, in.type);
    wp.red_lanes = wp.red_true = 0;
  }
}

// What a spinning load reads, as one number (its lanes' addresses and bytes): a warp that
// reads the same again at the same load waits until it changes. kUnpollable for a load
// whose bytes are not global memory (it never waits).
constexpr std::uint64_t kUnpollable = ~std::uint64_t{0};
std::uint64_t poll_signature(Ctx& c, const Instr& in, int w, std::uint32_t exec) {
  const unsigned size = static_cast<unsigned>(ptx::ty_bytes(in.type)) * in.vec;
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const std::uint64_t a = c.address(in, w, l);
    if (a >= ptx::kSharedWindow && a < ptx::kBufferBase && a < ptx::kGlobalVarBase)
      return kUnpollable;  // a window (shared, local, param): not another CTA's to change
    GlobalMemory::Buffer* b = c.mem.find(a, size);
    if (!b) return kUnpollable;
    std::uint64_t v[2] = {};
    std::memcpy(v, b->data() + (a - b->base), std::min<unsigned>(size, 16));
    mix(a);
    mix(v[0]);
    mix(v[1]);
  }
  return h;
}

}  // namespace

Emulator::Emulator(const ptx::Program& program, const ptx::Kernel& kernel, GlobalMemory& memory,
                   const Options& options)
    : program_(program),
      kernel_(kernel),
      memory_(memory),
      options_(options),
      read_unwritten_(kernel.sites.size(), 0),
      state_(std::make_unique<State>()) {
  if (options.tap) listeners_.push_back(options.tap);
  for (int l = 0; l < 32; ++l) state_->laneids[l] = static_cast<std::uint64_t>(l);
  detail::Layout layout;
  layout.num_preds = std::max<std::uint32_t>(kernel.num_preds, 1);
  layout.cta = state_->cta_consts;
  layout.laneid = state_->laneids;
  state_->compiled = detail::compile(kernel, layout, options.fast, options.lanes);
  // Before native code takes the first micro-op of each run away (NativeRun::first keeps a
  // copy, which its loads and stores, called back, use).
  for (detail::Uop& u : state_->compiled.uops)
    if (u.kind == K::LdGlobal || u.kind == K::StGlobal)
      u.run = static_cast<std::int32_t>(state_->global_uops++);
  if (options.native && options.fast && options.lanes)
    detail::make_native(state_->compiled, layout.num_preds, options.native_after, nullptr,
                        options.native_memo.get());
}
Emulator::~Emulator() {
  // What the kernel's micro-ops ran, towards compiling its native code (native.hpp).
  if (state_->compiled.natives.empty())
    detail::note_native_work(state_->compiled.native_key, executed_);
}

void Emulator::run_cta(const Launch& launch, Dim3 ctaid) { run_ctas(launch, &ctaid, 1); }

void Emulator::setup_cta(const Launch& launch, std::size_t i, Dim3 ctaid) {
  State& ks = *state_;
  State::Cta& st = *ks.ctas[i];
  const std::uint64_t threads = launch.block.count();
  const std::uint32_t nwarps = static_cast<std::uint32_t>((threads + 31) / 32);
  // Per warp: the kernel's register slots, then tid.x, tid.y, tid.z as three more (so that
  // micro-ops read them like registers); its predicates, then one that is always true.
  const std::uint32_t kregs = ks.compiled.slots;
  const std::uint32_t kpreds = std::max<std::uint32_t>(kernel_.num_preds, 1);
  const std::uint32_t nregs = kregs + 3;
  const std::uint32_t npreds = kpreds + 1;
  // Registers start undefined in PTX: keep the storage between CTAs rather than clear it.
  st.regs.resize(static_cast<std::size_t>(nwarps) * nregs * 32);
  st.preds.resize(static_cast<std::size_t>(nwarps) * npreds);
  const bool has_extern = std::any_of(kernel_.shared.begin(), kernel_.shared.end(),
                                      [](const ptx::SharedVar& v) { return v.is_extern; });
  const std::uint64_t shared_bytes = has_extern || launch.dynamic_smem
                                         ? kernel_.dynamic_shared_offset + launch.dynamic_smem
                                         : kernel_.static_shared_bytes;
  st.shared.assign(shared_bytes, 0);
  if (!options_.execute_only) st.shared_written.reset(shared_bytes);
  st.local.assign(static_cast<std::size_t>(nwarps) * 32 * kernel_.local_bytes, 0);
  st.warps.resize(nwarps);
  std::fill(std::begin(st.bar_arrived), std::end(st.bar_arrived), 0u);
  for (std::uint32_t w = 0; w < nwarps; ++w) {
    auto& wp = st.warps[w];
    wp.stack.clear();  // keeps its capacity between CTAs
    wp.exited = 0;
    wp.at_barrier = wp.done = wp.counted = false;
    wp.barrier_instr = -1;
    wp.at_mbarrier = wp.give_up = false;
    wp.gave_up_at = ~0ull;
    wp.cluster_arrived = 0;
    wp.cluster_phase = 0;
    wp.at_cluster = false;
    wp.poll_pc = -1;
    wp.polling = wp.poll_released = false;
    wp.poll_gave_up_at = ~0ull;
    wp.id = static_cast<int>(w);
    const std::uint64_t first = std::uint64_t{w} * 32;
    const std::uint64_t n = std::min<std::uint64_t>(32, threads - first);
    wp.lanes = n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    wp.stack.push_back({0, wp.lanes, -2});
  }
  for (std::uint32_t w = 0; w < nwarps; ++w)
    st.preds[static_cast<std::size_t>(w) * npreds + kpreds] = 0xFFFFFFFFu;
  if (st.tid_regs_for != st.regs.size() || st.tid_regs_dims[0] != ks.tid_dims[0] ||
      st.tid_regs_dims[1] != ks.tid_dims[1] || st.tid_regs_dims[2] != ks.tid_dims[2]) {
    for (std::uint32_t w = 0; w < nwarps; ++w)
      for (std::uint32_t d = 0; d < 3; ++d) {
        std::uint64_t* r = &st.regs[(static_cast<std::size_t>(w) * nregs + kregs + d) * 32];
        for (std::size_t l = 0; l < 32; ++l) r[l] = ks.tid[d][std::size_t{w} * 32 + l];
      }
    st.tid_regs_for = st.regs.size();
    std::copy(ks.tid_dims, ks.tid_dims + 3, st.tid_regs_dims);
  }
  st.ctaid = ctaid;
  st.used = 0;
  st.done = false;
  const std::uint64_t cta_linear =
      ctaid.x + std::uint64_t{launch.grid.x} * (ctaid.y + std::uint64_t{launch.grid.y} * ctaid.z);
  st.ctx.reset();
  st.ctx.emplace(kernel_, memory_, launch, ctaid, cta_linear, listeners_, executed_, notes_,
                 st.regs, st.preds, ks.tid, st.shared, st.local, nregs, npreds, nwarps);
  Ctx& c = *st.ctx;
  c.written = &st.shared_written;
  c.read_unwritten = read_unwritten_.data();
  c.unwritten_sites = &unwritten_sites_;
  if (!options_.stop_on_fault) c.faults = &faults_;
  c.used = &st.used;
  c.mbar_changes = &ks.mbar_changes;
  c.grid_workspace = launch.cooperative ? grid_workspace_ : 0;
  c.explicit_cluster = kernel_.explicit_cluster;
  c.footprint = options_.footprint;
  c.runs = ks.runs.data();
  c.bookkeeping = !options_.execute_only;
  c.printed = options_.printf ? &printed_ : nullptr;
  c.has_listeners = c.has_listeners && c.bookkeeping;
}

void Emulator::run_ctas(const Launch& launch, const Dim3* ids, std::size_t count) {
  State& ks = *state_;
  if (count == 0) return;
  const std::uint64_t threads = launch.block.count();
  const std::uint32_t nwarps = static_cast<std::uint32_t>((threads + 31) / 32);
  if (ks.tid_dims[0] != launch.block.x || ks.tid_dims[1] != launch.block.y ||
      ks.tid_dims[2] != launch.block.z) {
    for (auto& t : ks.tid) t.assign(static_cast<std::size_t>(nwarps) * 32, 0);
    for (std::uint64_t t = 0; t < threads; ++t) {
      ks.tid[0][t] = static_cast<std::uint32_t>(t % launch.block.x);
      ks.tid[1][t] = static_cast<std::uint32_t>((t / launch.block.x) % launch.block.y);
      ks.tid[2][t] =
          static_cast<std::uint32_t>(t / (std::uint64_t{launch.block.x} * launch.block.y));
    }
    ks.tid_dims[0] = launch.block.x;
    ks.tid_dims[1] = launch.block.y;
    ks.tid_dims[2] = launch.block.z;
  }
  // A cooperative launch's grid-sync workspace: {size, barrier word}, as cooperative
  // groups reads it through %envreg1-2; zeroed for each launch.
  if (launch.cooperative) {
    if (!grid_workspace_) grid_workspace_ = memory_.add("grid synchronization workspace", 16);
    GlobalMemory::Buffer* b = memory_.find(grid_workspace_, 16);
    if (!b) grid_workspace_ = memory_.add("grid synchronization workspace", 16);
    b = memory_.find(grid_workspace_, 16);
    std::memset(b->data(), 0, 16);
    const std::uint32_t size = 16;
    std::memcpy(b->data(), &size, 4);
  }
  detail::bind_params(ks.compiled, launch.params);
  // Per instruction, the global buffer it hit last: kept from CTA to CTA and launch to
  // launch until a buffer is removed.
  if (ks.buffer_of.size() != ks.compiled.uops.size() || ks.removals != memory_.removals()) {
    ks.buffer_of.assign(ks.compiled.uops.size(), {});
    ks.removals = memory_.removals();
  }
  if (options_.footprint) ks.runs.resize(std::size_t{ks.global_uops} * nwarps);
  // The requests the runs hold are marked however the CTAs end.
  struct FlushRuns {
    Footprint* footprint;
    std::vector<Footprint::Run>& runs;
    ~FlushRuns() {
      if (footprint)
        for (Footprint::Run& r : runs) footprint->flush(r);
    }
  } flush_runs{options_.footprint, ks.runs};
  while (ks.ctas.size() < count) ks.ctas.push_back(std::make_unique<State::Cta>());
  ks.group = count > 1;
  ks.mbar_changes = 0;
  ks.events = 0;
  ks.consts_for = nullptr;
  for (std::size_t i = 0; i < count; ++i) setup_cta(launch, i, ids[i]);
  // The clusters: each CTA's rank, its cluster's contexts by rank (a member not run here
  // stays null: its memory and arrivals cannot be reached).
  const Dim3 cl = cluster_shape(kernel_, launch);
  const std::uint32_t size = cl.x * cl.y * cl.z;
  // Kept from call to call (a launch runs one CTA a call, tens of thousands of them): the
  // first by_cluster.size() clusters are this call's.
  if (ks.clusters.size() < count) ks.clusters.resize(count);
  std::vector<std::pair<std::uint64_t, std::size_t>>& by_cluster = ks.by_cluster;
  by_cluster.clear();  // cluster index -> slot
  for (std::size_t i = 0; i < count; ++i) {
    State::Cta& st = *ks.ctas[i];
    Ctx& c = *st.ctx;
    const Dim3 id = st.ctaid;
    c.cluster_dims = cl;
    c.cluster_size = size;
    c.cluster_ctaid = {id.x % cl.x, id.y % cl.y, id.z % cl.z};
    c.clusterid = {id.x / cl.x, id.y / cl.y, id.z / cl.z};
    c.nclusterid = {std::max(launch.grid.x / cl.x, 1u), std::max(launch.grid.y / cl.y, 1u),
                    std::max(launch.grid.z / cl.z, 1u)};
    c.cluster_rank = c.cluster_ctaid.x + cl.x * (c.cluster_ctaid.y + cl.y * c.cluster_ctaid.z);
    const std::uint64_t key =
        c.clusterid.x + std::uint64_t{c.nclusterid.x} *
                            (c.clusterid.y + std::uint64_t{c.nclusterid.y} * c.clusterid.z);
    auto it = std::find_if(by_cluster.begin(), by_cluster.end(),
                           [&](const auto& p) { return p.first == key; });
    if (it == by_cluster.end()) {
      State::Cluster& g = ks.clusters[by_cluster.size()];
      g.ctas.assign(size, nullptr);
      g.ctxs.assign(size, nullptr);
      g.phase = 0;
      by_cluster.push_back({key, by_cluster.size()});
      it = by_cluster.end() - 1;
    }
    State::Cluster& g = ks.clusters[it->second];
    g.ctas[c.cluster_rank] = &st;
    g.ctxs[c.cluster_rank] = &c;
    st.cluster = &g;
  }
  for (std::size_t i = 0; i < count; ++i)
    ks.ctas[i]->ctx->cluster_ctxs = ks.ctas[i]->cluster->ctxs.data();
  const auto failed_in = [&](EmuError& e, std::size_t i) {
    if (ks.group) {
      e.in_group = true;
      e.cta = ks.ctas[i]->ctaid;
    }
  };
  if (!ks.group) {
    try {
      step(launch, 0, true, false);
    } catch (EmuError& e) {
      failed_in(e, 0);
      throw;
    }
    return;
  }
  // Turns: every CTA that can run runs until it waits; when none can, each may release one
  // waiter; when none has one to release, the first CTA still waiting names the deadlock.
  for (;;) {
    bool ran = false, left = false;
    for (std::size_t i = 0; i < count; ++i) {
      if (ks.ctas[i]->done) continue;
      try {
        ran = step(launch, i, false, false) || ran;
      } catch (EmuError& e) {
        failed_in(e, i);
        throw;
      }
      left = left || !ks.ctas[i]->done;
    }
    if (!left) return;
    if (ran) continue;
    bool released = false;
    for (std::size_t i = 0; i < count && !released; ++i) {
      if (ks.ctas[i]->done) continue;
      try {
        released = step(launch, i, false, true);
      } catch (EmuError& e) {
        failed_in(e, i);
        throw;
      }
    }
    if (released) continue;
    for (std::size_t i = 0; i < count; ++i)
      if (!ks.ctas[i]->done) {
        try {
          deadlock(i);
        } catch (EmuError& e) {
          failed_in(e, i);
          throw;
        }
      }
    return;
  }
}

bool Emulator::step(const Launch& launch, std::size_t i, bool alone, bool release) {
  State& ks = *state_;
  State::Cta& st = *ks.ctas[i];
  Ctx& c = *st.ctx;
  if (ks.consts_for != &st) {  // the micro-ops read the running CTA's ntid/ctaid/nctaid
    const std::uint32_t cta_values[9] = {launch.block.x, launch.block.y, launch.block.z,
                                         st.ctaid.x,     st.ctaid.y,     st.ctaid.z,
                                         launch.grid.x,  launch.grid.y,  launch.grid.z};
    for (int v = 0; v < 9; ++v)
      for (int l = 0; l < 32; ++l) ks.cta_consts[v * 32 + l] = cta_values[v];
    ks.consts_for = &st;
  }
  const std::uint32_t nregs = c.nregs, npreds = c.npreds;
  const detail::Uop* uops = ks.compiled.uops.data();
  const detail::NativeRun* const natives = ks.compiled.natives.data();
  const bool natives_ok = ks.compiled.natives_ok;
  detail::LastBuffer* const buffer_of = ks.buffer_of.data();
  std::uint64_t& used = st.used;              // warp instructions of this CTA (the budget)
  State::Cluster& cluster = *st.cluster;

  // barrier.cluster: the phase completes when every thread of the cluster has arrived or
  // exited; then each warp's arrivals start again.
  const auto cluster_complete = [&](State::Cluster& g) {
    for (const State::Cta* m : g.ctas) {
      if (!m) return;
      for (const auto& wp : m->warps)
        if (wp.lanes & ~wp.exited & ~wp.cluster_arrived) return;
    }
    ++g.phase;
    ++ks.events;
    for (State::Cta* m : g.ctas)
      for (auto& wp : m->warps) wp.cluster_arrived = 0;
  };

  // bar.sync a, b / bar.arrive a, b: the warp counts 32 threads in at barrier a (the ISA
  // counts a warp's arrival as the warp size); when b have arrived, the warps waiting at
  // a are released. True when the warp goes on (bar.arrive).
  const auto counted_barrier = [&](State::Warp& wp, const ptx::Instr& in, int pc,
                                   std::uint32_t exec) {
    const int lane = std::countr_zero(exec);  // the operands are the warp's: uniform
    const std::uint64_t id = c.val(in.src[0], wp.id, lane);
    const std::uint64_t count = c.val(in.src[1], wp.id, lane);
    if (id > 15)
      c.fail(EmuError::Kind::Barrier, pc,
             fmt::format("barrier {} does not exist (0 to 15; warp {})", id, wp.id));
    if (count == 0 || count % 32 != 0 || count > 1024)
      c.fail(EmuError::Kind::Barrier, pc,
             fmt::format("barrier {} with a count of {} threads (a multiple of 32 from 32 to "
                         "1024; warp {})",
                         id, count, wp.id));
    if (!in.mod.bar_arrive) {
      wp.at_barrier = wp.counted = true;
      wp.barrier_instr = pc;
      wp.barrier_id = static_cast<std::uint32_t>(id);
    }
    std::uint32_t& arrived = st.bar_arrived[id];
    arrived += 32;
    if (arrived >= count) {
      arrived = 0;
      for (auto& o : st.warps)
        if (o.at_barrier && o.counted && o.barrier_id == id) o.at_barrier = o.counted = false;
    }
    return in.mod.bar_arrive;
  };

  // What native code is handed (its warp's env set by run_warp): made once per step, not
  // per warp and turn (zeroing it took a tenth of the warp loop's own time in scan).
  detail::NativeCtx nctx;
  nctx.budget = launch.budget;
  nctx.plain = !c.bookkeeping && !c.footprint;
  nctx.windows = buffer_of;
  nctx.shared = {0, c.shared.size(), c.shared.data(), nullptr};

  // Runs the warp until it finishes or waits at a barrier. The top of the SIMT stack is
  // the lanes running and where they reconverge; straight-line code runs in the inner
  // loop without touching the stack.
  auto run_warp = [&](State::Warp& wp) {
    const int w = wp.id;
    std::uint64_t* const wr = &st.regs[static_cast<std::size_t>(w) * nregs * 32];
    std::uint32_t* const wpred = &st.preds[static_cast<std::size_t>(w) * npreds];
    // Locals, not the captured variables, in the loop: the count is written back before
    // anything that can throw or read it.
    const detail::Uop* const code = uops;
    const std::uint64_t budget = launch.budget;
    // Whether shared bytes may still be unwritten: it changes only at barriers, which end
    // this call.
    const bool unwritten = c.bookkeeping && !st.shared_written.all();
    std::uint64_t n = used;
    struct Flush {
      std::uint64_t& to;
      const std::uint64_t& from;
      ~Flush() { to = from; }
    } flush{used, n};
    // Native code's loads and stores run here, counted as the loop counts them.
    struct NativeEnv {
      Ctx& c;
      const detail::Uop* code;
      const detail::NativeRun* natives;
      std::uint64_t* wr;
      int w;
      detail::LastBuffer* buffer_of;
      bool unwritten;
      std::uint64_t& used;
      std::uint64_t& n;
    } env{c, code, natives, wr, w, buffer_of, unwritten, used, n};
    nctx.env = &env;
    nctx.memory = [](void* e, std::int32_t at, std::uint32_t exec, std::uint64_t count) {
      NativeEnv& v = *static_cast<NativeEnv*>(e);
      const detail::Uop& m =
          v.code[at].kind == K::Native ? v.natives[v.code[at].target].first : v.code[at];
      v.n = count;
      memory_uop(v.c, m, at, v.wr, v.w, exec, v.buffer_of[at], v.unwritten, v.used, count);
    };
    while (!wp.stack.empty()) {
      State::Entry& top = wp.stack.back();
      std::uint32_t active = top.mask & ~wp.exited;
      if (!active || top.pc == top.rpc) {
        wp.stack.pop_back();
        continue;
      }
      int pc = top.pc;
      const int rpc = top.rpc;
      for (;;) {
        const detail::Uop* up = code + pc;
        if (++n > budget) {
          used = n;
          c.fail(EmuError::Kind::Budget, pc,
                 fmt::format("instruction budget exceeded: {} warp instructions in one CTA (a "
                             "runaway loop?)",
                             budget));
        }
      dispatch:
        const detail::Uop& u = *up;
        // A run of native code first, before alu()'s switch of every ALU kind: with native
        // code most of a warp's turns are one run between two barriers (bench/run/ab/bars.cu
        // 0.188 s to 0.182 s, bench/run/ab_libcuda.sh).
        if (u.kind == K::Native) {
          // The run as one native function, unless a launch's parameters undid the
          // forwarding it was planned with or the budget ends inside it: then its micro-ops.
          const detail::NativeRun& r = natives[u.target];
          if (natives_ok && n + r.len - 1 <= budget) {
            nctx.n = n - 1;
            nctx.rpc = rpc;
            pc =
                (active == 0xFFFFFFFFu ? r.full : r.some)(wr, wpred, active, r.fixed.data(), &nctx);
            n = nctx.n;
            if (pc == rpc) break;
            continue;
          }
          up = &r.first;
          goto dispatch;
        }
        const std::uint32_t exec = active & (wpred[u.guard] ^ u.gxor);
        if (alu(u, wr, wpred, exec)) {
          if (++pc == rpc) break;
          continue;
        }
        switch (u.kind) {
          case K::LdShared:
          case K::StShared:
          case K::LdGlobal:
          case K::StGlobal:
            memory_uop(c, u, pc, wr, w, exec, buffer_of[pc], unwritten, used, n);
            break;
          case K::LdParam:
            if (!exec) break;
            if (!load_param(c, u, wr, exec)) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::Slow:
            used = n;
            general(c, *u.in, pc, w, exec, active);
            break;
          case K::Bra: {
            const std::uint32_t taken = exec, not_taken = active & ~exec;
            if (!not_taken) {
              pc = u.target;
              goto moved;
            }
            if (!taken) break;
            // Divergence: both sides run to the reconvergence point r, then the warp
            // continues together. When r is the exit (one side returns), or the entry's
            // own reconvergence point, the sides inherit the entry's point instead, so
            // code after an early return still runs once for all remaining lanes.
            const int r = u.reconv;
            int rr = r;
            if (r == -2 || r == rpc) {
              wp.stack.pop_back();
              rr = r == -2 ? rpc : r;
            } else {
              top.pc = r;
            }
            wp.stack.push_back({pc + 1, not_taken, rr});
            wp.stack.push_back({u.target, taken, rr});
            goto next_entry;
          }
          case K::Exit:
            if (!exec) break;
            wp.exited |= exec;
            top.pc = pc + 1;
            goto next_entry;
          case K::End:  // ran off the end: like ret
            wp.exited |= active;
            top.pc = pc;
            goto next_entry;
          case K::Bar:
            if (u.in->mod.bar_count) {  // a named barrier with a thread count, or bar.arrive
              if (!exec) break;
              if (counted_barrier(wp, *u.in, pc, exec)) break;  // bar.arrive goes on
              top.pc = pc + 1;
              return;
            }
            top.pc = pc + 1;
            if (!exec) goto next_entry;
            if (active != (wp.lanes & ~wp.exited)) {
              notes_.push_back(
                  {pc,
                   fmt::format("barrier under divergence: only lanes 0x{:08x} of warp {} reach it "
                               "(the warp's live lanes are 0x{:08x})",
                               active, w, wp.lanes & ~wp.exited)});
            }
            wp.at_barrier = true;
            wp.barrier_instr = pc;
            if (u.in->mod.barred != ptx::BarRed::None) {  // registers renamed to slots
              wp.red_lanes = exec;
              wp.red_true = c.pred_mask(u.in->src[0], w, exec);
            }
            return;
          case K::MbarWait:
            if (!exec) break;
            used = n;
            if (mbarrier_wait(c, *u.in, pc, w, exec, wp.give_up)) {
              wp.give_up = false;
              break;
            }
            // Not yet: wait here (this run of the wait does not count) until an mbarrier
            // of the CTA changes.
            used = --n;
            top.pc = pc;
            wp.at_mbarrier = true;
            wp.mbarrier_instr = pc;
            wp.mbarrier_exec = exec;
            wp.mbarrier_seen = *c.mbar_changes;
            return;
          case K::BarCluster:
            if (!exec) break;
            if (u.in->mod.bar_arrive) {  // the executing lanes count in
              wp.cluster_arrived |= exec;
              wp.cluster_phase = cluster.phase;
              cluster_complete(cluster);
              break;
            }
            if (cluster.phase > wp.cluster_phase) break;  // the phase it arrived in is over
            top.pc = pc + 1;
            wp.at_cluster = true;
            wp.cluster_instr = pc;
            return;
          case K::LdPoll:
            if (!exec) break;
            used = n;
            if (ks.group) {
              // Reading the same bytes at the same load as last time: the warp spins on
              // memory another CTA may change; it waits here until the bytes change.
              const std::uint64_t sig = poll_signature(c, *u.in, w, exec);
              if (wp.poll_released) {
                wp.poll_released = false;
              } else if (sig != kUnpollable && wp.poll_pc == pc && wp.poll_sig == sig &&
                         wp.poll_exec == exec) {
                used = --n;  // this run of the load does not count
                top.pc = pc;
                wp.polling = true;
                return;
              }
              wp.poll_pc = pc;
              wp.poll_sig = sig;
              wp.poll_exec = exec;
            }
            c.load_store(*u.in, pc, w, exec);
            break;
          default:
            break;
        }
        ++pc;
      moved:
        if (pc == rpc) break;
      }
      top.pc = pc;  // reached the reconvergence point
    next_entry:;
    }
    wp.done = true;
  };

  // Run every warp to its next barrier (or its end), and a warp waiting on an mbarrier
  // again once an mbarrier has changed, at the cluster barrier once its phase completed,
  // at a spinning load once its bytes changed. When none can run: release the CTA's
  // barrier if every warp left waits at it; alone, or asked to (`release`), let a waiter
  // go on (an mbarrier wait returns false, once per change of the mbarriers, as test_wait
  // and try_wait may; a spinning load reads once more, once per change of the group); when
  // none is left, nothing can wake them: a deadlock (alone), or the group's turn.
  struct Count {  // adds this step's instructions to executed_ however it ends
    std::uint64_t& total;
    const std::uint64_t& used;
    std::uint64_t before;
    ~Count() { total += used - before; }
  } count{executed_, used, used};
  auto runnable = [&](State::Warp& wp) {
    if (wp.done || wp.at_barrier) return false;
    if (wp.at_mbarrier) return wp.give_up || wp.mbarrier_seen != *c.mbar_changes;
    if (wp.at_cluster) return cluster.phase > wp.cluster_phase;
    if (wp.polling)
      return wp.poll_released ||
             poll_signature(c, ks.compiled.code[static_cast<std::size_t>(wp.poll_pc)], wp.id,
                            wp.poll_exec) != wp.poll_sig;
    return true;
  };
  bool ran_any = false, granted = false;
  while (true) {
    bool ran = false;
    for (auto& wp : st.warps)
      if (runnable(wp)) {
        if (!wp.give_up && !wp.poll_released) ++ks.events;  // progress, not a release
        wp.at_mbarrier = wp.at_cluster = wp.polling = false;
        run_warp(wp);
        ran = true;
      }
    if (ran) {
      ran_any = true;
      continue;
    }
    cluster_complete(cluster);  // warps that exited may have been the last it waited for
    if (std::any_of(st.warps.begin(), st.warps.end(), runnable)) continue;
    bool any_waiting = false, waits_elsewhere = false;
    int waiting_instr = -1;
    std::uint32_t finished = 0;
    const State::Warp* short_of = nullptr;  // at a barrier whose count cannot be reached
    for (auto& wp : st.warps) {
      if (wp.at_barrier && wp.counted) {
        if (!short_of) short_of = &wp;
        continue;
      }
      if (wp.at_barrier) {
        any_waiting = true;
        waiting_instr = wp.barrier_instr;
      }
      if (wp.at_mbarrier || wp.at_cluster || wp.polling) waits_elsewhere = true;
      if (wp.done) ++finished;
    }
    if (any_waiting && !waits_elsewhere) {  // every warp left is at bar.sync: release it
      if (finished > 0)
        notes_.push_back(
            {waiting_instr,
             fmt::format("barrier not reached by every warp: {} of {} warps exited before it",
                         finished, st.warps.size())});
      release_bar_red(c, st, ks.compiled.code);
      if (c.bookkeeping) st.shared_written.settle();
      for (auto& wp : st.warps)
        if (!wp.counted) wp.at_barrier = false;
      ++ks.events;
      continue;
    }
    if (finished == st.warps.size()) break;
    if (!alone && (!release || granted)) break;  // the group's turn
    // Let one waiter go on: an mbarrier wait (once per change of the mbarriers), a spinning
    // load (once per change of the group).
    State::Warp* gives_up = nullptr;
    for (auto& wp : st.warps)
      if (wp.at_mbarrier && wp.gave_up_at != *c.mbar_changes) {
        gives_up = &wp;
        break;
      }
    if (gives_up) {
      gives_up->give_up = true;
      gives_up->gave_up_at = *c.mbar_changes;
      granted = true;
      continue;
    }
    State::Warp* reads_again = nullptr;
    for (auto& wp : st.warps)
      if (wp.polling && wp.poll_gave_up_at != ks.events) {
        reads_again = &wp;
        break;
      }
    if (reads_again) {
      reads_again->poll_released = true;
      reads_again->poll_gave_up_at = ks.events;
      granted = true;
      continue;
    }
    if (!alone) break;
    if (!any_waiting && short_of && !waits_elsewhere)
      c.fail(
          EmuError::Kind::Barrier, short_of->barrier_instr,
          fmt::format("deadlock: warp {} waits at barrier {} for {} threads, and only {} "
                      "arrived ({} of {} warps finished)",
                      short_of->id, short_of->barrier_id,
                      c.val(ks.compiled.code[static_cast<size_t>(short_of->barrier_instr)].src[1],
                            short_of->id, 0),
                      st.bar_arrived[short_of->barrier_id], finished, st.warps.size()));
    deadlock(i);
  }
  st.done =
      std::all_of(st.warps.begin(), st.warps.end(), [](const State::Warp& wp) { return wp.done; });
  return ran_any;
}

void Emulator::deadlock(std::size_t i) {
  State& ks = *state_;
  State::Cta& st = *ks.ctas[i];
  Ctx& c = *st.ctx;
  std::uint32_t finished = 0, at_bar = 0;
  for (const auto& wp : st.warps) {
    if (wp.done) ++finished;
    if (wp.at_barrier && !wp.counted) ++at_bar;
  }
  const std::string others = fmt::format("{} of {} warps wait at bar.sync, {} finished", at_bar,
                                         st.warps.size(), finished);
  for (const auto& wp : st.warps)
    if (wp.at_mbarrier)
      c.fail(EmuError::Kind::Barrier, wp.mbarrier_instr,
             fmt::format(
                 "deadlock: {}, and no warp can complete its phase ({})",
                 mbarrier_waiting(c, ks.compiled.code[static_cast<std::size_t>(wp.mbarrier_instr)],
                                  wp.mbarrier_instr, wp.id, wp.mbarrier_exec),
                 others));
  for (const auto& wp : st.warps)
    if (wp.at_cluster) {
      std::uint64_t arrived = 0, total = 0;
      for (const State::Cta* m : st.cluster->ctas) {
        if (!m) continue;
        for (const auto& o : m->warps) {
          arrived += static_cast<std::uint64_t>(std::popcount(o.cluster_arrived | o.exited));
          total += static_cast<std::uint64_t>(std::popcount(o.lanes));
        }
      }
      const auto missing = static_cast<std::size_t>(
          std::count(st.cluster->ctas.begin(), st.cluster->ctas.end(), nullptr));
      c.fail(EmuError::Kind::Barrier, wp.cluster_instr,
             fmt::format("deadlock: warp {} waits at barrier.cluster.wait, and {} of the cluster's "
                         "{} threads arrived{} ({})",
                         wp.id, arrived, total,
                         missing ? fmt::format(" ({} of its {} CTAs are not run with it)", missing,
                                               st.cluster->ctas.size())
                                 : "",
                         others));
    }
  for (const auto& wp : st.warps)
    if (wp.polling) {
      const Instr& in = ks.compiled.code[static_cast<std::size_t>(wp.poll_pc)];
      const int lane = std::countr_zero(wp.poll_exec);
      const std::uint64_t a = c.address(in, wp.id, lane);
      const bool grid = c.grid_workspace && a >= c.grid_workspace && a < c.grid_workspace + 16;
      c.fail(EmuError::Kind::Barrier, wp.poll_pc,
             grid ? fmt::format("deadlock: warp {} waits at a grid synchronization (cooperative "
                                "groups' grid.sync()) that not every CTA of the grid reaches",
                                wp.id)
                  : fmt::format("deadlock: lane {} of warp {} spins on global memory at 0x{:x}, "
                                "which no thread that can still run changes ({})",
                                lane, wp.id, a, others));
    }
  c.fail(EmuError::Kind::Barrier, -1,
         fmt::format("deadlock: no warp of CTA ({},{},{}) can run ({})", st.ctaid.x, st.ctaid.y,
                     st.ctaid.z, others));
}

}  // namespace bankcheck::emu
