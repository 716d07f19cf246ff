// A report as data and back (report_data.hpp): each structure's fields listed once (`fields`),
// written by one visitor and read by another.
#include "bankcheck/report/report_data.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/model/arch.hpp"

namespace bankcheck::report {
namespace {

using nlohmann::json;

// The field list of one structure, for a const (writing) or a mutable one (reading).
#define BANKCHECK_FIELDS(T)                          \
  template <class S, class V>                        \
  requires std::is_same_v<std::remove_const_t<S>, T> \
  void fields(S& s, V& v)

BANKCHECK_FIELDS(ptx::SourcePos) {
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
}

BANKCHECK_FIELDS(analysis::QuotedLine) {
  v("file", s.file);
  v("line", s.line);
  v("text", s.text);
}

BANKCHECK_FIELDS(model::Dim3) {
  v("x", s.x);
  v("y", s.y);
  v("z", s.z);
}

BANKCHECK_FIELDS(model::WarpAccess) {
  v("op", s.op);
  v("width", s.width);
  v("active", s.active);
  v("addr", s.addr);
}

BANKCHECK_FIELDS(model::Verdict) {
  v("wavefronts", s.wavefronts);
  v("ideal_wavefronts", s.ideal_wavefronts);
  v("ways", s.ways);
  v("error", s.error);
  v("error_lane", s.error_lane);
}

BANKCHECK_FIELDS(analysis::SiteStats) {
  v("seen", s.seen);
  v("space", s.space);
  v("op", s.op);
  v("width", s.width);
  v("requests", s.requests);
  v("wavefronts", s.wavefronts);
  v("ideal_wavefronts", s.ideal_wavefronts);
  v("ways", s.ways);
  v("sectors", s.sectors);
  v("ideal_sectors", s.ideal_sectors);
  v("lines128", s.lines128);
  v("has_worst_global", s.has_worst_global);
  if (s.has_worst_global) {
    v("worst_global_mask", s.worst_global_mask);
    v("worst_global_sectors", s.worst_global_sectors);
    v("worst_global_ideal", s.worst_global_ideal);
    v("worst_global_addr", s.worst_global_addr);
    v("worst_global_cta", s.worst_global_cta);
    v("worst_global_warp", s.worst_global_warp);
  }
  v("has_worst", s.has_worst);
  if (s.has_worst) {
    v("worst", s.worst);
    v("worst_verdict", s.worst_verdict);
    v("worst_kind", s.worst_kind);
    v("worst_cta", s.worst_cta);
    v("worst_warp", s.worst_warp);
  }
}

BANKCHECK_FIELDS(analysis::PointerSource) {
  v("space", s.space);
  v("offset", s.offset);
}

BANKCHECK_FIELDS(analysis::ArgReport) {
  v("name", s.name);
  v("value", s.value);
  v("defaulted", s.defaulted);
  v("is_buffer", s.is_buffer);
  v("bytes", s.bytes);
  v("touched", s.touched);
  v("has_pointer", s.has_pointer);
  v("pointer", s.pointer);
  v("zero_filled", s.zero_filled);
  v("is_variable", s.is_variable);
}

BANKCHECK_FIELDS(analysis::NoteReport) {
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
  v("message", s.message);
}

BANKCHECK_FIELDS(analysis::FaultReport) {
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
  v("ptx_line", s.ptx_line);
  v("access", s.access);
  v("size", s.size);
  v("address", s.address);
  v("block", s.block);
  v("thread", s.thread);
  v("lanes", s.lanes);
}

BANKCHECK_FIELDS(analysis::UnwrittenReadReport) {
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
}

BANKCHECK_FIELDS(analysis::SiteReport) {
  v("site", s.site);
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
  v("ptx_line", s.ptx_line);
  v("ptx", s.ptx);
  v("stats", s.stats);
  v("sass", s.sass);
  v("rewritten", s.rewritten);
  if (s.rewritten) v("ptx_stats", s.ptx_stats);
  v("inlined", s.inlined);
  v("nsight_lines", s.nsight_lines);
  v("stack", s.stack);
}

BANKCHECK_FIELDS(analysis::GlobalPattern) {
  v("kind", s.kind);
  v("stride", s.stride);
  v("offset", s.offset);
  v("run", s.run);
  v("pitch", s.pitch);
}

BANKCHECK_FIELDS(analysis::LineReport) {
  v("file", s.file);
  v("line", s.line);
  v("col", s.col);
  v("space", s.space);
  v("op", s.op);
  v("width", s.width);
  v("sites", s.sites);
  v("requests", s.requests);
  v("wavefronts", s.wavefronts);
  v("ideal_wavefronts", s.ideal_wavefronts);
  v("sectors", s.sectors);
  v("ideal_sectors", s.ideal_sectors);
  v("lines128", s.lines128);
  v("ways", s.ways);
  v("sass", s.sass);
  v("rewritten", s.rewritten);
  v("ptx_sites", s.ptx_sites);
  v("ptx_width", s.ptx_width);
  v("ptx_requests", s.ptx_requests);
  v("ptx_wavefronts", s.ptx_wavefronts);
  v("ptx_ideal_wavefronts", s.ptx_ideal_wavefronts);
  v("ptx_ways", s.ptx_ways);
  v("worst_site", s.worst_site);
  v("worst_global_site", s.worst_global_site);
  v("pattern", s.pattern);
}

BANKCHECK_FIELDS(analysis::SettingSource) {
  v("setting", s.setting);
  v("from", s.from);
  v("where", s.where);
  v("expr", s.expr);
}

BANKCHECK_FIELDS(ptx::SharedVar) {
  v("name", s.name);
  v("offset", s.offset);
  v("bytes", s.bytes);
  v("align", s.align);
  v("is_extern", s.is_extern);
}

BANKCHECK_FIELDS(analysis::AnalysisCounts) {
  v("analysis", s.analysis);
  v("counts", s.counts);
}

BANKCHECK_FIELDS(analysis::LaunchSummary) {
  v("grid", s.grid);
  v("block", s.block);
  v("dynamic_smem", s.dynamic_smem);
  v("launches", s.launches);
  v("analysed", s.analysed);
  v("skipped", s.skipped);
  v("analysed_ids", s.analysed_ids);
}

BANKCHECK_FIELDS(analysis::IncompleteLaunch) {
  v("id", s.id);
  v("reason", s.reason);
}

BANKCHECK_FIELDS(analysis::KernelReport) {
  v("name", s.name);
  v("mangled", s.mangled);
  v("signature", s.signature);
  v("grid", s.grid);
  v("block", s.block);
  v("dynamic_smem", s.dynamic_smem);
  v("static_smem", s.static_smem);
  v("ctas_total", s.ctas_total);
  v("ctas_analysed", s.ctas_analysed);
  v("warp_instructions", s.warp_instructions);
  v("seconds", s.seconds);
  v("args", s.args);
  v("settings_from", s.settings_from);
  v("sites", s.sites);
  v("folded_sites", s.folded_sites);
  v("removed_sites", s.removed_sites);
  v("lines", s.lines);
  v("notes", s.notes);
  v("unwritten_shared_reads", s.unwritten_shared_reads);
  v("faults", s.faults);
  v("shared_wavefronts", s.shared_wavefronts);
  v("shared_ideal_wavefronts", s.shared_ideal_wavefronts);
  v("shared_vars", s.shared_vars);
  v("analyses", s.analyses);
  v("launches", s.launches);
  v("incomplete", s.incomplete);
}

BANKCHECK_FIELDS(ptx::RefusedFamily) {
  v("family", s.family);
  v("reason", s.reason);
  v("count", s.count);
  v("ptx_line", s.ptx_line);
  v("ptx", s.ptx);
  v("pos", s.pos);
}

BANKCHECK_FIELDS(analysis::UnsupportedKernelReport) {
  v("name", s.name);
  v("reason", s.reason);
  v("file", s.file);
  v("line", s.line);
  v("ptx_line", s.ptx_line);
  v("ptx", s.ptx);
  v("selected", s.selected);
  v("col", s.col);
  v("families", s.families);
}

BANKCHECK_FIELDS(analysis::NotRunReport) {
  v("library", s.library);
  v("name", s.name);
  v("mangled", s.mangled);
  v("reason", s.reason);
  v("launches", s.launches);
  v("call_site", s.call_site);
  v("error", s.error);
}

BANKCHECK_FIELDS(analysis::ProcessInfo) {
  v("pid", s.pid);
  v("ppid", s.ppid);
  v("command", s.command);
  v("rank", s.rank);
  v("rank_variable", s.rank_variable);
  v("local_rank", s.local_rank);
  v("root", s.root);
  v("ending", s.ending);
  v("exit_code", s.exit_code);
  v("signal", s.signal);
  v("incomplete", s.incomplete);
}

BANKCHECK_FIELDS(analysis::CheckReport) {
  v("input", s.input);
  v("files", s.files);
  v("main_file", s.main_file);
  v("source_lines", s.source_lines);
  v("quoted_lines", s.quoted_lines);
  v.arch("arch", s.arch);
  v("level", s.level);
  v("level_reason", s.level_reason);
  v("kernels", s.kernels);
  v("unsupported", s.unsupported);
  v("not_run", s.not_run);
  v("process", s.process);
}

// fix's advice (analysis/fix.hpp, analysis/global_fix.hpp), which a running program's side
// makes at its exit for bankcheck to render (fixes_to_data).
BANKCHECK_FIELDS(model::Occupancy) {
  v("error", s.error);
  v("blocks_per_sm", s.blocks_per_sm);
  v("warps_per_sm", s.warps_per_sm);
  v("max_warps_per_sm", s.max_warps_per_sm);
  v("occupancy", s.occupancy);
  v("limiter", s.limiter);
  v("limiter_mask", s.limiter_mask);
  v("limit_warps", s.limit_warps);
  v("limit_blocks", s.limit_blocks);
  v("limit_registers", s.limit_registers);
  v("limit_shared", s.limit_shared);
  v("warps_per_block", s.warps_per_block);
  v("registers_per_warp", s.registers_per_warp);
  v("registers_per_block", s.registers_per_block);
  v("shared_bytes_per_block", s.shared_bytes_per_block);
  v("preferred_carveout_bytes", s.preferred_carveout_bytes);
  v("carveout_bytes", s.carveout_bytes);
}

BANKCHECK_FIELDS(analysis::SharedDecl) {
  v("line", s.line);
  v("text", s.text);
  v("type", s.type);
  v("name", s.name);
  v("dims", s.dims);
  v("dim_values", s.dim_values);
  v("last_dim_begin", s.last_dim_begin);
  v("last_dim_on_line", s.last_dim_on_line);
  v("last_dim_end", s.last_dim_end);
  v("kernel_end", s.kernel_end);
  v("record", s.record);
  v("record_close_line", s.record_close_line);
  v("record_close_col", s.record_close_col);
  v("record_close_text", s.record_close_text);
  v("member_of", s.member_of);
  v("is_union", s.is_union);
}

BANKCHECK_FIELDS(analysis::Geometry) {
  v("elem_bytes", s.elem_bytes);
  v("row_bytes", s.row_bytes);
  v("rows", s.rows);
  v("unit", s.unit);
  v("source", s.source);
  v("record", s.record);
}

BANKCHECK_FIELDS(analysis::Remap) {
  v("kind", s.kind);
  v("pad", s.pad);
  v("bits", s.bits);
  v("base", s.base);
  v("shift", s.shift);
  v("site", s.site);
  v("width", s.width);
  v("unit", s.unit);
  v("split", s.split);
  v("unpad", s.unpad);
  v("stride", s.stride);
}

BANKCHECK_FIELDS(analysis::CodeEdit) {
  v("line", s.line);
  v("before", s.before);
  v("after", s.after);
}

BANKCHECK_FIELDS(analysis::SiteChange) {
  v("site", s.site);
  v("line", s.line);
  v("op", s.op);
  v("width", s.width);
  v("requests", s.requests);
  v("wavefronts_before", s.wavefronts_before);
  v("wavefronts_after", s.wavefronts_after);
  v("sass_width_after", s.sass_width_after);
}

BANKCHECK_FIELDS(analysis::Suggestion) {
  v("remap", s.remap);
  v("declaration", s.declaration);
  v("subscript", s.subscript);
  v("line_subscripts", s.line_subscripts);
  v("edits", s.edits);
  v("wavefronts_before", s.wavefronts_before);
  v("wavefronts_after", s.wavefronts_after);
  v("ideal_wavefronts", s.ideal_wavefronts);
  v("requests_before", s.requests_before);
  v("requests_after", s.requests_after);
  v("bytes_before", s.bytes_before);
  v("bytes_after", s.bytes_after);
  v("occupancy_before", s.occupancy_before);
  v("occupancy_after", s.occupancy_after);
  v("occupancy_known", s.occupancy_known);
  v("sites", s.sites);
  v("applicable", s.applicable);
}

BANKCHECK_FIELDS(analysis::DataDependence) {
  v("site", s.site);
  v("line", s.line);
  v("op", s.op);
  v("load_file", s.load_file);
  v("load_line", s.load_line);
  v("load_global", s.load_global);
  v("merged", s.merged);
  v("excess", s.excess);
}

BANKCHECK_FIELDS(analysis::ArrayFix) {
  v("name", s.name);
  v("symbol", s.symbol);
  v("offset", s.offset);
  v("bytes", s.bytes);
  v("is_extern", s.is_extern);
  v("decl", s.decl);
  v("geometry", s.geometry);
  v("sites", s.sites);
  v("widest_access", s.widest_access);
  v("requests", s.requests);
  v("wavefronts", s.wavefronts);
  v("ideal_wavefronts", s.ideal_wavefronts);
  v("error", s.error);
  v("data_dependent", s.data_dependent);
  v("suggestions", s.suggestions);
}

BANKCHECK_FIELDS(analysis::GlobalEdit) {
  v("line", s.line);
  v("before", s.before);
  v("after", s.after);
}

BANKCHECK_FIELDS(analysis::GlobalFix) {
  v("kind", s.kind);
  v("file", s.file);
  v("line", s.line);
  v("op", s.op);
  v("width", s.width);
  v("sites", s.sites);
  v("requests", s.requests);
  v("sectors", s.sectors);
  v("ideal_sectors", s.ideal_sectors);
  v("requests_after", s.requests_after);
  v("sectors_after", s.sectors_after);
  v("stride", s.stride);
  v("vector_bytes", s.vector_bytes);
  v("elements", s.elements);
  v("pitch", s.pitch);
  v("pitch_after", s.pitch_after);
  v("misalign", s.misalign);
  v("block", s.block);
  v("why_not_code", s.why_not_code);
  v("pointer", s.pointer);
  v("edits", s.edits);
  v("code_note", s.code_note);
  v("shared_bytes", s.shared_bytes);
  v("applicable", s.applicable);
}

BANKCHECK_FIELDS(analysis::KernelFix) {
  v("kernel", s.kernel);
  v("threads", s.threads);
  v("registers", s.registers);
  v("static_smem", s.static_smem);
  v("dynamic_smem", s.dynamic_smem);
  v("occupancy", s.occupancy);
  v("occupancy_known", s.occupancy_known);
  v("occupancy_note", s.occupancy_note);
  v("recorded_requests", s.recorded_requests);
  v("dropped_requests", s.dropped_requests);
  v("arrays", s.arrays);
  v("unattributed_requests", s.unattributed_requests);
  v("globals", s.globals);
}

#undef BANKCHECK_FIELDS

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

struct Writer {
  json& out;

