// total(): kernel-level sums and the explanation of each site's worst request; the notes of
// lines that read shared memory never written.
#include "bankcheck/analysis/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "bankcheck/model/analyze.hpp"

namespace bankcheck::analysis {

bool complete(const CheckReport& report) {
  if (report.process && !report.process->incomplete.empty()) return false;
  if (!report.not_run.empty()) return false;
  for (const KernelReport& k : report.kernels)
    if (!k.incomplete.empty()) return false;
  return true;
}

std::string refusal_text(const std::string& reason, int ptx_line, const std::string& ptx,
                         const std::vector<ptx::RefusedFamily>& families,
                         const std::function<std::string(int file)>& path) {
  if (families.empty() || (families.size() == 1 && families[0].count == 1))
    return fmt::format("{} (PTX line {}: {})", reason, ptx_line, ptx);
  int total = 0;
  for (const auto& f : families) total += f.count;
  std::string out = fmt::format("it uses {} instruction famil{} the emulator does not run ({} "
                                "instruction{}):",
                                families.size(), families.size() == 1 ? "y" : "ies", total,
                                total == 1 ? "" : "s");
  for (const auto& f : families) {
    const std::string where = f.pos.line > 0
                                  ? fmt::format("{}:{}:{}", path(f.pos.file), f.pos.line,
                                                std::max(f.pos.col, 1))
                                  : fmt::format("PTX line {}", f.ptx_line);
    out += fmt::format("\n  {}: {}: {} instruction{}, the first at PTX line {}: {} ({})", where,
                       f.family, f.count, f.count == 1 ? "" : "s", f.ptx_line, f.ptx, f.reason);
  }
  return out;
}

std::string not_run_text(const NotRunReport& n) {
  std::string when = fmt::format("{} launch{}", n.launches, n.launches == 1 ? "" : "es");
  if (!n.call_site.empty()) when += ", called from " + n.call_site;
  // A call the driver does not implement names no kernel: its launches did not run.
  const std::string what = n.name.empty() ? std::string("a launch") : "kernel " + n.name;
  return fmt::format("{}: {} did not run ({}): {}; {} returned {} and the program went on",
                     n.library, what, when, n.reason,
                     n.launches == 1 ? "the launch" : "each launch", n.error);
}

void note_unwritten_shared_reads(const ptx::Kernel& k, const std::vector<int>& sites,
                                 KernelReport& report) {
  std::vector<UnwrittenReadReport> lines;
  for (const int i : sites) {
    if (i < 0 || static_cast<std::size_t>(i) >= k.sites.size()) continue;
    const ptx::Site& s = k.sites[static_cast<std::size_t>(i)];
    const auto same = std::find_if(lines.begin(), lines.end(), [&](const UnwrittenReadReport& r) {
      return r.file == s.file && r.line == s.line;
    });
    if (same == lines.end())
      lines.push_back({s.file, s.line, s.col});
    else if (s.col < same->col)
      same->col = s.col;
  }
  std::sort(lines.begin(), lines.end(),
            [](const UnwrittenReadReport& a, const UnwrittenReadReport& b) {
              return std::tie(a.file, a.line) < std::tie(b.file, b.line);
            });
  for (const auto& l : lines)
    report.notes.push_back({l.file, l.line, l.col,
                            "reads shared memory that no thread of the CTA wrote before (read as "
                            "zero); results that depend on it may differ on the GPU"});
  report.unwritten_shared_reads = std::move(lines);
}

void note_faults(KernelReport& report) {
  std::sort(report.faults.begin(), report.faults.end(), [](const FaultReport& a, const FaultReport& b) {
    return std::tie(a.file, a.line, a.col, a.access) < std::tie(b.file, b.line, b.col, b.access);
  });
  for (const FaultReport& f : report.faults)
    report.notes.push_back(
        {f.file, f.line, f.col,
         fmt::format("Invalid __global__ {} of size {} byte{} by thread ({},{},{}) in block "
                     "({},{},{}): address 0x{:x} is outside every buffer ({} lane{} in all). "
                     "The analysis went on, as the GPU does where such an address is mapped: "
                     "these lanes {}; this line's counts include their accesses, as the GPU "
                     "issues them, and what the kernel computes from them may differ from the "
                     "GPU's (--stop-on-fault stops at the first fault instead)",
                     f.access, f.size, f.size == 1 ? "" : "s", f.thread.x, f.thread.y,
                     f.thread.z, f.block.x, f.block.y, f.block.z, f.address, f.lanes,
                     f.lanes == 1 ? "" : "s",
                     f.access == "read" ? "read zeros" : "wrote nothing (their writes are dropped)")});
}

namespace {

// A byte count as --arg reads it back, with the largest K, M or G suffix that divides it.
std::string byte_count(std::uint64_t bytes) {
  for (const auto& [shift, suffix] : {std::pair{30, 'G'}, std::pair{20, 'M'}, std::pair{10, 'K'}})
    if (bytes % (std::uint64_t{1} << shift) == 0)
      return fmt::format("{}{}", bytes >> shift, suffix);
  return std::to_string(bytes);
}

}  // namespace

void note_zero_filled_inputs(const ptx::Kernel& k, KernelReport& report) {
  const bool any = std::any_of(report.args.begin(), report.args.end(),
                               [](const ArgReport& a) { return a.zero_filled && a.has_pointer; });
  if (!any) return;
  const std::vector<AddressInputs> inputs = address_inputs(k);
  struct Line {
    int file, line, col;
    std::vector<const ArgReport*> buffers;
  };
  std::vector<Line> lines;
  for (const SiteReport& s : report.sites) {
    if (s.site < 0 || static_cast<std::size_t>(s.site) >= inputs.size()) continue;
    std::vector<const ArgReport*> zeros;
    for (const PointerSource& p : inputs[static_cast<std::size_t>(s.site)].pointers)
      for (const ArgReport& a : report.args)
        if (a.zero_filled && a.has_pointer && a.pointer == p &&
            std::find(zeros.begin(), zeros.end(), &a) == zeros.end())
          zeros.push_back(&a);
    if (zeros.empty()) continue;
    auto same = std::find_if(lines.begin(), lines.end(),
                             [&](const Line& l) { return l.file == s.file && l.line == s.line; });
    if (same == lines.end()) {
      lines.push_back({s.file, s.line, s.col, {}});
      same = lines.end() - 1;
    }
    same->col = std::min(same->col, s.col);
    for (const ArgReport* a : zeros)
      if (std::find(same->buffers.begin(), same->buffers.end(), a) == same->buffers.end())
        same->buffers.push_back(a);
  }
  std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  for (const Line& l : lines) {
    std::string names, give;
    for (const ArgReport* a : l.buffers) {
      if (!names.empty()) names += ", ";
      names += a->name;
      names += a->defaulted ? " (zeros by default)" : " (zeros)";
      if (!give.empty()) give += ' ';
      give += a->pointer.space == ptx::Space::Param ? "--arg " : "--var ";
      give += a->name;
      give += "=random";
      // The size bankcheck knows (the host code's cudaMalloc, a flag's), so that the buffer
      // filled is that one and not the default gigabyte.
      if (!a->defaulted && a->bytes > 0) give.append(":").append(byte_count(a->bytes));
    }
    report.notes.push_back(
        {l.file, l.line, l.col,
         "the address depends on data loaded from " + names +
             ": these counts are those of all-equal data, not the program's; give the data (" +
             give + ", or =@FILE with real input) or run the program: bankcheck run -- PROGRAM"});
  }
}

void note_texture_accesses(const ptx::Kernel& k, KernelReport& report) {
  std::vector<std::pair<int, int>> seen;  // (file, line)
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const ptx::Opc op = k.code[i].op;
    if (op != ptx::Opc::Tex && op != ptx::Opc::Suld && op != ptx::Opc::Sust) continue;
    const ptx::SourcePos loc = i < k.locs.size() ? k.locs[i] : ptx::SourcePos{};
    if (std::find(seen.begin(), seen.end(), std::pair{loc.file, loc.line}) != seen.end()) continue;
    seen.emplace_back(loc.file, loc.line);
    report.notes.push_back(
        {loc.file, loc.line, loc.col,
         op == ptx::Opc::Tex
             ? "texture fetch: run, not counted (it reads through the texture path, not shared "
               "or global memory requests)"
             : "surface access: run, not counted (it goes through the texture path, not shared "
               "or global memory requests)"});
  }
}

