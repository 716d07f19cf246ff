// Text and JSON views of a checked program.
#include "bankcheck/report/check_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bankcheck/report/explain_view.hpp"

namespace bankcheck::report {
namespace {

std::string file_name(const analysis::CheckReport& r, int file) {
  if (file > 0 && static_cast<size_t>(file) < r.files.size() &&
      !r.files[static_cast<size_t>(file)].empty())
    return r.files[static_cast<size_t>(file)];
  return r.input;
}

// The path as the user gave it when the location is in the main file.
std::string shown_file(const analysis::CheckReport& r, int file) {
  if (file == r.main_file && !r.input.empty()) return r.input;
  return file_name(r, file);
}

std::string op_text(model::Op op) { return model::op_name(op); }

std::string space_text(ptx::Space s) { return ptx::space_name(s); }

// What to do about an uncoalesced global line, from its worst request's lane pattern.
std::string global_hint(const analysis::LineReport& l) {
  using K = analysis::GlobalPattern::Kind;
  const auto& p = l.pattern;
  switch (p.kind) {
    case K::Consecutive:
      return fmt::format(
          "the lanes {} consecutive {}-byte elements, but the first starts {} B past a 32-byte "
          "boundary: "
          "align the base pointer (cudaMalloc gives 256-byte alignment), or, for rows of a 2-D "
          "array, make "
          "the row pitch a multiple of 128 B (cudaMallocPitch)",
          l.op == model::Op::Store ? "write" : "read", l.width, p.offset);
    case K::Strided: {
      const std::int64_t s = p.stride < 0 ? -p.stride : p.stride;
      if (s < 32) {
        std::int64_t align = 1;
        while (align < s) align *= 2;  // the structure padded to a vector width
        return fmt::format(
            "stride {} B between lanes, each {} {} B: an array of {}-byte structures accessed a "
            "field at a "
            "time; a structure of arrays, or one aligned vector access per element (__align__({}) "
            "on the "
            "structure), moves only the bytes it needs",
            p.stride, l.op == model::Op::Store ? "writing" : "reading", l.width, s, align);
      }
      return fmt::format("stride {} B between lanes: each lane touches its own sector{}", p.stride,
                         s >= 128 ? " (a column walk of a row-major array? stage the tile through "
                                    "shared memory, or swap the "
                                    "index order)"
                                  : "");
    }
    case K::Rows:
      if (p.pitch % 128 != 0)
        return fmt::format(
            "runs of {} lanes read consecutive elements, {} B apart, not a multiple of 128 B: pad "
            "the rows to a "
            "multiple of 128 B (cudaMallocPitch)",
            p.run, p.pitch);
      return fmt::format("runs of {} lanes read consecutive elements, rows {} B apart", p.run,
                         p.pitch);
    case K::Unknown:
      break;
  }
  return "the lanes' addresses touch more sectors than the bytes they need";
}

}  // namespace

std::string render_check_text(const analysis::CheckReport& r) {
  std::string out;
  for (const auto& k : r.kernels) {
    const double excess_pct =
        k.shared_wavefronts
            ? 100.0 * static_cast<double>(k.shared_wavefronts - k.shared_ideal_wavefronts) /
                  static_cast<double>(k.shared_wavefronts)
            : 0.0;
    // Diagnostics: one per source line with conflicting shared accesses.
    for (size_t i = 0; i < k.lines.size();) {
      size_t j = i;
      std::uint64_t req = 0, wf = 0, ideal = 0;
      std::uint32_t ways = 0;
      int worst = -1, col = k.lines[i].col;
      std::vector<std::string> kinds;
      for (; j < k.lines.size() && k.lines[j].file == k.lines[i].file &&
             k.lines[j].line == k.lines[i].line;
           ++j) {
        const auto& l = k.lines[j];
        if (l.space != ptx::Space::Shared) continue;
        req += l.requests;
        wf += l.wavefronts;
        ideal += l.ideal_wavefronts;
        ways = std::max(ways, l.ways);
        col = std::min(col, l.col);
        const std::string kind =
            fmt::format("{} of {} byte{}", op_text(l.op), l.width, l.width == 1 ? "" : "s");
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
        if (l.worst_site >= 0 &&
            (worst < 0 || k.sites[static_cast<size_t>(l.worst_site)].stats.worst_verdict.excess() >
                              k.sites[static_cast<size_t>(worst)].stats.worst_verdict.excess()))
          worst = l.worst_site;
      }
      const auto& first = k.lines[i];
      i = j;
      if (wf <= ideal || req == 0) continue;
      std::string kind_text;
      for (size_t q = 0; q < kinds.size(); ++q)
        kind_text += (q == 0 ? "" : (q + 1 == kinds.size() ? " and " : ", ")) + kinds[q];
      const double share = k.shared_wavefronts ? 100.0 * static_cast<double>(wf - ideal) /
                                                     static_cast<double>(k.shared_wavefronts)
                                               : 0.0;
      out += fmt::format(
          "{}:{}:{}: warning: {}-way bank conflict: shared {} costs {:.4g} wavefronts per request "
          "(ideal {:.4g}); "
          "{:.0f}% of this kernel's shared wavefronts are excess [{}]\n",
          shown_file(r, first.file), first.line, col, ways, kind_text,
          static_cast<double>(wf) / static_cast<double>(req),
          static_cast<double>(ideal) / static_cast<double>(req), share, k.name);
      if (first.file == r.main_file && first.line > 0 &&
          static_cast<size_t>(first.line) <= r.source_lines.size()) {
        out += fmt::format("{:>5} | {}\n", first.line,
                           r.source_lines[static_cast<size_t>(first.line) - 1]);
        out += fmt::format("      | {}^\n",
                           std::string(col > 1 ? static_cast<size_t>(col) - 1 : 0, ' '));
      }
      if (worst >= 0) {
        const auto& s = k.sites[static_cast<size_t>(worst)];
        const auto& st = s.stats;
        out += fmt::format(
            "  worst request: {} of {} bytes, CTA {}, warp {}: {} wavefronts for an ideal of {}\n",
            op_text(st.op), st.width, st.worst_cta, st.worst_warp, st.worst_verdict.wavefronts,
            st.worst_verdict.ideal_wavefronts);
        out += "  why: " + why(st.worst, st.worst_verdict, s.worst_schedule, *r.arch) + "\n";
        out += render_picture(st.worst, st.worst_verdict, s.worst_schedule, *r.arch);
      }
      out += "\n";
    }
    // Global lines that touch more 32-byte sectors than their bytes need.
    for (const auto& l : k.lines) {
      if (l.space != ptx::Space::Global || l.sectors <= l.ideal_sectors || l.requests == 0)
        continue;
      const double per = static_cast<double>(l.sectors) / static_cast<double>(l.requests);
      const double ideal = static_cast<double>(l.ideal_sectors) / static_cast<double>(l.requests);
      out += fmt::format(
          "{}:{}:{}: warning: uncoalesced global {} of {} byte{}: {:.3g} sectors of 32 B per "
          "request (ideal "
          "{:.3g}); {}\n",
          shown_file(r, l.file), l.line, l.col, op_text(l.op), l.width, l.width == 1 ? "" : "s",
          per, ideal, global_hint(l));
      if (l.file == r.main_file && l.line > 0 &&
          static_cast<size_t>(l.line) <= r.source_lines.size()) {
        out += fmt::format("{:>5} | {}\n", l.line, r.source_lines[static_cast<size_t>(l.line) - 1]);
        out += fmt::format("      | {}^\n",
                           std::string(l.col > 1 ? static_cast<size_t>(l.col) - 1 : 0, ' '));
      }
      out += "\n";
    }
    // Kernel summary and per-line table.
    out += fmt::format("kernel {}: grid {}x{}x{}, block {}x{}x{}", k.name, k.grid.x, k.grid.y,
                       k.grid.z, k.block.x, k.block.y, k.block.z);
    if (k.dynamic_smem) out += fmt::format(", {} bytes of dynamic shared memory", k.dynamic_smem);
    out += fmt::format("; {} of {} CTA{} analysed\n", k.ctas_analysed, k.ctas_total,
                       k.ctas_total == 1 ? "" : "s");
    for (const auto& a : k.args)
      if (a.defaulted)
        out += fmt::format(
            "  argument {}: {}{}\n", a.name, a.value,
            a.is_buffer ? fmt::format(" (the analysed CTAs touched {} bytes)", a.touched) : "");
    size_t wl = 4;
    for (const auto& l : k.lines)
      wl = std::max(wl, fmt::format("{}:{}", shown_file(r, l.file), l.line).size());
    out += fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}\n", "line",
                       wl, "space", "op", "width", "requests", "cost", "ideal", "excess", "ways");
    for (const auto& l : k.lines) {
      const std::string where = fmt::format("{}:{}", shown_file(r, l.file), l.line);
      if (l.space == ptx::Space::Shared) {
        out += fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}\n", where,
                           wl, "shared", op_text(l.op), l.width, l.requests, l.wavefronts,
                           l.ideal_wavefronts, l.wavefronts - l.ideal_wavefronts, l.ways);
      } else {
        const bool g = l.space == ptx::Space::Global;
        out += fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}\n", where,
                           wl, space_text(l.space), op_text(l.op), l.width, l.requests,
                           g ? std::to_string(l.sectors) : "-",
                           g ? std::to_string(l.ideal_sectors) : "-",
                           g ? std::to_string(l.sectors - l.ideal_sectors) : "-", "-");
      }
    }
    out += fmt::format("  shared memory: {} wavefronts for an ideal of {} ({:.0f}% excess)\n",
                       k.shared_wavefronts, k.shared_ideal_wavefronts, excess_pct);
    std::uint64_t gs = 0, gi = 0;
    for (const auto& l : k.lines)
      if (l.space == ptx::Space::Global) {
        gs += l.sectors;
        gi += l.ideal_sectors;
      }
    if (gs)
      out +=
          fmt::format("  global memory: {} sectors of 32 B for an ideal of {} ({:.0f}% excess)\n",
                      gs, gi, 100.0 * static_cast<double>(gs - gi) / static_cast<double>(gs));
    out += "  cost: shared wavefronts, or global 32-byte sectors\n\n";
    for (const auto& n : k.notes)
      out += fmt::format("{}:{}:{}: note: {}\n", shown_file(r, n.file), n.line, n.col, n.message);
  }
  return out;
}

