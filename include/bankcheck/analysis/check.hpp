// The result of `bankcheck check` for each kernel: the launch, which CTAs were
// analysed, every memory site's statistics and notes. Built by the driver from the
// emulator's listeners; rendered by report/check_view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/analysis/address_taint.hpp"
#include "bankcheck/analysis/provenance.hpp"
#include "bankcheck/analysis/site_stats.hpp"
#include "bankcheck/emu/events.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::analysis {

struct ArgReport {
  std::string name;   // from the .cu source, else p0, p1, ...
  std::string value;  // as given or chosen ("zeros:1048576", "7")
  bool defaulted = false;
  bool is_buffer = false;
  std::uint64_t bytes = 0;    // buffer size
  std::uint64_t touched = 0;  // one past the highest byte the analysed CTAs accessed
  // A buffer: where the kernel reads its pointer (the parameter bytes' offset of a pointer
  // parameter or of a struct parameter's pointer field; a pointer variable's address), and
  // whether it was bound as zeros (by default, `zeros` or a host cudaMalloc): the fill under
  // which an address computed from its data is not the program's (note_zero_filled_inputs).
  bool has_pointer = false;
  PointerSource pointer;
  bool zero_filled = false;
  bool is_variable = false;  // a module variable (__constant__, __device__: --var), not a parameter
};

struct NoteReport {
  int file = 0, line = 0, col = 0;  // source location of the instruction
  std::string message;
  // A known difference from Nsight Compute (analysis/known_differences.hpp): its name.
  std::string known = {};
};

// A global access outside every buffer that the analysis went on after (no --stop-on-fault),
// as compute-sanitizer reports one: one per instruction and kind of access, the first
// faulting lane (the lowest CTA, then thread) and how many lanes faulted in all.
struct FaultReport {
  int file = 0, line = 0, col = 0;  // the instruction's source location
  int ptx_line = 0;
  std::string access;  // "read", "write" or "atomic"
  unsigned size = 0;   // bytes the lane accessed
  std::uint64_t address = 0;
  model::Dim3 block, thread;
  std::uint64_t lanes = 0;
};

// A source line whose shared loads read bytes no thread of the CTA had written before
// (the emulator reads them as zero; the GPU reads whatever the SM held).
struct UnwrittenReadReport {
  int file = 0, line = 0, col = 0;  // the first such load of the line
};

struct SiteReport {
  int site = 0;
  int file = 0, line = 0, col = 0, ptx_line = 0;
  std::string ptx;  // instruction text
  SiteStats stats;  // as SASS issues it (as the PTX states it when SASS was not read)
  // The site's own SASS instructions ("LDS.128"); empty when SASS was not read, or when
  // ptxas folded it into a neighbour's request.
  std::vector<std::string> sass;
  // Where SASS issues the site differently (widened, lanes merged): the PTX-level counts.
  bool rewritten = false;
  SiteStats ptx_stats;
  // Its inline stack's innermost frame in each other file (ptx::Site::inlined).
  std::vector<ptx::SourcePos> inlined;
  // The lines Nsight Compute lists its SASS instructions under: the cubin's .debug_line
  // rows at their addresses (several when rows share an address); empty without SASS.
  std::vector<ptx::SourcePos> nsight_lines;
  // Its whole inline stack, innermost first (ptx::Site::stack); empty when not inlined.
  std::vector<ptx::SourcePos> stack;
  model::Schedule worst_schedule;  // of stats.worst (shared sites with a worst request)
};

// One source line's accesses of one kind (space, op, width), summed over its sites
// (an unrolled loop puts many instructions on one line).
struct LineReport {
  int file = 0, line = 0, col = 0;
  ptx::Space space = ptx::Space::Shared;
  model::Op op = model::Op::Load;
  int width = 0;
  int sites = 0;
  std::uint64_t requests = 0, wavefronts = 0, ideal_wavefronts = 0, sectors = 0, ideal_sectors = 0,
                lines128 = 0;
  std::uint32_t ways = 0;
  // The line's SASS opcodes with counts ("LDS*32,LDS.128*8"), and, where SASS rewrote its
  // accesses, what the PTX's own requests would cost.
  std::string sass;
  bool rewritten = false;
  int ptx_sites = 0, ptx_width = 0;
  std::uint64_t ptx_requests = 0, ptx_wavefronts = 0, ptx_ideal_wavefronts = 0;
  std::uint32_t ptx_ways = 0;
  int worst_site = -1;  // index into KernelReport::sites with the most excess in its worst request
  // Global lines: the pattern of the worst request (most excess sectors) of the line.
  int worst_global_site = -1;
  GlobalPattern pattern;
};

