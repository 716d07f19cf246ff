// Running nvcc: finding it and compiling one .cu to PTX, with posix_spawn and an argument
// vector (never a shell), output captured in files of a private temporary directory.
#include "bankcheck/driver/nvcc.hpp"

#include "bankcheck/driver/compile_cache.hpp"
#include "bankcheck/driver/compile_db.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <thread>
#include <algorithm>

extern char** environ;

namespace bankcheck::driver {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The first executable `name` in the directories of $PATH (an empty entry means ".").
std::string search_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest = path;
  while (true) {
    auto colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (dir.empty()) dir = ".";
    const std::string candidate = std::string(dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return {};
}

// Characters no shell reads specially in a word.
bool shell_safe(const std::string& path) {
  for (unsigned char c : path)
    if (!std::isalnum(c) && c != '/' && c != '.' && c != '_' && c != '-' && c != '+' && c != ',')
      return false;
  return !path.empty();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// SIGINT and SIGTERM while nvcc or ptxas runs: the handler kills the child's process group
// and leaves a flag; the wait loop sees it and throws, so that every TempDir on the stack
// is removed as the exception unwinds. With no child running the signal's default action
// is restored and re-raised: nothing of ours is on disk then.
volatile std::sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) {
    ::kill(-g_child, SIGKILL);
    return;
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

// A private directory under $TMPDIR (or /tmp), removed with everything in it on scope exit.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/bankcheck-nvcc-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw DriverError(
          fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

struct RunResult {
  int wait_status = 0;
  std::string out, err;
};

// Runs argv with stdin from /dev/null and stdout/stderr into files under `dir`; waits.
RunResult run(const std::vector<std::string>& argv, const std::string& dir,
              const char* what = "nvcc", unsigned timeout_seconds = 0) {
  install_signal_handlers();
  const std::string out_path = dir + "/stdout.txt";
  const std::string err_path = dir + "/stderr.txt";
  FileActions actions;
  ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);

  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  // The child's temporary files go to our directory too (TMPDIR), so that they are
  // removed with it whatever happens to the child.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_text.emplace_back(*e);
  env_text.push_back("TMPDIR=" + dir);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  // Its own process group: a timeout or a signal stops nvcc and the compilers it started.
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, argv[0].c_str(), actions.get(), &attr, cargv.data(), env.data());
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw DriverError(fmt::format("cannot run {} '{}': {}", what, argv[0], std::strerror(rc)));
  g_child = pid;

  RunResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  while (true) {
    const pid_t w = ::waitpid(pid, &result.wait_status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      g_child = 0;
      throw DriverError(
          fmt::format("waiting for {} '{}': {}", what, argv[0], std::strerror(errno)));
    }
    if (!timed_out && timeout_seconds > 0 && std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  g_child = 0;
  ::kill(-pid, SIGKILL);  // what the child left running in its group
  if (g_signal != 0)
    throw DriverError(
        fmt::format("interrupted by signal {} while {} ran", static_cast<int>(g_signal), what));
  if (timed_out) {
    // The command as a shell would read it, the private directory's paths as DIR.
    std::string command;
    for (const std::string& a : argv) {
      std::string w = a;
      for (std::size_t at; (at = w.find(dir)) != std::string::npos;)
        w.replace(at, dir.size(), "DIR");
      const bool plain =
          !w.empty() && w.find_first_of(" \t\n'\"\\$`;&|<>()*?[]{}") == std::string::npos;
      if (!plain) {
        std::string q = "'";
        for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        w = q + "'";
      }
      (command += command.empty() ? "" : " ") += w;
    }
    if (command.size() > 400) command = command.substr(0, 400) + " ...";
    throw DriverError(fmt::format(
        "{} did not finish within {} seconds and was stopped, with every process it started: "
        "{}\n(a compile that needs longer: --nvcc-timeout SECONDS, 0 for no limit)",
        what, timeout_seconds, command));
  }
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

// The file's bytes, or nothing when it cannot be read.
std::optional<std::string> read_if_any(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

// The prerequisites of the make rule nvcc -MD wrote for `target`: "target : a \\\n b",
// a space in a name escaped as "\\ ", a '$' as "$$". Nothing when the rule is not there.
std::optional<std::vector<std::string>> rule_prerequisites(const std::string& text,
                                                           const std::string& target) {
  if (!text.starts_with(target)) return std::nullopt;
  std::size_t i = target.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i >= text.size() || text[i] != ':') return std::nullopt;
  std::vector<std::string> out;
  std::string word;
  auto end_word = [&] {
    if (!word.empty()) out.push_back(std::move(word));
    word.clear();
  };
  for (++i; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      end_word();  // a continued line
      if (text[++i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      word += text[++i];
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      word += text[++i];
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
    } else if (c == '\n') {
      end_word();
      break;  // the rule ends; -MP's empty rules for headers follow
    } else {
      word += c;
    }
  }
  end_word();
  return out;
}

// Whether nvcc's flags write dependencies themselves: -M, -MD, -MMD, -MF and the like.
bool writes_dependencies(const std::vector<std::string>& flags) {
  return std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
    return f.starts_with("-M") || f.starts_with("--generate-dependenc") ||
           f.starts_with("--dependency-output") || f.starts_with("--generate-nonsystem");
  });
}

// The nvcc entry's key: everything that decides the PTX besides the included files.
std::string nvcc_cache_key(const NvccOptions& o, const std::vector<std::string>& command,
                           const std::string& source) {
  std::vector<std::string> key = {"nvcc ptx 1"};
  const std::vector<std::string> argv = nvcc_argv(o, command, "OUT");
  key.insert(key.end(), argv.begin(), argv.end());
  std::error_code ec;
  key.push_back("cwd " + std::filesystem::current_path(ec).string());
  const std::string nvcc = nvcc_of(command);
  key.push_back(file_identity(nvcc));
  const auto bin = std::filesystem::canonical(nvcc, ec).parent_path();
  key.push_back(ec ? std::string() : file_identity((bin / "../nvvm/bin/cicc").string()));
  for (const char* var : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"}) {
    const char* v = std::getenv(var);
    key.push_back(std::string(var) + "=" + (v != nullptr ? v : ""));
  }
  key.push_back(sha256_hex(source));
  return pack_fields(key);
}

// An nvcc entry: the PTX, nvcc's warnings, then (path, SHA-256) of each included file. The
// PTX when every file still has its content.
std::optional<std::pair<std::string, std::string>> cached_ptx(const CompileCache& cache,
                                                              const std::string& key) {
  const auto value = cache.get(key);
  if (!value) return std::nullopt;
  auto fields = unpack_fields(*value);
  if (!fields || fields->size() < 2 || fields->size() % 2 != 0) return std::nullopt;
  for (std::size_t i = 2; i < fields->size(); i += 2) {
    const auto bytes = read_if_any((*fields)[i]);
    if (!bytes || sha256_hex(*bytes) != (*fields)[i + 1]) return std::nullopt;
  }
  return std::make_pair(std::move((*fields)[0]), std::move((*fields)[1]));
}

// Stores a compile whose dependency file lists what it read; none stored when it does not.
void store_ptx(const CompileCache& cache, const std::string& key, const std::string& ptx,
               const std::string& said, const std::string& deps_path, const std::string& target,
               const std::string& tmp) {
  const auto text = read_if_any(deps_path);
  if (!text) return;
  const auto files = rule_prerequisites(*text, target);
  if (!files || files->empty()) return;
  std::vector<std::string> value = {ptx, said};
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return;
  for (const std::string& f : *files) {
    if (f.starts_with(tmp + "/")) continue;  // the safely named copy: the input is in the key
    const std::string path = f.starts_with('/') ? f : (cwd / f).lexically_normal().string();
    const auto bytes = read_if_any(path);
    if (!bytes) return;
    value.push_back(path);
    value.push_back(sha256_hex(*bytes));
  }
  cache.put(key, pack_fields(value));
}

}  // namespace

std::string find_nvcc(const std::string& flag_value) {
  if (!flag_value.empty()) {
    if (flag_value.find('/') == std::string::npos) {
      std::string found = search_path(flag_value);
      if (found.empty())
        throw DriverError(
            fmt::format("--nvcc: '{}' is not on PATH; give a path to nvcc", flag_value));
      return found;
    }
    struct stat st {};
    if (::stat(flag_value.c_str(), &st) != 0)
      throw DriverError(fmt::format("--nvcc: '{}': {}", flag_value, std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
      throw DriverError(fmt::format("--nvcc: '{}' is not a file", flag_value));
    if (::access(flag_value.c_str(), X_OK) != 0)
      throw DriverError(fmt::format("--nvcc: '{}' is not executable", flag_value));
    return flag_value;
  }
  if (std::string found = search_path("nvcc"); !found.empty()) return found;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = std::getenv(var);
    if (home != nullptr && *home != '\0') {
      std::string candidate = std::string(home) + "/bin/nvcc";
      if (is_executable_file(candidate)) return candidate;
    }
  }
  std::string fallback = "/usr/local/cuda/bin/nvcc";
  if (is_executable_file(fallback)) return fallback;
  throw DriverError(
      "nvcc not found (not on PATH, not in $CUDA_HOME/bin or $CUDA_PATH/bin, not at "
      "/usr/local/cuda/bin/nvcc); pass --nvcc PATH, add the CUDA toolkit's bin directory "
      "to PATH, or compile to PTX yourself (nvcc -ptx -lineinfo) and check the .ptx file");
}

std::vector<std::string> nvcc_command(const NvccOptions& options) {
  if (!options.nvcc.empty()) {
    std::vector<std::string> words;
    try {
      words = split_command(options.nvcc);
    } catch (const DriverError& e) {
      throw DriverError(fmt::format("--nvcc: '{}': {}", options.nvcc, e.what()));
    }
    if (words.empty()) throw DriverError(fmt::format("--nvcc: '{}' names no command", options.nvcc));
    words[0] = find_nvcc(words[0]);
    return words;
  }
  if (!options.compiler.empty()) {
    std::vector<std::string> words = options.compiler;
    const std::string& first = words[0];
    std::string found =
        first.find('/') == std::string::npos ? search_path(first)
                                             : (is_executable_file(first) ? first : std::string());
    if (!found.empty()) {
      words[0] = found;
      return words;
    }
  }
  return {find_nvcc("")};
}

std::string nvcc_of(const std::vector<std::string>& command) {
  for (const auto& w : command) {
    const std::string base = std::filesystem::path(w).filename().string();
    if (!base.starts_with("nvcc")) continue;
    if (w.find('/') != std::string::npos) return w;
    if (std::string found = search_path(w); !found.empty()) return found;
  }
  return command.empty() ? find_nvcc("") : command.front();
}

std::map<std::string, std::string> command_line_defines(const NvccOptions& n) {
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& def) {
    const auto eq = def.find('=');
    if (def.empty() || eq == 0) return;
    out[def.substr(0, eq)] = eq == std::string::npos ? "1" : def.substr(eq + 1);
  };
  for (const auto& d : n.defines) add(d);
  for (std::size_t i = 0; i < n.extra.size(); ++i) {
    const std::string& t = n.extra[i];
    if ((t == "-D" || t == "--define-macro") && i + 1 < n.extra.size())
      add(n.extra[++i]);
    else if (t.starts_with("--define-macro="))
      add(t.substr(15));
    else if (t.starts_with("-D"))
      add(t.substr(2));
    else if ((t == "-U" || t == "--undefine-macro") && i + 1 < n.extra.size())
      out.erase(n.extra[++i]);
    else if (t.starts_with("-U"))
      out.erase(t.substr(2));
  }
  return out;
}

std::vector<std::string> include_search_dirs(const NvccOptions& options) {
  std::vector<std::string> dirs = options.include_dirs;
  const auto& x = options.extra;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::string& t = x[i];
    for (const std::string name : {"--include-path", "-isystem", "--system-include", "-I"}) {
      if (t == name && i + 1 < x.size()) {
        dirs.push_back(x[++i]);
        break;
      }
      if (t.starts_with(name + "=")) {
        dirs.push_back(t.substr(name.size() + 1));
        break;
      }
      if (t.starts_with(name) && t.size() > name.size() && (name == "-I" || name == "-isystem")) {
        dirs.push_back(t.substr(name.size()));
        break;
      }
    }
  }
  return dirs;
}

std::vector<std::string> nvcc_argv(const NvccOptions& options, const std::string& nvcc_path,
                                   const std::string& output) {
  return nvcc_argv(options, std::vector<std::string>{nvcc_path}, output);
}

std::vector<std::string> nvcc_argv(const NvccOptions& options,
                                   const std::vector<std::string>& command,
                                   const std::string& output) {
  std::vector<std::string> argv = command;
  for (const char* a : {"-ptx", "-lineinfo"}) argv.push_back(a);
  argv.push_back("-arch=" + options.arch);
  for (const auto& dir : options.include_dirs) {
    argv.push_back("-I");
    argv.push_back(dir);
  }
  for (const auto& def : options.defines) {
    argv.push_back("-D");
    argv.push_back(def);
  }
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  // A relative input that starts with '-' would read as a flag.
  argv.push_back(options.input.starts_with('-') ? "./" + options.input : options.input);
  argv.push_back("-o");
  argv.push_back(output);
  return argv;
}

std::string compile_to_ptx(const NvccOptions& options, std::string* diagnostics) {
  // Checked here rather than left to nvcc, whose message for a missing file comes from
  // the host compiler and varies by version.
  {
    int fd = ::open(options.input.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw DriverError(fmt::format("{}: cannot read: {}", options.input, std::strerror(errno)));
    struct stat st {};
    bool is_dir = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    ::close(fd);
    if (is_dir) throw DriverError(fmt::format("{}: cannot read: is a directory", options.input));
  }

  const std::vector<std::string> nvcc = nvcc_command(options);
  const bool cacheable = options.cache && !writes_dependencies(options.extra);
  const CompileCache cache(cacheable ? compile_cache_dir() : std::string());
  std::string key;
  if (cacheable) {
    const auto source = read_if_any(options.input);
    if (source) key = nvcc_cache_key(options, nvcc, *source);
    if (auto hit = key.empty() ? std::nullopt : cached_ptx(cache, key)) {
      if (diagnostics != nullptr) *diagnostics = hit->second;
      return std::move(hit->first);
    }
  }
  TempDir tmp;
  const std::string ptx_path = tmp.path() + "/out.ptx";
  // nvcc hands the file name to its sub-tools through `sh -c`: a name a shell would
  // interpret ("it's.cu", "inj$(touch X).cu") is compiled from a copy with a safe name,
  // its directory added for includes, and the copy's name in the PTX put back.
  NvccOptions safe = options;
  std::string copy;
  if (!shell_safe(options.input)) {
    copy = tmp.path() + "/input" + std::filesystem::path(options.input).extension().string();
    if (!shell_safe(copy)) copy = tmp.path() + "/input.cu";
    std::error_code ec;
    std::filesystem::copy_file(options.input, copy, ec);
    if (ec)
      throw DriverError(fmt::format("{}: cannot copy for nvcc: {}", options.input, ec.message()));
    const std::string dir = std::filesystem::path(options.input).parent_path().string();
    safe.include_dirs.insert(safe.include_dirs.begin(), dir.empty() ? "." : dir);
    safe.input = copy;
  }
  std::vector<std::string> argv = nvcc_argv(safe, nvcc, ptx_path);
  const std::string deps_path = tmp.path() + "/deps.d";
  if (!key.empty())  // what the source includes, for the cache entry
    for (const std::string& a : {std::string("-MD"), std::string("-MF"), deps_path}) argv.push_back(a);
  RunResult result = run(argv, tmp.path(), "nvcc", options.timeout_seconds);

  const std::string& said = result.err.empty() ? result.out : result.err;
  if (WIFSIGNALED(result.wait_status))
    throw DriverError(
        fmt::format("nvcc killed by signal {}:\n{}", WTERMSIG(result.wait_status), said));
  int code = WIFEXITED(result.wait_status) ? WEXITSTATUS(result.wait_status) : -1;
  if (code != 0) throw DriverError(fmt::format("nvcc failed (exit {}):\n{}", code, said));

  std::ifstream ptx_in(ptx_path, std::ios::binary);
  if (!ptx_in)
    throw DriverError(
        fmt::format("nvcc exited 0 but wrote no PTX for {}:\n{}", options.input, said));
  std::string ptx = read_file(ptx_path);
  std::string said_ok = result.err + result.out;
  if (!copy.empty()) {
    // nvcc's warnings name the copy too; they name the input.
    for (size_t at; (at = said_ok.find(copy)) != std::string::npos;)
      said_ok.replace(at, copy.size(), options.input);
    // The .file directives name the copy; they name the input as the user typed it.
    std::string quoted = "\"";
    for (unsigned char c : options.input) {
      if (c == '"' || c == '\\')
        quoted += fmt::format("\\{}", static_cast<char>(c));
      else if (c < 0x20 || c >= 0x7F)
        quoted += fmt::format("\\{:03o}", c);
      else
        quoted += static_cast<char>(c);
    }
    quoted += "\"";
    const std::string from = "\"" + copy + "\"";
    for (size_t at; (at = ptx.find(from)) != std::string::npos;)
      ptx.replace(at, from.size(), quoted);
  }
  if (!key.empty()) store_ptx(cache, key, ptx, said_ok, deps_path, ptx_path, tmp.path());
  if (diagnostics != nullptr) *diagnostics = said_ok;
  return ptx;
}

namespace {

// The ptxas of nvcc's toolkit: beside nvcc, beside the file a symlinked nvcc names, or on
// PATH (an nvcc that is a wrapper script elsewhere).
std::string find_ptxas(const std::string& nvcc) {
  const std::string beside = std::filesystem::path(nvcc).parent_path().string() + "/ptxas";
  if (is_executable_file(beside)) return beside;
  std::error_code ec;
  const auto real = std::filesystem::canonical(nvcc, ec);
  if (!ec) {
    const std::string there = real.parent_path().string() + "/ptxas";
    if (is_executable_file(there)) return there;
  }
  if (std::string found = search_path("ptxas"); !found.empty()) return found;
  throw DriverError(
      fmt::format("ptxas not found (not beside nvcc '{}', not on PATH)", nvcc));
}

}  // namespace

Assembled assemble(const std::string& ptx, const std::string& arch, const std::string& nvcc_flag,
                   const std::vector<std::string>& entries, bool cache_it,
                   unsigned timeout_seconds) {
  const std::string ptxas = find_ptxas(find_nvcc(nvcc_flag));
  const CompileCache cache(cache_it ? compile_cache_dir() : std::string());
  std::vector<std::string> key_fields = {"ptxas cubin 1", file_identity(ptxas), arch,
                                         sha256_hex(ptx)};
  key_fields.insert(key_fields.end(), entries.begin(), entries.end());
  const std::string key = pack_fields(key_fields);
  if (auto hit = cache.get(key)) {
    auto fields = unpack_fields(*hit);
    if (fields && fields->size() == 2) {
      Assembled a;
      a.cubin.assign((*fields)[0].begin(), (*fields)[0].end());
      a.log = std::move((*fields)[1]);
      return a;
    }
  }
  TempDir tmp;
  const std::string in = tmp.path() + "/in.ptx", cubin = tmp.path() + "/out.cubin";
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
    f.close();  // flushed before ptxas reads it
    if (!f) throw DriverError(fmt::format("cannot write {}: {}", in, std::strerror(errno)));
  }
  // -lineinfo: the cubin's SASS-to-PTX line table; it does not change the code.
  std::vector<std::string> argv = {ptxas, "-lineinfo", "-arch=" + arch};
  if (!entries.empty()) {
    std::string list;
    for (const std::string& e : entries) list += (list.empty() ? "" : ",") + e;
    argv.push_back("--entry");
    argv.push_back(list);
  }
  for (const std::string& a : {in, std::string("-o"), cubin}) argv.push_back(a);
  RunResult result = run(argv, tmp.path(), "ptxas", timeout_seconds);
  const int code = WIFEXITED(result.wait_status) ? WEXITSTATUS(result.wait_status) : -1;
  if (code != 0)
    throw DriverError(fmt::format("ptxas failed (exit {}):\n{}", code,
                                  result.err.empty() ? result.out : result.err));
  Assembled a;
  a.log = result.err + result.out;
  const std::string bytes = read_file(cubin);
  a.cubin.assign(bytes.begin(), bytes.end());
  if (!bytes.empty()) cache.put(key, pack_fields({bytes, a.log}));
  return a;
}

}  // namespace bankcheck::driver