nlohmann::json check_to_json(const analysis::CheckReport& r) {
  using nlohmann::json;
  json j;
  j["input"] = r.input;
  j["arch"] = r.arch->name;
  json kernels = json::array();
  for (const auto& k : r.kernels) {
    json kj;
    kj["name"] = k.name;
    kj["mangled"] = k.mangled;
    kj["signature"] = k.signature;
    kj["grid"] = {k.grid.x, k.grid.y, k.grid.z};
    kj["block"] = {k.block.x, k.block.y, k.block.z};
    kj["dynamic_smem"] = k.dynamic_smem;
    kj["ctas"] = k.ctas_total;
    kj["ctas_analysed"] = k.ctas_analysed;
    kj["shared_wavefronts"] = k.shared_wavefronts;
    kj["shared_ideal_wavefronts"] = k.shared_ideal_wavefronts;
    json args = json::array();
    for (const auto& a : k.args) {
      json aj = {{"name", a.name}, {"value", a.value}, {"defaulted", a.defaulted}};
      if (a.is_buffer) {
        aj["bytes"] = a.bytes;
        aj["touched"] = a.touched;
      }
      args.push_back(aj);
    }
    kj["args"] = args;
    json sites = json::array();
    for (const auto& s : k.sites) {
      const auto& st = s.stats;
      json sj = {{"file", shown_file(r, s.file)},
                 {"line", s.line},
                 {"col", s.col},
                 {"ptx_line", s.ptx_line},
                 {"space", space_text(st.space)},
                 {"op", op_text(st.op)},
                 {"width", st.width},
                 {"requests", st.requests}};
      if (st.space == ptx::Space::Shared) {
        sj["wavefronts"] = st.wavefronts;
        sj["ideal_wavefronts"] = st.ideal_wavefronts;
        sj["excess"] = st.wavefronts - st.ideal_wavefronts;
        sj["ways"] = st.ways;
        if (st.has_worst) sj["worst"] = {{"cta", st.worst_cta}, {"warp", st.worst_warp}};
      } else if (st.space == ptx::Space::Global) {
        sj["sectors"] = st.sectors;
        sj["ideal_sectors"] = st.ideal_sectors;
        sj["lines128"] = st.lines128;
      }
      sites.push_back(sj);
    }
    kj["sites"] = sites;
    json lines = json::array();
    for (const auto& l : k.lines) {
      json lj = {
          {"file", shown_file(r, l.file)}, {"line", l.line},   {"space", space_text(l.space)},
          {"op", op_text(l.op)},           {"width", l.width}, {"sites", l.sites},
          {"requests", l.requests}};
      if (l.space == ptx::Space::Shared) {
        lj["wavefronts"] = l.wavefronts;
        lj["ideal_wavefronts"] = l.ideal_wavefronts;
        lj["excess"] = l.wavefronts - l.ideal_wavefronts;
        lj["ways"] = l.ways;
      } else if (l.space == ptx::Space::Global) {
        lj["sectors"] = l.sectors;
        lj["ideal_sectors"] = l.ideal_sectors;
        lj["lines128"] = l.lines128;
        if (l.sectors > l.ideal_sectors) lj["hint"] = global_hint(l);
      }
      lines.push_back(lj);
    }
    kj["lines"] = lines;
    kj["warp_instructions"] = k.warp_instructions;
    json notes = json::array();
    for (const auto& n : k.notes)
      notes.push_back({{"file", shown_file(r, n.file)}, {"line", n.line}, {"message", n.message}});
    kj["notes"] = notes;
    kernels.push_back(kj);
  }
  j["kernels"] = kernels;
  return j;
}

}  // namespace bankcheck::report
