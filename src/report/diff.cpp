// Reports compared finding by finding (diff.hpp).
#include "bankcheck/report/diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/report/check_view.hpp"

namespace bankcheck::report {
namespace {

using nlohmann::json;

FindingKind kind_named(const std::string& id, const std::string& where) {
  for (FindingKind k : {FindingKind::BankConflict, FindingKind::UncoalescedGlobal,
                        FindingKind::MisalignedGlobal})
    if (id == rule_id(k)) return k;
  throw std::invalid_argument(fmt::format("{}: unknown rule '{}'", where, id));
}

void add_file(const json& f, const std::string& what, DiffReport& out) {
  if (!f.contains("kernels")) return;  // a file that failed: no findings
  for (const json& k : f.at("kernels")) {
    DiffKernel dk;
    dk.file = f.value("input", "");
    dk.name = k.at("name").get<std::string>();
    dk.shared_wavefronts = k.value("shared_wavefronts", std::uint64_t{0});
    if (k.contains("lines"))
      for (const json& l : k["lines"])
        if (l.value("space", "") == "global") dk.global_sectors += l.value("sectors", 0ull);
    out.kernels.push_back(dk);
    if (!k.contains("findings")) continue;
    for (const json& x : k["findings"]) {
      DiffFinding d;
      d.kernel = dk.name;
      d.input = dk.file;
      d.file = x.at("file").get<std::string>();
      d.line = x.at("line").get<int>();
      d.col = x.value("col", 0);
      const std::string where = fmt::format("{}: finding at {}:{}", what, d.file, d.line);
      d.kind = kind_named(x.at("rule").get<std::string>(), where);
      const std::string sev = x.at("severity").get<std::string>();
      if (!parse_severity(sev, d.severity))
        throw std::invalid_argument(fmt::format("{}: unknown severity '{}'", where, sev));
      d.requests = x.value("requests", 0ull);
      d.cost = x.at("cost").get<std::uint64_t>();
      d.ideal = x.at("ideal").get<std::uint64_t>();
      d.excess = x.value("excess", model::excess_of(d.cost, d.ideal));
      d.ways = x.value("ways", 0u);
      d.share = x.value("share", 0.0);
      d.source = x.value("source", "");
      d.suppressed = x.value("suppressed", false);
      d.justification = x.value("justification", "");
      out.findings.push_back(std::move(d));
    }
  }
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

Change compare(const DiffFinding& a, const DiffFinding& b) {
  if (b.excess > a.excess || b.ways > a.ways) return Change::Worse;
  if (b.excess < a.excess || b.ways < a.ways) return Change::Better;
  return Change::Same;
}

// For each finding of `after`, the index of its match in `before`, or -1.
std::vector<int> match(const DiffReport& before, const DiffReport& after) {
  std::vector<int> to(after.findings.size(), -1);
  std::vector<bool> taken(before.findings.size(), false);
  const auto same_group = [](const DiffFinding& a, const DiffFinding& b) {
    return a.file == b.file && a.kernel == b.kernel && a.kind == b.kind;
  };
  // How far the code around a line moved: the shift of the nearest finding above it (else
  // below) in its file that its text matched (passes 0 and 1).
  const auto shift_at = [&](const DiffFinding& n) {
    int shift = 0, best = -1;
    for (std::size_t i = 0; i < after.findings.size(); ++i) {
      if (to[i] < 0) continue;
      const DiffFinding& m = after.findings[i];
      if (m.file != n.file) continue;
      // Above beats below; then the nearest.
      const int distance = m.line <= n.line ? n.line - m.line : 1000000 + m.line - n.line;
      if (best >= 0 && distance >= best) continue;
      best = distance;
      shift = m.line - before.findings[static_cast<std::size_t>(to[i])].line;
    }
    return shift;
  };
  // Pass 0: line and text; 1: text, nearest line; 2: the line number less the shift of the
  // code around it (moved and edited); 3: line.
  for (int pass = 0; pass < 4; ++pass)
    for (std::size_t i = 0; i < after.findings.size(); ++i) {
      if (to[i] >= 0) continue;
      const DiffFinding& n = after.findings[i];
      const std::string text = trimmed(n.source);
      const int shifted = pass == 2 ? n.line - shift_at(n) : n.line;
      int best = -1;
      for (std::size_t j = 0; j < before.findings.size(); ++j) {
        const DiffFinding& o = before.findings[j];
        if (taken[j] || !same_group(o, n)) continue;
        const bool same_text = trimmed(o.source) == text;
        const bool ok = pass == 0   ? o.line == n.line && same_text
                        : pass == 1 ? same_text && !text.empty()
                                    : o.line == shifted;
        if (!ok) continue;
        if (best < 0 || std::abs(o.line - n.line) <
                            std::abs(before.findings[static_cast<std::size_t>(best)].line - n.line))
          best = static_cast<int>(j);
      }
      if (best >= 0) {
        to[i] = best;
        taken[static_cast<std::size_t>(best)] = true;
      }
    }
  return to;
}

json side(const DiffFinding& f) {
  json j = {{"line", f.line},   {"col", f.col},       {"severity", severity_name(f.severity)},
            {"cost", f.cost},   {"ideal", f.ideal},   {"excess", f.excess},
            {"share", f.share}, {"requests", f.requests}, {"suppressed", f.suppressed}};
  if (f.kind == FindingKind::BankConflict) j["ways"] = f.ways;
  if (!f.source.empty()) j["source"] = f.source;
  return j;
}

std::string unit(const DiffFinding& f) {
  return f.kind == FindingKind::BankConflict ? "wavefronts" : "sectors";
}

// "excess 448 wavefronts, 8-way (warning)".
std::string figures(const DiffFinding& f) {
  std::string s = fmt::format("excess {} {}", f.excess, unit(f));
  if (f.kind == FindingKind::BankConflict) s += fmt::format(", {}-way", f.ways);
  return s + fmt::format(" ({}{})", severity_name(f.severity), f.suppressed ? ", suppressed" : "");
}

}  // namespace

const char* change_name(Change c) {
  switch (c) {
    case Change::New:
      return "new";
    case Change::Fixed:
      return "fixed";
    case Change::Worse:
      return "worse";
    case Change::Better:
      return "better";
    case Change::Same:
      return "unchanged";
  }
  return "?";
}

DiffReport diff_report(const json& j, const std::string& what) {
  DiffReport out;
  if (!j.is_object() || (!j.contains("files") && !j.contains("kernels")))
    throw std::invalid_argument(fmt::format(
        "{}: not a JSON report of bankcheck check or run (no 'files' or 'kernels'; write one "
        "with --format json)",
        what));
  const int version = j.value("schema_version", 0);
  if (version < 1 || version > kCheckJsonSchemaVersion)
    throw std::invalid_argument(
        fmt::format("{}: schema_version {} is not one this bankcheck reads (1 to {})", what,
                    version, kCheckJsonSchemaVersion));
  try {
    if (j.contains("files"))
      for (const json& f : j.at("files")) add_file(f, what, out);
    else
      add_file(j, what, out);
  } catch (const json::exception& e) {
    throw std::invalid_argument(fmt::format("{}: not a bankcheck report: {}", what, e.what()));
  }
  return out;
}

DiffReport diff_report(const analysis::CheckReport& r) {
  DiffReport out;
  for (const auto& k : r.kernels) {
    DiffKernel dk{r.input, k.name, k.shared_wavefronts, 0};
    for (const auto& l : k.lines)
      if (l.space == ptx::Space::Global) dk.global_sectors += l.sectors;
    out.kernels.push_back(dk);
  }
  for (const Finding& f : findings(r)) {
    DiffFinding d;
    d.file = source_path(r, f.file);
    d.kernel = r.kernels[f.kernel].name;
    d.input = r.input;
    if (const std::string* text = source_line(r, f.file, f.line)) d.source = *text;
    d.kind = f.kind;
    d.severity = f.severity;
    d.line = f.line;
    d.col = f.col;
    d.requests = f.requests;
    d.cost = f.cost;
    d.ideal = f.ideal;
    d.excess = f.excess();
    d.ways = f.ways;
    d.share = f.share;
    d.suppressed = f.suppressed;
    d.justification = f.justification;
    out.findings.push_back(std::move(d));
  }
  return out;
}

int Diff::count(Change c) const {
  return static_cast<int>(
      std::count_if(entries.begin(), entries.end(), [c](const DiffEntry& e) { return e.change == c; }));
}

Diff diff(const DiffReport& before, const DiffReport& after) {
  Diff d;
  d.kernels = after.kernels;
  const std::vector<int> to = match(before, after);
  std::vector<bool> matched(before.findings.size(), false);
  for (std::size_t i = 0; i < after.findings.size(); ++i) {
    DiffEntry e;
    e.after = after.findings[i];
    if (to[i] < 0) {
      e.change = Change::New;
    } else {
      e.before = before.findings[static_cast<std::size_t>(to[i])];
      matched[static_cast<std::size_t>(to[i])] = true;
      e.change = compare(*e.before, *e.after);
    }
    d.entries.push_back(std::move(e));
  }
  for (std::size_t j = 0; j < before.findings.size(); ++j)
    if (!matched[j]) d.entries.push_back({Change::Fixed, before.findings[j], std::nullopt});
  std::stable_sort(d.entries.begin(), d.entries.end(), [](const DiffEntry& a, const DiffEntry& b) {
    const DiffFinding &x = a.any(), &y = b.any();
    return std::tie(x.file, x.line, x.kernel, x.kind) < std::tie(y.file, y.line, y.kernel, y.kind);
  });
  return d;
}

std::vector<bool> new_or_worse(const DiffReport& before, const DiffReport& after) {
  const std::vector<int> to = match(before, after);
  std::vector<bool> out(after.findings.size());
  for (std::size_t i = 0; i < to.size(); ++i)
    out[i] = to[i] < 0 ||
             compare(before.findings[static_cast<std::size_t>(to[i])], after.findings[i]) ==
                 Change::Worse;
  return out;
}

std::string render_diff_text(const Diff& d, const std::string& before_name,
                             const std::string& after_name) {
  std::string out;
  for (const DiffEntry& e : d.entries) {
    if (e.change == Change::Same) continue;
    const DiffFinding& f = e.any();
    out += fmt::format("{}:{}:{}: {}: {} in {}: ", f.file, f.line, f.col, change_name(e.change),
                       rule_id(f.kind), f.kernel);
    if (e.before && e.after) {
      out += fmt::format("{} -> {}", figures(*e.before), figures(*e.after));
      if (e.before->line != e.after->line) out += fmt::format(" (was line {})", e.before->line);
    } else {
      out += figures(f);
    }
    out += "\n";
  }
  out += fmt::format("{} -> {}: {} new, {} worse, {} better, {} fixed, {} unchanged\n",
                     before_name, after_name, d.count(Change::New), d.count(Change::Worse),
                     d.count(Change::Better), d.count(Change::Fixed), d.count(Change::Same));
  return out;
}

json diff_to_json(const Diff& d, const std::string& before_name, const std::string& after_name) {
  json changes = json::array();
  for (const DiffEntry& e : d.entries) {
    const DiffFinding& f = e.any();
    json c = {{"change", change_name(e.change)},
              {"file", f.file},
              {"kernel", f.kernel},
              {"rule", rule_id(f.kind)}};
    c["before"] = e.before ? side(*e.before) : json(nullptr);
    c["after"] = e.after ? side(*e.after) : json(nullptr);
    changes.push_back(c);
  }
  json summary = json::object();
  for (Change c : {Change::New, Change::Worse, Change::Better, Change::Fixed, Change::Same})
    summary[change_name(c)] = d.count(c);
  return {{"schema_version", kDiffJsonSchemaVersion},
          {"tool", {{"name", "bankcheck"}, {"version", tool_version()}}},
          {"before", before_name},
          {"after", after_name},
          {"summary", summary},
          {"changes", changes}};
}

DiffReport read_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot read the report", path));
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded())
    throw std::invalid_argument(
        fmt::format("{}: not JSON (a report written by --format json is expected)", path));
  return diff_report(j, path);
}