// A running program's launches of one kernel with one configuration (bankcheck run): how
// many ran, how many were analysed (every CTA counted) and which, how many were skipped.
struct LaunchSummary {
  emu::Dim3 grid, block;
  std::uint64_t dynamic_smem = 0;
  std::uint64_t launches = 0, analysed = 0, skipped = 0;
  // The analysed launches' numbers among all the program's launches, from 0 (as a
  // profiler's launch IDs count them).
  std::vector<std::uint64_t> analysed_ids;
};

// An analysed launch of a running program whose counts are not all in the report, and why
// (bankcheck run: the program ended while it ran, its counts were never read back, it faulted).
struct IncompleteLaunch {
  std::uint64_t id = 0;  // its number among the program's launches, as analysed_ids counts
  std::string reason;
};

// What an analysis without a view of its own found: named counts, in its order.
struct AnalysisCounts {
  std::string analysis;
  std::vector<std::pair<std::string, std::uint64_t>> counts;
};

struct KernelReport {
  std::string name;  // demangled base name
  std::string mangled;
  std::string signature;  // demangled full signature
  emu::Dim3 grid, block;
  std::uint64_t dynamic_smem = 0;
  std::uint64_t static_smem = 0;
  std::uint64_t ctas_total = 0, ctas_analysed = 0;
  std::uint64_t warp_instructions = 0;
  double seconds = 0;
  std::vector<ArgReport> args;
  std::vector<SettingSource> settings_from;  // in setting order: kernel, grid, block, smem, args
  std::vector<SiteReport> sites;  // memory sites executed at least once, in source order
  // Rewritten sites that SASS folded into a neighbour's request (no requests of their own):
  // their PTX-level counts, for the line's PTX figures.
  std::vector<SiteReport> folded_sites;
  // Shared sites ptxas removed (SassSite::Kind::Removed): never issued, not counted; their
  // PTX-level counts in ptx_stats.
  std::vector<SiteReport> removed_sites;
  std::vector<LineReport> lines;  // sites summed per (line, space, op, width), in source order
  std::vector<NoteReport> notes;
  std::vector<UnwrittenReadReport> unwritten_shared_reads;  // one per line, in source order
  std::vector<FaultReport> faults;  // survived global faults, in source order
  std::uint64_t shared_wavefronts = 0, shared_ideal_wavefronts = 0;
  // The kernel's shared variables (offsets in the CTA's window): views name the array a
  // shared request touches and relate the lines that touch the same one.
  std::vector<ptx::SharedVar> shared_vars;
  // The counts of registered analyses beyond the built-in ones (CheckOptions::analyses).
  std::vector<AnalysisCounts> analyses;
  // bankcheck run: the kernel's launches by configuration, in the order first seen (empty
  // for check, whose one launch is grid, block and dynamic_smem above).
  std::vector<LaunchSummary> launches;
  // bankcheck run: its analysed launches whose counts are partial or missing, in launch
  // order; empty when every analysed launch is counted whole.
  std::vector<IncompleteLaunch> incomplete;
};

// A kernel of the file that was not analysed: the decoder refused one of its instructions.
struct UnsupportedKernelReport {
  std::string name;        // demangled base name
  std::string reason;      // what is not supported
  int file = 0, line = 0;  // source location of the instruction (line 0: none)
  int ptx_line = 0;
  std::string ptx;        // the PTX instruction
  bool selected = false;  // named by --kernel or a launch comment (the run then exits 2)
  int col = 0;
  std::vector<ptx::RefusedFamily> families;  // every unsupported family it uses
};

// bankcheck run: launches the program made that did not run: a kernel whose module has no
// code the emulator runs (a library's SASS-only cubin, as cuBLAS ships its kernels), or a
// launch through a driver entry point bankcheck does not implement (cuLaunchGrid; no kernel
// named). Each returned `error` to the program, which went on. The report does not cover them:
// it is not complete().
struct NotRunReport {
  std::string library;  // the file holding the kernel, or whose code called ("libcublasLt.so.13")
  std::string name;     // demangled base name; empty for a launch through an unimplemented call
  std::string mangled;
  std::string reason;  // why it could not run ("its module has SASS for sm_90 and no PTX")
  std::uint64_t launches = 0;
  std::string call_site;  // the program's call: "gemm.cu:42 (main)", "main+0x1f (app)"; "" unknown
  std::string error;      // what each launch returned ("CUDA_ERROR_NO_BINARY_FOR_GPU")
};

// The sentence that says why a kernel is not analysed, after "kernel NAME is not analysed: ":
// one refused instruction as "REASON (PTX line N: TEXT)"; several, or several families,
// as a count and one line per family, "  FILE:LINE:COL: FAMILY: N instructions, the first
// at PTX line N: TEXT (REASON)". `path` names a source file by its index (the header's
// own path for an instruction from a header).
std::string refusal_text(const std::string& reason, int ptx_line, const std::string& ptx,
                         const std::vector<ptx::RefusedFamily>& families,
                         const std::function<std::string(int file)>& path);

