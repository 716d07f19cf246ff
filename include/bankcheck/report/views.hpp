// The output formats and their views, in one table: per format its name, how it renders
// each command's report (or that the command does not offer it), how `check` renders
// several files with it (or why it refuses them), and which analyses it needs besides the
// check, declared as data for the command to run. The commands look a format up here;
// nothing else compares formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/analysis/check.hpp"
#include "bankcheck/analysis/explain.hpp"
#include "bankcheck/analysis/fix.hpp"
#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/occupancy.hpp"
#include "bankcheck/report/check_view.hpp"  // TextOptions
#include "bankcheck/report/files_view.hpp"  // FileResult

namespace bankcheck::report {

enum class Format : std::uint8_t { Text, Json, Sarif, Html };

// The reports a format may render, one per command that has --format.
enum class ReportKind : std::uint8_t { Check, Fix, Explain, Occupancy };

// What a view shows beyond the check's report. The command runs it before rendering; a
// view never runs an analysis.
struct Needs {
  bool fix = false;  // fix's suggestions for each conflicting array (driver::fix's report)
};

struct View {
  Format format;
  std::string_view name;  // as --format spells it
  Needs needs;
  // `check`, one file: its report, with fix's report when needs.fix (else nullptr).
  std::string (*check)(const analysis::CheckReport& report, const analysis::FixReport* fix,
                       const TextOptions& options);
  // `check`, several files (FileResult::fix set when needs.fix); nullptr: refused, for the
  // reason `refuses_files` gives.
  std::string (*files)(const std::vector<FileResult>& files, const TextOptions& options);
  std::string_view refuses_files;
  // `fix`, `explain`, `occupancy`: nullptr where the command does not offer the format.
  std::string (*fix)(const analysis::FixReport& report, const TextOptions& options);
  std::string (*explain)(const analysis::ExplainResult& result, const TextOptions& options);
  std::string (*occupancy)(const model::Arch& arch, const model::OccupancyInput& in,
                           const model::Occupancy& occupancy);
};

// Every format's view, in the order help texts list them: text, json, sarif, html.
std::span<const View> views();

const View& view(Format format);
std::string_view format_name(Format format);

// Whether `v` renders reports of `kind`.
bool renders(const View& v, ReportKind kind);

// The formats that render `kind`, as CLI11 lists choices: "{text,json,sarif,html}".
std::string format_choices(ReportKind kind);

// The format named `name` among those that render `kind`. Throws std::invalid_argument
// "xml not in {text,json,sarif,html}" (the choices of format_choices) for any other name.
Format parse_format(std::string_view name, ReportKind kind);

// Why `check` cannot put `files` files into one report of format `v`: "one page per file;
// check the 3 files one at a time (or use text, json or sarif)"; empty when it can.
std::string refuse_files(const View& v, std::size_t files);

// A report's JSON text, indented by 2, with bytes that are not UTF-8 written as U+FFFD.
std::string json_text(const nlohmann::json& j);

}  // namespace bankcheck::report
