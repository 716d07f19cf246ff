// --fail-on: parse the threshold, test the report's counted findings against it.
#include "bankcheck/report/gate.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

#include "bankcheck/model/analyze.hpp"

namespace bankcheck::report {
namespace {

std::string strip(const std::string& s) {
  std::string o;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) o += c;
  return o;
}

[[noreturn]] void bad(const std::string& spec, const std::string& why) {
  throw std::invalid_argument(fmt::format(
      "--fail-on '{}': {}; expected 'ways>N' (a whole number, e.g. 'ways>1' fails on any "
      "conflict), 'excess>P%' or 'global-waste>P%' (a percentage from 0 to 100, e.g. "
      "'excess>10%'), or 'severity>=LEVEL' (or just LEVEL: note, warning or error)",
      spec, why));
}

double percentage(const std::string& spec, const std::string& value) {
  std::string v = value;
  if (!v.empty() && v.back() == '%') v.pop_back();
  size_t used = 0;
  double p = 0;
  bool ok = !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.');
  if (ok) try {
      p = std::stod(v, &used);
    } catch (const std::exception&) {
      ok = false;
    }
  if (!ok || used != v.size() || !std::isfinite(p))
    bad(spec, fmt::format("'{}' is not a percentage", value));
  if (p > 100) bad(spec, "a percentage above 100 can never be crossed");
  return p;
}

Severity level_named(const std::string& spec, const std::string& name) {
  Severity s = Severity::Note;
  if (!parse_severity(name, s))
    bad(spec, fmt::format("'{}' is not a severity (note, warning or error)", name));
  return s;
}

std::string where(const analysis::CheckReport& r, const Finding& f) {
  return fmt::format("{}:{}:{}", source_path(r, f.file), f.line, f.col);
}

// A kernel's percentage of `total` that its counted findings of one space waste.
struct KernelWaste {
  std::uint64_t excess = 0, total = 0;
  double percent() const {
    return total ? 100.0 * static_cast<double>(excess) / static_cast<double>(total) : 0.0;
  }
};

}  // namespace

Gate parse_gate(const std::string& spec) {
  const std::string s = strip(spec);
  Gate g;
  g.spec = spec;
  Severity level = Severity::Note;
  if (parse_severity(s, level)) {  // 'warning': the same as 'severity>=warning'
    g.metric = Gate::Metric::Severity;
    g.level = level;
    return g;
  }
  const size_t gt = s.find('>');
  if (gt == std::string::npos) bad(spec, "no '>'");
  const std::string name = s.substr(0, gt);
  std::string value = s.substr(gt + 1);
  if (name == "severity") {
    g.metric = Gate::Metric::Severity;
    if (!value.empty() && value[0] == '=') {
      g.level = level_named(spec, value.substr(1));
    } else {
      const Severity above = level_named(spec, value);
      if (above == Severity::Error) bad(spec, "no severity is above error");
      g.level = static_cast<Severity>(static_cast<int>(above) + 1);
    }
    return g;
  }
  if (!value.empty() && value[0] == '=')
    bad(spec, "'>=' is supported for severities only, use '>'");
  if (name == "ways") {
    g.metric = Gate::Metric::Ways;
    if (value.empty() || value.size() > 9) bad(spec, "the number of ways is missing or too long");
    for (char c : value)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        bad(spec, fmt::format("'{}' is not a whole number", value));
    g.limit = std::stod(value);
  } else if (name == "excess") {
    g.metric = Gate::Metric::ExcessPercent;
    g.limit = percentage(spec, value);
  } else if (name == "global-waste") {
    g.metric = Gate::Metric::GlobalWastePercent;
    g.limit = percentage(spec, value);
  } else {
    bad(spec, name.empty() ? "no metric before '>'" : fmt::format("unknown metric '{}'", name));
  }
  return g;
}

