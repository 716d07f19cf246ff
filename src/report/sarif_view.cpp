// SARIF 2.1.0 log of a checked program, from the findings every view shares.
#include "bankcheck/report/sarif_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/report/check_view.hpp"
#include "bankcheck/report/findings.hpp"
#include "bankcheck/report/suppressions.hpp"

namespace bankcheck::report {
namespace {

using nlohmann::json;

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kNoteRule = "emulation-note";
constexpr const char* kSuppressionRule = "suppression-comment";

struct Rule {
  const char* id;
  const char* name;
  const char* level;
  const char* short_text;
  const char* full_text;
  const char* help;
};

// Index i is the rule of FindingKind(i); then the emulator's notes and the suppression
// comments' problems.
const Rule kRules[] = {
    {"bank-conflict", "SharedMemoryBankConflict", "warning",
     "Shared-memory bank conflict: a request costs more wavefronts than its bytes need.",
     "Lanes of one warp read or write different 32-bit words of the same shared-memory bank in "
     "one phase; the bank serves them one after another, so the request takes several "
     "wavefronts (Nsight Compute's l1tex__data_bank_conflicts_pipe_lsu_mem_shared). The "
     "result counts wavefronts and their ideal over the analysed CTAs.",
     "Change the index so that the lanes of a warp fall in different banks: pad each row of a "
     "2-D array by one element (float tile[32][33]), or swizzle the column with the row "
     "(tile[y][x ^ y]). `bankcheck explain` draws the request; `bankcheck fix` ranks the "
     "candidate layouts."},
    {"uncoalesced-global-access", "UncoalescedGlobalAccess", "warning",
     "Uncoalesced global access: a request touches more 32-byte sectors than its bytes need.",
     "The lanes of a warp touch global memory with a stride, so each request moves more "
     "32-byte sectors than the bytes it uses (Nsight Compute's L2 Theoretical Sectors Global "
     "against its Ideal).",
     "Make consecutive lanes touch consecutive elements: a structure of arrays instead of an "
     "array of structures, one aligned vector access per element, or a shared-memory tile for "
     "a column walk."},
    {"misaligned-global-access", "MisalignedGlobalAccess", "warning",
     "Misaligned global access: consecutive elements from a base that is not 32-byte aligned.",
     "The lanes of a warp touch consecutive elements, but the first does not start on a "
     "32-byte sector boundary, so each request touches one sector more than it needs.",
     "Start each warp's elements on a 32-byte boundary: the index (in[i + 1]) or the pointer it "
     "adds to is off a multiple of 32 bytes (cudaMalloc aligns a buffer's start to 256 bytes). "
     "For the rows of a 2-D array, make the row pitch a multiple of 128 bytes (cudaMallocPitch)."},
    {kNoteRule, "EmulationNote", "note",
     "Something the emulator noticed that may make the counts differ from the GPU's.",
     "A barrier under divergence, a barrier that some warps exit before, or a shared access "
     "with no bank rule on the chosen architecture (left out of the counts).",
     "Read the note's message; the counts of the affected lines may not be those of the GPU."},
    {kSuppressionRule, "SuppressionComment", "note",
     "A `// bankcheck: ignore` comment that matches no finding, has no reason or is misspelt.",
     "A suppression comment accepts the findings of its line (ignore) or of the next line "
     "(ignore-next-line), optionally of some rules only (ignore[bank-conflict]), with a reason "
     "after it. One that matches nothing is left over from code that changed.",
     "Remove a suppression that matches no finding; write the reason a finding is accepted "
     "after the marker."},
};
constexpr int kNoteRuleIndex = 3;
constexpr int kSuppressionRuleIndex = 4;

int rule_index(FindingKind kind) { return static_cast<int>(kind); }

// SARIF's levels are the names of the one severity scale (findings.hpp).
const char* level(Severity s) { return severity_name(s); }

// The distinct files results name, in order of first use: run.artifacts.
struct Artifacts {
  const SarifOptions& options;
  std::vector<std::string> paths;
  int index(const std::string& path) {
    auto it = std::find(paths.begin(), paths.end(), path);
    if (it != paths.end()) return static_cast<int>(it - paths.begin());
    paths.push_back(path);
    return static_cast<int>(paths.size()) - 1;
  }
};

json physical(const analysis::CheckReport& r, Artifacts& artifacts, int file, int line, int col) {
  const std::string path = source_path(r, file);
  json where = artifact_location(path, artifacts.options);
  where["index"] = artifacts.index(path);
  json p = {{"artifactLocation", where}};
  if (line > 0) {
    json region = {{"startLine", line}};
    if (col > 0) region["startColumn"] = col;
    if (const std::string* text = source_line(r, file, line)) region["snippet"] = {{"text", *text}};
    p["region"] = region;
  }
  return p;
}

std::string verb(model::Op op) {
  switch (op) {
    case model::Op::Load:
      return "loads";
    case model::Op::Store:
      return "stores";
    default:
      return "updates";
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == v.size() ? " and " : ", ")) + v[i];
  return s;
}

// The other source lines of the kernel whose shared requests touch an array that the
// finding's worst request touches (the worst request of each of their sites).
json related(const analysis::CheckReport& r, const analysis::KernelReport& k, const Finding& f,
             Artifacts& artifacts) {
  json out = json::array();
  if (f.worst_site < 0) return out;
  const auto& worst = k.sites[static_cast<size_t>(f.worst_site)].stats.worst;
  const auto arrays = shared_vars_touched(k, worst);
  if (arrays.empty()) return out;
  struct Other {
    int col = 0;
    std::vector<std::string> verbs, names;
    std::uint64_t excess = 0;
  };
  std::map<std::pair<int, int>, Other> lines;  // (file, line), in source order
  for (const auto& s : k.sites) {
    if (s.stats.space != ptx::Space::Shared || !s.stats.has_worst) continue;
    if (s.file == f.file && s.line == f.line) continue;
    bool shares = false;
    std::vector<std::string> names;
    for (const ptx::SharedVar* v : shared_vars_touched(k, s.stats.worst))
      if (std::find(arrays.begin(), arrays.end(), v) != arrays.end()) {
        shares = true;
        names.push_back(shared_var_display_name(v->name));
      }
    if (!shares) continue;
    auto [it, fresh] = lines.try_emplace({s.file, s.line});
    Other& o = it->second;
    if (fresh || s.col < o.col) o.col = s.col;
    const std::string vb = verb(s.stats.op);
    if (std::find(o.verbs.begin(), o.verbs.end(), vb) == o.verbs.end()) o.verbs.push_back(vb);
    for (auto& n : names)
      if (std::find(o.names.begin(), o.names.end(), n) == o.names.end()) o.names.push_back(n);
    o.excess += model::excess_of(s.stats.wavefronts, s.stats.ideal_wavefronts);
  }
  int id = 0;
  for (const auto& [where, o] : lines) {
    json loc = {{"id", id++},
                {"physicalLocation", physical(r, artifacts, where.first, where.second, o.col)}};
    loc["message"] = {
        {"text", fmt::format("this line also {} {} ({})", join(o.verbs), join(o.names),
                             o.excess ? fmt::format("{} excess wavefronts", o.excess)
                                      : std::string("no bank conflict"))}};
    out.push_back(loc);
  }
  return out;
}

// The site a finding stands for: its worst shared request's, else its line's worst global
// request's; -1 when it has none.
int representative_site(const analysis::KernelReport& k, const Finding& f) {
  if (f.worst_site >= 0) return f.worst_site;
  for (std::size_t li : f.lines)
    if (li < k.lines.size() && k.lines[li].worst_global_site >= 0)
      return k.lines[li].worst_global_site;
  return -1;
}

// The inline stack of the finding's instruction. SARIF 2.1.0 has three places for it: a
// `stacks` entry (§3.44, "a call stack ... the first frame is the innermost"), which is
// what an inline stack is, frame by frame, and which SARIF viewers show as a call stack;
// `relatedLocations`, the only one that code-scanning services (GitHub) list beside the
// result, each with a message; and `codeFlows`, which orders the steps of an execution path
// (a taint flow) and would present the frames as something that happens one after the
// other. So both the first two: each frame other than the result's own line becomes a
// related location ("inlined from here into line N" for the frames inside the result's line,
// "called from here" for the calls around it), and the whole stack a `stacks` entry.
struct InlineStack {
  json related = json::array();
  json stacks = json::array();
};

InlineStack inline_stack(const analysis::CheckReport& r, const analysis::KernelReport& k,
                         const Finding& f, Artifacts& artifacts, int first_id) {
  InlineStack out;
  const int site = representative_site(k, f);
  if (site < 0) return out;
  const auto& frames = k.sites[static_cast<std::size_t>(site)].stack;
  if (frames.size() < 2) return out;
  // The result's own frame: the innermost on its line (the stack names it exactly once
  // unless a recursive inline repeats it).
  std::size_t own = frames.size();
  for (std::size_t i = 0; i < frames.size() && own == frames.size(); ++i)
    if (frames[i].file == f.file && frames[i].line == f.line) own = i;
  auto where = [&](const ptx::SourcePos& p) {
    return p.file == f.file ? fmt::format("line {}", p.line)
                            : fmt::format("{}:{}", source_path(r, p.file), p.line);
  };
  json stack_frames = json::array();
  int id = first_id;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const ptx::SourcePos& p = frames[i];
    std::string text;
    if (i == own)
      text = i == 0 ? "the access" : fmt::format("the access, inlined from {}", where(frames[0]));
    else if (i < own || own == frames.size())
      text = i + 1 < frames.size() ? fmt::format("inlined from here into {}", where(frames[i + 1]))
                                   : "the outermost call";
    else
      text = fmt::format("called from here (inlines {})", where(frames[i - 1]));
    json loc = {{"physicalLocation", physical(r, artifacts, p.file, p.line, p.col)},
                {"message", {{"text", text}}}};
    stack_frames.push_back({{"location", loc}});
    if (i == own) continue;
    loc["id"] = id++;
    out.related.push_back(loc);
  }
  out.stacks.push_back({{"message", {{"text", "inline stack of the access, innermost first"}}},
                        {"frames", stack_frames}});
  return out;
}

