// The table of views: each format's renderers of every command's report, and the format
// names parsed and listed from it.
#include "bankcheck/report/views.hpp"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

#include "bankcheck/report/explain_view.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/html_view.hpp"
#include "bankcheck/report/sarif_view.hpp"

namespace bankcheck::report {
namespace {

// SARIF carries, for each conflicting array, fix's best suggestion (sarif_fixes).
std::string sarif(const analysis::CheckReport& r, const analysis::FixReport* fix,
                  const TextOptions& o) {
  std::vector<SarifFix> fixes;
  if (fix) fixes = sarif_fixes(*fix);
  return json_text(check_to_sarif(r, &fixes, {.source_root = o.source_root, .working_dir = {}}));
}

constexpr View kViews[] = {
    {.format = Format::Text,
     .name = "text",
     .needs = {},
     .check = [](const analysis::CheckReport& r, const analysis::FixReport* fix,
                 const TextOptions& o) { return render_check_text(r, o, fix); },
     .files = [](const std::vector<FileResult>& f,
                 const TextOptions& o) { return render_files_text(f, o); },
     .refuses_files = {},
     .fix = [](const analysis::FixReport& r,
               const TextOptions& o) { return render_fix_text(r, o); },
     .explain = [](const analysis::ExplainResult& r,
                   const TextOptions& o) { return render_text(r, o.columns); },
     .occupancy = [](const model::Arch& a, const model::OccupancyInput& in,
                     const model::Occupancy& occ) { return render_occupancy_text(a, in, occ); }},
    {.format = Format::Json,
     .name = "json",
     .needs = {},
     .check =
         [](const analysis::CheckReport& r, const analysis::FixReport* fix, const TextOptions&) {
           // One shape whatever the number of files: `files` with one entry.
           return json_text(files_to_json({FileResult{r.input, &r, "", "", fix}}));
         },
     .files = [](const std::vector<FileResult>& f,
                 const TextOptions&) { return json_text(files_to_json(f)); },
     .refuses_files = {},
     .fix = [](const analysis::FixReport& r,
               const TextOptions&) { return json_text(fix_to_json(r)); },
     .explain = [](const analysis::ExplainResult& r,
                   const TextOptions&) { return json_text(to_json(r)); },
     .occupancy =
         [](const model::Arch& a, const model::OccupancyInput& in, const model::Occupancy& occ) {
           return json_text(occupancy_to_json(a, in, occ));
         }},
    {.format = Format::Sarif,
     .name = "sarif",
     .needs = {.fix = true},
     .check = [](const analysis::CheckReport& r, const analysis::FixReport* fix,
                 const TextOptions& o) { return sarif(r, fix, o); },
     .files =
         [](const std::vector<FileResult>& f, const TextOptions& o) {
           return json_text(files_to_sarif(f, {.source_root = o.source_root, .working_dir = {}}));
         },
     .refuses_files = {},
     .fix = [](const analysis::FixReport& r,
               const TextOptions& o) { return sarif(r.check, &r, o); },
     .explain = nullptr,
     .occupancy = nullptr},
    {.format = Format::Html,
     .name = "html",
     .needs = {},
     .check = [](const analysis::CheckReport& r, const analysis::FixReport*,
                 const TextOptions&) { return render_check_html(r); },
     .files = nullptr,
     .refuses_files = "one page per file",
     .fix = nullptr,
     .explain = nullptr,
     .occupancy = nullptr},
};

// The one comparison of formats: the row of `format`, or the table's size for none.
constexpr std::size_t row_of(Format format) {
  for (std::size_t i = 0; i < std::size(kViews); ++i)
    if (kViews[i].format == format) return i;
  return std::size(kViews);
}
static_assert(row_of(Format::Text) < std::size(kViews) &&
                  row_of(Format::Json) < std::size(kViews) &&
                  row_of(Format::Sarif) < std::size(kViews) &&
                  row_of(Format::Html) < std::size(kViews),
              "every format has its row in the table of views");

// "text, json or sarif": the names of the views `pick` keeps.
template <class Pick>
std::string names(Pick pick, std::string_view comma, std::string_view last) {
  std::vector<std::string_view> kept;
  for (const View& v : kViews)
    if (pick(v)) kept.push_back(v.name);
  std::string out;
  for (std::size_t i = 0; i < kept.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == kept.size() ? last : comma, kept[i]);
  return out;
}

}  // namespace

std::span<const View> views() { return kViews; }

const View& view(Format format) {
  const std::size_t row = row_of(format);
  if (row == std::size(kViews))
    throw std::logic_error(fmt::format("no view for format {}", static_cast<int>(format)));
  return kViews[row];
}

std::string_view format_name(Format format) { return view(format).name; }

bool renders(const View& v, ReportKind kind) {
  switch (kind) {
    case ReportKind::Check:
      return v.check != nullptr;
    case ReportKind::Fix:
      return v.fix != nullptr;
    case ReportKind::Explain:
      return v.explain != nullptr;
    case ReportKind::Occupancy:
      return v.occupancy != nullptr;
  }
  return false;
}

std::string format_choices(ReportKind kind) {
  return fmt::format("{{{}}}", names([&](const View& v) { return renders(v, kind); }, ",", ","));
}

Format parse_format(std::string_view name, ReportKind kind) {
  for (const View& v : kViews)
    if (v.name == name && renders(v, kind)) return v.format;
  throw std::invalid_argument(fmt::format("{} not in {}", name, format_choices(kind)));
}

std::string refuse_files(const View& v, std::size_t files) {
  if (v.files) return "";
  return fmt::format("{}; check the {} files one at a time (or use {})", v.refuses_files, files,
                     names([](const View& w) { return w.files != nullptr; }, ", ", " or "));
}

std::string json_text(const nlohmann::json& j) {
  // Source lines and file names are bytes: what is not UTF-8 becomes U+FFFD here instead
  // of stopping the dump.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace bankcheck::report
