// The check engine: input -> PTX -> program, kernel selection, and per kernel the steps
// in order: launch validation, argument binding (args.cpp), the CTA plan (cta_plan.cpp),
// running (run_ctas.cpp) and the per-site report.
#include "bankcheck/driver/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "args.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/model/launch_limits.hpp"
#include "cta_plan.hpp"
#include "run_ctas.hpp"

namespace bankcheck::driver {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DriverError(fmt::format("{}: cannot read '{}'", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Case-insensitive: "KERNEL.PTX" is PTX too, not a source for nvcc.
bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i])
      return false;
  return true;
}

}  // namespace

namespace {

// The cubin ptxas builds from the same PTX: its SASS, where shared requests are counted as
// the GPU issues them (decoding covers Hopper, sm_90), and each kernel's registers (the
// ELF's EIATTR_REGCOUNT, what `ptxas -v` prints) for fix's occupancy. Without SASS the
// counts stay at PTX level, with the reason.
void read_cubin(Loaded& l, const CheckOptions& o) {
  // The decoder of the architecture's SASS family; a virtual one (compute_90) has no SASS.
  const model::Arch* arch = o.arch.starts_with("sm_") ? model::find_arch(o.arch) : nullptr;
  const sass::Decoder decoder = sass::decoder_for(arch ? arch->sass : model::SassFamily::None);
  if (!o.sass)
    l.ptx_level_reason = "--ptx-level";
  else if (!decoder)
    l.ptx_level_reason = fmt::format("SASS is read for sm_90 only, not {}", o.arch);
  const bool decode = o.sass && decoder;
  if (!decode && !o.record_shared) return;
  auto unavailable = [&](const std::string& why) {
    if (decode) l.ptx_level_reason = why;
    l.registers_note = "registers unknown: " + why;
  };
  try {
    const Assembled a = assemble(l.ptx_text, o.arch, o.nvcc.nvcc);
    auto m = sass::read_module(a.cubin, decoder);
    if (!m.ok()) return unavailable("the cubin could not be read: " + m.error().message);
    for (const sass::Kernel& k : m.value().kernels)
      l.registers[k.name] = static_cast<int>(k.registers);
    if (!decode) return;
    if (!m.value().has_line_info) {
      l.ptx_level_reason = "the cubin has no SASS-to-PTX line table";
      return;
    }
    l.sass = std::make_shared<const sass::Module>(std::move(m.value()));
  } catch (const DriverError& e) {
    std::string why = e.what();
    if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
    unavailable(why);
  }
}

// The macros nvcc's command line defines (-D NAME[=VALUE], in --, -D and -p's entry): the
// host code's launches see them over the file's own #defines, as an `#ifndef`-guarded
// default would (`-D BLOCK=128` over `#ifndef BLOCK / #define BLOCK 256`).
std::map<std::string, std::string> command_line_defines(const NvccOptions& n) {
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& def) {
    const auto eq = def.find('=');
    if (def.empty() || eq == 0) return;
    out[def.substr(0, eq)] = eq == std::string::npos ? "1" : def.substr(eq + 1);
  };
  for (const auto& d : n.defines) add(d);
  for (std::size_t i = 0; i < n.extra.size(); ++i) {
    const std::string& t = n.extra[i];
    if ((t == "-D" || t == "--define-macro") && i + 1 < n.extra.size())
      add(n.extra[++i]);
    else if (t.starts_with("--define-macro="))
      add(t.substr(15));
    else if (t.starts_with("-D"))
      add(t.substr(2));
    else if ((t == "-U" || t == "--undefine-macro") && i + 1 < n.extra.size())
      out.erase(n.extra[++i]);
    else if (t.starts_with("-U"))
      out.erase(t.substr(2));
  }
  return out;
}

// Every kernel name of the file, the refused ones included (they can be named too).
std::vector<std::string> all_kernel_names(const ptx::Program& p) {
  std::vector<std::string> names;
  for (const auto& k : p.kernels) names.push_back(k.name);
  for (const auto& u : p.unsupported) names.push_back(u.name);
  return names;
}

