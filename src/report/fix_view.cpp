// Text and JSON views of the fix advisor's report, and of `bankcheck occupancy`.
#include "bankcheck/report/fix_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/swizzle.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/fix_wording.hpp"
#include "paint.hpp"

namespace bankcheck::report {
namespace {

// The 0-based column of the name a declaration line declares: `name` (a struct member's
// "s.x": its member name, x) as a whole word, the first one after `__shared__` (a member's
// declaration line starts with its type). 0 when absent.
std::size_t name_column(const std::string& text, const std::string& name) {
  const std::string word = name.substr(name.rfind('.') + 1);
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const std::size_t sh = text.find("__shared__");
  for (std::size_t at = text.find(word, sh == std::string::npos ? 0 : sh); at != std::string::npos;
       at = text.find(word, at + 1))
    if ((at == 0 || !ident(text[at - 1])) &&
        (at + word.size() >= text.size() || !ident(text[at + word.size()])))
      return at;
  return 0;
}

std::string per_request(std::uint64_t wavefronts, std::uint64_t requests) {
  if (requests == 0) return "0";
  return fmt::format("{:.1f}", static_cast<double>(wavefronts) / static_cast<double>(requests));
}

std::string occupancy_text(const model::Occupancy& o) {
  if (!o.ok()) return model::occupancy_error_name(o.error);
  return fmt::format("{} block{}/SM ({} warps, {:.0f}%)", o.blocks_per_sm,
                     o.blocks_per_sm == 1 ? "" : "s", o.warps_per_sm,
                     o.occupancy * 100.0);
}

std::string trim_left(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  return s;
}

nlohmann::json occupancy_json(const model::Occupancy& o) {
  nlohmann::json j;
  if (!o.ok()) {
    j["error"] = model::occupancy_error_name(o.error);
    return j;
  }
  j["blocks_per_sm"] = o.blocks_per_sm;
  j["warps_per_sm"] = o.warps_per_sm;
  j["occupancy"] = o.occupancy;
  j["limiter"] = model::limiter_name(o.limiter);
  return j;
}

std::string file_of(const analysis::CheckReport& r) { return r.input; }

// Sites summed per (line, op): an unrolled loop puts many instructions on one line.
struct LineCost {
  int line = 0;
  model::Op op = model::Op::Load;
  int sites = 0;
  std::uint64_t requests = 0, before = 0, after = 0;
};
std::string line_costs(std::vector<LineCost> v, bool with_after) {
  std::string out;
  for (const auto& c : v) {
    out += fmt::format("{}line {} {}{} {}", out.empty() ? "" : ", ", c.line, model::op_name(c.op),
                       c.sites > 1 ? fmt::format(" (x{})", c.sites) : "",
                       per_request(c.before, c.requests));
    if (with_after) out += fmt::format(" -> {}", per_request(c.after, c.requests));
  }
  return out;
}
void add_cost(std::vector<LineCost>& v, int line, model::Op op, std::uint64_t requests,
              std::uint64_t before, std::uint64_t after) {
  for (auto& c : v)
    if (c.line == line && c.op == op) {
      ++c.sites;
      c.requests += requests;
      c.before += before;
      c.after += after;
      return;
    }
  v.push_back({line, op, 1, requests, before, after});
}

}  // namespace

// A global line's advice: where, what it costs now, the change, its predicted cost and the
// code (each line of it indented under the first).
static std::string render_global_fixes(const analysis::CheckReport& r,
                                       const analysis::KernelReport& kr,
                                       const analysis::KernelFix& kf, const Paint& paint,
                                       const std::string& working_dir) {
  std::string out;
  for (const analysis::GlobalFix& g : kf.globals) {
    int col = 0;
    for (int i : g.sites)
      if (const int c = access_column(r, kr, kr.sites[static_cast<std::size_t>(i)]); c && !col)
        col = c;
    out += fmt::format(
        "{} {} uncoalesced global {} of {} B{}: {} sectors of 32 B for an ideal of {} ({:.0f}% "
        "excess)\n",
        paint.locus(fmt::format("{}:{}:{}:", display_path(source_path(r, g.file), working_dir),
                                g.line, col)),
        paint.note(), model::op_name(g.op), g.width,
        g.pointer.empty() ? "" : fmt::format(" ('{}')", g.pointer), g.sectors, g.ideal_sectors,
        g.sectors ? 100.0 * static_cast<double>(model::excess_of(g.sectors, g.ideal_sectors)) /
                        static_cast<double>(g.sectors)
                  : 0.0);
    out += fmt::format("  suggestion: {} [{}]\n", global_change(g),
                       analysis::global_fix_kind_name(g.kind));
    out += fmt::format("       sectors {} -> {} (ideal {}), requests {} -> {} (predicted)",
                       g.sectors, g.sectors_after, g.ideal_sectors, g.requests, g.requests_after);
    if (g.shared_bytes) out += fmt::format("; shared memory +{} B per block", g.shared_bytes);
    out += "\n";
    if (!g.code_note.empty())
      out += fmt::format("       {}{}\n", g.edits.empty() ? "no code written: " : "", g.code_note);
    for (const auto& e : g.edits) {
      // The first line after "line N: ", the others under it.
      const std::string head = fmt::format("       line {}: ", e.line);
      const std::string& after = e.after;
      std::string shown;
      for (std::size_t at = 0; at <= after.size();) {
        const std::size_t nl = after.find('\n', at);
        const std::string one =
            after.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        shown += (shown.empty() ? head : std::string(head.size(), ' ')) + one + "\n";
        if (nl == std::string::npos) break;
        at = nl + 1;
      }
      out += shown;
    }
  }
  return out;
}

std::string render_fix_text(const analysis::FixReport& fr, const TextOptions& options) {
  const auto& r = fr.check;
  const Paint paint{options.color};
  std::string out;
  for (size_t ki = 0; ki < fr.kernels.size(); ++ki) {
    const auto& kf = fr.kernels[ki];
    const auto& kr = r.kernels[ki];
    // --quiet: only the arrays with a conflict, each with its best suggestion.
    const auto conflicting = [](const analysis::ArrayFix& af) {
      return af.error.empty() && af.wavefronts > af.ideal_wavefronts;
    };
    if (options.quiet && std::none_of(kf.arrays.begin(), kf.arrays.end(), conflicting) &&
        kf.globals.empty())
      continue;
    out += fmt::format("kernel {} (grid {}x{}x{}, block {}x{}x{}, {} of {} CTAs analysed)\n",
                       kr.name, kr.grid.x, kr.grid.y, kr.grid.z, kr.block.x, kr.block.y,
                       kr.block.z, kr.ctas_analysed, kr.ctas_total);
    if (kf.occupancy_known)
      out += fmt::format("  {} registers, {} B shared per block on {}: {}, limited by {}\n",
                         kf.registers, kf.static_smem + kf.dynamic_smem, r.arch->name,
                         occupancy_text(kf.occupancy), model::limiter_name(kf.occupancy.limiter));
    else
      out += fmt::format("  occupancy unknown: {}\n", kf.occupancy_note);
    if (kf.arrays.empty())
      out += kf.globals.empty() ? "  no shared memory accessed, no global line wastes sectors: "
                                  "nothing to fix\n"
                                : "  no shared memory accessed\n";
    if (kf.unattributed_requests)
      out += fmt::format(
          "  {} shared requests touch bytes outside every shared array; they are not "
          "attributed\n",
          kf.unattributed_requests);
    if (kf.dropped_requests)
      out += fmt::format(
          "  {} {} of {} shared requests were not kept for replay (too many distinct "
          "ones); use --blocks with fewer CTAs\n",
          paint.note(), kf.dropped_requests, kf.dropped_requests + kf.recorded_requests);
    for (const auto& af : kf.arrays) {
      if (options.quiet && !conflicting(af)) continue;
      const std::string shown = display_path(file_of(r), options.working_dir);
      const std::string where = af.decl ? fmt::format("{}:{}:{}: ", shown, af.decl->line,
                                                      name_column(af.decl->text, af.name) + 1)
                                        : fmt::format("{}: ", shown);
      out += fmt::format("{} {} shared array '{}'", paint.locus(where.substr(0, where.size() - 1)),
                         paint.note(), af.name);
      if (af.tile) {
        out += fmt::format(
            ": {} B, a tile {}{}{}", af.bytes,
            af.tile->copy_line ? fmt::format("a tensor copy writes (line {}) in rows of {} B",
                                             af.tile->copy_line, af.tile->row_bytes)
                               : std::string(),
            af.tile->copy_line && af.tile->wgmma_line ? " and " : "",
            af.tile->wgmma_line ? fmt::format("wgmma reads (line {})", af.tile->wgmma_line)
                                : std::string());
      } else if (af.geometry) {
        out += ": " + af.geometry->describe();
        out += fmt::format(", {}-byte elements", af.geometry->elem_bytes);
        if (af.geometry->source == analysis::Geometry::Source::Accesses)
          out += " (rows from the accesses' stride)";
      } else {
        out += fmt::format(": {} B", af.bytes);
      }
      out += "\n";
      if (af.decl) out += fmt::format("    {}\n", trim_left(af.decl->text));
      std::vector<LineCost> sites;
      for (const auto& st : kr.sites)
        if (std::find(af.sites.begin(), af.sites.end(), st.site) != af.sites.end())
          add_cost(sites, st.line, st.stats.op, st.stats.requests, st.stats.wavefronts, 0);
      out += fmt::format("  accessed at: {} (wavefronts per request)\n", line_costs(sites, false));
      if (!af.error.empty()) {
        out += fmt::format("  nothing suggested: {}\n", af.error);
        continue;
      }
      const std::uint64_t excess = model::excess_of(af.wavefronts, af.ideal_wavefronts);
      out += fmt::format("  {} requests, {} wavefronts, ideal {}", af.requests, af.wavefronts,
                         af.ideal_wavefronts);
      if (af.wavefronts)
        out += fmt::format(" ({:.0f}% excess)", 100.0 * static_cast<double>(excess) /
                                                    static_cast<double>(af.wavefronts));
      out += "\n";
      if (excess == 0) {
        out += "  no bank conflicts: nothing to fix\n";
        continue;
      }
      if (af.data_dependent) {
        out += fmt::format(
            "  nothing suggested: {}\n",
            data_dependence_text(af, display_path(source_path(r, af.data_dependent->load_file),
                                                  options.working_dir)));
        continue;
      }
      if (af.suggestions.empty()) {
        out += fmt::format("  no candidate remap saves {:.0f}% of its wavefronts or more\n",
                           100.0 * analysis::kMinSaving);
        continue;
      }
      out += "  suggestions, best first:\n";
      int n = 0;
      for (const auto& s : af.suggestions) {
        if (options.quiet && n == 1) break;
        out += fmt::format("  {}. {} [{}]\n", ++n, suggestion_change(af, s), analysis::fix_kind_name(s.remap.kind));
        out += fmt::format("       wavefronts {} -> {} (ideal {}); shared {} -> {} B", s.wavefronts_before,
                           s.wavefronts_after, s.ideal_wavefronts, s.bytes_before, s.bytes_after);
        if (s.occupancy_known) {
          if (s.occupancy_before.blocks_per_sm == s.occupancy_after.blocks_per_sm &&
              s.occupancy_before.ok() == s.occupancy_after.ok())
            out += fmt::format("; occupancy unchanged, {}", occupancy_text(s.occupancy_after));
          else
            out += fmt::format("; {} -> {}", occupancy_text(s.occupancy_before),
                               occupancy_text(s.occupancy_after));
        }
        out += "\n";
        if (s.occupancy_known && s.occupancy_after.blocks_per_sm < s.occupancy_before.blocks_per_sm)
          out += fmt::format(
              "       {} costs occupancy: {} -> {} resident blocks per SM ({} -> {} warps), "
              "limited by {}\n",
              paint.warning(), s.occupancy_before.blocks_per_sm, s.occupancy_after.blocks_per_sm,
              s.occupancy_before.warps_per_sm, s.occupancy_after.warps_per_sm,
              model::limiter_name(s.occupancy_after.limiter));
        std::vector<LineCost> per_line;
        for (const auto& c : s.sites)
          add_cost(per_line, c.line, c.op, c.requests, c.wavefronts_before, c.wavefronts_after);
        out += fmt::format("       per request: {}\n", line_costs(per_line, true));
        out += fmt::format("       remap: {}\n", suggestion_formula(af, s));
        for (const auto& e : s.edits)
          out += fmt::format("       line {}: {}\n", e.line, trim_left(e.after));
      }
    }
    out += render_global_fixes(r, kr, kf, paint, options.working_dir);
    out += "\n";
  }
  if (fr.applied) {
    out += fmt::format("applied to {}:\n", display_path(fr.patched_path, options.working_dir));
    for (const auto& a : fr.applied_changes) out += fmt::format("  {}\n", a);
    if (fr.recheck) {
      out += "re-checked:\n";
      for (size_t ki = 0; ki < fr.recheck->kernels.size() && ki < r.kernels.size(); ++ki) {
        const auto& a = r.kernels[ki];
        const auto& b = fr.recheck->kernels[ki];
        auto pct = [](const analysis::KernelReport& k) {
          return k.shared_wavefronts ? 100.0 * static_cast<double>(k.shared_wavefronts -
                                                                    k.shared_ideal_wavefronts) /
                                           static_cast<double>(k.shared_wavefronts)
                                     : 0.0;
        };
        out += fmt::format("  {}: shared wavefronts {} -> {} (ideal {}), excess {:.0f}% -> {:.0f}%\n",
                           b.name, a.shared_wavefronts, b.shared_wavefronts,
                           b.shared_ideal_wavefronts, pct(a), pct(b));
      }
    }
  }
  // Nothing written: the reason goes to standard error with the exit code (fix_cmd.cpp).
  return out;
}

nlohmann::json fix_to_json(const analysis::FixReport& fr) {
  const auto& r = fr.check;
  nlohmann::json j;
  j["schema_version"] = 1;
  j["tool"] = {{"name", "bankcheck"}, {"version", tool_version()}};
  j["input"] = r.input;
  j["arch"] = r.arch->name;
  j["kernels"] = nlohmann::json::array();
  for (size_t ki = 0; ki < fr.kernels.size(); ++ki) {
    const auto& kf = fr.kernels[ki];
    const auto& kr = r.kernels[ki];
    nlohmann::json k;
    k["name"] = kr.name;
    k["threads"] = kf.threads;
    k["registers"] = kf.registers;
    k["shared_bytes"] = kf.static_smem + kf.dynamic_smem;
    if (kf.occupancy_known) k["occupancy"] = occupancy_json(kf.occupancy);
    else k["occupancy"] = nullptr;
    k["ctas_analysed"] = kr.ctas_analysed;
    k["ctas_total"] = kr.ctas_total;
    k["shared_wavefronts"] = kr.shared_wavefronts;
    k["shared_ideal_wavefronts"] = kr.shared_ideal_wavefronts;
    k["unattributed_requests"] = kf.unattributed_requests;
    k["dropped_requests"] = kf.dropped_requests;
    k["arrays"] = nlohmann::json::array();
    for (const auto& af : kf.arrays) {
      nlohmann::json a;
      a["name"] = af.name;
      a["symbol"] = af.symbol;
      a["bytes"] = af.bytes;
      a["dynamic"] = af.is_extern;
      if (af.decl) {
        a["declaration"] = {{"file", r.input}, {"line", af.decl->line},
                            {"text", trim_left(af.decl->text)}};
      } else {
        a["declaration"] = nullptr;
      }
      if (af.geometry) {
        const auto& g = *af.geometry;
        a["geometry"] = {
            {"element_bytes", g.elem_bytes},
            {"row_bytes", g.row_bytes},
            {"rows", g.rows},
            {"from", g.source == analysis::Geometry::Source::Declaration ? "declaration"
                     : g.source == analysis::Geometry::Source::Accesses  ? "accesses"
                     : g.source == analysis::Geometry::Source::Record    ? "record"
                                                                         : "bank rows"},
            {"text", g.describe()}};
      } else {
        a["geometry"] = nullptr;
      }
      if (af.tile)
        a["tile"] = {
            {"swizzle", model::tma_swizzle_name(static_cast<model::TmaSwizzle>(af.tile->mode))},
            {"row_bytes", af.tile->row_bytes},
            {"copy_line", af.tile->copy_line},
            {"wgmma_line", af.tile->wgmma_line}};
      a["sites"] = nlohmann::json::array();
      for (int s : af.sites)
        for (const auto& st : kr.sites)
          if (st.site == s)
            a["sites"].push_back({{"line", st.line},
                                  {"op", model::op_name(st.stats.op)},
                                  {"width", st.stats.width},
                                  {"requests", st.stats.requests},
                                  {"wavefronts", st.stats.wavefronts}});
      a["requests"] = af.requests;
      a["wavefronts"] = af.wavefronts;
      a["ideal_wavefronts"] = af.ideal_wavefronts;
      if (!af.error.empty()) a["error"] = af.error;
      if (af.data_dependent) {
        const auto& d = *af.data_dependent;
        a["data_dependent"] = {
            {"line", d.line},
            {"op", model::op_name(d.op)},
            {"load", {{"file", source_path(r, d.load_file)}, {"line", d.load_line}}},
            {"merged", d.merged == analysis::DataDependence::Merged::PopcInc ? "ATOMS.POPC.INC"
                       : d.merged == analysis::DataDependence::Merged::Match ? "__match_any_sync"
                                                                             : "none"},
            {"excess", d.excess},
            {"text", data_dependence_text(af, source_path(r, d.load_file))}};
      }
      a["suggestions"] = nlohmann::json::array();
      for (const auto& s : af.suggestions) {
        nlohmann::json sj;
        sj["kind"] = analysis::fix_kind_name(s.remap.kind);
        sj["change"] = suggestion_change(af, s);
        sj["remap"] = suggestion_formula(af, s);
        if (!s.declaration.empty()) sj["declaration"] = trim_left(s.declaration);
        sj["edits"] = nlohmann::json::array();
        for (const auto& e : s.edits)
          sj["edits"].push_back({{"line", e.line}, {"before", e.before}, {"after", e.after}});
        sj["wavefronts_before"] = s.wavefronts_before;
        sj["wavefronts_after"] = s.wavefronts_after;
        sj["ideal_wavefronts"] = s.ideal_wavefronts;
        sj["requests_before"] = s.requests_before;
        sj["requests_after"] = s.requests_after;
        sj["bytes_before"] = s.bytes_before;
        sj["bytes_after"] = s.bytes_after;
        sj["occupancy_before"] = s.occupancy_known ? occupancy_json(s.occupancy_before) : nullptr;
        sj["occupancy_after"] = s.occupancy_known ? occupancy_json(s.occupancy_after) : nullptr;
        sj["sites"] = nlohmann::json::array();
        for (const auto& c : s.sites) {
          nlohmann::json cj = {{"line", c.line},
                               {"op", model::op_name(c.op)},
                               {"requests", c.requests},
                               {"wavefronts_before", c.wavefronts_before},
                               {"wavefronts_after", c.wavefronts_after}};
          if (c.sass_width_after > 0) cj["sass_width_after"] = c.sass_width_after;
          sj["sites"].push_back(cj);
        }
        sj["applicable"] = s.applicable;
        a["suggestions"].push_back(sj);
      }
      k["arrays"].push_back(a);
    }
    k["globals"] = nlohmann::json::array();
    for (const analysis::GlobalFix& g : kf.globals) {
      nlohmann::json gj = {{"file", source_path(r, g.file)},
                           {"line", g.line},
                           {"op", model::op_name(g.op)},
                           {"width", g.width},
                           {"pointer", g.pointer},
                           {"kind", analysis::global_fix_kind_name(g.kind)},
                           {"change", global_change(g)},
                           {"requests", g.requests},
                           {"sectors", g.sectors},
                           {"ideal_sectors", g.ideal_sectors},
                           {"requests_after", g.requests_after},
                           {"sectors_after", g.sectors_after},
                           {"shared_bytes", g.shared_bytes},
                           {"note", g.code_note},
                           {"applicable", g.applicable}};
      gj["edits"] = nlohmann::json::array();
      for (const auto& e : g.edits)
        gj["edits"].push_back({{"line", e.line}, {"before", e.before}, {"after", e.after}});
      k["globals"].push_back(gj);
    }
    j["kernels"].push_back(k);
  }
  if (fr.applied) {
    j["applied"] = {{"path", fr.patched_path}, {"changes", fr.applied_changes}};
    if (fr.recheck) j["applied"]["check"] = check_to_json(*fr.recheck);
  } else if (!fr.apply_note.empty()) {
    j["applied"] = {{"note", fr.apply_note}};
  }
  return j;
}

nlohmann::json kernel_fixes_json(const analysis::FixReport& fr, std::size_t ki) {
  nlohmann::json out = nlohmann::json::array();
  if (ki >= fr.kernels.size()) return out;
  const auto& r = fr.check;
  const analysis::KernelFix& kf = fr.kernels[ki];
  for (const analysis::ArrayFix& af : kf.arrays) {
    if (af.suggestions.empty() || !af.geometry) continue;
    const analysis::Suggestion& s = af.suggestions.front();
    nlohmann::json f = {{"space", "shared"},
                        {"array", af.name},
                        {"kind", analysis::fix_kind_name(s.remap.kind)},
                        {"change", suggestion_change(af, s)},
                        {"wavefronts_before", s.wavefronts_before},
                        {"wavefronts_after", s.wavefronts_after},
                        {"ideal_wavefronts", s.ideal_wavefronts},
                        {"applicable", s.applicable}};
    f["lines"] = nlohmann::json::array();
    for (const auto& c : s.sites)
      if (c.wavefronts_after < c.wavefronts_before &&
          std::find(f["lines"].begin(), f["lines"].end(), c.line) == f["lines"].end())
        f["lines"].push_back(c.line);
    f["edits"] = nlohmann::json::array();
    if (!s.declaration.empty() && af.decl)
      f["edits"].push_back(
          {{"line", af.decl->line}, {"before", af.decl->text}, {"after", s.declaration}});
    for (const auto& e : s.edits)
      f["edits"].push_back({{"line", e.line}, {"before", e.before}, {"after", e.after}});
    f["file"] = r.input;
    out.push_back(f);
  }
  for (const analysis::GlobalFix& g : kf.globals) {
    nlohmann::json f = {{"space", "global"},
                        {"pointer", g.pointer},
                        {"kind", analysis::global_fix_kind_name(g.kind)},
                        {"change", global_change(g)},
                        {"file", source_path(r, g.file)},
                        {"lines", {g.line}},
                        {"sectors_before", g.sectors},
                        {"sectors_after", g.sectors_after},
                        {"ideal_sectors", g.ideal_sectors},
                        {"note", g.code_note},
                        {"applicable", g.applicable}};
    f["edits"] = nlohmann::json::array();
    for (const auto& e : g.edits)
      f["edits"].push_back({{"line", e.line}, {"before", e.before}, {"after", e.after}});
    out.push_back(f);
  }
  return out;
}

std::vector<SarifFix> sarif_fixes(const analysis::FixReport& fr) {
  std::vector<SarifFix> out;
  const auto& r = fr.check;
  for (size_t ki = 0; ki < fr.kernels.size(); ++ki) {
    const auto& kf = fr.kernels[ki];
    for (const auto& af : kf.arrays) {
      // The best suggestion whose code is complete: one that also needs the code's vector
      // accesses split into elements (not written) would leave them misaligned.
      const auto best =
          std::find_if(af.suggestions.begin(), af.suggestions.end(),
                       [](const analysis::Suggestion& x) { return x.remap.split == 0; });
      if (best == af.suggestions.end()) continue;
      const auto& s = *best;
      std::vector<SarifReplacement> reps;
      auto whole_line = [&](int line, const std::string& old_text, const std::string& text) {
        SarifReplacement rep;
        rep.start_line = rep.end_line = line;
        rep.start_column = 1;
        rep.end_column = static_cast<int>(old_text.size()) + 1;
        rep.inserted_text = text;
        reps.push_back(rep);
      };
      if (!s.declaration.empty() && af.decl) whole_line(af.decl->line, af.decl->text, s.declaration);
      for (const auto& e : s.edits) whole_line(e.line, e.before, e.after);
      if (reps.empty()) continue;  // no source text to offer (PTX input, access width)
      std::vector<int> lines;
      for (const auto& c : s.sites)
        if (c.wavefronts_after < c.wavefronts_before &&
            std::find(lines.begin(), lines.end(), c.line) == lines.end())
          lines.push_back(c.line);
      for (int line : lines) {
        SarifFix f;
        f.kernel = kf.kernel;
        f.finding_file = r.input;
        f.finding_line = line;
        f.description = fmt::format("{} ({} -> {} shared wavefronts for '{}')", suggestion_change(af, s),
                                    s.wavefronts_before, s.wavefronts_after, af.name);
        f.file = r.input;
        f.replacements = reps;
        out.push_back(std::move(f));
      }
    }
    // A global line's code, on its uncoalesced finding.
    for (const analysis::GlobalFix& g : kf.globals) {
      if (g.edits.empty()) continue;
      SarifFix f;
      f.kernel = kf.kernel;
      f.rule = "uncoalesced-global-access";
      f.finding_file = source_path(r, g.file);
      f.finding_line = g.line;
      f.description = fmt::format("{} ({} -> {} global sectors, predicted)", global_change(g),
                                  g.sectors, g.sectors_after);
      f.file = source_path(r, g.file);
      for (const auto& e : g.edits) {
        SarifReplacement rep;
        rep.start_line = rep.end_line = e.line;
        rep.start_column = 1;
        rep.end_column = static_cast<int>(e.before.size()) + 1;
        rep.inserted_text = e.after;
        f.replacements.push_back(rep);
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::string render_occupancy_text(const model::Arch& arch, const model::OccupancyInput& in,
                                  const model::Occupancy& o) {
  std::string out = fmt::format(
      "{}: {} threads, {} registers, {} B static + {} B dynamic shared memory per block\n",
      arch.name, in.threads_per_block, in.registers_per_thread, in.static_shared_bytes,
      in.dynamic_shared_bytes);
  if (!o.ok()) {
    out += fmt::format("cannot launch: {}\n", model::occupancy_error_name(o.error));
    return out;
  }
  out += fmt::format("{} blocks per SM, {} of {} warps ({:.1f}% occupancy)\n", o.blocks_per_sm,
                     o.warps_per_sm, o.max_warps_per_sm, o.occupancy * 100.0);
  std::string tied;
  for (auto l : {model::Limiter::Warps, model::Limiter::Registers, model::Limiter::SharedMemory,
                 model::Limiter::Blocks})
    if (o.limited_by(l) && l != o.limiter) tied += fmt::format(" (tied with {})", model::limiter_name(l));
  out += fmt::format("limited by {}{}\n", model::limiter_name(o.limiter), tied);
  auto lim = [](int v) { return v == model::kOccUnlimited ? std::string("unlimited") : fmt::format("{}", v); };
  out += fmt::format("  warps:         {} blocks ({} warps per block)\n", lim(o.limit_warps),
                     o.warps_per_block);
  out += fmt::format("  registers:     {} blocks ({} registers per block allocated)\n",
                     lim(o.limit_registers), o.registers_per_block);
  // Maxwell and Pascal have shared memory of their own, not a carveout of the L1.
  const bool dedicated = model::sm_limits(arch.cc).num_carveouts == 1;
  out += fmt::format("  shared memory: {} blocks ({} B per block allocated, {} {} B)\n",
                     lim(o.limit_shared), o.shared_bytes_per_block,
                     dedicated ? "of the SM's" : "carveout", o.carveout_bytes);
  out += fmt::format("  block slots:   {} blocks\n", lim(o.limit_blocks));
  return out;
}

nlohmann::json occupancy_to_json(const model::Arch& arch, const model::OccupancyInput& in,
                                 const model::Occupancy& o) {
  nlohmann::json j;
  j["schema_version"] = kOccupancyJsonSchemaVersion;
  j["tool"] = {{"name", "bankcheck"}, {"version", tool_version()}};
  j.update(occupancy_json(o));
  j["arch"] = arch.name;
  j["threads"] = in.threads_per_block;
  j["registers"] = in.registers_per_thread;
  j["static_shared_bytes"] = in.static_shared_bytes;
  j["dynamic_shared_bytes"] = in.dynamic_shared_bytes;
  if (o.ok()) {
    j["max_warps_per_sm"] = o.max_warps_per_sm;
    j["limits"] = {{"warps", o.limit_warps},
                   {"registers", o.limit_registers},
                   {"shared_memory", o.limit_shared},
                   {"blocks", o.limit_blocks}};
    j["shared_bytes_per_block"] = o.shared_bytes_per_block;
    j["registers_per_block"] = o.registers_per_block;
  }
  return j;
}

}  // namespace bankcheck::report
