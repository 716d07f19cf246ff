// The emulator and its warp loop: a kernel compiled once into micro-ops, then each CTA run
// warp by warp; a SIMT stack per warp reconverging at immediate post-dominators; warps run
// until a barrier, then released together. Instructions run as micro-ops (uop_run.hpp) or,
// without a handler or with Options::fast off, by the reference semantics (reference.cpp).
#include "bankcheck/emu/emulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "cta.hpp"
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

// The micro-op handlers and the CTA state.
using namespace detail;  // NOLINT(google-build-using-namespace)

namespace {

// The release of a barrier that reduces (bar.red, __syncthreads_count/and/or): every
// waiting warp's lanes at a bar.red get the count of true predicates over the CTA, or
// whether all or any were true.
template <typename State>
void release_bar_red(Ctx& c, State& st) {
  std::uint32_t count = 0;
  bool all = true, any = false, reducing = false;
  for (const auto& wp : st.warps) {
    if (!wp.at_barrier ||
        st.compiled.code[static_cast<size_t>(wp.barrier_instr)].mod.barred == ptx::BarRed::None)
      continue;
    reducing = true;
    count += static_cast<std::uint32_t>(std::popcount(wp.red_true));
    all = all && wp.red_true == wp.red_lanes;
    any = any || wp.red_true != 0;
  }
  if (!reducing) return;
  for (auto& wp : st.warps) {
    if (!wp.at_barrier) continue;
    const ptx::Instr& in = st.compiled.code[static_cast<size_t>(wp.barrier_instr)];
    if (in.mod.barred == ptx::BarRed::None) continue;
    const std::uint64_t v = in.mod.barred == ptx::BarRed::Popc  ? count
                            : in.mod.barred == ptx::BarRed::And ? all
                                                                : any;
    for (int l = 0; l < 32; ++l)
      if ((wp.red_lanes >> l) & 1u) c.set(in.dst[0], wp.id, l, v, in.type);
    wp.red_lanes = wp.red_true = 0;
  }
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
}
Emulator::~Emulator() = default;

void Emulator::run_cta(const Launch& launch, Dim3 ctaid) {
  State& st = *state_;
  const std::uint64_t threads = launch.block.count();
  const std::uint32_t nwarps = static_cast<std::uint32_t>((threads + 31) / 32);
  // Per warp: the kernel's register slots, then tid.x, tid.y, tid.z as three more (so that
  // micro-ops read them like registers); its predicates, then one that is always true.
  const std::uint32_t kregs = st.compiled.slots;
  const std::uint32_t kpreds = std::max<std::uint32_t>(kernel_.num_preds, 1);
  const std::uint32_t nregs = kregs + 3;
  const std::uint32_t npreds = kpreds + 1;
  // Registers start undefined in PTX: keep the storage between CTAs rather than clear it.
  st.regs.resize(static_cast<std::size_t>(nwarps) * nregs * 32);
  st.preds.resize(static_cast<std::size_t>(nwarps) * npreds);
  if (st.tid_dims[0] != launch.block.x || st.tid_dims[1] != launch.block.y ||
      st.tid_dims[2] != launch.block.z) {
    for (auto& t : st.tid) t.assign(static_cast<std::size_t>(nwarps) * 32, 0);
    for (std::uint64_t t = 0; t < threads; ++t) {
      st.tid[0][t] = static_cast<std::uint32_t>(t % launch.block.x);
      st.tid[1][t] = static_cast<std::uint32_t>((t / launch.block.x) % launch.block.y);
      st.tid[2][t] =
          static_cast<std::uint32_t>(t / (std::uint64_t{launch.block.x} * launch.block.y));
    }
    st.tid_dims[0] = launch.block.x;
    st.tid_dims[1] = launch.block.y;
    st.tid_dims[2] = launch.block.z;
  }
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
    wp.id = static_cast<int>(w);
    const std::uint64_t first = std::uint64_t{w} * 32;
    const std::uint64_t n = std::min<std::uint64_t>(32, threads - first);
    wp.lanes = n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    wp.stack.push_back({0, wp.lanes, -2});
  }
  for (std::uint32_t w = 0; w < nwarps; ++w)
    st.preds[static_cast<std::size_t>(w) * npreds + kpreds] = 0xFFFFFFFFu;
  if (st.tid_regs_for != st.regs.size() || st.tid_regs_dims[0] != st.tid_dims[0] ||
      st.tid_regs_dims[1] != st.tid_dims[1] || st.tid_regs_dims[2] != st.tid_dims[2]) {
    for (std::uint32_t w = 0; w < nwarps; ++w)
      for (std::uint32_t d = 0; d < 3; ++d) {
        std::uint64_t* r = &st.regs[(static_cast<std::size_t>(w) * nregs + kregs + d) * 32];
        for (std::size_t l = 0; l < 32; ++l) r[l] = st.tid[d][std::size_t{w} * 32 + l];
      }
    st.tid_regs_for = st.regs.size();
    std::copy(st.tid_dims, st.tid_dims + 3, st.tid_regs_dims);
  }
  const std::uint32_t cta_values[9] = {launch.block.x, launch.block.y, launch.block.z,
                                       ctaid.x,        ctaid.y,        ctaid.z,
                                       launch.grid.x,  launch.grid.y,  launch.grid.z};
  for (int i = 0; i < 9; ++i)
    for (int l = 0; l < 32; ++l) st.cta_consts[i * 32 + l] = cta_values[i];
  const std::uint64_t cta_linear =
      ctaid.x + std::uint64_t{launch.grid.x} * (ctaid.y + std::uint64_t{launch.grid.y} * ctaid.z);
  Ctx c{kernel_, memory_,  launch, ctaid,     cta_linear, listeners_, executed_, notes_,
        st.regs, st.preds, st.tid, st.shared, st.local,   nregs,      npreds,    nwarps};

