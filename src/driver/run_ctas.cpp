// Running: threads kept from launch to launch (workers.hpp) take CTAs from the plan in order; each
// thread owns one emulator, and the counts of the CTAs it runs go to a slot that is merged in the
// plan's order, so the emulation path takes no lock and the result is the same on any number of
// threads.
#include "run_ctas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include "workers.hpp"

namespace bankcheck::driver {
namespace {

// "FILE:LINE:COL" of a PTX instruction of `k`, or the input when it has no location.
std::string locate(const ptx::Program& program, const ptx::Kernel& k, const std::string& input,
                   int instr) {
  if (instr < 0 || static_cast<size_t>(instr) >= k.locs.size()) return input;
  const auto& loc = k.locs[static_cast<size_t>(instr)];
  std::string file = input;
  if (loc.file != program.main_file && loc.file > 0 &&
      static_cast<size_t>(loc.file) < program.files.size())
    file = program.files[static_cast<size_t>(loc.file)];
  return loc.line > 0 ? fmt::format("{}:{}:{}", file, loc.line, loc.col) : file;
}

std::string describe(const ptx::Program& program, const ptx::Kernel& k, const std::string& input,
                     const emu::EmuError& e, const emu::Dim3& id, const std::string& name) {
  std::string ptx_line;
  if (e.instr >= 0 && static_cast<size_t>(e.instr) < k.ptx_lines.size())
    ptx_line = fmt::format(" (PTX line {}: {})", k.ptx_lines[static_cast<size_t>(e.instr)],
                           k.texts[static_cast<size_t>(e.instr)]);
  return fmt::format("{}: {}{} in CTA ({},{},{}) of kernel {}", locate(program, k, input, e.instr),
                     e.what(), ptx_line, id.x, id.y, id.z, name);
}

}  // namespace

namespace {

// The results of a run of consecutive CTAs of the plan, kept until every CTA before them is
// committed: counts merge in plan order, so that neither the thread count nor the timing
// changes which CTAs a sampled run counts, which distinct requests the recorder keeps, or
// the order of the notes.
struct Slot {
  analysis::Pipeline::Parts parts;
  std::vector<emu::Note> notes;
  std::vector<emu::SurvivedFault> faults;  // survived by these CTAs
  std::string printed;                     // device printf's text in these CTAs
  std::vector<int> unwritten_reads;  // sites first read unwritten by its thread in these CTAs
  std::uint64_t end = 0;       // one past its last CTA in the plan (its last run, on an error)
  std::uint64_t handed = 0;    // one past its last CTA as handed out
  std::uint64_t executed = 0;  // warp instructions
  std::optional<std::string> error;  // an emulation error stopped it (at its last CTA)
  std::optional<emu::EmuError> cause;
  emu::Dim3 error_cta;
};

}  // namespace

namespace {

// CTAs that must run together: a cluster's (the plan's first CTA of a cluster stands for
// it; the cluster's other CTAs are dropped from the plan), or a cooperative launch's whole
// grid (one item). `items` is the plan's order of such groups' first CTAs.
struct Groups {
  bool grouped = false;
  emu::Dim3 cluster{1, 1, 1};
  bool whole_grid = false;
  std::vector<std::uint64_t> items;
};

Groups groups_of(const ptx::Kernel& k, const emu::Launch& launch, const CtaPlan& plan) {
  Groups g;
  g.cluster = emu::cluster_shape(k, launch);
  g.whole_grid = launch.cooperative;
  g.grouped = g.whole_grid || g.cluster.count() > 1;
  if (!g.grouped) return g;
  if (g.whole_grid) {
    if (!plan.order.empty()) g.items.push_back(plan.order.front());
    return g;
  }
  std::unordered_set<std::uint64_t> seen;
  for (const std::uint64_t cta : plan.order) {
    const emu::Dim3 id = cta_id(cta, launch.grid);
    const std::uint64_t key =
        (id.x / g.cluster.x) +
        (std::uint64_t{launch.grid.x} + 1) *
            ((id.y / g.cluster.y) + (std::uint64_t{launch.grid.y} + 1) * (id.z / g.cluster.z));
    if (seen.insert(key).second) g.items.push_back(cta);
  }
  return g;
}

// The CTAs of the group `cta` stands for.
std::vector<emu::Dim3> members(const Groups& g, std::uint64_t cta, const emu::Dim3& grid) {
  std::vector<emu::Dim3> out;
  if (g.whole_grid) {
    for (std::uint64_t i = 0; i < grid.count(); ++i) out.push_back(cta_id(i, grid));
    return out;
  }
  const emu::Dim3 id = cta_id(cta, grid);
  const emu::Dim3 first{id.x / g.cluster.x * g.cluster.x, id.y / g.cluster.y * g.cluster.y,
                        id.z / g.cluster.z * g.cluster.z};
  for (std::uint32_t z = 0; z < g.cluster.z; ++z)
    for (std::uint32_t y = 0; y < g.cluster.y; ++y)
      for (std::uint32_t x = 0; x < g.cluster.x; ++x)
        out.push_back({first.x + x, first.y + y, first.z + z});
  return out;
}

}  // namespace

CtaRun run_ctas(const ptx::Program& program, const ptx::Kernel& k, const emu::Launch& launch,
                const CtaPlan& plan, analysis::Pipeline& pipeline, emu::GlobalMemory& mem,
                const RunOptions& o, const std::string& input, const std::string& name) {
  const Groups groups = groups_of(k, launch, plan);
  const auto& order = groups.grouped ? groups.items : plan.order;
  const std::uint64_t per_item = groups.whole_grid ? launch.grid.count() : groups.cluster.count();
  // No more emulators than CTAs to run: each one holds a CTA's state (check_cta_state).
  const unsigned threads = static_cast<unsigned>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(o.threads ? o.threads : std::thread::hardware_concurrency(),
                                 order.size())));
  // CTAs per slot. A sampled run decides after each CTA whether the next one counts, and a
  // collector may fill its part within a CTA, so those take one CTA per slot; otherwise a
  // slot of many small CTAs costs one merge. Never a function of the thread count. A launch
  // that only executes (execute_only: its slots hold no counts) takes a thirty-second of
  // the CTAs a slot: each slot costs the threads a turn at the lock, which a launch of a
  // thousand small CTAs (scan's add_block_offsets) spent more time waiting for than running.
  const std::uint64_t chunk =
      plan.adaptive || pipeline.one_cta_per_part()
          ? 1
          : std::clamp<std::uint64_t>(order.size() / (o.emulator.execute_only ? 32 : 256), 1, 64);
  // How far ahead of the first uncommitted CTA the threads may run (slots held meanwhile):
  // without counts to hold, as far as the plan goes.
  const std::uint64_t window = o.emulator.execute_only ? order.size() : chunk * threads * 2;

  CtaRun r;
  // Per thread: an emulator and the pipeline's chain, bound to the slot being filled.
  struct Lane {
    std::unique_ptr<emu::Emulator> emu;
    std::unique_ptr<analysis::Pipeline::Chain> chain;
  };
  std::vector<std::unique_ptr<Lane>> lanes;
  for (unsigned t = 0; t < threads; ++t) {
    auto lane = std::make_unique<Lane>();
    lane->emu = std::make_unique<emu::Emulator>(program, k, mem, o.emulator);
    lane->chain = pipeline.make_chain();
    for (emu::Listener* l : lane->chain->listeners()) lane->emu->add_listener(l);
    lanes.push_back(std::move(lane));
  }

  std::mutex m;
  std::condition_variable cv;
  std::uint64_t next = 0;       // the next CTA of the plan to hand out
  std::uint64_t committed = 0;  // every CTA before it is merged (or the run stopped)
  std::uint64_t executed = 0;   // warp instructions of the committed CTAs
  std::uint64_t done = 0;       // committed CTAs
  // A sampled run executes in rounds: no CTA of a round starts before every CTA of the ones
  // before it is committed, and each round is sized from the committed CTAs' instructions
  // to what the sample still needs. So the CTAs that run (and write global memory and send
  // events) are the same on any number of threads, not only the CTAs that count. The first
  // round is the first and the last CTA of the plan, which always count.
  std::uint64_t round_end =
      plan.adaptive ? std::min<std::uint64_t>(2, order.size()) : order.size();
  bool stop = false;
  std::optional<std::string> error;
  std::optional<emu::EmuError> cause;
  emu::Dim3 error_cta;
  std::exception_ptr failure;  // anything else a worker threw, rethrown after the join
  std::map<std::uint64_t, std::unique_ptr<Slot>> pending;  // by first CTA
  std::vector<std::unique_ptr<Slot>> spare;
  if (o.progress) {
    o.progress->ctas_done = 0;
    o.progress->ctas_planned = plan.adaptive ? 0 : order.size() * per_item;
  }
  // The instructions the sample runs: the kernel's share of the run's budget, or the whole
  // budget for a grid whose CTAs all together are estimated (from the committed ones) to cost
  // no more than that: a grid that small is analysed whole, whatever the other kernels of the
  // run take. Raised at the end of a round only, from committed CTAs: the same on any number
  // of threads.
  std::uint64_t budget = o.sample_instructions;
  auto raise_budget = [&] {
    if (!plan.adaptive || committed == 0 || order.size() != plan.grid_ctas ||
        o.whole_grid_instructions <= budget)
      return;
    const std::uint64_t per_cta = (executed + committed - 1) / committed;
    if (per_cta <= o.whole_grid_instructions / order.size()) budget = o.whole_grid_instructions;
  };
  // Under the lock: whether the sample is complete before CTA `i` (first and last always).
  auto sampled_enough = [&](std::uint64_t i) {
    return plan.adaptive && i > 1 && executed >= budget;
  };
  // Under the lock: merges the slots that are next in the plan, in order.
  // The CTAs of the round after the sample was complete still run, uncounted: which of them
  // ran before the others were committed would depend on timing, and they write global
  // memory that later kernels of the file may read.
  bool sample_done = false;
  // A committed (or uncounted) slot, emptied for the next round.
  auto recycle = [&](auto it) {
    Slot& s = *it->second;
    pipeline.clear(s.parts);
    s.notes.clear();
    s.printed.clear();
    s.unwritten_reads.clear();
    s.executed = 0;
    s.error.reset();
    s.cause.reset();
    spare.push_back(std::move(it->second));
    pending.erase(it);
  };
  auto commit = [&]() {
    for (auto it = pending.find(committed); !stop && it != pending.end();
         it = pending.find(committed)) {
      Slot& s = *it->second;
      if (!sample_done && sampled_enough(committed)) sample_done = true;
      if (sample_done) {
        committed = s.handed;
        recycle(it);
        continue;
      }
      pipeline.merge(s.parts);
      r.notes.insert(r.notes.end(), s.notes.begin(), s.notes.end());
      r.unwritten_shared_reads.insert(r.unwritten_shared_reads.end(), s.unwritten_reads.begin(),
                                      s.unwritten_reads.end());
      emu::merge_faults(r.faults, s.faults);
      if (o.printed && !s.printed.empty()) o.printed(s.printed);
      executed += s.executed;
      if (s.error) {  // the first error in the plan's order stops the run
        error = s.error;
        cause = s.cause;
        error_cta = s.error_cta;
        stop = true;
        break;
      }
      done += (s.end - committed) * per_item;
      if (o.progress) o.progress->ctas_done.store(done, std::memory_order_relaxed);
      committed = s.end;
      recycle(it);
    }
    if (committed >= order.size()) stop = true;
    if (!stop && committed == round_end && !sample_done) raise_budget();
    if (!stop && committed == round_end && (sample_done || sampled_enough(committed))) stop = true;
    if (!stop && committed == round_end) {  // the next round, from the committed CTAs alone
      const std::uint64_t per_cta = std::max<std::uint64_t>(1, executed / committed);
      const std::uint64_t need = (budget - executed + per_cta - 1) / per_cta;
      round_end = std::min<std::uint64_t>(order.size(), committed + std::max<std::uint64_t>(1, need));
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&](unsigned t) {
    Lane& lane = *lanes[t];
    while (true) {
      std::unique_ptr<Slot> slot;
      std::uint64_t begin = 0, end = 0;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] {
          return stop || next >= order.size() || (next < committed + window && next < round_end);
        });
        if (stop || next >= order.size()) break;
        begin = next;
        next = end = std::min<std::uint64_t>(round_end, begin + chunk);
        if (!spare.empty()) {
          slot = std::move(spare.back());
          spare.pop_back();
        }
      }
      if (!slot) {
        slot = std::make_unique<Slot>();
        slot->parts = pipeline.make_parts();
      }
      lane.chain->bind(slot->parts);
      const std::size_t notes_before = lane.emu->notes().size();
      const std::size_t unwritten_before = lane.emu->unwritten_shared_reads().size();
      lane.emu->take_faults();  // those of CTAs a sampled run did not commit
      lane.emu->take_printed();
      const std::uint64_t executed_before = lane.emu->executed();
      slot->end = slot->handed = end;
      try {
        for (std::uint64_t i = begin; i < slot->end; ++i) {
          const emu::Dim3 id = cta_id(order[static_cast<size_t>(i)], launch.grid);
          try {
            if (groups.grouped) {
              const std::vector<emu::Dim3> together = members(groups, order[i], launch.grid);
              lane.emu->run_ctas(launch, together.data(), together.size());
            } else {
              lane.emu->run_cta(launch, id);
            }
          } catch (const emu::EmuError& e) {
            const emu::Dim3 at = e.in_group ? e.cta : id;
            slot->error = describe(program, k, input, e, at, name);
            slot->cause = e;
            slot->error_cta = at;
            slot->end = i + 1;
            break;
          }
        }
        lane.chain->finish();  // requests SASS had not completed belong to these CTAs
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!failure) failure = std::current_exception();
        stop = true;
        cv.notify_all();
        break;
      }
      const auto& notes = lane.emu->notes();
      slot->notes.assign(notes.begin() + static_cast<std::ptrdiff_t>(notes_before), notes.end());
      const auto& unwritten = lane.emu->unwritten_shared_reads();
      slot->unwritten_reads.assign(
          unwritten.begin() + static_cast<std::ptrdiff_t>(unwritten_before), unwritten.end());
      slot->executed = lane.emu->executed() - executed_before;
      slot->faults = lane.emu->take_faults();
      slot->printed = lane.emu->take_printed();
      std::lock_guard<std::mutex> lock(m);
      pending[begin] = std::move(slot);
      commit();
      cv.notify_all();
    }
  };
  run_parts(threads, worker);
  if (failure) std::rethrow_exception(failure);
  if (error) throw EmulationError(*error, *cause, error_cta);

  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.ctas_done = done;
  r.warp_instructions = executed;
  // Sites that read shared memory no thread of the CTA wrote, in the committed CTAs (each
  // thread records a site once, in its earliest CTA, and threads take CTAs in plan order):
  // a sorted set, so it depends on neither the thread count nor the timing.
  std::sort(r.unwritten_shared_reads.begin(), r.unwritten_shared_reads.end());
  r.unwritten_shared_reads.erase(
      std::unique(r.unwritten_shared_reads.begin(), r.unwritten_shared_reads.end()),
      r.unwritten_shared_reads.end());
  return r;
}

}  // namespace bankcheck::driver