std::vector<std::string> crossed_gates(const analysis::CheckReport& r,
                                       const std::vector<Gate>& gates, const DiffReport* baseline,
                                       const std::string& baseline_name) {
  std::vector<Finding> counted;
  std::string scope;
  if (!baseline) {
    counted = unsuppressed(findings(r));
  } else {
    // diff_report(r) lists findings(r) in the same order.
    const std::vector<Finding> all = findings(r);
    const std::vector<bool> flags = new_or_worse(*baseline, diff_report(r));
    for (std::size_t i = 0; i < all.size(); ++i)
      if (flags[i] && !all[i].suppressed) counted.push_back(all[i]);
    scope = fmt::format("new or worse than {}", baseline_name);
  }
  const GateInput in = gate_input(r, counted);
  std::vector<std::string> out;
  for (const Gate& g : gates)
    if (auto line = gate_crossed(in, g, scope)) out.push_back(*line);
  if (baseline && gates.empty() && !counted.empty()) {
    const Finding& f = counted.front();
    out.push_back(fmt::format(
        "--baseline {}: {} finding{} new or worse, the first at {}:{}:{}: {} {} in {} (excess "
        "{} {})",
        baseline_name, counted.size(), counted.size() == 1 ? "" : "s", source_path(r, f.file),
        f.line, f.col, severity_name(f.severity), rule_id(f.kind), r.kernels[f.kernel].name,
        f.excess(), f.kind == FindingKind::BankConflict ? "wavefronts" : "sectors"));
  }
  return out;
}

GateInput gate_input(const Diff& d) {
  GateInput in;
  for (const DiffKernel& k : d.kernels)
    in.kernels[k.file + "\n" + k.name] = {k.name, k.shared_wavefronts, k.global_sectors};
  for (const DiffEntry& e : d.entries) {
    if (!e.after || e.after->suppressed) continue;
    if (e.change != Change::New && e.change != Change::Worse) continue;
    const DiffFinding& f = *e.after;
    in.items.push_back({fmt::format("{}:{}:{}", f.file, f.line, f.col),
                        f.input + "\n" + f.kernel, f.kind, f.severity,
                        f.ways, f.excess, f.share});
  }
  return in;
}

}  // namespace bankcheck::report
