// Text and JSON views of a checked program.
#include "bankcheck/report/check_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/report/explain_view.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/fix_wording.hpp"
#include "bankcheck/report/suppressions.hpp"
#include "bankcheck/version.hpp"
#include "paint.hpp"

namespace bankcheck::report {
namespace {

std::string op_text(model::Op op) { return model::op_name(op); }

std::string space_text(ptx::Space s) { return ptx::space_name(s); }

// A rewritten site's counts as the PTX states them.
nlohmann::json ptx_level(const analysis::SiteStats& st) {
  return {{"width", st.width},
          {"requests", st.requests},
          {"wavefronts", st.wavefronts},
          {"ideal_wavefronts", st.ideal_wavefronts},
          {"ways", st.ways}};
}

// The quoted source line and a caret under the column, as compilers show them.
std::string quote(const analysis::CheckReport& r, int file, int line, int col, const Paint& paint) {
  const std::string* text = source_line(r, file, line);
  if (!text) return "";
  return fmt::format("{:>5} | {}\n      | {}{}\n", line, *text,
                     std::string(col > 1 ? static_cast<size_t>(col) - 1 : 0, ' '), paint.caret());
}

// The suggestion fix's report has for a finding, in a line or two: the best change of the
// conflicting array the finding's line touches, or the code of its global line; and the
// command that writes it. Empty when there is none.
std::string fix_lines(const analysis::CheckReport& r, const Finding& f,
                      const analysis::KernelFix& kf, const TextOptions& options) {
  const auto& k = r.kernels[f.kernel];
  const std::string base =
      options.fix_command.empty() ? std::string("bankcheck fix") : options.fix_command;
  const auto command = [&](bool applicable) {
    // "bankcheck fix ARGS" -> "bankcheck fix --apply ARGS" where --apply writes it.
    if (!applicable) return fmt::format("`{}` shows the code", base);
    const std::string prefix = "bankcheck fix";
    return base.starts_with(prefix)
               ? fmt::format("`{} --apply{}` writes it", prefix, base.substr(prefix.size()))
               : fmt::format("`{} --apply` writes it", base);
  };
  if (f.kind == FindingKind::BankConflict) {
    for (const analysis::ArrayFix& af : kf.arrays) {
      const bool here = std::any_of(af.sites.begin(), af.sites.end(), [&](int site) {
        return std::any_of(k.sites.begin(), k.sites.end(), [&](const analysis::SiteReport& s) {
          return s.site == site && s.file == f.file && s.line == f.line;
        });
      });
      if (!here) continue;
      if (af.data_dependent)
        return fmt::format(
            "  fix: no layout of '{}' removes it: its conflicts follow the input data; `{}` says "
            "what does\n",
            af.name, base);
      if (af.suggestions.empty() || !af.geometry) continue;
      const analysis::Suggestion& best = af.suggestions.front();
      // The rewrite of the finding's own line where the fix rewrites it, not another line's.
      analysis::Suggestion shown = best;
      for (const auto& [line, subscript] : best.line_subscripts)
        if (line == f.line && f.file == r.main_file) shown.subscript = subscript;
      std::string out = fmt::format("  fix: {} ('{}': {} -> {} wavefronts); {}\n",
                                    suggestion_change(af, shown), af.name, best.wavefronts_before,
                                    best.wavefronts_after, command(best.applicable));
      // The best of those --apply can write, when the best is not one.
      const auto written = std::find_if(af.suggestions.begin(), af.suggestions.end(),
                                        [](const analysis::Suggestion& x) { return x.applicable; });
      if (!best.applicable && written != af.suggestions.end())
        out += fmt::format("       or {} ({} wavefronts); {}\n", suggestion_change(af, *written),
                           written->wavefronts_after, command(true));
      return out;
    }
    return "";
  }
  for (const analysis::GlobalFix& g : kf.globals)
    if (g.file == f.file && g.line == f.line && !f.lines.empty() &&
        k.lines[f.lines.front()].op == g.op)
      return fmt::format("  fix: {} ({} -> {} sectors, predicted); {}\n", global_change(g),
                         g.sectors, g.sectors_after, command(g.applicable));
  return "";
}

// A kernel's launch settings after its name: its one configuration, or, when `run` analysed
// it in several (a reduction's passes over ever smaller grids), every analysed one's, in the
// order first launched, so that the CTAs counted after them add up: the values of the one
// setting that differs, or each configuration whole when more than one does.
std::string configurations_text(const analysis::KernelReport& k) {
  std::vector<const analysis::LaunchSummary*> analysed;
  for (const auto& l : k.launches)
    if (l.analysed) analysed.push_back(&l);
  const auto dim = [](const emu::Dim3& d) { return fmt::format("{}x{}x{}", d.x, d.y, d.z); };
  const auto smem = [](std::uint64_t b) {
    return b ? fmt::format(", {} bytes of dynamic shared memory", b) : std::string();
  };
  if (analysed.size() < 2)
    return fmt::format(" grid {}, block {}{}", dim(k.grid), dim(k.block), smem(k.dynamic_smem));
  // A setting's distinct values in order, as "a", "a and b" or "a, b and c".
  const auto values = [&](const auto& of) {
    std::vector<std::string> v;
    for (const auto* l : analysed)
      if (std::string x = of(*l); std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    std::string t = v[0];
    for (std::size_t i = 1; i < v.size(); ++i) t += (i + 1 == v.size() ? " and " : ", ") + v[i];
    return std::pair{t, v.size() > 1};
  };
  const auto [grids, many_grids] =
      values([&](const analysis::LaunchSummary& l) { return dim(l.grid); });
  const auto [blocks, many_blocks] =
      values([&](const analysis::LaunchSummary& l) { return dim(l.block); });
  const auto [bytes, many_bytes] = values(
      [](const analysis::LaunchSummary& l) { return std::to_string(l.dynamic_smem); });
  std::string t = fmt::format(" {} launch configurations analysed", analysed.size());
  if (int{many_grids} + int{many_blocks} + int{many_bytes} <= 1) {
    t += fmt::format(": grid{} {}, block{} {}", many_grids ? "s" : "", grids,
                     many_blocks ? "s" : "", blocks);
    if (many_bytes || bytes != "0") t += fmt::format(", {} bytes of dynamic shared memory", bytes);
    return t;
  }
  for (std::size_t i = 0; i < analysed.size(); ++i)
    t += fmt::format("{}grid {}, block {}{}", i ? "; " : " (", dim(analysed[i]->grid),
                     dim(analysed[i]->block), smem(analysed[i]->dynamic_smem));
  return t + ")";
}

// A diagnostic's place, as compilers write it: FILE:LINE:COL:, or FILE: alone for an
// instruction the line table gives no line (a header's code of line 0).
std::string place(const std::string& path, int line, int col) {
  return line > 0 ? fmt::format("{}:{}:{}:", path, line, col) : path + ":";
}

// How the text names a kernel: its name, or its whole signature where another kernel of the
// report has the same name (overloads: `simple_kernel(int const*, int*, int)`).
std::string kernel_title(const analysis::CheckReport& r, const analysis::KernelReport& k) {
  if (k.signature.empty()) return k.name;
  for (const auto& o : r.kernels)
    if (&o != &k && o.name == k.name && o.signature != k.signature) return k.signature;
  return k.name;
}

}  // namespace

const char* tool_version() { return BANKCHECK_VERSION; }

std::string display_path(const std::string& path, const std::string& working_dir) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (!p.is_absolute()) return path;
  const std::string normal = p.lexically_normal().string();
  std::error_code ec;
  const fs::path dir = working_dir.empty() ? fs::current_path(ec) : fs::path(working_dir);
  if (ec || dir.empty()) return normal;
  const fs::path rel = p.lexically_normal().lexically_relative(dir.lexically_normal());
  if (rel.empty() || rel.native().starts_with("..")) return normal;
  return rel.string();
}

std::string summary_line(const analysis::CheckReport& r) { return summary_line({&r}); }

bool quiet_has_findings(const analysis::CheckReport& r) {
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> notes;
  for (const Finding& f : findings(r, sups, notes))
    if (!f.suppressed && f.severity != Severity::Note) return true;
  return false;
}

std::string summary_line(const std::vector<const analysis::CheckReport*>& reports) {
  std::uint64_t count[3] = {0, 0, 0}, suppressed = 0, unsupported = 0;
  std::size_t n = 0;
  for (const analysis::CheckReport* r : reports) {
    std::vector<Suppression> sups;
    std::vector<SuppressionNote> notes;
    for (const Finding& f : findings(*r, sups, notes))
      if (f.suppressed)
        ++suppressed;
      else
        ++count[static_cast<int>(f.severity)];
    n += r->kernels.size();
    unsupported += r->unsupported.size();
  }
  std::vector<std::string> parts;
  const auto add = [&](std::uint64_t n, const char* one, const char* many) {
    if (n) parts.push_back(fmt::format("{} {}", n, n == 1 ? one : many));
  };
  add(count[static_cast<int>(Severity::Error)], "error", "errors");
  add(count[static_cast<int>(Severity::Warning)], "warning", "warnings");
  add(count[static_cast<int>(Severity::Note)], "note", "notes");
  add(suppressed, "suppressed", "suppressed");
  std::string what;
  for (std::size_t i = 0; i < parts.size(); ++i) what += (i ? ", " : "") + parts[i];
  std::string line =
      n == 0 ? std::string("no kernel analysed") : fmt::format("{} kernel{}", n, n == 1 ? "" : "s");
  if (reports.size() > 1) line = fmt::format("{} files, {}", reports.size(), line);
  line += ": " + (what.empty() ? std::string("no findings") : what);
  if (unsupported) line += fmt::format(" ({} not analysed)", unsupported);
  return line;
}

std::vector<std::string> incompleteness(const analysis::CheckReport& r) {
  std::vector<std::string> out;
  if (r.process) out = r.process->incomplete;
  for (const auto& n : r.not_run) out.push_back(analysis::not_run_text(n));
  for (const auto& k : r.kernels) {
    // One sentence per reason, its launches in order.
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> by_reason;
    for (const auto& l : k.incomplete) {
      auto it = std::find_if(by_reason.begin(), by_reason.end(),
                             [&](const auto& b) { return b.first == l.reason; });
      if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {l.reason, {}});
      it->second.push_back(l.id);
    }
    for (const auto& [reason, ids] : by_reason) {
      std::string list;
      const std::size_t shown = std::min<std::size_t>(ids.size(), 8);
      for (std::size_t i = 0; i < shown; ++i)
        list += fmt::format("{}{}", i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ", ids[i]);
      if (shown < ids.size()) list += fmt::format(", ... ({} in all)", ids.size());
      out.push_back(fmt::format("kernel {}: launch{} {} {} not counted whole: {}", kernel_title(r, k),
                                ids.size() == 1 ? "" : "es", list, ids.size() == 1 ? "is" : "are",
                                reason));
    }
  }
  return out;
}

std::string process_line(const analysis::ProcessInfo& p) {
  std::string command;
  for (const auto& a : p.command) command += (command.empty() ? "" : " ") + a;
  std::string rank;
  if (!p.rank.empty())
    rank = fmt::format(" (rank {})", p.rank);
  else if (!p.local_rank.empty())
    rank = fmt::format(" (local rank {})", p.local_rank);
  return fmt::format("process {}{}: {}{}", p.pid, rank, command.empty() ? "?" : command,
                     p.ending.empty() ? "" : "; " + p.ending);
}

std::string render_check_text(const analysis::CheckReport& r, const TextOptions& options,
                              const analysis::FixReport* fix) {
  const Paint paint{options.color};
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> sup_notes;
  const std::vector<Finding> all = findings(r, sups, sup_notes);
  // Paths as the reader's directory has them (display_path).
  const auto path_of = [&](int file) {
    return display_path(source_path(r, file), options.working_dir);
  };
  std::string out;
  // What the report leaves out comes first: its counts are not the whole run's.
  for (const std::string& s : incompleteness(r))
    out += fmt::format("{} {} incomplete: {}\n",
                       paint.locus(display_path(r.input, options.working_dir) + ":"),
                       paint.severity(Severity::Warning), s);
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    for (const Finding& f : all) {
      if (f.kernel != ki || f.suppressed) continue;
      if (options.quiet && f.severity == Severity::Note) continue;
      out += fmt::format("{} {} {}",
                         paint.locus(place(path_of(f.file), f.line, f.col)),
                         paint.severity(f.severity), f.message);
      if (f.kind == FindingKind::BankConflict) out += fmt::format(" [{}]", kernel_title(r, k));
      out += '\n';
      out += quote(r, f.file, f.line, f.col, paint);
      if (options.quiet) continue;  // the finding and its line only
      if (f.kind == FindingKind::BankConflict && f.worst_site >= 0) {
        const auto& s = k.sites[static_cast<size_t>(f.worst_site)];
        const auto& st = s.stats;
        out += fmt::format(
            "  worst request: {} of {} bytes, CTA {}, warp {}: {} wavefronts for an ideal of {}\n",
            op_text(st.op), st.width, st.worst_cta, st.worst_warp, st.worst_verdict.wavefronts,
            st.worst_verdict.ideal_wavefronts);
        if (analysis::worst_pictured(st)) {
          out +=
              "  why: " + why(st.worst, st.worst_verdict, s.worst_schedule, *r.arch, st.op) + "\n";
          out += paint.picture(render_picture(st.worst, st.worst_verdict, s.worst_schedule,
                                              *r.arch, options.columns));
        } else {
          out += "  why: " + why_unpictured(st) + "\n";
        }
      }
      if (fix && ki < fix->kernels.size()) out += fix_lines(r, f, fix->kernels[ki], options);
      out += "\n";
    }
    if (options.quiet) continue;
    // Kernel summary and per-line table.
    out += paint.locus(fmt::format("kernel {}:", kernel_title(r, k))) + configurations_text(k);
    out += fmt::format("; {} of {} CTA{} analysed", k.ctas_analysed, k.ctas_total,
                       k.ctas_total == 1 ? "" : "s");
    // A running program's kernel launched more often than analysed: the counts are those
    // launches', not the program's total.
    std::uint64_t launches = 0, analysed = 0;
    for (const auto& l : k.launches) {
      launches += l.launches;
      analysed += l.analysed;
    }
    if (launches > analysed && analysed > 0)
      out += fmt::format(" in {} of its {} launches", analysed, launches);
    out += '\n';
    // Where the launch settings came from: one line per source.
    struct FromLine {
      analysis::SettingFrom from;
      std::string where, items;
    };
    std::vector<FromLine> from;  // (from, where) -> settings
    for (const auto& src : k.settings_from) {
      const std::string item = src.expr.empty() || src.setting == "kernel"
                                   ? src.setting
                                   : fmt::format("{} = {}", src.setting, src.expr);
      auto it = std::find_if(from.begin(), from.end(), [&](const FromLine& f) {
        return f.from == src.from && f.where == src.where;
      });
      if (it == from.end())
        from.push_back({src.from, src.where, item});
      else
        it->items += ", " + item;
    }
    for (const auto& f : from) out += fmt::format("  from {}: {}\n", f.where, f.items);
    for (const auto& a : k.args)
      if (a.defaulted)
        out += fmt::format(
            "  {} {}: {}{}\n", a.is_variable ? "variable" : "argument", a.name, a.value,
            a.is_buffer ? fmt::format(" (the analysed CTAs touched {} bytes)", a.touched) : "");
    size_t wl = 4;
    for (const auto& l : k.lines)
      wl = std::max(wl, fmt::format("{}:{}", path_of(l.file), l.line).size());
    const bool sass = r.level == analysis::CountLevel::Sass;
    out += fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}{}\n", "line",
                       wl, "space", "op", "width", "requests", "cost", "ideal", "excess", "ways",
                       sass ? "  sass" : "");
    for (const auto& l : k.lines) {
      const std::string where = fmt::format("{}:{}", path_of(l.file), l.line);
      if (l.space == ptx::Space::Shared) {
        out += fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}{}\n",
                           where, wl, "shared", op_text(l.op), l.width, l.requests, l.wavefronts,
                           l.ideal_wavefronts, model::excess_of(l.wavefronts, l.ideal_wavefronts),
                           l.ways, sass && !l.sass.empty() ? "  " + l.sass : "");
        if (l.rewritten)
          out +=
              fmt::format("  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}\n",
                          "  as PTX", wl, "", fmt::format("{} sites", l.ptx_sites), l.ptx_width,
                          l.ptx_requests, l.ptx_wavefronts, l.ptx_ideal_wavefronts,
                          model::excess_of(l.ptx_wavefronts, l.ptx_ideal_wavefronts), l.ptx_ways);
      } else {
        const bool g = l.space == ptx::Space::Global;
        out += fmt::format(
            "  {:<{}} {:<7} {:<10} {:>5} {:>10} {:>12} {:>12} {:>10} {:>5}\n", where, wl,
            space_text(l.space), op_text(l.op), l.width, l.requests,
            g ? std::to_string(l.sectors) : "-", g ? std::to_string(l.ideal_sectors) : "-",
            g ? std::to_string(model::excess_of(l.sectors, l.ideal_sectors)) : "-", "-");
      }
    }
    out += fmt::format("  shared memory: {} wavefronts for an ideal of {} ({:.0f}% excess)\n",
                       k.shared_wavefronts, k.shared_ideal_wavefronts, shared_excess_percent(k));
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
      out += fmt::format("{} {} {}\n",
                         paint.locus(place(path_of(n.file), n.line, n.col)),
                         paint.note(), n.message);
  }
  // Suppressed findings: counted and listed with their reasons, then the comments' problems.
  const auto suppressed = std::count_if(all.begin(), all.end(), [](const Finding& f) {
    return f.suppressed;
  });
  if (suppressed && !options.quiet) {
    out += fmt::format("{} finding{} suppressed in the source (not counted by --fail-on):\n",
                       suppressed, suppressed == 1 ? "" : "s");
    for (const Finding& f : all)
      if (f.suppressed)
        out +=
            fmt::format("  {}:{}:{}: {} {}{} in {}: {}\n", path_of(f.file), f.line, f.col,
                        severity_name(f.severity), rule_id(f.kind),
                        f.kind == FindingKind::BankConflict ? fmt::format(" ({}-way)", f.ways) : "",
                        r.kernels[f.kernel].name,
                        f.justification.empty() ? "(no reason given)" : f.justification);
  }
  for (const SuppressionNote& n : sup_notes) {
    if (options.quiet && n.severity == Severity::Note) continue;
    out += fmt::format("{} {} {}\n",
                       paint.locus(place(path_of(n.file), n.line, n.col)),
                       paint.severity(n.severity), n.message);
  }
  const std::string last = options.summary ? summary_line(r) + "\n" : "";
  // Quiet, a clean run says nothing (a pre-commit hook's pass is silent), as a compiler says
  // "N warnings generated" only when it printed some.
  if (options.quiet) return quiet_has_findings(r) ? out + last : out;
  if (r.level != analysis::CountLevel::Sass && !r.kernels.empty())
    out += fmt::format(
        "{} shared requests are counted as the PTX states them, not as the SASS "
        "issues them ({})\n",
        paint.note(), r.level_reason.empty() ? "no SASS" : r.level_reason);
  for (const auto& u : r.unsupported) {
    const std::string where = u.line ? fmt::format("{}:{}:", path_of(u.file), u.line)
                                     : display_path(r.input, options.working_dir) + ":";
    out +=
        fmt::format("{} {} kernel {} not analysed: {}\n", paint.locus(where), paint.note(), u.name,
                    analysis::refusal_text(u.reason, u.ptx_line, u.ptx, u.families,
                                           [&](int file) { return path_of(file); }));
  }
  return out + last;
}