json fix_json(const SarifFix& fx, const SarifOptions& options) {
  json reps = json::array();
  for (const auto& rp : fx.replacements) {
    json region = {{"startLine", rp.start_line}};
    if (rp.start_column > 0) region["startColumn"] = rp.start_column;
    if (rp.end_line > 0) region["endLine"] = rp.end_line;
    if (rp.end_column > 0) region["endColumn"] = rp.end_column;
    reps.push_back({{"deletedRegion", region}, {"insertedContent", {{"text", rp.inserted_text}}}});
  }
  return {{"description", {{"text", fx.description}}},
          {"artifactChanges", json::array({{{"artifactLocation", artifact_location(fx.file, options)},
                                            {"replacements", reps}}})}};
}

}  // namespace

std::string path_to_uri(const std::string& path) {
  std::string enc;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      enc += static_cast<char>(c);
    else
      enc += fmt::format("%{:02X}", c);
  }
  if (!path.empty() && path[0] == '/') return "file://" + enc;
  return enc;  // no ':' survives encoding, so the first segment never reads as a scheme
}

namespace fs = std::filesystem;

namespace {

// `path` absolute and lexically normal, relative paths taken from `working_dir`.
fs::path absolute_path(const std::string& path, const std::string& working_dir) {
  fs::path p(path);
  if (p.is_relative()) {
    std::error_code ec;
    fs::path base = working_dir.empty() ? fs::current_path(ec) : fs::path(working_dir);
    p = base / p;
  }
  return p.lexically_normal();
}

// A directory as a file:// URI ending in '/', as originalUriBaseIds requires.
std::string directory_uri(const std::string& dir) {
  std::string d = fs::path(dir).lexically_normal().string();
  if (!d.ends_with('/')) d += '/';
  return path_to_uri(d);
}

}  // namespace