// What the shared requests of a report are counted as: the requests the cubin's SASS
// issues, or (where SASS was not read, for CheckReport::level_reason) the PTX's own.
enum class CountLevel : std::uint8_t { Ptx, Sass };

// "ptx", "sass": the words every view writes (JSON `level`).
constexpr std::string_view count_level_name(CountLevel level) {
  return level == CountLevel::Sass ? "sass" : "ptx";
}

// The process a report of `bankcheck run` comes from: a job of several processes has a report
// per process (each with its own).
struct ProcessInfo {
  std::int64_t pid = 0, ppid = 0;
  std::vector<std::string> command;  // its command line (argv)
  // Its rank as the environment gives one (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
  // SLURM_PROCID; LOCAL_RANK and the like for local_rank), with the variable it came from;
  // empty when none does.
  std::string rank, rank_variable, local_rank;
  bool root = false;   // the program bankcheck started, not one of its descendants
  std::string ending;  // how it ended, in words: "exited with code 3", "killed by SIGSEGV ..."
  int exit_code = -1;  // when it exited (-1: it did not, or it is not known)
  int signal = 0;      // the signal that ended it (0: none)
  // Why its report is not the whole of what it did (it was killed while kernels may still
  // have been launched, a launch's counts were lost); empty: complete.
  std::vector<std::string> incomplete;
};

// A line of a file other than the main one that a site stands on (a header's), as the file
// read when the report was made: quoted as the main file's lines are.
struct QuotedLine {
  int file = 0, line = 0;
  std::string text;
};

struct CheckReport {
  std::string input;               // the .cu or .ptx given
  std::vector<std::string> files;  // index -> path (from the PTX .file table)
  int main_file = 0;
  std::vector<std::string> source_lines;  // the main file's lines, for quoting (may be empty)
  std::vector<QuotedLine> quoted_lines;    // other files' lines the sites stand on
  const model::Arch* arch = &model::kDefaultArch;
  CountLevel level = CountLevel::Ptx;
  std::string level_reason;
  std::vector<KernelReport> kernels;
  std::vector<UnsupportedKernelReport> unsupported;  // the file's kernels not analysed
  std::vector<NotRunReport> not_run;                 // run: launches that did not run
  // bankcheck run: the process the report comes from (absent for check).
  std::optional<ProcessInfo> process;
};

// Whether the report covers every launch of its process and counts each analysed one whole:
// its process ended as reports of complete runs do (no ProcessInfo::incomplete), every launch
// ran (no not_run) and every analysed launch is counted whole (no KernelReport::incomplete).
bool complete(const CheckReport& report);

// "libcublasLt.so.13: kernel K did not run (3 launches, called from gemm.cu:42 (main)): REASON;
// each launch returned CUDA_ERROR_NO_BINARY_FOR_GPU and the program went on": the one sentence
// every view writes for a kernel that did not run (one of the report's incompleteness).
std::string not_run_text(const NotRunReport& n);

// The note of each source line whose loads read shared memory never written: `sites` are
// the emulator's (Emulator::unwritten_shared_reads()); one UnwrittenReadReport and one note
// per line, however many of its instructions did.
// The note of each source line with an executed site (report.sites) whose address depends on
// data loaded from a buffer bound as zeros (ArgReport::zero_filled, matched by where the
// kernel reads the buffer's pointer: address_inputs): its counts are those of all-equal
// data (a histogram's bins[data[i]] all in one bin), and the note names the buffers and how
// to give real data. One note per line, however many of its sites.
void note_zero_filled_inputs(const ptx::Kernel& k, KernelReport& report);
// One note per source line with texture or surface accesses (tex, suld, sust): they run
// (the program gets its values) but go through the texture path, which the report does not
// count.
void note_texture_accesses(const ptx::Kernel& k, KernelReport& report);
// One note per report.faults entry: what compute-sanitizer would say, and which figures the
// faulting lanes touched.
void note_faults(KernelReport& report);

void note_unwritten_shared_reads(const ptx::Kernel& k, const std::vector<int>& sites,
                                 KernelReport& report);

// Fills the per-kernel shared totals, the per-line sums and each shared site's
// worst-request schedule; notes the lines below their ideal (note_below_ideal).
void total(KernelReport& k, const model::Arch& arch);

// A note on every line whose wavefronts or sectors are below their ideal: impossible on the
// hardware, so a counting error, named where it happens; every view shows its excess as 0
// (model::excess_of), never as a wrapped-around difference. Idempotent.
void note_below_ideal(KernelReport& k);

// A source file's text as CheckReport::source_lines holds it: one string a line, without its
// line break, "\r\n" (a file saved on Windows) as well as "\n", so that no quoted line
// carries a carriage return into the report.
std::vector<std::string> split_source_lines(std::string_view text);

}  // namespace bankcheck::analysis