std::vector<Finding> unsuppressed(std::vector<Finding> all) {
  std::erase_if(all, [](const Finding& f) { return f.suppressed; });
  return all;
}

GateInput gate_input(const analysis::CheckReport& r, const std::vector<Finding>& counted) {
  GateInput in;
  for (std::size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    GateInput::Kernel& gk = in.kernels[std::to_string(ki)];
    gk.name = k.name;
    gk.shared_wavefronts = k.shared_wavefronts;
    for (const auto& l : k.lines)
      if (l.space == ptx::Space::Global) gk.global_sectors += l.sectors;
  }
  for (const Finding& f : counted)
    in.items.push_back({where(r, f), std::to_string(f.kernel), f.kind, f.severity, f.ways,
                        f.excess(), f.share});
  return in;
}

std::optional<std::string> gate_crossed(const analysis::CheckReport& r, const Gate& g) {
  return gate_crossed(gate_input(r, unsuppressed(findings(r))), g);
}

std::optional<std::string> gate_crossed(const GateInput& in, const Gate& g,
                                        const std::string& scope) {
  const std::string sc = scope.empty() ? "" : ", " + scope;
  const auto more = [](int over, const char* what) {
    return over > 1 ? fmt::format(" ({} {} over the limit)", over, what) : std::string();
  };
  const auto kernel_name = [&](const std::string& key) {
    auto it = in.kernels.find(key);
    return it == in.kernels.end() ? key : it->second.name;
  };
  if (g.metric == Gate::Metric::Ways || g.metric == Gate::Metric::Severity) {
    int over = 0;
    const GateInput::Item* worst = nullptr;
    for (const auto& f : in.items) {
      if (g.metric == Gate::Metric::Ways) {
        if (f.kind != FindingKind::BankConflict || f.ways <= g.limit) continue;
        ++over;
        if (!worst || f.ways > worst->ways) worst = &f;
      } else {
        if (f.severity < g.level) continue;
        ++over;
        if (!worst || f.share > worst->share) worst = &f;
      }
    }
    if (!worst) return std::nullopt;
    if (g.metric == Gate::Metric::Ways)
      return fmt::format("--fail-on '{}' crossed: {}-way bank conflict at {} in {}{}{}", g.spec,
                         worst->ways, worst->where, kernel_name(worst->kernel), sc,
                         more(over, "lines"));
    return fmt::format("--fail-on '{}' crossed: {} {} at {} in {} ({:.1f}% of the kernel's {}){}{}",
                       g.spec, severity_name(worst->severity), rule_id(worst->kind), worst->where,
                       kernel_name(worst->kernel), 100.0 * worst->share,
                       worst->kind == FindingKind::BankConflict ? "shared wavefronts"
                                                                : "global sectors",
                       sc, more(over, "findings"));
  }
  const bool shared = g.metric == Gate::Metric::ExcessPercent;
  std::map<std::string, KernelWaste> waste;
  for (const auto& [key, k] : in.kernels)
    waste[key].total = shared ? k.shared_wavefronts : k.global_sectors;
  for (const auto& f : in.items)
    if ((f.kind == FindingKind::BankConflict) == shared) waste[f.kernel].excess += f.excess;
  int over = 0;
  std::string worst;
  for (const auto& [key, w] : waste) {
    if (w.percent() <= g.limit) continue;
    if (over++ == 0 || w.percent() > waste[worst].percent()) worst = key;
  }
  if (!over) return std::nullopt;
  const KernelWaste& w = waste[worst];
  return fmt::format(
      "--fail-on '{}' crossed: {:.1f}% of kernel {}'s {} are excess ({} for an ideal of {}{}){}",
      g.spec, w.percent(), kernel_name(worst),
      shared ? "shared wavefronts" : "global 32-byte sectors", w.total,
      model::excess_of(w.total, w.excess), sc,
      over > 1 ? fmt::format("; {} kernels over the limit", over) : "");
}

}  // namespace bankcheck::report