  template <class T>
  static json to(const T& x) {
    if constexpr (std::is_enum_v<T>) {
      return static_cast<std::int64_t>(x);
    } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
      return x;
    } else if constexpr (std::is_array_v<T>) {
      json a = json::array();
      for (const auto& e : x) a.push_back(to(e));
      return a;
    } else if constexpr (IsVector<T>::value) {
      json a = json::array();
      for (const auto& e : x) a.push_back(to(e));
      return a;
    } else if constexpr (IsOptional<T>::value) {
      return x ? to(*x) : json(nullptr);
    } else if constexpr (IsPair<T>::value) {
      return json::array({to(x.first), to(x.second)});
    } else {
      json o = json::object();
      Writer w{o};
      fields(x, w);
      return o;
    }
  }
  template <class T>
  void operator()(const char* name, const T& x) {
    out[name] = to(x);
  }
  void arch(const char* name, const model::Arch* a) {
    out[name] = a ? std::string(a->name) : std::string(model::kDefaultArch.name);
  }
};

struct Reader {
  const json& in;
  const std::string& path;

  [[noreturn]] static void bad(const std::string& where, const char* want) {
    throw std::invalid_argument(fmt::format("{}: not {}", where, want));
  }

  template <class T>
  static void from(const json& j, T& x, const std::string& where) {
    if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) bad(where, "true or false");
      x = j.get<bool>();
    } else if constexpr (std::is_enum_v<T>) {
      if (!j.is_number_integer()) bad(where, "a number");
      x = static_cast<T>(j.get<std::int64_t>());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!j.is_number()) bad(where, "a number");
      x = j.get<T>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!j.is_number_integer()) bad(where, "an integer");
      x = j.get<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!j.is_string()) bad(where, "a string");
      x = j.get<std::string>();
    } else if constexpr (std::is_array_v<T>) {
      if (!j.is_array() || j.size() != std::extent_v<T>) bad(where, "an array of its length");
      for (std::size_t i = 0; i < std::extent_v<T>; ++i)
        from(j[i], x[i], fmt::format("{}[{}]", where, i));
    } else if constexpr (IsVector<T>::value) {
      if (!j.is_array()) bad(where, "an array");
      x.clear();
      x.resize(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) from(j[i], x[i], fmt::format("{}[{}]", where, i));
    } else if constexpr (IsOptional<T>::value) {
      if (j.is_null()) {
        x.reset();
      } else {
        x.emplace();
        from(j, *x, where);
      }
    } else if constexpr (IsPair<T>::value) {
      if (!j.is_array() || j.size() != 2) bad(where, "a pair");
      from(j[0], x.first, where + "[0]");
      from(j[1], x.second, where + "[1]");
    } else {
      if (!j.is_object()) bad(where, "an object");
      Reader r{j, where};
      fields(x, r);
    }
  }
  template <class T>
  void operator()(const char* name, T& x) {
    const auto it = in.find(name);
    if (it == in.end()) bad(path + "." + name, "there");
    from(*it, x, path + "." + name);
  }
  void arch(const char* name, const model::Arch*& a) {
    std::string n;
    (*this)(name, n);
    a = model::find_arch(n);
    if (!a) bad(path + "." + name, "an architecture bankcheck knows");
  }
};

}  // namespace