void total(KernelReport& k, const model::Arch& arch) {
  k.shared_wavefronts = k.shared_ideal_wavefronts = 0;
  for (auto& s : k.sites) {
    if (s.stats.space != ptx::Space::Shared) continue;
    k.shared_wavefronts += s.stats.wavefronts;
    k.shared_ideal_wavefronts += s.stats.ideal_wavefronts;
    if (s.stats.has_worst && worst_pictured(s.stats))
      model::analyze(s.stats.worst, arch, &s.worst_schedule);
  }
  k.lines.clear();
  k.lines.reserve(k.sites.size());  // pointers into it stay valid
  std::vector<std::vector<std::pair<std::string, int>>> sass_counts(k.sites.size());
  for (size_t i = 0; i < k.sites.size(); ++i) {
    const SiteReport& s = k.sites[i];
    const SiteStats& st = s.stats;
    LineReport* l = nullptr;
    for (auto& x : k.lines)
      if (x.file == s.file && x.line == s.line && x.space == st.space && x.op == st.op &&
          x.width == st.width)
        l = &x;
    if (!l) {
      k.lines.push_back({});
      l = &k.lines.back();
      l->file = s.file;
      l->line = s.line;
      l->col = s.col;
      l->space = st.space;
      l->op = st.op;
      l->width = st.width;
    }
    l->col = std::min(l->col, s.col);
    ++l->sites;
    l->requests += st.requests;
    l->wavefronts += st.wavefronts;
    l->ideal_wavefronts += st.ideal_wavefronts;
    l->sectors += st.sectors;
    l->ideal_sectors += st.ideal_sectors;
    l->lines128 += st.lines128;
    if (st.has_worst_global) {
      const auto excess = [&](const SiteStats& x) {
        return model::excess_of(x.worst_global_sectors, x.worst_global_ideal);
      };
      if (l->worst_global_site < 0 ||
          excess(st) > excess(k.sites[static_cast<size_t>(l->worst_global_site)].stats)) {
        l->worst_global_site = static_cast<int>(i);
        l->pattern = describe_global(st.worst_global_addr, st.worst_global_mask, st.width);
      }
    }
    l->ways = std::max(l->ways, st.ways);
    for (const std::string& op : s.sass) {
      auto& counts = sass_counts[static_cast<std::size_t>(l - k.lines.data())];
      auto it = std::find_if(counts.begin(), counts.end(), [&](auto& c) { return c.first == op; });
      if (it == counts.end())
        counts.push_back({op, 1});
      else
        ++it->second;
    }
    if (st.has_worst &&
        (l->worst_site < 0 ||
         st.worst_verdict.excess() >
             k.sites[static_cast<size_t>(l->worst_site)].stats.worst_verdict.excess()))
      l->worst_site = static_cast<int>(i);
  }
  for (std::size_t i = 0; i < k.lines.size(); ++i)
    for (const auto& [op, n] : sass_counts[i]) {
      // Appended piecewise: GCC 12 warns (-Wrestrict) on a literal + a temporary std::string.
      std::string& s = k.lines[i].sass;
      if (!s.empty()) s += ',';
      s += op;
      if (n > 1) (s += '*') += std::to_string(n);
    }
  // The PTX-level figures of rewritten sites go to the line entry of their SASS request.
  auto add_ptx = [&](const SiteReport& s, int sass_width) {
    for (auto& l : k.lines)
      if (l.file == s.file && l.line == s.line && l.space == ptx::Space::Shared &&
          l.op == s.ptx_stats.op && l.width == sass_width) {
        l.rewritten = true;
        ++l.ptx_sites;
        l.ptx_width = s.ptx_stats.width;
        l.ptx_requests += s.ptx_stats.requests;
        l.ptx_wavefronts += s.ptx_stats.wavefronts;
        l.ptx_ideal_wavefronts += s.ptx_stats.ideal_wavefronts;
        l.ptx_ways = std::max(l.ptx_ways, s.ptx_stats.ways);
        return;
      }
  };
  for (const SiteReport& s : k.sites)
    if (s.rewritten) add_ptx(s, s.stats.width);
  for (const SiteReport& s : k.folded_sites) {
    // Folded into a request of the same line, op and the widest width there.
    int width = 0;
    for (const auto& l : k.lines)
      if (l.file == s.file && l.line == s.line && l.space == ptx::Space::Shared &&
          l.op == s.ptx_stats.op && l.rewritten)
        width = std::max(width, l.width);
    if (width == 0)
      for (const auto& l : k.lines)
        if (l.file == s.file && l.line == s.line && l.space == ptx::Space::Shared &&
            l.op == s.ptx_stats.op)
          width = std::max(width, l.width);
    add_ptx(s, width);
  }
  // Only a width change or merged lanes make the levels differ.
  for (auto& l : k.lines)
    if (l.rewritten && l.ptx_width == l.width && l.ptx_requests == l.requests &&
        l.ptx_wavefronts == l.wavefronts && l.ptx_ideal_wavefronts == l.ideal_wavefronts)
      l.rewritten = false;
  note_below_ideal(k);
}

void note_below_ideal(KernelReport& k) {
  const auto note = [&](const LineReport& l, std::uint64_t cost, std::uint64_t ideal,
                        const char* unit) {
    const std::string message = fmt::format(
        "{} {} of {} byte{}: {} {} for an ideal of {}, below the ideal, which the hardware "
        "cannot do: a counting error of bankcheck's, not a property of the code (its excess is "
        "shown as 0)",
        ptx::space_name(l.space), model::op_name(l.op), l.width, l.width == 1 ? "" : "s", cost,
        unit, ideal);
    const bool known = std::any_of(k.notes.begin(), k.notes.end(), [&](const NoteReport& n) {
      return n.file == l.file && n.line == l.line && n.message == message;
    });
    if (!known) k.notes.push_back({l.file, l.line, l.col, message});
  };
  for (const LineReport& l : k.lines) {
    if (l.wavefronts < l.ideal_wavefronts) note(l, l.wavefronts, l.ideal_wavefronts, "wavefronts");
    if (l.sectors < l.ideal_sectors) note(l, l.sectors, l.ideal_sectors, "sectors");
  }
}

std::vector<std::string> split_source_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace bankcheck::analysis