  c.written = &st.shared_written;
  c.read_unwritten = read_unwritten_.data();
  c.unwritten_sites = &unwritten_sites_;
  if (!options_.stop_on_fault) c.faults = &faults_;
  c.footprint = options_.footprint;
  c.bookkeeping = !options_.execute_only;
  c.has_listeners = c.has_listeners && c.bookkeeping;

  const detail::Uop* uops = st.compiled.uops.data();
  // Per instruction, the global buffer it hit last (reset per CTA: buffers may be added
  // between launches).
  st.buffer_of.assign(st.compiled.uops.size(), nullptr);
  GlobalMemory::Buffer** const buffer_of = st.buffer_of.data();
  GlobalMemory::Buffer* no_buffer = nullptr;  // shared accesses
  std::uint64_t used = 0;                     // warp instructions of this CTA (the budget)
  c.used = &used;

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
        const detail::Uop& u = code[pc];
        if (++n > budget) {
          used = n;
          c.fail(EmuError::Kind::Budget, pc,
                 fmt::format("instruction budget exceeded: {} warp instructions in one CTA (a "
                             "runaway loop?)",
                             budget));
        }
        const std::uint32_t exec = active & (wpred[u.guard] ^ u.gxor);
        if (alu(u, wr, wpred, exec)) {
          if (++pc == rpc) break;
          continue;
        }
        switch (u.kind) {
          case K::LdShared:
            if (!exec) break;
            if (unwritten) shared_written(c, u, wr, exec, true);
            if (u.aux == 4 && u.vec == 1 && exec == 0xFFFFFFFFu && shared_word<true>(c, u, wr, w))
              break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<true, true, 4, 1>(c, u, wr, w, exec, no_buffer)
                      : memory<true, true, 0, 0>(c, u, wr, w, exec, no_buffer))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::StShared:
            if (!exec) break;
            if (unwritten) shared_written(c, u, wr, exec, false);
            if (u.aux == 4 && u.vec == 1 && exec == 0xFFFFFFFFu && shared_word<false>(c, u, wr, w))
              break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<true, false, 4, 1>(c, u, wr, w, exec, no_buffer)
                      : memory<true, false, 0, 0>(c, u, wr, w, exec, no_buffer))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::LdGlobal:
            if (!exec) break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<false, true, 4, 1>(c, u, wr, w, exec, buffer_of[pc])
                      : memory<false, true, 0, 0>(c, u, wr, w, exec, buffer_of[pc]))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
            break;
          case K::StGlobal:
            if (!exec) break;
            if (!(u.aux == 4 && u.vec == 1
                      ? memory<false, false, 4, 1>(c, u, wr, w, exec, buffer_of[pc])
                      : memory<false, false, 0, 0>(c, u, wr, w, exec, buffer_of[pc]))) {
              used = n;
              c.load_store(*u.in, pc, w, exec);
            }
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
            wp.mbarrier_seen = c.mbar_changes;
            return;
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
  // again once an mbarrier has changed; when none can run, release the barrier if warps
  // wait at one. Warps waiting on mbarriers then get a false result from their wait, each
  // once per change of the mbarriers (test_wait and try_wait may return false); when none
  // is left, nothing can complete their phases: a deadlock.
  struct Count {  // adds this CTA's instructions to executed_ however the run ends
    std::uint64_t& total;
    const std::uint64_t& used;
    ~Count() { total += used; }
  } count{executed_, used};
  auto runnable = [&](const State::Warp& wp) {
    return !wp.done && !wp.at_barrier &&
           (!wp.at_mbarrier || wp.give_up || wp.mbarrier_seen != c.mbar_changes);
  };
  while (true) {
    bool ran = false;
    for (auto& wp : st.warps)
      if (runnable(wp)) {
        wp.at_mbarrier = false;
        run_warp(wp);
        ran = true;
      }
    if (ran) continue;
    State::Warp* gives_up = nullptr;
    for (auto& wp : st.warps)
      if (wp.at_mbarrier && wp.gave_up_at != c.mbar_changes) {
        gives_up = &wp;
        break;
      }
    if (gives_up) {
      gives_up->give_up = true;
      gives_up->gave_up_at = c.mbar_changes;
      continue;
    }
    bool any_waiting = false;
    int waiting_instr = -1;
    std::uint32_t finished = 0, at_bar = 0;
    const State::Warp* stuck = nullptr;
    const State::Warp* short_of = nullptr;  // at a barrier whose count cannot be reached
    for (auto& wp : st.warps) {
      if (wp.at_barrier && wp.counted) {
        if (!short_of) short_of = &wp;
        continue;
      }
      if (wp.at_barrier) {
        any_waiting = true;
        waiting_instr = wp.barrier_instr;
        ++at_bar;
      }
      if (wp.at_mbarrier && !stuck) stuck = &wp;
      if (wp.done) ++finished;
    }
    if (stuck) {
      c.fail(EmuError::Kind::Barrier, stuck->mbarrier_instr,
             fmt::format("deadlock: {}, and no warp can complete its phase ({} of {} warps wait "
                         "at bar.sync, {} finished)",
                         mbarrier_waiting(
                             c, st.compiled.code[static_cast<std::size_t>(stuck->mbarrier_instr)],
                             stuck->mbarrier_instr, stuck->id, stuck->mbarrier_exec),
                         at_bar, st.warps.size(), finished));
    }
    if (!any_waiting && short_of)
      c.fail(EmuError::Kind::Barrier, short_of->barrier_instr,
             fmt::format("deadlock: warp {} waits at barrier {} for {} threads, and only {} "
                         "arrived ({} of {} warps finished)",
                         short_of->id, short_of->barrier_id,
                         c.val(st.compiled.code[static_cast<size_t>(short_of->barrier_instr)].src[1],
                               short_of->id, 0),
                         st.bar_arrived[short_of->barrier_id], finished, st.warps.size()));
    if (!any_waiting) break;
    if (finished > 0)
      notes_.push_back(
          {waiting_instr,
           fmt::format("barrier not reached by every warp: {} of {} warps exited before it",
                       finished, st.warps.size())});
    release_bar_red(c, st);
    if (c.bookkeeping) st.shared_written.settle();
    for (auto& wp : st.warps)
      if (!wp.counted) wp.at_barrier = false;
  }
}

}  // namespace bankcheck::emu