json report_to_data(const analysis::CheckReport& report) {
  json j = Writer::to(report);
  j["version"] = kReportDataVersion;
  return j;
}

json fixes_to_data(const std::vector<analysis::KernelFix>& fixes) {
  json j = Writer::to(fixes);
  return {{"version", kReportDataVersion}, {"kernels", j}};
}

std::vector<analysis::KernelFix> fixes_from_data(const json& data, const std::string& what) {
  if (!data.is_object() || data.value("version", 0) != kReportDataVersion ||
      !data.contains("kernels"))
    throw std::invalid_argument(
        fmt::format("{}: not fix advice of this bankcheck (version {})", what, kReportDataVersion));
  std::vector<analysis::KernelFix> out;
  Reader::from(data.at("kernels"), out, what + ".kernels");
  return out;
}

analysis::CheckReport report_from_data(const json& data, const std::string& what) {
  if (!data.is_object() || data.value("version", 0) != kReportDataVersion)
    throw std::invalid_argument(
        fmt::format("{}: not a report of this bankcheck (version {})", what, kReportDataVersion));
  analysis::CheckReport r;
  Reader::from(data, r, what);
  // The worst requests' schedules, as analysis::total() made them.
  for (auto& k : r.kernels)
    for (auto& s : k.sites)
      if (s.stats.has_worst && analysis::worst_pictured(s.stats))
        model::analyze(s.stats.worst, *r.arch, &s.worst_schedule);
  return r;
}

}  // namespace bankcheck::report