// Whether the run asks for this kernel: --kernel names it, or a launch comment does, or it
// is the file's only kernel.
bool selected(const Loaded& l, const CheckOptions& o, const std::string& mangled) {
  const size_t total = l.program.kernels.size() + l.program.unsupported.size();
  if (o.flags.kernel) return kernel_matches(mangled, *o.flags.kernel);
  if (comment_for_kernel(l.comments, mangled, total, o.input)) return true;
  return total == 1;
}

// Headers nvcc names through its own directory ("/usr/local/cuda/bin/../targets/...")
// are shown by their real path: the same header reads the same whichever nvcc found it
// (a symlinked toolkit, another PATH), and without the "bin/..".
std::string real_path(const std::string& f) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(f, ec);
  return ec ? std::filesystem::path(f).lexically_normal().string() : c.string();
}

void canonical_header_paths(ptx::Program& p) {
  for (size_t i = 0; i < p.files.size(); ++i) {
    std::string& f = p.files[i];
    if (static_cast<int>(i) == p.main_file || f.empty() || f[0] != '/') continue;
    if (f.find("/../") == std::string::npos && f.find("/./") == std::string::npos) continue;
    f = real_path(f);
  }
}

// "file.cu:12: kernel k: reason (PTX line 40: text)", for an error that stops the run.
std::string unsupported_message(const Loaded& l, const ptx::UnsupportedKernel& u) {
  const std::string where =
      u.pos.line > 0 && u.pos.file >= 0 && static_cast<size_t>(u.pos.file) < l.program.files.size()
          ? fmt::format("{}:{}", l.input, u.pos.line)
          : l.input;
  return fmt::format("{}: kernel {} is not analysed: {} (PTX line {}: {})", where,
                     base_name(demangle(u.name)), u.reason, u.ptx_line, u.ptx);
}

}  // namespace

Loaded load(const CheckOptions& o) {
  Loaded l;
  l.input = o.input;
  std::string ptx_text;
  if (ends_with(o.input, ".ptx")) {
    ptx_text = read_file(o.input, "check");
  } else {
    NvccOptions n = o.nvcc;
    n.input = o.input;
    n.arch = o.arch;
    l.source_text = read_file(o.input, "check");
    l.comments = parse_launch_comments(l.source_text, o.input);
    std::string said;
    ptx_text = compile_to_ptx(n, &said);
    if (!said.empty() && o.nvcc_output) o.nvcc_output(said);
  }
  l.ptx_text = ptx_text;
  read_cubin(l, o);
  l.module =
      ptx::parse(ptx_text, ends_with(o.input, ".ptx") ? o.input : o.input + " (PTX from nvcc)");
  l.program = ptx::decode(l.module, o.input, ends_with(o.input, ".ptx") ? "" : o.input);
  canonical_header_paths(l.program);
  if (!l.comments.empty()) check_comment_kernels(l.comments, all_kernel_names(l.program), o.input);
  return l;
}

