// Several files' reports as one: text sections, a JSON array of single-file reports (the JSON
// shape of one file too), one
// SARIF run whose artifacts are renumbered across the files.
#include "bankcheck/report/files_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/fix_view.hpp"
#include "bankcheck/report/sarif_view.hpp"

namespace bankcheck::report {
namespace {

using nlohmann::json;

// Every artifactLocation.index under `j`, renumbered through `to`.
void renumber(json& j, const std::vector<int>& to) {
  if (j.is_object()) {
    if (auto it = j.find("artifactLocation"); it != j.end() && it->is_object())
      if (auto ix = it->find("index"); ix != it->end() && ix->is_number_integer()) {
        const int old = ix->get<int>();
        if (old >= 0 && static_cast<std::size_t>(old) < to.size())
          *ix = to[static_cast<std::size_t>(old)];
      }
    for (auto& [key, value] : j.items()) renumber(value, to);
  } else if (j.is_array()) {
    for (auto& value : j) renumber(value, to);
  }
}

}  // namespace

std::string render_files_text(const std::vector<FileResult>& files, const TextOptions& options) {
  std::string out;
  std::vector<const analysis::CheckReport*> reports;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileResult& f = files[i];
    if (f.report) reports.push_back(f.report);
    if (options.quiet) {  // the findings name their files; no sections, one summary
      TextOptions one = options;
      one.summary = files.size() == 1;
      if (f.report) out += render_check_text(*f.report, one, f.fix);
      continue;
    }
    if (i && !out.ends_with("\n\n")) out += "\n";
    const std::string shown = display_path(f.input, options.working_dir);
    out += fmt::format("== {} ({} of {}) ==\n", shown, i + 1, files.size());
    if (!f.note.empty()) out += fmt::format("{}: note: {}\n", shown, f.note);
    if (!f.error.empty())
      out += fmt::format("bankcheck: error: {}\n", f.error);
    else if (f.report && (!f.report->kernels.empty() || !f.report->unsupported.empty() ||
                          !f.report->not_run.empty()))
      out += render_check_text(*f.report, options, f.fix);
  }
  // The whole run's count after the files' own (quiet: when a finding was printed).
  const bool printed = std::any_of(reports.begin(), reports.end(),
                                   [](const auto* r) { return quiet_has_findings(*r); });
  if (files.size() > 1 && (!options.quiet || printed)) out += summary_line(reports) + "\n";
  return out;
}

json files_to_json(const std::vector<FileResult>& files) {
  json list = json::array();
  bool run = false, complete = true;  // bankcheck run: every file's report counted whole
  for (const FileResult& f : files) {
    if (f.report) {
      json one = check_to_json(*f.report);
      // With fix's report (bankcheck run): each kernel's suggestions.
      if (f.fix)
        for (std::size_t k = 0; k < one["kernels"].size(); ++k)
          one["kernels"][k]["fixes"] = kernel_fixes_json(*f.fix, k);
      list.push_back(one);
    } else
      list.push_back({{"input", f.input}, {"error", f.error}});
    if (f.report && f.report->process) {
      run = true;
      complete = complete && analysis::complete(*f.report);
    }
  }
  json j = {{"schema_version", kCheckJsonSchemaVersion},
            {"tool", {{"name", "bankcheck"}, {"version", tool_version()}}},
            {"files", list}};
  if (run) j["complete"] = complete;
  return j;
}

json files_to_sarif(const std::vector<FileResult>& files, const SarifOptions& options) {
  // The rules and the tool come from an empty report's log; each file adds its results.
  json log = check_to_sarif(analysis::CheckReport{}, nullptr, options);
  json& run = log["runs"][0];
  json artifacts = json::array(), results = json::array(), notifications = json::array();
  std::map<json, int> artifact_of;  // artifact location (uri, uriBaseId) -> index in the run
  json inputs = json::array();
  std::vector<std::string> archs;
  bool failed = false;
  for (const FileResult& f : files) {
    inputs.push_back(f.input);
    if (!f.report) {
      failed = true;
      // A file that could not be checked is an error on the one scale (the run exits 2).
      notifications.push_back(
          {{"level", severity_name(Severity::Error)},
           {"message", {{"text", f.error}}},
           {"locations",
            json::array({{{"physicalLocation",
                           {{"artifactLocation", artifact_location(f.input, options)}}}}})}});
      continue;
    }
    if (std::find(archs.begin(), archs.end(), f.report->arch->name) == archs.end())
      archs.push_back(f.report->arch->name);
    std::vector<SarifFix> fixes;
    if (f.fix) fixes = sarif_fixes(*f.fix);
    json one = check_to_sarif(*f.report, &fixes, options);
    json& r = one["runs"][0];
    std::vector<int> to;
    for (const json& a : r["artifacts"]) {
      auto [it, added] = artifact_of.emplace(a["location"], static_cast<int>(artifacts.size()));
      if (added) artifacts.push_back(a);
      to.push_back(it->second);
    }
    for (json& res : r["results"]) {
      renumber(res, to);
      results.push_back(std::move(res));
    }
  }
  run["artifacts"] = artifacts;
  run["results"] = results;
  // bankcheck run: an invocation per process of the job, with what its reports leave out; what
  // reports without a process leave out (launches that did not run) goes to the first.
  json invocations = json::array(), unowned = json::array();
  std::vector<std::int64_t> pids;
  const auto add_new = [](json& list, json&& n) {
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(std::move(n));
  };
  for (const FileResult& f : files) {
    if (!f.report) continue;
    if (!f.report->process) {
      for (json& n : sarif_incompleteness(*f.report)) add_new(unowned, std::move(n));
      continue;
    }
    const std::int64_t pid = f.report->process->pid;
    const auto at = std::find(pids.begin(), pids.end(), pid);
    if (at == pids.end()) {
      pids.push_back(pid);
      invocations.push_back(sarif_invocation(*f.report));
    } else {
      json& inv = invocations[static_cast<std::size_t>(at - pids.begin())];
      for (json& n : sarif_incompleteness(*f.report))
        add_new(inv["toolExecutionNotifications"], std::move(n));
    }
  }
  if (invocations.empty()) invocations.push_back({{"executionSuccessful", true}});
  json& first = invocations[0];
  if (failed) first["executionSuccessful"] = false;
  for (json& n : notifications) first["toolExecutionNotifications"].push_back(std::move(n));
  for (json& n : unowned) first["toolExecutionNotifications"].push_back(std::move(n));
  run["invocations"] = invocations;
  json props = {{"inputs", inputs}};
  if (archs.size() == 1)
    props["arch"] = archs[0];
  else if (!archs.empty())
    props["archs"] = archs;
  run["properties"] = props;
  return log;
}

}  // namespace bankcheck::report
