// One kernel's analysis over its launches (engine.hpp, KernelAnalysis): the SASS plan and
// the collectors made once, each launch's CTAs planned and run, the report assembled from
// the collectors' shares and what the emulator noted.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "analyses.hpp"
#include "bankcheck/analysis/pipeline.hpp"
#include "bankcheck/driver/engine.hpp"
#include "cta_plan.hpp"
#include "repeats.hpp"
#include "run_ctas.hpp"

namespace bankcheck::driver {

KernelAnalysis::KernelAnalysis(const Loaded& l, const ptx::Kernel& k, const model::Arch& arch,
                               const CheckOptions& o)
    : loaded_(l), kernel_(k), arch_(arch), options_(o) {
  const sass::Kernel* sk = l.sass ? l.sass->find(k.name) : nullptr;
  if (sk) {
    plan_ = analysis::plan_sass(k, analysis::sass_accesses(*sk), sk->ptx_lines);
    analysis::place_lineless_sites(k, *sk, plan_);
    analysis::place_wgmma_sites(k, *sk, plan_);
  }
  context_.reset(new analysis::KernelContext{l.program, k, arch, plan_, sk, &l.sass_files});
  pipeline_ = std::make_unique<analysis::Pipeline>(plan_, make_collectors(*context_, o));
  execute_only_ = std::make_unique<analysis::Pipeline>(
      plan_, std::vector<std::unique_ptr<analysis::Collector>>{});
  const KernelSignature& sig = l.signature(k);
  report_.mangled = k.name;
  report_.signature = sig.signature;
  report_.name = sig.name;
  report_.static_smem = k.static_shared_bytes;
  report_.shared_vars = k.shared;
}

KernelAnalysis::~KernelAnalysis() = default;

const std::vector<std::unique_ptr<analysis::Collector>>& KernelAnalysis::collectors() const {
  return pipeline_->collectors();
}

bool KernelAnalysis::run(const KernelLaunch& kl, bool analyse) {
  const emu::Launch& launch = kl.launch;
  ++launches_;
  if (options_.skip_repeats && !repeats_) repeats_ = std::make_unique<Repeats>(kernel_);
  if (!analyse && repeats_ && launched_ && repeats_->already_in_memory(launch, *kl.memory)) {
    ++skipped_;
    return false;
  }
  const bool first = !launched_;
  launched_ = true;
  if (first) {
    report_.settings_from = kl.sources;
    report_.grid = launch.grid;
    report_.block = launch.block;
    report_.dynamic_smem = launch.dynamic_smem;
    report_.args = kl.args;
  }
  // The CTAs of every analysed launch (check's one launch: its grid).
  if (first || analyse) report_.ctas_total += launch.grid.count();
  const std::optional<std::string> every("all");
  // A cooperative launch runs every CTA together (its grid synchronizations need them all).
  const std::optional<std::string>& blocks = analyse && !launch.cooperative ? kl.blocks : every;
  {
    // bankcheck's own buffers count against the budget; a running program's do not.
    std::vector<BufferUse> buffers;
    if (!kl.program_memory)
      for (const auto& a : kl.args)
        if (a.is_buffer) buffers.push_back({a.name, a.bytes});
    const std::uint64_t planned = planned_ctas(launch.grid.count(), blocks);
    const unsigned cores = options_.threads ? options_.threads : std::thread::hardware_concurrency();
    check_run_memory(kernel_, launch,
                     static_cast<unsigned>(std::min<std::uint64_t>(std::max(1u, cores), planned)),
                     planned, buffers, options_.max_memory, report_.name);
  }
  CtaPlan plan = plan_ctas(launch.grid.count(), blocks);
  if (const auto it = options_.sampled_ctas.find(kernel_.name);
      plan.adaptive && it != options_.sampled_ctas.end()) {
    plan.order.resize(std::min<std::size_t>(plan.order.size(), it->second));
    plan.adaptive = false;
  }
  RunOptions ro;
  ro.threads = options_.threads;
  ro.sample_instructions = options_.sample_instructions;
  ro.whole_grid_instructions = options_.whole_grid_instructions;
  ro.progress = options_.progress;
  ro.emulator = options_.emulator;
  ro.emulator.native = options_.native;  // runs without memory events: any tier
  ro.emulator.native_memo = native_memo_;
  ro.printed = options_.device_output;
  if (!analyse) {  // nothing reads its events: the fast tier, or the tier before it
    ro.emulator.execute_only = options_.fast_tier;
    ro.emulator.lanes = options_.fast_tier && options_.emulator.lanes;
    ro.emulator.native = options_.fast_tier && options_.native;
  }
  // What this execution reads and writes, when it runs every CTA: what a later launch that
  // repeats it needs to know (repeats.hpp).
  const bool whole = !plan.adaptive && plan.order.size() == launch.grid.count();
  ro.emulator.footprint = repeats_ && whole ? repeats_->record(*kl.memory) : nullptr;
  CtaRun r;
  try {
    r = run_ctas(loaded_.program, kernel_, launch, plan, analyse ? *pipeline_ : *execute_only_,
                 *kl.memory, ro, options_.input, report_.name);
  } catch (...) {
    if (repeats_) repeats_->abandon(*kl.memory);
    throw;
  }
  if (repeats_)
    repeats_->ran(launch, *kl.memory, r.ctas_done == plan.order.size() && r.faults.empty());
  report_.seconds += r.seconds;
  report_.warp_instructions += r.warp_instructions;
  if (analyse) report_.ctas_analysed += r.ctas_done;
  notes_.insert(notes_.end(), r.notes.begin(), r.notes.end());
  unwritten_shared_reads_.insert(unwritten_shared_reads_.end(), r.unwritten_shared_reads.begin(),
                                 r.unwritten_shared_reads.end());
  emu::merge_faults(faults_, r.faults, /*keep_earlier=*/true);  // launches in order
  if (first)
    for (size_t i = 0; i < report_.args.size() && i < kl.buffers.size(); ++i)
      if (report_.args[i].is_buffer)
        if (auto* b = kl.memory->find(kl.buffers[i], 1)) report_.args[i].touched = b->max_touched.load();
  return true;
}

analysis::KernelReport KernelAnalysis::report() {
  analysis::KernelReport rep = report_;
  pipeline_->report(rep);
  // What the emulator noted, once per instruction.
  std::vector<int> noted;
  for (const auto& n : notes_) {
    if (std::find(noted.begin(), noted.end(), n.instr) != noted.end()) continue;
    noted.push_back(n.instr);
    const auto loc = n.instr >= 0 ? kernel_.locs[static_cast<size_t>(n.instr)] : ptx::SourcePos{};
    rep.notes.push_back({loc.file, loc.line, loc.col, n.message});
  }
  std::vector<int> unwritten = unwritten_shared_reads_;
  std::sort(unwritten.begin(), unwritten.end());
  unwritten.erase(std::unique(unwritten.begin(), unwritten.end()), unwritten.end());
  analysis::note_unwritten_shared_reads(kernel_, unwritten, rep);
  analysis::note_zero_filled_inputs(kernel_, rep);
  analysis::note_texture_accesses(kernel_, rep);
  for (const emu::SurvivedFault& f : faults_) {
    const auto loc = f.instr >= 0 ? kernel_.locs[static_cast<size_t>(f.instr)] : ptx::SourcePos{};
    analysis::FaultReport fr;
    fr.file = loc.file;
    fr.line = loc.line;
    fr.col = loc.col;
    fr.ptx_line = f.instr >= 0 && static_cast<size_t>(f.instr) < kernel_.ptx_lines.size()
                      ? kernel_.ptx_lines[static_cast<size_t>(f.instr)]
                      : 0;
    using Op = emu::EmuError::Access::Op;
    fr.access = f.access.op == Op::Write ? "write" : f.access.op == Op::Atomic ? "atomic" : "read";
    fr.size = f.access.size;
    fr.address = f.access.address;
    fr.block = f.block;
    fr.thread = f.thread;
    fr.lanes = f.lanes;
    rep.faults.push_back(fr);
  }
  analysis::note_faults(rep);
  if (skipped_) {
    // At the kernel's first line.
    ptx::SourcePos at;
    for (const ptx::SourcePos& p : kernel_.locs)
      if (p.line > 0) {
        at = p;
        break;
      }
    rep.notes.push_back(
        {at.file, at.line, at.col,
         fmt::format("{} of its {} launches did not run: each repeated an earlier launch (the same "
                     "grid, block and arguments) whose inputs were unchanged and whose results "
                     "were still in memory (--repeats execute runs them)",
                     skipped_, launches_)});
  }
  analysis::total(rep, arch_);
  return rep;
}

}  // namespace bankcheck::driver