std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> select_kernels(const Loaded& l,
                                                                          const CheckOptions& o) {
  std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> out;
  const auto& ks = l.program.kernels;
  const std::vector<std::string> names = all_kernel_names(l.program);
  auto list = [&]() {
    std::string s;
    for (const auto& k : names) s += "\n  " + demangle(k);
    return s;
  };
  if (names.empty())
    throw DriverError(fmt::format("{}: no kernel (.entry) in the program", o.input));
  // A refused kernel the run asks for: when nothing else is asked for, the run stops with
  // its reason; otherwise the others run and the report names it (start_report).
  std::vector<const ptx::UnsupportedKernel*> refused;
  for (const auto& u : l.program.unsupported)
    if (selected(l, o, u.name)) refused.push_back(&u);
  const auto stop_if_only_refused = [&](size_t runnable) {
    if (runnable == 0 && !refused.empty()) {
      std::string msg = unsupported_message(l, *refused[0]);
      for (size_t i = 1; i < refused.size(); ++i) msg += "\n" + unsupported_message(l, *refused[i]);
      throw DriverError(msg);
    }
  };
  // The launches the file's host code makes (host_launch.hpp); --launch N picks one.
  const std::vector<HostLaunch> launches =
      l.source_text.empty() ? std::vector<HostLaunch>{}
                            : find_host_launches(l.source_text,
                                                 local_headers_text(l.source_text, o.input,
                                                                    include_search_dirs(o.nvcc)),
                                                 command_line_defines(o.nvcc));
  if (o.launch > 0 && static_cast<std::size_t>(o.launch) > launches.size()) {
    std::string found;
    for (const auto& h : launches)
      found += fmt::format("\n  {}: {} at line {} in {}", h.index, h.written(), h.line, h.via);
    throw DriverError(fmt::format("--launch {}: the host code of {} has {} launch{}{}", o.launch,
                                  o.input, launches.size(), launches.size() == 1 ? "" : "es",
                                  found));
  }
  auto launch_for = [&](const ptx::Kernel& k) -> const HostLaunch* {
    for (const auto& h : launches)
      if ((o.launch == 0 || h.index == o.launch) && launch_matches(h, k.name)) return &h;
    return nullptr;
  };
  auto settings_for = [&](const ptx::Kernel& k, const std::optional<LaunchSettings>& comment) {
    const std::string name = base_name(demangle(k.name));
    return settle(o.flags, comment, launch_for(k), param_names(l, k, name, o), o.input);
  };
  auto comment_of = [&](const ptx::Kernel& k) {
    return comment_for_kernel(l.comments, k.name, names.size(), o.input);
  };
  if (o.flags.kernel) {
    std::vector<const ptx::Kernel*> matched;
    for (const auto& k : ks)
      if (kernel_matches(k.name, *o.flags.kernel) && (o.launch == 0 || launch_for(k)))
        matched.push_back(&k);
    stop_if_only_refused(matched.size());
    if (matched.empty() && o.kernel_may_be_absent) return out;
    if (matched.empty())
      throw DriverError(fmt::format(
          "--kernel: no kernel named '{}'{}; the kernels are:{}", *o.flags.kernel,
          o.launch ? fmt::format(" launched by --launch {}", o.launch) : std::string(), list()));
    // Every instantiation a name matches is checked; the report says which.
    std::string which;
    for (const auto* k : matched) which += (which.empty() ? "" : "; ") + demangle(k->name);
    for (const auto* k : matched) {
      LaunchSettings s = settings_for(*k, comment_of(*k));
      if (matched.size() > 1)
        s.sources.front().where += fmt::format(" (one of the {} kernels it names, all checked: {})",
                                               matched.size(), which);
      out.push_back({k, std::move(s)});
    }
    return out;
  }
  // The kernels launch comments name, in the program's order; then the other kernels the
  // host code launches, each with its first launch (or the one --launch picks), in the
  // order of those launches: a comment adds a kernel or settles its settings, and never
  // drops the kernels the program launches.
  for (const auto& k : ks) {
    const auto c = comment_of(k);
    if (c) out.push_back({&k, settings_for(k, c)});
  }
  for (const auto& h : launches) {
    if (o.launch && h.index != o.launch) continue;
    for (const auto& k : ks)
      if (launch_matches(h, k.name) &&
          std::none_of(out.begin(), out.end(), [&](const auto& e) { return e.first == &k; }))
        out.push_back({&k, settings_for(k, std::nullopt)});
  }
  stop_if_only_refused(out.size());
  if (!out.empty()) return out;
  if (names.size() == 1 && !ks.empty()) return {{&ks[0], settings_for(ks[0], comment_of(ks[0]))}};
  throw DriverError(fmt::format(
      "{}: {} kernels and no --kernel, launch comment or launch in the host code to choose; the "
      "kernels are:{}",
      o.input, names.size(), list()));
}

