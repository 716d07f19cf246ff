// Suppression comments: read from the source, matched against the findings.
#include "bankcheck/report/suppressions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace bankcheck::report {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

constexpr std::string_view kMarker = "bankcheck:";

bool known_rule(const std::string& id) {
  for (FindingKind k : {FindingKind::BankConflict, FindingKind::UncoalescedGlobal,
                        FindingKind::MisalignedGlobal})
    if (id == rule_id(k)) return true;
  return false;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (blank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  // A block comment's close, where the marker was written in one.
  return std::string(s);
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

}  // namespace

bool is_suppression(std::string_view after_marker) {
  while (!after_marker.empty() && blank(after_marker.front())) after_marker.remove_prefix(1);
  return after_marker.starts_with("ignore");
}

void parse_suppressions(const std::vector<std::string>& lines, int file,
                        std::vector<Suppression>& out, std::vector<SuppressionNote>& notes) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const int line_no = static_cast<int>(i) + 1;
    for (std::size_t p = line.find("//"); p != std::string_view::npos; p = line.find("//", p + 1)) {
      std::size_t q = p + 2;
      while (q < line.size() && blank(line[q])) ++q;
      if (!line.substr(q).starts_with(kMarker)) continue;
      std::size_t w = q + kMarker.size();
      if (!is_suppression(line.substr(w))) break;  // launch settings, read by the driver
      while (blank(line[w])) ++w;
      std::size_t e = w;
      while (e < line.size() && !blank(line[e]) && line[e] != '[') ++e;
      const std::string_view word = line.substr(w, e - w);
      Suppression s;
      s.file = file;
      s.line = line_no;
      s.col = static_cast<int>(p) + 1;
      const auto note = [&](Severity sev, std::string message) {
        notes.push_back({file, line_no, s.col, sev, std::move(message)});
      };
      if (word == "ignore") {
        s.target = line_no;
      } else if (word == "ignore-next-line") {
        s.target = line_no + 1;
      } else {
        note(Severity::Warning,
             fmt::format("unknown suppression '{}'; expected 'ignore REASON' or "
                         "'ignore-next-line REASON' (the comment accepts nothing)",
                         word));
        break;
      }
      if (e < line.size() && line[e] == '[') {
        const std::size_t close = line.find(']', e);
        if (close == std::string_view::npos) {
          note(Severity::Warning,
               "no ']' after the rule ids of 'ignore[' (the comment accepts nothing)");
          break;
        }
        std::string_view ids = line.substr(e + 1, close - e - 1);
        bool bad = false;
        while (true) {
          const std::size_t comma = ids.find(',');
          const std::string id = trim(ids.substr(0, comma));
          if (!known_rule(id)) {
            note(Severity::Warning,
                 fmt::format("unknown rule '{}' in '{}[...]'; expected bank-conflict, "
                             "uncoalesced-global-access or misaligned-global-access (the comment "
                             "accepts nothing)",
                             id, word));
            bad = true;
          }
          s.rules.push_back(id);
          if (comma == std::string_view::npos) break;
          ids.remove_prefix(comma + 1);
        }
        if (bad) break;
        e = close + 1;
      }
      std::string reason = trim(line.substr(e));
      if (reason.ends_with("*/")) reason = trim(reason.substr(0, reason.size() - 2));
      s.reason = reason;
      if (s.reason.empty())
        note(Severity::Warning,
             fmt::format("suppression without a reason: write why the finding is accepted "
                         "after '{}' (the comment still applies)",
                         word));
      out.push_back(std::move(s));
      break;
    }
  }
}

std::vector<Finding> findings(const analysis::CheckReport& r, std::vector<Suppression>& sups,
                              std::vector<SuppressionNote>& notes) {
  std::vector<Finding> all = raw_findings(r);
  // The files to read: the main file (its source is in the report) and each other file
  // a line of the report is in.
  std::set<int> files;
  for (const auto& k : r.kernels)
    for (const auto& l : k.lines) files.insert(l.file);
  files.insert(r.main_file);
  for (int f : files) {
    if (f == r.main_file && !r.source_lines.empty()) {
      parse_suppressions(r.source_lines, f, sups, notes);
      continue;
    }
    if (f == r.main_file) continue;
    const std::string path = source_path(r, f);
    if (!path.empty()) parse_suppressions(read_lines(path), f, sups, notes);
  }
  if (sups.empty()) return all;
  for (Finding& fd : all)
    for (Suppression& s : sups) {
      if (s.file != fd.file || s.target != fd.line) continue;
      if (!s.rules.empty() &&
          std::find(s.rules.begin(), s.rules.end(), rule_id(fd.kind)) == s.rules.end())
        continue;
      ++s.used;
      if (!fd.suppressed) {
        fd.suppressed = true;
        fd.justification = s.reason;
      }
    }
  for (const Suppression& s : sups)
    if (!s.used)
      notes.push_back({s.file, s.line, s.col, Severity::Note,
                       fmt::format("this suppression matches no finding on line {}{}: remove it",
                                   s.target,
                                   s.rules.empty() ? ""
                                                   : fmt::format(" (rules: {})",
                                                                 fmt::join(s.rules, ", ")))});
  std::stable_sort(notes.begin(), notes.end(), [](const auto& a, const auto& b) {
    return std::tie(a.file, a.line, a.col) < std::tie(b.file, b.line, b.col);
  });
  return all;
}

std::vector<Finding> findings(const analysis::CheckReport& r) {
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> notes;
  return findings(r, sups, notes);
}

std::vector<SuppressionNote> suppression_notes(const analysis::CheckReport& r) {
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> notes;
  findings(r, sups, notes);
  return notes;
}

}  // namespace bankcheck::report