json artifact_location(const std::string& path, const SarifOptions& options) {
  if (options.source_root.empty() || path.empty()) return {{"uri", path_to_uri(path)}};
  const fs::path abs = absolute_path(path, options.working_dir);
  const fs::path root = fs::path(options.source_root).lexically_normal();
  const fs::path rel = abs.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return {{"uri", path_to_uri(abs.string())}};
  return {{"uri", path_to_uri(rel.generic_string())}, {"uriBaseId", kSourceRootId}};
}

json uri_base_ids(const SarifOptions& options) {
  if (options.source_root.empty()) return nullptr;
  return {{kSourceRootId,
           {{"uri", directory_uri(options.source_root)},
            {"description", {{"text", "The root of the checked sources."}}}}}};
}

nlohmann::json sarif_incompleteness(const analysis::CheckReport& r) {
  json list = json::array();
  const std::vector<std::string> sentences = incompleteness(r);
  // The launches that did not run come after the process's reasons (incompleteness()); each
  // also names its library, kernel and the program's call site as data.
  const std::size_t first_not_run = r.process ? r.process->incomplete.size() : 0;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    json n = {{"level", "warning"}, {"message", {{"text", "incomplete: " + sentences[i]}}}};
    if (i >= first_not_run && i - first_not_run < r.not_run.size()) {
      const analysis::NotRunReport& nr = r.not_run[i - first_not_run];
      n["descriptor"] = {{"id", "not-run"}};
      n["properties"] = {{"library", nr.library},    {"kernel", nr.name},
                         {"mangled", nr.mangled},    {"launches", nr.launches},
                         {"callSite", nr.call_site}, {"error", nr.error}};
    }
    list.push_back(std::move(n));
  }
  return list;
}