namespace {

// Launch validation: the block's threads and the shared memory per block against the
// architecture's limits.
void check_launch(const ptx::Kernel& k, const emu::Launch& launch, const model::Arch& arch,
                  const std::string& where) {
  if (launch.block.count() > 1024)
    throw DriverError(
        fmt::format("{}: a block of {} threads (at most 1024)", where, launch.block.count()));
  const std::uint64_t limit = static_cast<std::uint64_t>(model::max_shared_per_block(arch));
  if (launch.dynamic_smem > limit)  // before the sum, which a value near 2^64 would wrap
    throw DriverError(
        fmt::format("{}: --smem {} is more dynamic shared memory than a block has "
                    "({} bytes on sm_{})",
                    where, launch.dynamic_smem, limit, arch.cc));
  if (k.dynamic_shared_offset + launch.dynamic_smem > limit)
    throw DriverError(fmt::format("{}: {} bytes of shared memory per block (at most {} on sm_{})",
                                  where, k.dynamic_shared_offset + launch.dynamic_smem, limit,
                                  arch.cc));
}

// The per-site report of a run: notes (sites without a bank rule, emulator notes once per
// instruction) and the sites seen, in source order.
// The lines Nsight Compute lists a site's SASS under: the cubin's .debug_line rows at its
// instructions' addresses, as (program file, line). Files are matched to the program's by
// their real path; a row in a file the program does not name is left out.
// The program's file index of each of the cubin's .debug_line files (-1: none), by path.
std::vector<int> program_files_of_sass(const Loaded& l) {
  std::vector<int> out;
  if (!l.sass) return out;
  std::vector<std::string> program;
  for (const std::string& f : l.program.files) program.push_back(f.empty() ? f : real_path(f));
  for (const std::string& f : l.sass->source_files) {
    int index = -1;
    if (!f.empty()) {
      const std::string want = real_path(f);
      for (std::size_t p = 0; p < program.size() && index < 0; ++p)
        if (!program[p].empty() && program[p] == want) index = static_cast<int>(p);
    }
    out.push_back(index);
  }
  return out;
}

std::vector<ptx::SourcePos> nsight_lines(const Loaded& l, const ptx::Kernel& k,
                                         const std::vector<int>& file_of,
                                         const std::vector<std::uint32_t>& offsets) {
  std::vector<ptx::SourcePos> out;
  if (!l.sass || offsets.empty()) return out;
  const sass::Kernel* sk = l.sass->find(k.name);
  if (!sk || sk->source_lines.empty()) return out;
  // A site ptxas issued as several copies (a loop peeled, a path duplicated) is counted on
  // the lines every copy has: which copy ran is not known, and a copy that never runs
  // shows its other lines with no executions.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> common;
  bool first = true;
  for (const std::uint32_t off : offsets) {
    const std::size_t i = off / 16;
    if (i >= sk->source_lines.size() || sk->source_lines[i].empty()) continue;
    if (first) {
      common = sk->source_lines[i];
      first = false;
      continue;
    }
    std::erase_if(common, [&](const auto& fl) {
      return std::find(sk->source_lines[i].begin(), sk->source_lines[i].end(), fl) ==
             sk->source_lines[i].end();
    });
  }
  for (const auto& [f, line] : common) {
    if (f >= file_of.size() || file_of[f] < 0) continue;
    const ptx::SourcePos pos{file_of[f], static_cast<int>(line), 0};
    if (std::none_of(out.begin(), out.end(), [&](const ptx::SourcePos& q) {
          return q.file == pos.file && q.line == pos.line;
        }))
      out.push_back(pos);
  }
  return out;
}

// A site the SASS plan does not follow (global and generic accesses): the memory
// instructions the line table ties to its PTX line.
std::vector<std::uint32_t> memory_instructions_of(const Loaded& l, const ptx::Kernel& k,
                                                  int ptx_line) {
  std::vector<std::uint32_t> out;
  if (!l.sass || ptx_line <= 0) return out;
  const sass::Kernel* sk = l.sass->find(k.name);
  if (!sk) return out;
  for (std::size_t i = 0; i < sk->instructions.size() && i < sk->ptx_lines.size(); ++i) {
    if (sk->ptx_lines[i] != static_cast<std::uint32_t>(ptx_line)) continue;
    const std::string_view m = sk->instructions[i].mnemonic;
    if (m == "LD" || m == "ST" || m == "LDG" || m == "STG" || m == "REDG" || m == "ATOMG" ||
        m == "LDS" || m == "STS")
      out.push_back(static_cast<std::uint32_t>(sk->instructions[i].offset));
  }
  return out;
}

void collect_sites(const Loaded& l, const ptx::Kernel& k, const CtaResults& r,
                   analysis::KernelReport& rep) {
  const std::vector<int> file_of = program_files_of_sass(l);
  for (const int site : r.stats->refused_sites()) {
    const auto& st = k.sites[static_cast<size_t>(site)];
    rep.notes.push_back(
        {st.file, st.line, st.col,
         fmt::format("no bank rule for this shared access ({}); it is left out of the counts",
                     st.text)});
  }
  std::vector<int> noted;
  for (const auto& n : r.notes) {
    if (std::find(noted.begin(), noted.end(), n.instr) != noted.end()) continue;
    noted.push_back(n.instr);
    const auto loc = n.instr >= 0 ? k.locs[static_cast<size_t>(n.instr)] : ptx::SourcePos{};
    rep.notes.push_back({loc.file, loc.line, loc.col, n.message});
  }
  analysis::note_unwritten_shared_reads(k, r.unwritten_shared_reads, rep);
  for (size_t i = 0; i < k.sites.size(); ++i) {
    const auto& st = r.stats->sites()[i];
    const auto& pst = r.ptx_stats->sites()[i];
    if (!st.seen && !pst.seen) continue;
    const auto& site = k.sites[i];
    analysis::SiteReport sr;
    sr.site = static_cast<int>(i);
    sr.file = site.file;
    sr.line = site.line;
    sr.col = site.col;
    sr.ptx_line = site.ptx_line;
    sr.ptx = site.text;
    sr.stats = st;
    if (i < r.plan.sites.size()) {
      sr.sass = r.plan.sites[i].opcodes;
      sr.nsight_lines = nsight_lines(l, k, file_of, r.plan.sites[i].offsets.empty()
                                               ? memory_instructions_of(l, k, site.ptx_line)
                                               : r.plan.sites[i].offsets);
      // No source line in the PTX: the line Nsight Compute lists its SASS on.
      if (const ptx::SourcePos& p = r.plan.sites[i].placed; sr.line == 0 && p.line > 0) {
        sr.file = p.file;
        sr.line = p.line;
        sr.col = p.col;
      }
    }
    sr.rewritten = pst.seen;
    sr.inlined = site.inlined;
    sr.stack = site.stack;
    sr.ptx_stats = pst;
    (st.seen ? rep.sites : rep.folded_sites).push_back(std::move(sr));
  }
  std::stable_sort(rep.sites.begin(), rep.sites.end(),
                   [](const analysis::SiteReport& a, const analysis::SiteReport& b) {
                     return std::tie(a.file, a.line, a.col) < std::tie(b.file, b.line, b.col);
                   });
}

}  // namespace

