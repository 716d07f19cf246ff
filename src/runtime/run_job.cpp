// The files of a job of `bankcheck run` (run_job.hpp): a process's part, journal and end
// marker, written by the program's side and read back by bankcheck.
#include "bankcheck/runtime/run_job.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "bankcheck/report/report_data.hpp"
#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::runtime {
namespace {

using nlohmann::json;

constexpr int kPartVersion = 2;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The first of `names` set in the environment, with its name.
std::pair<std::string, std::string> first_set(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = std::getenv(n); v && *v) return {v, n};
  return {};
}

json process_to_json(const analysis::ProcessInfo& p) {
  return {{"pid", p.pid},
          {"ppid", p.ppid},
          {"command", p.command},
          {"rank", p.rank},
          {"rank_variable", p.rank_variable},
          {"local_rank", p.local_rank},
          {"root", p.root}};
}

template <class T>
T field(const json& j, const char* name, const std::string& what) {
  const auto it = j.find(name);
  if (it == j.end()) throw std::invalid_argument(fmt::format("{}: no '{}'", what, name));
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(fmt::format("{}: '{}' is {}", what, name, it->dump()));
  }
}

// "12", "-3": an int of a decimal text without a sign or with one (async-signal-safe).
std::size_t put_int(char* out, int n) {
  char digits[16];
  std::size_t k = 0;
  unsigned u = n < 0 ? 0u - static_cast<unsigned>(n) : static_cast<unsigned>(n);
  do {
    digits[k++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  std::size_t i = 0;
  if (n < 0) out[i++] = '-';
  while (k) out[i++] = digits[--k];
  return i;
}

}  // namespace

std::string_view part_state_name(PartState s) {
  switch (s) {
    case PartState::Exited:
      return "exited";
    case PartState::ExitNow:
      return "_exit";
    case PartState::Signal:
      return "signal";
    default:
      return "running";
  }
}

json part_to_json(const ProcessPart& p) {
  json reports = json::array();
  for (const auto& r : p.reports) reports.push_back(report::report_to_data(r));
  json j = {{"version", kPartVersion},
            {"process", process_to_json(p.process)},
            {"start_time", p.start_time},
            {"backend", p.backend},
            {"state", part_state_name(p.state)},
            {"status", p.status},
            {"reports", reports},
            {"failures", p.failures},
            {"launches", p.launches},
            {"analysed", p.analysed}};
  if (!p.fixes.empty()) {
    json fixes = json::array();
    for (const auto& f : p.fixes) fixes.push_back(report::fixes_to_data(f));
    j["fixes"] = fixes;
  }
  return j;
}

ProcessPart part_from_json(const json& j, const std::string& what) {
  if (!j.is_object() || j.value("version", 0) != kPartVersion)
    throw std::invalid_argument(what + ": not a part of this bankcheck's jobs");
  ProcessPart p;
  const json& pj = j.at("process");
  p.process.pid = field<std::int64_t>(pj, "pid", what);
  p.process.ppid = field<std::int64_t>(pj, "ppid", what);
  p.process.command = field<std::vector<std::string>>(pj, "command", what);
  p.process.rank = field<std::string>(pj, "rank", what);
  p.process.rank_variable = field<std::string>(pj, "rank_variable", what);
  p.process.local_rank = field<std::string>(pj, "local_rank", what);
  p.process.root = field<bool>(pj, "root", what);
  p.start_time = field<std::uint64_t>(j, "start_time", what);
  p.backend = field<std::string>(j, "backend", what);
  const std::string state = field<std::string>(j, "state", what);
  bool known = false;
  for (const PartState s :
       {PartState::Running, PartState::Exited, PartState::ExitNow, PartState::Signal})
    if (part_state_name(s) == state) p.state = s, known = true;
  if (!known) throw std::invalid_argument(fmt::format("{}: 'state' is {}", what, state));
  p.status = field<int>(j, "status", what);
  const json& reports = j.at("reports");
  for (std::size_t i = 0; i < reports.size(); ++i)
    p.reports.push_back(
        report::report_from_data(reports[i], fmt::format("{}: report {}", what, i)));
  if (const auto f = j.find("fixes"); f != j.end()) {
    if (!f->is_array() || f->size() != p.reports.size())
      throw std::invalid_argument(fmt::format("{}: 'fixes' is not one per report", what));
    for (std::size_t i = 0; i < f->size(); ++i)
      p.fixes.push_back(report::fixes_from_data((*f)[i], fmt::format("{}: fixes {}", what, i)));
  }
  p.failures = field<std::vector<std::string>>(j, "failures", what);
  p.launches = field<std::uint64_t>(j, "launches", what);
  p.analysed = field<std::uint64_t>(j, "analysed", what);
  return p;
}

analysis::ProcessInfo this_process() {
  analysis::ProcessInfo p;
  p.pid = ::getpid();
  p.ppid = ::getppid();
  const std::string cmdline = read_file("/proc/self/cmdline");
  for (std::size_t at = 0; at < cmdline.size();) {
    const std::size_t end = cmdline.find('\0', at);
    p.command.push_back(
        cmdline.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  std::tie(p.rank, p.rank_variable) =
      first_set({"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"});
  p.local_rank =
      first_set({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
          .first;
  return p;
}

std::uint64_t this_process_start_time() {
  // Field 22 of /proc/self/stat, after the command in parentheses (which may hold blanks).
  const std::string stat = read_file("/proc/self/stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string f;
  for (int i = 3; i <= 22 && rest >> f; ++i)
    if (i == 22) return std::strtoull(f.c_str(), nullptr, 10);
  return 0;
}

PartFiles::PartFiles(const std::string& job) : job_(job) {
  name_ = fmt::format("{}-{}", ::getpid(), this_process_start_time());
  const std::string end = job_ + "/" + name_ + ".end";
  if (end.size() < sizeof end_path_) std::memcpy(end_path_, end.c_str(), end.size() + 1);
}

PartFiles::~PartFiles() {
  if (journal_ >= 0) ::close(journal_);
}

bool PartFiles::write(const ProcessPart& part) {
  const std::string path = job_ + "/" + name_ + ".part";
  const std::string aside = path + ".writing";
  {
    std::ofstream f(aside, std::ios::binary | std::ios::trunc);
    f << part_to_json(part).dump() << "\n";
    f.close();
    if (!f) return false;
  }
  return ::rename(aside.c_str(), path.c_str()) == 0;
}

void PartFiles::append(const std::string& line) {
  // Opened at the first line: a process that analyses nothing leaves no file.
  if (journal_ < 0)
    journal_ = ::open((job_ + "/" + name_ + ".journal").c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (journal_ < 0) return;
  // One write per line: appends of one line never interleave with another thread's.
  [[maybe_unused]] const ssize_t n = ::write(journal_, line.data(), line.size());
}

void PartFiles::began(std::uint64_t id, const std::string& mangled) {
  append(fmt::format("b {} {}\n", id, mangled));
}

void PartFiles::counted(std::uint64_t id) { append(fmt::format("c {}\n", id)); }

void PartFiles::lost(std::uint64_t id, const std::string& reason) {
  std::string r = reason;
  std::replace(r.begin(), r.end(), '\n', ' ');
  append(fmt::format("l {} {}\n", id, r));
}

void PartFiles::mark_end(const char* how, int n) noexcept {
  if (!end_path_[0]) return;
  char text[64];
  std::size_t len = 0;
  while (how[len] && len < 40) text[len] = how[len], ++len;
  text[len++] = ' ';
  len += put_int(text + len, n);
  text[len++] = '\n';
  const int fd = ::open(end_path_, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t w = ::write(fd, text, len);
  ::close(fd);
}

std::vector<JobProcess> read_job(const std::string& dir) {
  std::map<std::string, JobProcess> by_name;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return {};
  while (const dirent* e = ::readdir(d)) {
    const std::string file = e->d_name;
    const std::size_t dot = file.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    const std::string name = file.substr(0, dot), kind = file.substr(dot + 1);
    if (kind != "part" && kind != "journal" && kind != "end") continue;
    if (name.find_first_not_of("0123456789-") != std::string::npos) continue;
    JobProcess& p = by_name[name];
    p.name = name;
    const std::string path = dir + "/" + file;
    if (kind == "part") {
      try {
        p.part = part_from_json(json::parse(read_file(path)), path);
      } catch (const std::exception& ex) {
        p.problem = ex.what();
      }
    } else if (kind == "journal") {
      std::istringstream in(read_file(path));
      for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        char what = 0;
        std::uint64_t id = 0;
        if (!(l >> what >> id)) continue;
        std::string rest;
        std::getline(l >> std::ws, rest);
        if (what == 'b') p.began[id] = rest;
        if (what == 'c') p.ended[id] = std::nullopt;
        if (what == 'l') p.ended[id] = rest;
      }
    } else {
      std::istringstream in(read_file(path));
      std::string how;
      int n = 0;
      if (in >> how >> n) p.end = std::make_pair(how, n);
    }
  }
  ::closedir(d);
  std::vector<JobProcess> out;
  for (auto& [name, p] : by_name) out.push_back(std::move(p));
  // The program first, then its descendants as they started.
  auto key = [](const JobProcess& p) {
    const bool root = p.part && p.part->process.root;
    const std::uint64_t start = p.part ? p.part->start_time : ~0ull;
    return std::make_tuple(!root, start, p.name);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const JobProcess& a, const JobProcess& b) { return key(a) < key(b); });
  return out;
}

}  // namespace bankcheck::runtime
