// --fail-on: parse the threshold, test the report against it.
#include "bankcheck/report/gate.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "bankcheck/report/findings.hpp"

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
      "conflict) or 'excess>P%' (a percentage from 0 to 100, e.g. 'excess>10%')",
      spec, why));
}

}  // namespace

Gate parse_gate(const std::string& spec) {
  const std::string s = strip(spec);
  Gate g;
  g.spec = spec;
  const size_t gt = s.find('>');
  if (gt == std::string::npos) bad(spec, "no '>'");
  const std::string name = s.substr(0, gt), value = s.substr(gt + 1);
  if (!value.empty() && value[0] == '=') bad(spec, "'>=' is not supported, use '>'");
  if (name == "ways") {
    g.metric = Gate::Metric::Ways;
    if (value.empty() || value.size() > 9) bad(spec, "the number of ways is missing or too long");
    for (char c : value)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        bad(spec, fmt::format("'{}' is not a whole number", value));
    g.limit = std::stod(value);
  } else if (name == "excess") {
    g.metric = Gate::Metric::ExcessPercent;
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
    g.limit = p;
  } else {
    bad(spec, name.empty() ? "no metric before '>'" : fmt::format("unknown metric '{}'", name));
  }
  return g;
}

std::optional<std::string> gate_crossed(const analysis::CheckReport& r, const Gate& g) {
  if (g.metric == Gate::Metric::Ways) {
    int over = 0;
    const analysis::LineReport* worst = nullptr;
    const analysis::KernelReport* worst_kernel = nullptr;
    for (const auto& k : r.kernels)
      for (const auto& l : k.lines) {
        if (l.space != ptx::Space::Shared || l.ways <= g.limit) continue;
        ++over;
        if (!worst || l.ways > worst->ways) {
          worst = &l;
          worst_kernel = &k;
        }
      }
    if (!worst) return std::nullopt;
    return fmt::format("--fail-on '{}' crossed: {}-way bank conflict at {}:{}:{} in {}{}", g.spec,
                       worst->ways, source_path(r, worst->file), worst->line, worst->col,
                       worst_kernel->name,
                       over > 1 ? fmt::format(" ({} lines over the limit)", over) : "");
  }
  int over = 0;
  const analysis::KernelReport* worst = nullptr;
  for (const auto& k : r.kernels) {
    if (shared_excess_percent(k) <= g.limit) continue;
    ++over;
    if (!worst || shared_excess_percent(k) > shared_excess_percent(*worst)) worst = &k;
  }
  if (!worst) return std::nullopt;
  return fmt::format(
      "--fail-on '{}' crossed: {:.1f}% of kernel {}'s shared wavefronts are excess ({} for an "
      "ideal of {}){}",
      g.spec, shared_excess_percent(*worst), worst->name, worst->shared_wavefronts,
      worst->shared_ideal_wavefronts,
      over > 1 ? fmt::format("; {} kernels over the limit", over) : "");
}

}  // namespace bankcheck::report