KernelRun run_kernel(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                     const model::Arch& arch, const CheckOptions& o) {
  KernelRun run;
  run.memory = std::make_unique<emu::GlobalMemory>();
  auto& mem = *run.memory;
  auto& rep = run.report;
  rep.mangled = k.name;
  rep.signature = demangle(k.name);
  rep.name = base_name(rep.signature);
  {  // every missing setting at once
    const auto names = param_names(l, k, rep.name, o);
    const auto types = signature_params(rep.signature);
    std::vector<bool> pointer;
    for (std::size_t i = 0; i < k.params.size(); ++i)
      pointer.push_back(i < types.size() ? types[i].find('*') != std::string::npos
                                         : k.params[i].is_pointer_sized);
    if (auto missing = missing_settings(o.input, rep.name, s, names, types, pointer))
      throw DriverError(*missing);
  }
  rep.settings_from = s.sources;
  emu::Launch launch;
  launch.grid = *s.grid;
  launch.block = *s.block;
  launch.dynamic_smem = s.smem.value_or(0);
  launch.budget = o.budget;
  rep.grid = launch.grid;
  rep.block = launch.block;
  rep.dynamic_smem = launch.dynamic_smem;
  rep.static_smem = k.static_shared_bytes;
  check_launch(k, launch, arch,
               s.line ? fmt::format("{}:{}", o.input, s.line) : std::string("flags"));

  place_module_variables(l.program, mem);
  BoundArgs args = bind_arguments(l, k, s, rep.name, rep.signature, o, mem, launch.params);
  rep.args = std::move(args.reports);
  run.arg_buffers = std::move(args.buffers);

  rep.ctas_total = launch.grid.count();
  {
    std::uint64_t buffer_bytes = 0;
    for (const auto& a : rep.args) buffer_bytes += a.is_buffer ? a.bytes : 0;
    const std::uint64_t planned = planned_ctas(rep.ctas_total, s.blocks);
    const unsigned cores = o.threads ? o.threads : std::thread::hardware_concurrency();
    check_run_memory(k, launch,
                     static_cast<unsigned>(std::min<std::uint64_t>(std::max(1u, cores), planned)),
                     planned, buffer_bytes, o.max_memory, rep.name);
  }
  CtaPlan plan = plan_ctas(rep.ctas_total, s.blocks);
  if (const auto it = o.sampled_ctas.find(k.name); plan.adaptive && it != o.sampled_ctas.end()) {
    plan.order.resize(std::min<std::size_t>(plan.order.size(), it->second));
    plan.adaptive = false;
  }
  CtaResults r = run_ctas(l, k, launch, plan, arch, o, rep.name, mem);
  rep.seconds = r.seconds;
  rep.ctas_analysed = r.ctas_done;
  rep.warp_instructions = r.warp_instructions;
  run.recorder = std::move(r.recorder);
  collect_sites(l, k, r, rep);
  for (size_t i = 0; i < rep.args.size(); ++i)
    if (rep.args[i].is_buffer)
      if (auto* b = mem.find(run.arg_buffers[i], 1)) rep.args[i].touched = b->max_touched.load();
  rep.shared_vars = k.shared;
  analysis::total(rep, arch);
  return run;
}

