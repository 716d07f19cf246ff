// The options of `bankcheck run` in the job's options file (run_options.hpp): one table of
// fields (each_field), read and written by the same two visitors.
#include "bankcheck/runtime/run_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "bankcheck/report/views.hpp"

namespace bankcheck::runtime {
namespace {

using nlohmann::json;

struct Choices {
  std::vector<std::string_view> names;  // empty: any value
};
const Choices kAny{};
const Choices kColors{{"auto", "always", "never"}};

// The protocol's table: every option, its name in the file and its type (the visitor's
// overload). Formats are the views table's names, checked where read.
template <class Options, class Visit>
void each_field(Options& o, Visit&& v) {
  v("format", o.format, kAny);
  v("output", o.output, kAny);
  v("color", o.color, kColors);
  v("columns", o.columns);
  v("quiet", o.quiet);
  v("kernels", o.selection.kernels);
  v("kernel_name_base", o.selection.name_base);
  v("filter_mode", o.selection.mode);
  v("launch_skip", o.selection.skip);
  v("launch_count", o.selection.count);
  v("launches", o.selection.launches);
  v("nvtx_include", o.selection.nvtx_include);
  v("nvtx_exclude", o.selection.nvtx_exclude);
  v("skip_repeats", o.skip_repeats);
  v("fast_tier", o.fast_tier);
  v("native", o.native);
  v("fail_on", o.fail_on);
  v("baseline", o.baseline, kAny);
  v("threads", o.threads);
  v("progress", o.progress);
  v("sass", o.sass);
  v("stop_on_fault", o.stop_on_fault);
  v("nvcc", o.nvcc, kAny);
  v("program", o.program, kAny);
  v("fix_suggest", o.fix.suggest);
  v("fix_report", o.fix.report);
  v("fix_top", o.fix.top);
  v("fix_apply", o.fix.apply);
  v("fix_apply_to", o.fix.apply_to, kAny);
  v("fix_force", o.fix.force);
  v("fix_command", o.fix.command, kAny);
  v("working_dir", o.working_dir, kAny);
}

struct Writer {
  json& j;
  void operator()(const char* name, const std::string& s, const Choices&) { j[name] = s; }
  void operator()(const char* name, const std::vector<std::string>& v) { j[name] = v; }
  void operator()(const char* name, bool b) { j[name] = b; }
  void operator()(const char* name, int n) { j[name] = n; }
  void operator()(const char* name, unsigned n) { j[name] = n; }
  void operator()(const char* name, std::uint64_t n) { j[name] = n; }
  void operator()(const char* name, const std::optional<std::uint64_t>& n) {
    j[name] = n ? json(*n) : json(nullptr);
  }
  void operator()(const char* name, FilterMode m) { j[name] = filter_mode_name(m); }
  void operator()(const char* name, KernelNameBase b) { j[name] = kernel_name_base_name(b); }
};

struct Reader {
  const json& j;
  std::string& error;
  const json* get(const char* name) {
    const auto it = j.find(name);
    return it == j.end() ? nullptr : &*it;
  }
  void bad(const char* name, const json& value, const char* want) {
    if (error.empty())
      error = std::string("the option '") + name + "' is " + value.dump() + ", not " + want;
  }
  void operator()(const char* name, std::string& s, const Choices& c) {
    const json* v = get(name);
    if (!v) return;
    if (!v->is_string()) return bad(name, *v, "a string");
    const std::string t = v->get<std::string>();
    if (!c.names.empty() && std::find(c.names.begin(), c.names.end(), t) == c.names.end())
      return bad(name, *v, "one of the values it takes");
    s = t;
  }
  void operator()(const char* name, std::vector<std::string>& out) {
    const json* v = get(name);
    if (!v) return;
    std::vector<std::string> got;
    if (!v->is_array()) return bad(name, *v, "a list of strings");
    for (const json& e : *v) {
      if (!e.is_string()) return bad(name, *v, "a list of strings");
      got.push_back(e.get<std::string>());
    }
    out = std::move(got);
  }
  void operator()(const char* name, bool& b) {
    const json* v = get(name);
    if (!v) return;
    if (!v->is_boolean()) return bad(name, *v, "true or false");
    b = v->get<bool>();
  }
  template <class N>
  bool count(const char* name, const json& v, N& n, std::uint64_t most) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > most) {
      bad(name, v, "a count");
      return false;
    }
    n = static_cast<N>(v.get<std::uint64_t>());
    return true;
  }
  void operator()(const char* name, int& n) {
    if (const json* v = get(name)) count(name, *v, n, 100000);
  }
  void operator()(const char* name, unsigned& n) {
    if (const json* v = get(name)) count(name, *v, n, 4096);
  }
  void operator()(const char* name, std::uint64_t& n) {
    if (const json* v = get(name)) count(name, *v, n, ~0ull);
  }
  void operator()(const char* name, std::optional<std::uint64_t>& n) {
    const json* v = get(name);
    if (!v) return;
    if (v->is_null()) {
      n.reset();
      return;
    }
    std::uint64_t x = 0;
    if (count(name, *v, x, ~0ull)) n = x;
  }
  void operator()(const char* name, FilterMode& m) {
    const json* v = get(name);
    if (!v) return;
    const auto p = v->is_string() ? parse_filter_mode(v->get<std::string>()) : std::nullopt;
    if (!p) return bad(name, *v, "per-launch-config or global");
    m = *p;
  }
  void operator()(const char* name, KernelNameBase& b) {
    const json* v = get(name);
    if (!v) return;
    const auto p = v->is_string() ? parse_kernel_name_base(v->get<std::string>()) : std::nullopt;
    if (!p) return bad(name, *v, "function, demangled or mangled");
    b = *p;
  }
};

}  // namespace

json run_options_to_json(const RunOptions& o) {
  json j = json::object();
  each_field(o, Writer{j});
  return j;
}

RunOptions run_options_from_json(const json& j, std::string& error) {
  RunOptions o;
  if (!j.is_object()) {
    error = "the options are not a JSON object";
    return o;
  }
  each_field(o, Reader{j, error});
  try {
    report::parse_format(o.format, report::ReportKind::Check);
  } catch (const std::invalid_argument& e) {
    if (error.empty()) error = std::string("the option 'format': ") + e.what();
    o.format = "text";
  }
  return o;
}

void write_run_options(const std::string& job, const RunOptions& o) {
  const std::string path = job + "/" + kOptionsFile;
  std::ofstream f(path, std::ios::trunc);
  f << run_options_to_json(o).dump(1) << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path);
}

RunOptions run_options_from_environment(std::string& error) {
  const char* job = std::getenv(kJobVariable);
  if (!job || !*job) return {};
  const std::string path = std::string(job) + "/" + kOptionsFile;
  std::ifstream f(path);
  json j;
  try {
    j = json::parse(f);
  } catch (const json::exception&) {
    error = "cannot read " + path + " (bankcheck run's options for this program)";
    return {};
  }
  RunOptions o = run_options_from_json(j, error);
  o.job = job;
  const char* root = std::getenv(kRootVariable);
  o.root = root && std::strtoll(root, nullptr, 10) == ::getpid();
  return o;
}

}  // namespace bankcheck::runtime
