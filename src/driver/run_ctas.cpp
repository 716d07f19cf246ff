// Running: a pool of threads takes CTAs from the plan in order; each thread owns one
// emulator and its listeners, merged at the end, so the emulation path takes no lock.
#include "run_ctas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace bankcheck::driver {
namespace {

// "FILE:LINE:COL" of a PTX instruction of `k`, or the input when it has no location.
std::string locate(const Loaded& l, const ptx::Kernel& k, const std::string& input, int instr) {
  if (instr < 0 || static_cast<size_t>(instr) >= k.locs.size()) return input;
  const auto& loc = k.locs[static_cast<size_t>(instr)];
  std::string file = input;
  if (loc.file != l.program.main_file && loc.file > 0 &&
      static_cast<size_t>(loc.file) < l.program.files.size())
    file = l.program.files[static_cast<size_t>(loc.file)];
  return loc.line > 0 ? fmt::format("{}:{}:{}", file, loc.line, loc.col) : file;
}

std::string describe(const Loaded& l, const ptx::Kernel& k, const std::string& input,
                     const emu::EmuError& e, const emu::Dim3& id, const std::string& name) {
  std::string ptx_line;
  if (e.instr >= 0 && static_cast<size_t>(e.instr) < k.ptx_lines.size())
    ptx_line = fmt::format(" (PTX line {}: {})", k.ptx_lines[static_cast<size_t>(e.instr)],
                           k.texts[static_cast<size_t>(e.instr)]);
  return fmt::format("{}: {}{} in CTA ({},{},{}) of kernel {}", locate(l, k, input, e.instr),
                     e.what(), ptx_line, id.x, id.y, id.z, name);
}

}  // namespace

CtaResults run_ctas(const Loaded& l, const ptx::Kernel& k, const emu::Launch& launch,
                    const CtaPlan& plan, const model::Arch& arch, const CheckOptions& o,
                    const std::string& name, emu::GlobalMemory& mem) {
  // No more emulators than CTAs to run: each one holds a CTA's state (check_cta_state).
  const unsigned threads = static_cast<unsigned>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(o.threads ? o.threads : std::thread::hardware_concurrency(),
                                 plan.order.size())));
  CtaResults r;
  if (l.sass)
    if (const sass::Kernel* sk = l.sass->find(k.name))
      r.plan = analysis::plan_sass(k, analysis::sass_accesses(*sk));
  // Per thread: emulator -> [PTX-level stats of rewritten sites] and SASS requests ->
  // stats and the recorder. Without a plan the SASS step passes every event on.
  std::vector<std::unique_ptr<analysis::SiteStatsListener>> stats, ptx_stats;
  std::vector<std::unique_ptr<emu::Emulator>> emus;
  std::vector<std::unique_ptr<analysis::SharedRecorder>> recorders;
  std::vector<std::unique_ptr<analysis::Tee>> tees;
  std::vector<std::unique_ptr<analysis::SassRequests>> sass_requests;
  std::vector<std::unique_ptr<analysis::RewrittenOnly>> filters;
  for (unsigned t = 0; t < threads; ++t) {
    stats.push_back(std::make_unique<analysis::SiteStatsListener>(arch, k.sites.size()));
    ptx_stats.push_back(std::make_unique<analysis::SiteStatsListener>(arch, k.sites.size()));
    emus.push_back(std::make_unique<emu::Emulator>(l.program, k, mem));
    tees.push_back(std::make_unique<analysis::Tee>());
    tees.back()->add(stats.back().get());
    if (o.record_shared) {
      recorders.push_back(std::make_unique<analysis::SharedRecorder>());
      tees.back()->add(recorders.back().get());
    }
    sass_requests.push_back(std::make_unique<analysis::SassRequests>(r.plan, *tees.back()));
    if (r.plan.families > 0 || !r.plan.sites.empty()) {
      filters.push_back(std::make_unique<analysis::RewrittenOnly>(r.plan, *ptx_stats.back()));
      emus.back()->add_listener(filters.back().get());
    }
    emus.back()->add_listener(sass_requests.back().get());
  }
  const auto& order = plan.order;
  std::atomic<std::uint64_t> next{0}, done{0}, executed{0};
  if (o.progress) {
    o.progress->ctas_done = 0;
    o.progress->ctas_planned = plan.adaptive ? 0 : order.size();
  }
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::optional<std::string> error;
  std::exception_ptr failure;  // anything else a worker threw, rethrown after the join
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&](unsigned t) {
    while (!stop.load()) {
      const std::uint64_t i = next.fetch_add(1);
      if (i >= order.size()) break;
      if (plan.adaptive && i > 1 && executed.load() >= o.sample_instructions)
        break;  // first and last always
      const emu::Dim3 id = cta_id(order[static_cast<size_t>(i)], launch.grid);
      const std::uint64_t before = emus[t]->executed();
      try {
        emus[t]->run_cta(launch, id);
      } catch (const emu::EmuError& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = describe(l, k, o.input, e, id, name);
        stop = true;
        break;
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
        break;
      }
      executed += emus[t]->executed() - before;
      ++done;
      if (o.progress) o.progress->ctas_done.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  } catch (...) {  // a thread that cannot start: the started ones are joined, never abandoned
    stop = true;
    for (auto& th : pool) th.join();
    throw;
  }
  worker(0);
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  if (error) throw EmulationError(*error);
  for (auto& q : sass_requests) q->finish();

  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.ctas_done = done.load();
  r.warp_instructions = executed.load();
  for (unsigned t = 1; t < threads; ++t) {
    stats[0]->merge(*stats[t]);
    ptx_stats[0]->merge(*ptx_stats[t]);
  }
  r.stats = std::move(stats[0]);
  r.ptx_stats = std::move(ptx_stats[0]);
  if (o.record_shared) {
    for (unsigned t = 1; t < threads; ++t) recorders[0]->merge(*recorders[t]);
    r.recorder = std::move(recorders[0]);
  }
  for (const auto& e : emus) {
    r.notes.insert(r.notes.end(), e->notes().begin(), e->notes().end());
    r.unwritten_shared_reads.insert(r.unwritten_shared_reads.end(),
                                    e->unwritten_shared_reads().begin(),
                                    e->unwritten_shared_reads().end());
  }
  std::sort(r.unwritten_shared_reads.begin(), r.unwritten_shared_reads.end());
  r.unwritten_shared_reads.erase(
      std::unique(r.unwritten_shared_reads.begin(), r.unwritten_shared_reads.end()),
      r.unwritten_shared_reads.end());
  return r;
}

}  // namespace bankcheck::driver