const model::Arch& find_arch(const CheckOptions& o) {
  const model::Arch* arch = model::find_arch(o.arch);
  if (!arch) throw DriverError(fmt::format("--arch: unknown architecture '{}'", o.arch));
  return *arch;
}

analysis::CheckReport start_report(const Loaded& l, const CheckOptions& o,
                                   const model::Arch& arch) {
  analysis::CheckReport r;
  r.input = o.input;
  r.files = l.program.files;
  r.main_file = l.program.main_file;
  r.arch = &arch;
  r.level = l.sass ? analysis::CountLevel::Sass : analysis::CountLevel::Ptx;
  r.level_reason = l.ptx_level_reason;
  std::istringstream ss(l.source_text);
  std::string line;
  while (std::getline(ss, line)) r.source_lines.push_back(line);
  for (const auto& u : l.program.unsupported)
    r.unsupported.push_back({base_name(demangle(u.name)), u.reason, u.pos.file, u.pos.line,
                             u.ptx_line, u.ptx, selected(l, o, u.name)});
  return r;
}

void run_selected(const Loaded& l, const CheckOptions& o, const model::Arch& arch,
                  const std::function<void(const ptx::Kernel&, KernelRun&)>& each) {
  const auto selected = select_kernels(l, o);
  if (selected.empty()) return;  // --kernel names none here (kernel_may_be_absent)
  CheckOptions per_kernel = o;   // the default sample budget is shared by the run's kernels
  per_kernel.sample_instructions =
      std::max<std::uint64_t>(o.sample_instructions / selected.size(), 1);
  if (o.progress) o.progress->kernels = static_cast<int>(selected.size());
  for (auto& [kernel, settings] : selected) {
    if (o.progress) ++o.progress->kernel;
    KernelRun run = run_kernel(l, *kernel, settings, arch, per_kernel);
    each(*kernel, run);
  }
}

analysis::CheckReport check(const CheckOptions& o) {
  const model::Arch& arch = find_arch(o);
  Loaded l = load(o);
  analysis::CheckReport r = start_report(l, o, arch);
  run_selected(l, o, arch, [&](const ptx::Kernel&, KernelRun& run) {
    r.kernels.push_back(std::move(run.report));
  });
  return r;
}

}  // namespace bankcheck::driver
