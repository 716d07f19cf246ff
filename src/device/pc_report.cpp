// The GPU backend's counts as a report (pc_report.hpp).
#include "bankcheck/device/pc_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "bankcheck/analysis/nsight_lines.hpp"
#include "bankcheck/sass/instruction.hpp"

namespace bankcheck::device {

void merge_counts(KernelCounts& into, const KernelCounts& launch) {
  if (into.mangled.empty()) into.mangled = launch.mangled;
  into.base_pc = launch.base_pc;
  std::map<unsigned long long, std::size_t> at;
  for (std::size_t i = 0; i < into.counters.size(); ++i) at[into.counters[i].pc] = i;
  for (const PcCounter& c : launch.counters) {
    if (c.pc == 0) continue;
    const auto it = at.find(c.pc);
    if (it == at.end()) {
      at[c.pc] = into.counters.size();
      into.counters.push_back(c);
      continue;
    }
    PcCounter& t = into.counters[it->second];
    t.requests += c.requests;
    t.wavefronts += c.wavefronts;
    t.ideal += c.ideal;
    t.sectors += c.sectors;
    t.ideal_sectors += c.ideal_sectors;
    t.ways = std::max(t.ways, c.ways);
  }
}

std::vector<unsigned char> instruction_forms(const sass::Kernel& k) {
  std::vector<unsigned char> forms(k.instructions.size(), static_cast<unsigned char>(Form::Plain));
  for (std::size_t i = 0; i < k.instructions.size(); ++i) {
    const sass::Instruction& in = k.instructions[i];
    if (in.shared == sass::SharedOp::LDGSTS) {
      const std::size_t slot = static_cast<std::size_t>(in.offset / 16);
      if (slot < forms.size())
        forms[slot] = static_cast<unsigned char>((in.bypass ? kBypass : 0) | (in.zfill ? kZfill : 0));
      continue;
    }
    if (in.gmma_n) {
      const std::size_t slot = static_cast<std::size_t>(in.offset / 16);
      if (slot < forms.size()) forms[slot] = gmma_form(in.gmma_n, in.gmma_a_registers);
      continue;
    }
    if (in.shared != sass::SharedOp::ATOMS) continue;
    Form f = Form::Plain;
    if (in.atom == sass::AtomOp::PopcInc) f = Form::PopcInc;
    if (in.atom == sass::AtomOp::Cas || in.atom == sass::AtomOp::CasT ||
        in.atom == sass::AtomOp::CasTSpin)
      f = Form::Cas;
    if (in.aggregated) f = Form::Aggregated;
    const std::size_t slot = static_cast<std::size_t>(in.offset / 16);
    if (slot < forms.size())
      forms[slot] = static_cast<unsigned char>(static_cast<unsigned char>(f) |
                                               (in.atom == sass::AtomOp::CasTSpin ? kSpin : 0));
  }
  return forms;
}

analysis::KernelReport kernel_report(const sass::Module& module, const sass::Kernel& kernel,
                                     const KernelCounts& counts, const model::Arch& arch,
                                     std::uint64_t* unplaced) {
  analysis::KernelReport rep;
  rep.mangled = kernel.name;
  // The cubin's own files are the report's: file i of .debug_line is file i here.
  std::vector<int> file_of;
  for (std::size_t f = 0; f < module.source_files.size(); ++f)
    file_of.push_back(static_cast<int>(f));
  std::uint64_t lost = 0;
  std::vector<std::pair<const PcCounter*, std::size_t>> other;  // not counted: named in notes
  for (const PcCounter& c : counts.counters) {
    if (c.pc == 0 || c.requests == 0) continue;
    if (c.pc < counts.base_pc) {
      lost += c.requests;
      continue;
    }
    const std::uint64_t offset = c.pc - counts.base_pc;
    const std::size_t i = static_cast<std::size_t>(offset / 16);
    if (offset % 16 != 0 || i >= kernel.instructions.size()) {
      lost += c.requests;
      continue;
    }
    const sass::Instruction& in = kernel.instructions[i];
    if (c.space == static_cast<unsigned char>(Space::Other)) {
      other.push_back({&c, i});
      continue;
    }
    analysis::SiteReport s;
    s.site = static_cast<int>(rep.sites.size());
    s.sass = {sass::opcode_text(in)};
    s.ptx = sass::opcode_text(in) + (in.shared != sass::SharedOp::None ? " " + sass::address_text(in) : "");
    s.ptx_line = i < kernel.ptx_lines.size() ? static_cast<int>(kernel.ptx_lines[i]) : 0;
    s.nsight_lines = analysis::nsight_lines(kernel, file_of, {static_cast<std::uint32_t>(offset)});
    if (!s.nsight_lines.empty()) {
      s.file = s.nsight_lines.front().file;
      s.line = s.nsight_lines.front().line;
    }
    analysis::SiteStats& st = s.stats;
    st.seen = true;
    st.space = c.space == static_cast<unsigned char>(Space::Shared) ? ptx::Space::Shared
                                                                    : ptx::Space::Global;
    st.op = c.access == static_cast<unsigned char>(Access::Load)    ? model::Op::Load
            : c.access == static_cast<unsigned char>(Access::Store) ? model::Op::Store
                                                                    : model::Op::Atomic;
    st.width = c.width;
    st.requests = c.requests;
    st.wavefronts = c.wavefronts;
    st.ideal_wavefronts = c.ideal;
    st.ways = c.ways;
    st.sectors = c.sectors;
    st.ideal_sectors = c.ideal_sectors;
    if (in.shared == sass::SharedOp::LDGSTS && c.sectors) {
      // A cp.async's global side: the same instruction's sectors, a global site of its own.
      analysis::SiteReport g = s;
      g.stats.space = ptx::Space::Global;
      g.stats.op = model::Op::Load;
      g.stats.wavefronts = g.stats.ideal_wavefronts = g.stats.ways = 0;
      s.stats.sectors = s.stats.ideal_sectors = 0;
      rep.sites.push_back(std::move(g));
    }
    rep.sites.push_back(std::move(s));
  }
  std::stable_sort(rep.sites.begin(), rep.sites.end(),
                   [](const analysis::SiteReport& a, const analysis::SiteReport& b) {
                     return std::tie(a.file, a.line, a.ptx_line) <
                            std::tie(b.file, b.line, b.ptx_line);
                   });
  for (std::size_t i = 0; i < rep.sites.size(); ++i) rep.sites[i].site = static_cast<int>(i);
  analysis::total(rep, arch);
  // What Nsight Compute lists with no shared wavefront and no sector (model/hopper.hpp): the
  // TMA unit's copies and requests to another CTA's shared memory. One note per line and kind,
  // in code order.
  std::sort(other.begin(), other.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  struct Group {
    analysis::NoteReport note;
    OtherKind kind;
    std::map<std::string, int> opcodes;
    std::uint64_t executions = 0;
    bool unobserved = false;  // named from the SASS: its executions are not known
  };
  std::vector<Group> groups;
  // The group of instruction i (its first .debug_line row, its kind, observed or not).
  auto group_of = [&](std::size_t i, OtherKind kind, bool unobserved) -> Group& {
    analysis::NoteReport n;
    const auto lines = analysis::nsight_lines(kernel, file_of, {static_cast<std::uint32_t>(16 * i)});
    if (!lines.empty()) {
      n.file = lines.front().file;
      n.line = lines.front().line;
    }
    for (auto& x : groups)
      if (x.kind == kind && x.note.file == n.file && x.note.line == n.line &&
          x.unobserved == unobserved)
        return x;
    groups.push_back({n, kind, {}, 0, unobserved});
    return groups.back();
  };
  for (const auto& [c, i] : other) {
    const auto kind = static_cast<OtherKind>(c->access);
    Group& g = group_of(i, kind, false);
    std::string op = sass::opcode_text(kernel.instructions[i]);
    if (op == "?") op = kind == OtherKind::RemoteShared ? "a cluster request" : "a bulk copy";
    ++g.opcodes[op];
    g.executions += c->requests;
  }
  // TMA instructions the patches do not see (tensor-map copies and prefetches: the sanitizer
  // of CUDA 13.0 has no patch for them): named from the SASS, with no execution count.
  std::set<std::size_t> seen;
  for (const auto& [c, i] : other) seen.insert(i);
  for (std::size_t i = 0; i < kernel.instructions.size(); ++i) {
    const std::string_view m = kernel.instructions[i].mnemonic;
    if (seen.count(i) || !(m == "UBLKCP" || m == "UBLKPF" || m.starts_with("UTMA"))) continue;
    const OtherKind kind = m == "UTMASTG" || m == "UTMAREDG" ? OtherKind::BulkToGlobal
                                                              : OtherKind::BulkToShared;
    ++group_of(i, kind, true).opcodes[sass::opcode_text(kernel.instructions[i])];
  }
  for (Group& g : groups) {
    std::string ops;
    for (const auto& [op, n] : g.opcodes) ops += fmt::format("{}{}{}", ops.empty() ? "" : ",", op, n > 1 ? fmt::format("*{}", n) : "");
    const std::string what =
        g.unobserved ? ops : fmt::format("{} ({} warp executions)", ops, g.executions);
    const bool remote = g.kind == OtherKind::RemoteShared || g.kind == OtherKind::AsyncStore;
    g.note.message =
        remote ? fmt::format("{}: requests to another CTA's shared memory (distributed shared "
                             "memory): Nsight Compute lists no shared wavefront and no sector "
                             "for them (measured, bench/hardware/dsmem)",
                             what)
               : fmt::format("{}: copies of the TMA unit, not LSU requests: Nsight Compute "
                             "lists no shared wavefront and no sector for them (measured, "
                             "bench/hardware/tma)",
                             what);
    rep.notes.push_back(std::move(g.note));
  }
  if (unplaced) *unplaced = lost;
  return rep;
}

}  // namespace bankcheck::device