json sarif_invocation(const analysis::CheckReport& r) {
  json inv = {{"executionSuccessful", true}};
  json notes = sarif_incompleteness(r);
  if (!notes.empty()) inv["toolExecutionNotifications"] = notes;
  if (!r.process) return inv;
  const analysis::ProcessInfo& p = *r.process;
  std::string command;
  for (const auto& a : p.command) command += (command.empty() ? "" : " ") + a;
  inv["processId"] = p.pid;
  inv["commandLine"] = command;
  inv["arguments"] = p.command;
  if (p.exit_code >= 0) inv["exitCode"] = p.exit_code;
  if (p.signal) {
    inv["exitSignalNumber"] = p.signal;
    if (const char* name = sigabbrev_np(p.signal))
      inv["exitSignalName"] = std::string("SIG") + name;
  }
  json props = {{"root", p.root}};
  if (!p.rank.empty()) props["rank"] = p.rank;
  if (!p.local_rank.empty()) props["localRank"] = p.local_rank;
  inv["properties"] = props;
  return inv;
}

json check_to_sarif(const analysis::CheckReport& r, const std::vector<SarifFix>* fixes,
                    const SarifOptions& options) {
  Artifacts artifacts{options, {}};
  std::vector<Suppression> sups;
  std::vector<SuppressionNote> sup_notes;
  const std::vector<Finding> all = findings(r, sups, sup_notes);
  json rules = json::array();
  for (const Rule& ru : kRules)
    rules.push_back({{"id", ru.id},
                     {"name", ru.name},
                     {"shortDescription", {{"text", ru.short_text}}},
                     {"fullDescription", {{"text", ru.full_text}}},
                     {"help", {{"text", ru.help}}},
                     {"defaultConfiguration", {{"level", ru.level}}},
                     {"properties", {{"tags", {"cuda", "performance"}}}}});
  json results = json::array();
  for (const Finding& f : all) {
    const auto& k = r.kernels[f.kernel];
    json res = {{"ruleId", rule_id(f.kind)},
                {"ruleIndex", rule_index(f.kind)},
                {"level", level(f.severity)},
                {"kind", "fail"},
                {"message", {{"text", fmt::format("{} (kernel {})", f.message, k.name)}}}};
    json loc = {{"physicalLocation", physical(r, artifacts, f.file, f.line, f.col)}};
    loc["logicalLocations"] = json::array({{{"name", k.name},
                                            {"fullyQualifiedName", k.signature},
                                            {"decoratedName", k.mangled},
                                            {"kind", "function"}}});
    res["locations"] = json::array({loc});
    json props = {{"kernel", k.name},
                  {"severity", severity_name(f.severity)},
                  {"requests", f.requests},
                  {"excess", f.excess()},
                  {"share", f.share}};
    json rel = json::array();
    if (f.kind == FindingKind::BankConflict) {
      props["wavefronts"] = f.cost;
      props["ideal_wavefronts"] = f.ideal;
      props["ways"] = f.ways;
      if (f.worst_site >= 0) {
        const auto& st = k.sites[static_cast<size_t>(f.worst_site)].stats;
        props["worst_request"] = {{"cta", st.worst_cta},
                                  {"warp", st.worst_warp},
                                  {"wavefronts", st.worst_verdict.wavefronts},
                                  {"ideal_wavefronts", st.worst_verdict.ideal_wavefronts},
                                  {"ways", st.worst_verdict.ways}};
        json names = json::array();
        for (const ptx::SharedVar* v : shared_vars_touched(k, st.worst))
          names.push_back(shared_var_display_name(v->name));
        props["arrays"] = names;
      }
      rel = related(r, k, f, artifacts);
    } else {
      props["sectors"] = f.cost;
      props["ideal_sectors"] = f.ideal;
    }
    InlineStack inl = inline_stack(r, k, f, artifacts, static_cast<int>(rel.size()));
    for (auto& l : inl.related) rel.push_back(std::move(l));
    if (!rel.empty()) res["relatedLocations"] = rel;
    if (!inl.stacks.empty()) res["stacks"] = inl.stacks;
    res["properties"] = props;
    if (f.suppressed) {
      json sup = {{"kind", "inSource"}, {"status", "accepted"}};
      if (!f.justification.empty()) sup["justification"] = f.justification;
      res["suppressions"] = json::array({sup});
    }
    if (fixes) {
      json fj = json::array();
      const std::string path = source_path(r, f.file);
      for (const SarifFix& fx : *fixes)
        if ((fx.kernel.empty() || fx.kernel == k.name) && fx.finding_file == path &&
            fx.finding_line == f.line &&
            (fx.rule.empty() ? f.kind == FindingKind::BankConflict : fx.rule == rule_id(f.kind)))
          fj.push_back(fix_json(fx, options));
      if (!fj.empty()) {
        res["fixes"] = fj;
        res["message"]["text"] =
            res["message"]["text"].get<std::string>() + "; bankcheck fix suggests a change (fixes)";
      }
    }
    results.push_back(res);
  }
  for (const auto& k : r.kernels)
    for (const auto& n : k.notes) {
      json res = {{"ruleId", kNoteRule},
                  {"ruleIndex", kNoteRuleIndex},
                  {"level", "note"},
                  {"kind", "informational"},
                  {"message", {{"text", fmt::format("{} (kernel {})", n.message, k.name)}}}};
      res["locations"] =
          json::array({{{"physicalLocation", physical(r, artifacts, n.file, n.line, n.col)}}});
      if (!n.known.empty()) res["properties"] = {{"knownDifference", n.known}};
      results.push_back(res);
    }
  for (const SuppressionNote& n : sup_notes) {
    json res = {{"ruleId", kSuppressionRule},
                {"ruleIndex", kSuppressionRuleIndex},
                {"level", level(n.severity)},
                {"kind", n.severity == Severity::Note ? "informational" : "review"},
                {"message", {{"text", n.message}}}};
    res["locations"] =
        json::array({{{"physicalLocation", physical(r, artifacts, n.file, n.line, n.col)}}});
    results.push_back(res);
  }
  json arts = json::array();
  for (const auto& p : artifacts.paths)
    arts.push_back({{"location", artifact_location(p, options)}, {"sourceLanguage", "cuda"}});
  json run = {{"tool",
               {{"driver",
                 {{"name", "bankcheck"},
                  {"version", tool_version()},
                  {"semanticVersion", tool_version()},
                  {"rules", rules}}}}},
              {"invocations", json::array({sarif_invocation(r)})},
              {"artifacts", arts},
              {"results", results},
              {"properties", {{"input", r.input}, {"arch", r.arch->name}}}};
  if (json bases = uri_base_ids(options); !bases.is_null()) run["originalUriBaseIds"] = bases;
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace bankcheck::report
