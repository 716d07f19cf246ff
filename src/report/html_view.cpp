// The single-file HTML report: summary, annotated source coloured by severity, and the bank
// picture of each conflicting line's worst request. Every user-supplied string (source
// text, paths, kernel names) goes through html_escape; the page has no script at all.
#include "bankcheck/report/html_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/explain_view.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/suppressions.hpp"

namespace bankcheck::report {
namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 2em 3em; color: #1b1b1b; }
h1 { font-size: 1.4em; margin: 1em 0 0.2em; }
h2 { font-size: 1.15em; margin: 1.6em 0 0.5em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1em; margin: 1.2em 0 0.3em; }
.meta { color: #555; margin: 0; }
table { border-collapse: collapse; }
th, td { padding: 2px 8px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; font-weight: 600; }
td.name, th.name { text-align: left; }
table.summary td, table.summary th { border: 1px solid #ddd; }
.sev { display: inline-block; min-width: 4.5em; text-align: center; border-radius: 3px;
       font-size: 0.8em; font-weight: 600; color: #fff; padding: 0 4px; }
.sev.error { background: #c62828; } .sev.warning { background: #b8860b; } .sev.note { background: #607d8b; }
.sev.suppressed { background: #9e9e9e; }
table.src tr.error { background: #f6c9c5; } table.src tr.warning { background: #fbe8b8; }
table.src tr.note { background: #e6ecef; }
.incomplete { color: #8a5a00; }
ol.findings li { margin: 0.3em 0; }
table.src { font: 12px/1.35 ui-monospace, monospace; width: 100%; }
table.src td { padding: 0 6px; vertical-align: top; }
table.src td.ln { color: #888; user-select: none; }
table.src td.n { color: #333; min-width: 4em; }
table.src td.code { text-align: left; white-space: pre; width: 100%; }
table.src tr.global td.code { box-shadow: inset 3px 0 #e67e22; }
table.src tr:target { outline: 2px solid #1565c0; }
table.src td.sass { text-align: left; color: #4a148c; }
table.src td.sass .ptx { color: #777; }
.why { margin: 0.2em 0 0.6em; }
p.sass { color: #4a148c; } p.sass .ptx { color: #777; }
svg.banks { display: block; margin: 0.5em 0 1em; background: #fff; }
a { color: #1565c0; }
)";

std::string pct(double share) { return fmt::format("{:.0f}%", 100.0 * share); }

// A source row's class: the severity of its worst finding not suppressed (findings.hpp's one
// scale: a 1% note is grey-blue, never the red of an error), plus "global" for a line that
// wastes global sectors.
std::string row_class(const std::optional<Severity>& worst, bool global) {
  std::string c = worst ? severity_name(*worst) : "";
  if (global) c += c.empty() ? "global" : " global";
  return c.empty() ? "" : fmt::format(" class=\"{}\"", c);
}

// One id per conflicting line of a kernel (a header line may share its number with the .cu).
std::string anchor(size_t kernel, const Finding& f) {
  return fmt::format("site-{}-{}-{}", kernel, f.file, f.line);
}

// The SASS of a source line: "LDS.128 ×2, STS" from LineReport::sass ("LDS.128*2,STS").
std::string sass_text(const std::string& sass) {
  std::string o;
  for (char c : sass) {
    if (c == '*')
      o += " \u00d7";
    else if (c == ',')
      o += ", ";
    else
      o += c;
  }
  return o;
}

// Where SASS issues a line's accesses differently from the PTX (widened, lanes merged): what
// the PTX's own requests would cost, beside the SASS figures of the line's other columns.
std::string ptx_figures(const analysis::LineReport& l) {
  return fmt::format("as PTX: {} sites of {} B, excess {}, {}-way", l.ptx_sites, l.ptx_width,
                     model::excess_of(l.ptx_wavefronts, l.ptx_ideal_wavefronts), l.ptx_ways);
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  return o;
}

std::string render_check_html(const analysis::CheckReport& r) {
  const auto E = html_escape;
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> sup_notes;
  const std::vector<Finding> all = findings(r, sups, sup_notes);
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing to fetch and nothing to run: even a mistake in escaping could not load or
  // execute anything.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; img-src data:\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += fmt::format("<title>bankcheck: {}</title>\n<style>{}</style>\n</head>\n<body>\n", E(r.input),
                   kStyle);
  o += fmt::format("<h1>bankcheck report: {}</h1>\n", E(r.input));
  o += fmt::format(
      "<p class=\"meta\">architecture {} &middot; bankcheck {} &middot; {} finding{}</p>\n",
      E(r.arch->name), tool_version(), all.size(), all.size() == 1 ? "" : "s");

  if (r.process) o += fmt::format("<p class=\"meta\">{}</p>\n", E(process_line(*r.process)));
  // What the report leaves out, before any count.
  if (const std::vector<std::string> missing = incompleteness(r); !missing.empty()) {
    o += "<h2 id=\"incomplete\">Incomplete</h2>\n<p class=\"incomplete\">The counts below are not "
         "the whole run's:</p>\n<ul class=\"incomplete\">\n";
    for (const std::string& m : missing) o += fmt::format("<li>{}</li>\n", E(m));
    o += "</ul>\n";
  }

  // Kernel summary.
  o +=
      "<h2 id=\"kernels\">Kernels</h2>\n<table class=\"summary\">\n<tr><th "
      "class=\"name\">kernel</th>"
      "<th>grid</th><th>block</th><th>CTAs analysed</th><th>shared wavefronts</th><th>ideal</th>"
      "<th>excess</th><th>global sectors</th><th>ideal</th><th>excess</th><th>findings</th></tr>\n";
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    std::uint64_t gs = 0, gi = 0;
    for (const auto& l : k.lines)
      if (l.space == ptx::Space::Global) {
        gs += l.sectors;
        gi += l.ideal_sectors;
      }
    const auto n =
        std::count_if(all.begin(), all.end(), [&](const Finding& f) { return f.kernel == ki; });
    o += fmt::format(
        "<tr><td class=\"name\" title=\"{}\">{}</td><td>{}x{}x{}</td><td>{}x{}x{}</td><td>{} of "
        "{}</td>"
        "<td>{}</td><td>{}</td><td>{:.0f}%</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        E(k.signature), E(k.name), k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z,
        k.ctas_analysed, k.ctas_total, k.shared_wavefronts, k.shared_ideal_wavefronts,
        shared_excess_percent(k), gs, gi,
        gs ? fmt::format("{:.0f}%", 100.0 * static_cast<double>(gs - gi) / static_cast<double>(gs))
           : std::string("-"),
        n);
  }
  o += "</table>\n";

  // Findings.
  o += "<h2 id=\"findings\">Findings</h2>\n";
  if (all.empty())
    o += "<p>No bank conflict and no uncoalesced global access.</p>\n";
  else {
    o += "<ol class=\"findings\">\n";
    for (const Finding& f : all) {
      const auto& k = r.kernels[f.kernel];
      const std::string where = fmt::format("{}:{}:{}", source_path(r, f.file), f.line, f.col);
      // Linked to its picture, else to its source row (when the page has it).
      std::string link = E(where);
      if (f.kind == FindingKind::BankConflict && f.worst_site >= 0)
        link = fmt::format("<a href=\"#{}\">{}</a>", anchor(f.kernel, f), link);
      else if (source_line(r, f.file, f.line))
        link = fmt::format("<a href=\"#L{}\">{}</a>", f.line, link);
      if (f.suppressed)
        o += fmt::format(
            "<li><span class=\"sev suppressed\" title=\"suppressed in the source\">{0}</span> {1} "
            "<code>{2}</code>: {3} <em>Suppressed: {4}</em></li>\n",
            severity_name(f.severity), link, E(k.name), E(f.message),
            f.justification.empty() ? "(no reason given)" : E(f.justification));
      else
        o += fmt::format("<li><span class=\"sev {0}\">{0}</span> {1} <code>{2}</code>: {3}</li>\n",
                         severity_name(f.severity), link, E(k.name), E(f.message));
    }
    o += "</ol>\n";
  }
  const auto suppressed =
      std::count_if(all.begin(), all.end(), [](const Finding& f) { return f.suppressed; });
  if (suppressed)
    o += fmt::format("<p>{} finding{} suppressed in the source (not counted by --fail-on).</p>\n",
                     suppressed, suppressed == 1 ? "" : "s");
  if (!sup_notes.empty()) {
    o += "<ul class=\"findings\">\n";
    for (const SuppressionNote& n : sup_notes)
      o += fmt::format("<li><span class=\"sev {0}\">{0}</span> {1}:{2}:{3}: {4}</li>\n",
                       severity_name(n.severity), E(source_path(r, n.file)), n.line, n.col,
                       E(n.message));
    o += "</ul>\n";
  }

  // Annotated source: excess per line over every kernel.
  o += fmt::format("<h2 id=\"source\">Source: {}</h2>\n", E(source_path(r, r.main_file)));
  if (r.source_lines.empty()) {
    o += "<p>The source is not available (the input is PTX).</p>\n";
  } else {
    struct LineHeat {
      std::uint64_t excess = 0, sectors_excess = 0;
      std::uint32_t ways = 0;
      std::vector<std::string> notes;
      // The line's SASS, per kernel line entry: (kernel, opcodes, PTX figures when rewritten).
      std::vector<std::array<std::string, 3>> sass;
    };
    const bool sass_level = r.level == analysis::CountLevel::Sass;
    std::map<int, LineHeat> heat_of;
    for (const auto& k : r.kernels)
      for (const auto& l : k.lines) {
        if (l.file != r.main_file) continue;
        auto& h = heat_of[l.line];
        if (l.space == ptx::Space::Shared) {
          h.excess += model::excess_of(l.wavefronts, l.ideal_wavefronts);
          h.ways = std::max(h.ways, l.ways);
          h.notes.push_back(
              fmt::format("{}: shared {} of {} B, {} wavefronts for an ideal of {}, {}-way", k.name,
                          model::op_name(l.op), l.width, l.wavefronts, l.ideal_wavefronts, l.ways));
          if (l.rewritten)
            h.notes.push_back(fmt::format(
                "{}: as the PTX states it: {} sites of {} B, {} requests, {} wavefronts for an "
                "ideal of {}, {}-way",
                k.name, l.ptx_sites, l.ptx_width, l.ptx_requests, l.ptx_wavefronts,
                l.ptx_ideal_wavefronts, l.ptx_ways));
          if (!l.sass.empty())
            h.sass.push_back({k.name, sass_text(l.sass), l.rewritten ? ptx_figures(l) : ""});
        } else if (l.space == ptx::Space::Global) {
          h.sectors_excess += model::excess_of(l.sectors, l.ideal_sectors);
          h.notes.push_back(fmt::format("{}: global {} of {} B, {} sectors for an ideal of {}",
                                        k.name, model::op_name(l.op), l.width, l.sectors,
                                        l.ideal_sectors));
        }
      }
    std::map<int, Severity> worst_of;  // per main-file line: its worst counted finding
    for (const Finding& f : all) {
      if (f.file != r.main_file || f.suppressed) continue;
      auto [it, fresh] = worst_of.try_emplace(f.line, f.severity);
      if (!fresh) it->second = std::max(it->second, f.severity);
    }
    // Several kernels on one line: each SASS entry says whose it is.
    std::size_t kernels_with_sass = 0;
    for (const auto& k : r.kernels)
      kernels_with_sass +=
          std::any_of(k.lines.begin(), k.lines.end(),
                      [](const analysis::LineReport& l) { return !l.sass.empty(); });
    o += "<table class=\"src\">\n<tr><th>line</th><th title=\"excess shared wavefronts\">excess "
         "wf</th>"
         "<th title=\"worst N-way bank conflict\">ways</th><th title=\"excess global 32-byte "
         "sectors\">"
         "excess sectors</th>";
    if (sass_level)
      o += "<th class=\"name\" title=\"the shared-memory SASS instructions ptxas emitted for the "
           "line (the counts beside are of these); where they differ from the PTX's accesses "
           "(widened, lanes merged), the PTX's own figures\">SASS</th>";
    o += "<th class=\"name\">source</th></tr>\n";
    for (size_t i = 0; i < r.source_lines.size(); ++i) {
      const int line = static_cast<int>(i) + 1;
      auto it = heat_of.find(line);
      const LineHeat* h = it == heat_of.end() ? nullptr : &it->second;
      std::string title;
      if (h)
        for (const auto& n : h->notes) title += (title.empty() ? "" : "\n") + n;
      std::string sass_cell;
      if (sass_level) {
        std::string cell;
        if (h)
          for (const auto& [kernel, ops, ptx] : h->sass) {
            if (!cell.empty()) cell += "<br>";
            if (kernels_with_sass > 1) cell += E(kernel) + ": ";
            cell += E(ops);
            if (!ptx.empty()) cell += fmt::format(" <span class=\"ptx\">({})</span>", E(ptx));
          }
        sass_cell = "<td class=\"sass\">" + cell + "</td>";
      }
      o += fmt::format(
          "<tr id=\"L{}\"{}{}><td class=\"ln\">{}</td><td class=\"n\">{}</td><td "
          "class=\"n\">{}</td>"
          "<td class=\"n\">{}</td>{}<td class=\"code\">{}</td></tr>\n",
          line,
          row_class(worst_of.contains(line) ? std::optional(worst_of.at(line)) : std::nullopt,
                    h && h->sectors_excess),
          title.empty() ? "" : fmt::format(" title=\"{}\"", E(title)), line,
          h && h->excess ? std::to_string(h->excess) : "",
          h && h->ways > 1 ? fmt::format("{}-way", h->ways) : "",
          h && h->sectors_excess ? std::to_string(h->sectors_excess) : "", sass_cell,
          E(r.source_lines[i]));
    }
    o += "</table>\n";
  }

  // The worst request of each conflicting line.
  o += "<h2 id=\"sites\">Conflicting lines: the worst request</h2>\n";
  bool any = false;
  for (const Finding& f : all) {
    if (f.kind != FindingKind::BankConflict || f.worst_site < 0) continue;
    any = true;
    const auto& k = r.kernels[f.kernel];
    const auto& s = k.sites[static_cast<size_t>(f.worst_site)];
    const auto& st = s.stats;
    const std::string where = fmt::format("{}:{}", E(source_path(r, f.file)), f.line);
    o += fmt::format(
        "<section id=\"{}\">\n<h3>{} in <code>{}</code>: {}-way</h3>\n", anchor(f.kernel, f),
        source_line(r, f.file, f.line) ? fmt::format("<a href=\"#L{}\">{}</a>", f.line, where)
                                       : where,
        E(k.name), f.ways);
    if (const std::string* text = source_line(r, f.file, f.line))
      o += fmt::format("<pre>{}</pre>\n", E(*text));
    o += fmt::format(
        "<p>{} <span class=\"sev {}\">{}</span> (share of the kernel's shared wavefronts: "
        "{})</p>\n",
        E(f.message), severity_name(f.severity), severity_name(f.severity), pct(f.share));
    std::string arrays;
    for (const ptx::SharedVar* v : shared_vars_touched(k, st.worst))
      arrays += (arrays.empty() ? "" : ", ") + shared_var_display_name(v->name);
    o += fmt::format(
        "<p class=\"why\">Worst request: {} of {} bytes{}, CTA {}, warp {}: {} wavefronts for an "
        "ideal of "
        "{}.<br>Why: {}.</p>\n",
        model::op_name(st.op), st.width, arrays.empty() ? "" : " to " + E(arrays), st.worst_cta,
        st.worst_warp, st.worst_verdict.wavefronts, st.worst_verdict.ideal_wavefronts,
        E(analysis::worst_pictured(st)
              ? why(st.worst, st.worst_verdict, s.worst_schedule, *r.arch, st.op)
              : why_unpictured(st)));
    if (r.level == analysis::CountLevel::Sass) {
      std::string sass;
      for (std::size_t li : f.lines) {
        const auto& l = k.lines[li];
        if (l.sass.empty()) continue;
        sass += (sass.empty() ? "" : "; ") + E(sass_text(l.sass));
        if (l.rewritten)
          sass += fmt::format(
              " <span class=\"ptx\">({} wavefronts for an ideal of {}; as the PTX states it, {} "
              "requests of {} B: {} wavefronts, {}-way)</span>",
              l.wavefronts, l.ideal_wavefronts, l.ptx_requests, l.ptx_width, l.ptx_wavefronts,
              l.ptx_ways);
      }
      if (!sass.empty()) o += fmt::format("<p class=\"why sass\">SASS: {}</p>\n", sass);
    }
    if (analysis::worst_pictured(st))
      o += render_bank_svg(st.worst, st.worst_verdict, s.worst_schedule, *r.arch);
    o += "</section>\n";
  }
  if (!any) o += "<p>No line has a bank conflict.</p>\n";

  // Notes.
  bool notes = false;
  for (const auto& k : r.kernels)
    for (const auto& n : k.notes) {
      if (!notes) o += "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
      notes = true;
      o += fmt::format("<li>{}:{}:{}: <code>{}</code>: {}</li>\n", E(source_path(r, n.file)),
                       n.line, n.col, E(k.name), E(n.message));
    }
  if (notes) o += "</ul>\n";
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace bankcheck::report
