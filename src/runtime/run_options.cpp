// The options of `bankcheck run` through the environment (run_options.hpp).
#include "bankcheck/runtime/run_options.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "bankcheck/report/views.hpp"

namespace bankcheck::runtime {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

std::map<std::string, std::string> run_environment(const RunOptions& o) {
  return {
      {"BANKCHECK_RUN_FORMAT", o.format},
      {"BANKCHECK_RUN_OUTPUT", o.output},
      {"BANKCHECK_RUN_COLOR", o.color},
      {"BANKCHECK_RUN_COLUMNS", std::to_string(o.columns)},
      {"BANKCHECK_RUN_QUIET", o.quiet ? "1" : "0"},
      {"BANKCHECK_RUN_KERNELS", joined(o.kernels)},
      {"BANKCHECK_RUN_LAUNCHES", o.launches == 0 ? "all" : std::to_string(o.launches)},
      {"BANKCHECK_RUN_REPEATS", o.skip_repeats ? "skip" : "execute"},
      {"BANKCHECK_RUN_TIER", o.fast_tier ? "fast" : "today"},
      {"BANKCHECK_RUN_FAIL_ON", joined(o.fail_on)},
      {"BANKCHECK_RUN_BASELINE", o.baseline},
      {"BANKCHECK_RUN_STATUS", o.status},
      {"BANKCHECK_RUN_THREADS", std::to_string(o.threads)},
      {"BANKCHECK_RUN_PROGRESS", o.progress ? "1" : "0"},
      {"BANKCHECK_RUN_LEVEL", o.sass ? "sass" : "ptx"},
      {"BANKCHECK_RUN_STOP_ON_FAULT", o.stop_on_fault ? "1" : "0"},
      {"BANKCHECK_RUN_NVCC", o.nvcc},
      {"BANKCHECK_RUN_PROGRAM", o.program},
  };
}

RunOptions run_options_from_environment(std::string& error) {
  RunOptions o;
  auto bad = [&](const char* name, const std::string& value) {
    if (error.empty()) error = std::string(name) + "='" + value + "' is not a value it takes";
  };
  if (const std::string f = env("BANKCHECK_RUN_FORMAT"); !f.empty()) {
    try {
      report::parse_format(f, report::ReportKind::Check);
      o.format = f;
    } catch (const std::invalid_argument&) {
      bad("BANKCHECK_RUN_FORMAT", f);
    }
  }
  o.output = env("BANKCHECK_RUN_OUTPUT");
  if (const std::string c = env("BANKCHECK_RUN_COLOR"); !c.empty()) {
    if (c == "auto" || c == "always" || c == "never")
      o.color = c;
    else
      bad("BANKCHECK_RUN_COLOR", c);
  }
  if (const std::string n = env("BANKCHECK_RUN_COLUMNS"); !n.empty()) {
    char* end = nullptr;
    const long v = std::strtol(n.c_str(), &end, 10);
    if (end && *end == 0 && v >= 0 && v < 100000)
      o.columns = static_cast<int>(v);
    else
      bad("BANKCHECK_RUN_COLUMNS", n);
  }
  if (const std::string q = env("BANKCHECK_RUN_QUIET"); !q.empty()) {
    if (q == "0" || q == "1")
      o.quiet = q == "1";
    else
      bad("BANKCHECK_RUN_QUIET", q);
  }
  o.kernels = lines(env("BANKCHECK_RUN_KERNELS"));
  if (const std::string n = env("BANKCHECK_RUN_LAUNCHES"); !n.empty()) {
    if (n == "all") {
      o.launches = 0;
    } else {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(n.c_str(), &end, 10);
      if (end && *end == 0 && v > 0 && n[0] != '-')
        o.launches = v;
      else
        bad("BANKCHECK_RUN_LAUNCHES", n);
    }
  }
  if (const std::string r = env("BANKCHECK_RUN_REPEATS"); !r.empty()) {
    if (r == "skip" || r == "execute")
      o.skip_repeats = r == "skip";
    else
      bad("BANKCHECK_RUN_REPEATS", r);
  }
  if (const std::string t = env("BANKCHECK_RUN_TIER"); !t.empty()) {
    if (t == "fast" || t == "today")
      o.fast_tier = t == "fast";
    else
      bad("BANKCHECK_RUN_TIER", t);
  }
  o.fail_on = lines(env("BANKCHECK_RUN_FAIL_ON"));
  o.baseline = env("BANKCHECK_RUN_BASELINE");
  o.status = env("BANKCHECK_RUN_STATUS");
  if (const std::string t = env("BANKCHECK_RUN_THREADS"); !t.empty()) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(t.c_str(), &end, 10);
    if (end && *end == 0 && v <= 4096 && t[0] != '-')
      o.threads = static_cast<unsigned>(v);
    else
      bad("BANKCHECK_RUN_THREADS", t);
  }
  o.progress = env("BANKCHECK_RUN_PROGRESS") != "0";
  o.stop_on_fault = env("BANKCHECK_RUN_STOP_ON_FAULT") == "1";
  if (const std::string l = env("BANKCHECK_RUN_LEVEL"); !l.empty()) {
    if (l == "sass" || l == "ptx")
      o.sass = l == "sass";
    else
      bad("BANKCHECK_RUN_LEVEL", l);
  }
  o.nvcc = env("BANKCHECK_RUN_NVCC");
  o.program = env("BANKCHECK_RUN_PROGRAM");
  return o;
}

}  // namespace bankcheck::runtime