nlohmann::json check_to_json(const analysis::CheckReport& r) {
  using nlohmann::json;
  json j;
  j["input"] = r.input;
  j["arch"] = r.arch->name;
  j["level"] = analysis::count_level_name(r.level);
  if (!r.level_reason.empty()) j["level_reason"] = r.level_reason;
  if (r.process) {  // bankcheck run: the process, and whether the report is all of its work
    const analysis::ProcessInfo& p = *r.process;
    json pj = {{"pid", p.pid},
               {"ppid", p.ppid},
               {"command", p.command},
               {"root", p.root},
               {"ending", p.ending}};
    if (!p.rank.empty()) pj["rank"] = p.rank, pj["rank_variable"] = p.rank_variable;
    if (!p.local_rank.empty()) pj["local_rank"] = p.local_rank;
    if (p.exit_code >= 0) pj["exit_code"] = p.exit_code;
    if (p.signal) pj["signal"] = p.signal;
    j["process"] = pj;
    j["complete"] = analysis::complete(r);
    j["incomplete"] = incompleteness(r);
  }
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> sup_notes;
  const std::vector<Finding> all = findings(r, sups, sup_notes);
  json kernels = json::array();
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    json kj;
    kj["name"] = k.name;
    kj["mangled"] = k.mangled;
    kj["signature"] = k.signature;
    kj["grid"] = {k.grid.x, k.grid.y, k.grid.z};
    kj["block"] = {k.block.x, k.block.y, k.block.z};
    kj["dynamic_smem"] = k.dynamic_smem;
    kj["static_smem"] = k.static_smem;
    kj["ctas"] = k.ctas_total;
    kj["ctas_analysed"] = k.ctas_analysed;
    kj["shared_wavefronts"] = k.shared_wavefronts;
    kj["shared_ideal_wavefronts"] = k.shared_ideal_wavefronts;
    kj["shared_excess_percent"] = shared_excess_percent(k);
    kj["global_waste_percent"] = global_waste_percent(k);
    if (!k.launches.empty()) {  // bankcheck run: every configuration the program launched
      json launches = json::array();
      for (const auto& l : k.launches)
        launches.push_back({{"grid", {l.grid.x, l.grid.y, l.grid.z}},
                            {"block", {l.block.x, l.block.y, l.block.z}},
                            {"dynamic_smem", l.dynamic_smem},
                            {"launches", l.launches},
                            {"analysed", l.analysed},
                            {"skipped", l.skipped},
                            {"analysed_ids", l.analysed_ids}});
      kj["launches"] = launches;
    }
    if (!k.launches.empty() || !k.incomplete.empty()) {  // bankcheck run: counted whole or not
      json incomplete = json::array();
      for (const auto& l : k.incomplete)
        incomplete.push_back({{"launch", l.id}, {"reason", l.reason}});
      kj["complete"] = k.incomplete.empty();
      kj["incomplete"] = incomplete;
    }
    if (!k.analyses.empty()) {  // registered analyses without a view of their own
      json analyses = json::object();
      for (const auto& a : k.analyses) {
        json counts = json::object();
        for (const auto& [name, n] : a.counts) counts[name] = n;
        analyses[a.analysis] = counts;
      }
      kj["analyses"] = analyses;
    }
    json arrays = json::array();
    for (const auto& v : k.shared_vars)
      arrays.push_back({{"name", shared_var_display_name(v.name)},
                        {"ptx_name", v.name},
                        {"offset", v.offset},
                        {"bytes", v.is_extern ? k.dynamic_smem : v.bytes},
                        {"extern", v.is_extern}});
    kj["shared_arrays"] = arrays;
    json args = json::array();
    for (const auto& a : k.args) {
      json aj = {{"name", a.name}, {"value", a.value}, {"defaulted", a.defaulted}};
      if (a.is_variable) aj["variable"] = true;
      if (a.is_buffer) {
        aj["bytes"] = a.bytes;
        aj["touched"] = a.touched;
      }
      args.push_back(aj);
    }
    kj["args"] = args;
    json from = json::array();
    for (const auto& src : k.settings_from)
      from.push_back({{"setting", src.setting},
                      {"from", analysis::setting_from_name(src.from)},
                      {"where", src.where},
                      {"expr", src.expr}});
    kj["settings_from"] = from;
    json sites = json::array();
    for (const auto& s : k.sites) {
      const auto& st = s.stats;
      json sj = {{"file", source_path(r, s.file)},
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
        sj["excess"] = model::excess_of(st.wavefronts, st.ideal_wavefronts);
        sj["ways"] = st.ways;
        if (st.has_worst) {
          json lanes = json::array();
          for (int l = 0; l < model::kWarpSize; ++l)
            lanes.push_back(st.worst.lane_active(l) ? json(st.worst.addr[l]) : json(nullptr));
          sj["worst"] = {{"cta", st.worst_cta},
                         {"warp", st.worst_warp},
                         {"wavefronts", st.worst_verdict.wavefronts},
                         {"ideal_wavefronts", st.worst_verdict.ideal_wavefronts},
                         {"ways", st.worst_verdict.ways},
                         {"addresses", lanes}};
          json names = json::array();
          for (const ptx::SharedVar* v : shared_vars_touched(k, st.worst))
            names.push_back(shared_var_display_name(v->name));
          sj["arrays"] = names;
        }
      } else if (st.space == ptx::Space::Global) {
        sj["sectors"] = st.sectors;
        sj["ideal_sectors"] = st.ideal_sectors;
        sj["lines128"] = st.lines128;
      }
      if (!s.sass.empty()) sj["sass"] = s.sass;
      if (!s.inlined.empty()) {
        json frames = json::array();
        for (const auto& f : s.inlined)
          frames.push_back({{"file", source_path(r, f.file)}, {"line", f.line}, {"col", f.col}});
        sj["inlined"] = frames;
      }
      if (!s.nsight_lines.empty()) {
        json at = json::array();
        for (const auto& f : s.nsight_lines)
          at.push_back({{"file", source_path(r, f.file)}, {"line", f.line}});
        sj["nsight_lines"] = at;
      }
      if (s.rewritten) sj["ptx"] = ptx_level(s.ptx_stats);
      sites.push_back(sj);
    }
    kj["sites"] = sites;
    // Shared sites ptxas removed: no SASS instruction, never issued, left out of every count.
    json removed = json::array();
    for (const auto& s : k.removed_sites)
      removed.push_back({{"file", source_path(r, s.file)},
                         {"line", s.line},
                         {"col", s.col},
                         {"ptx_line", s.ptx_line},
                         {"op", op_text(s.ptx_stats.op)},
                         {"ptx", ptx_level(s.ptx_stats)}});
    if (!removed.empty()) kj["removed_sites"] = removed;
    json lines = json::array();
    for (const auto& l : k.lines) {
      json lj = {{"file", source_path(r, l.file)},
                 {"line", l.line},
                 {"col", l.col},
                 {"space", space_text(l.space)},
                 {"op", op_text(l.op)},
                 {"width", l.width},
                 {"sites", l.sites},
                 {"requests", l.requests}};
      if (l.space == ptx::Space::Shared) {
        lj["wavefronts"] = l.wavefronts;
        lj["ideal_wavefronts"] = l.ideal_wavefronts;
        lj["excess"] = model::excess_of(l.wavefronts, l.ideal_wavefronts);
        lj["ways"] = l.ways;
        if (!l.sass.empty()) lj["sass"] = l.sass;
        if (l.rewritten)
          lj["ptx"] = {{"sites", l.ptx_sites},
                       {"width", l.ptx_width},
                       {"requests", l.ptx_requests},
                       {"wavefronts", l.ptx_wavefronts},
                       {"ideal_wavefronts", l.ptx_ideal_wavefronts},
                       {"ways", l.ptx_ways}};
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
    for (const auto& n : k.notes) {
      json nj = {{"file", source_path(r, n.file)},
                 {"line", n.line},
                 {"col", n.col},
                 {"message", n.message}};
      if (!n.known.empty()) nj["known_difference"] = n.known;
      notes.push_back(std::move(nj));
    }
    kj["notes"] = notes;
    json unwritten = json::array();
    for (const auto& u : k.unwritten_shared_reads)
      unwritten.push_back({{"file", source_path(r, u.file)}, {"line", u.line}, {"col", u.col}});
    kj["unwritten_shared_reads"] = unwritten;
    json faults = json::array();
    for (const auto& f : k.faults)
      faults.push_back({{"file", source_path(r, f.file)}, {"line", f.line}, {"col", f.col},
                        {"ptx_line", f.ptx_line}, {"access", f.access}, {"size", f.size},
                        {"address", f.address},
                        {"block", {f.block.x, f.block.y, f.block.z}},
                        {"thread", {f.thread.x, f.thread.y, f.thread.z}},
                        {"lanes", f.lanes}});
    kj["faults"] = faults;
    json fj = json::array();
    for (const Finding& f : all) {
      if (f.kernel != ki) continue;
      json x = {{"rule", rule_id(f.kind)},
                {"severity", severity_name(f.severity)},
                {"file", source_path(r, f.file)},
                {"line", f.line},
                {"col", f.col},
                {"message", f.message},
                {"source", source_line(r, f.file, f.line) ? *source_line(r, f.file, f.line)
                                                          : std::string()},
                {"suppressed", f.suppressed},
                {"requests", f.requests},
                {"cost", f.cost},
                {"ideal", f.ideal},
                {"excess", f.excess()},
                {"share", f.share}};
      if (f.kind == FindingKind::BankConflict) {
        x["ways"] = f.ways;
        if (f.worst_site >= 0) x["worst_site"] = f.worst_site;
      } else {
        x["hint"] = f.hint;
      }
      if (f.suppressed) x["justification"] = f.justification;
      fj.push_back(x);
    }
    kj["findings"] = fj;
    kernels.push_back(kj);
  }
  j["kernels"] = kernels;
  json sj = json::array();
  for (const Suppression& s : sups) {
    json x = {{"file", source_path(r, s.file)},
              {"line", s.line},
              {"col", s.col},
              {"target_line", s.target},
              {"rules", s.rules},
              {"reason", s.reason},
              {"findings", s.used}};
    sj.push_back(x);
  }
  j["suppressions"] = sj;
  json nj = json::array();
  for (const SuppressionNote& n : sup_notes)
    nj.push_back({{"file", source_path(r, n.file)},
                  {"line", n.line},
                  {"col", n.col},
                  {"severity", severity_name(n.severity)},
                  {"message", n.message}});
  j["suppression_notes"] = nj;
  if (!r.unsupported.empty()) {  // absent when every kernel of the file was analysed
    json uj = json::array();
    for (const auto& u : r.unsupported) {
      json fams = json::array();  // every unsupported family the kernel uses
      for (const auto& f : u.families)
        fams.push_back({{"family", f.family},
                        {"count", f.count},
                        {"reason", f.reason},
                        {"file", f.pos.line ? source_path(r, f.pos.file) : r.input},
                        {"line", f.pos.line},
                        {"col", f.pos.col},
                        {"ptx_line", f.ptx_line},
                        {"ptx", f.ptx}});
      uj.push_back({{"name", u.name},
                    {"reason", u.reason},
                    {"file", u.line ? source_path(r, u.file) : r.input},
                    {"line", u.line},
                    {"ptx_line", u.ptx_line},
                    {"ptx", u.ptx},
                    {"selected", u.selected},
                    {"families", fams}});
    }
    j["unsupported_kernels"] = uj;
  }
  if (!r.not_run.empty()) {  // absent when every launch ran
    json nr = json::array();
    for (const auto& n : r.not_run)
      nr.push_back({{"library", n.library},
                    {"name", n.name},
                    {"mangled", n.mangled},
                    {"reason", n.reason},
                    {"launches", n.launches},
                    {"call_site", n.call_site},
                    {"error", n.error}});
    j["not_run"] = nr;
  }
  return j;
}

}  // namespace bankcheck::report
