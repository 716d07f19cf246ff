// compile_commands.json: reading it (with located errors), finding a file's entry, and the
// entry's flags that change the device code, in nvcc's spelling.
#include "bankcheck/driver/compile_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

namespace bankcheck::driver {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DriverError(fmt::format("{}: cannot read '{}'", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// nlohmann's byte position (1-based, the last character read) as LINE:COL.
std::string line_col(const std::string& text, std::size_t byte) {
  const std::size_t pos = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(
                                   text.begin(), text.begin() + static_cast<long>(pos), '\n'));
  const std::size_t nl = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
  const std::size_t col = nl == std::string::npos ? pos + 1 : pos - nl;
  return fmt::format("{}:{}", line, col);
}

// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." ->
// "syntax error ...": the position is given as FILE:LINE:COL instead.
std::string parse_message(const std::string& what) {
  std::string_view m = what;
  if (auto close = m.find("] "); m.starts_with("[json.exception") && close != m.npos)
    m.remove_prefix(close + 2);
  if (m.starts_with("parse error"))
    if (auto colon = m.find(": "); colon != m.npos) m.remove_prefix(colon + 2);
  return std::string(m);
}

std::string normal(const fs::path& p) {
  std::error_code ec;
  fs::path abs = p.is_absolute() ? p : fs::absolute(p, ec);
  if (ec) abs = p;
  return abs.lexically_normal().string();
}

// The same file on both sides: symbolic links resolved where the path exists.
std::string canonical_or_normal(const std::string& path) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(path, ec);
  return ec ? normal(path) : c.lexically_normal().string();
}

bool ends_with_cu(const std::string& s) {
  if (s.size() < 3) return false;
  std::string tail = s.substr(s.size() - 3);
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".cu";
}

// `name` at args[i] as "NAME VALUE", "NAME=VALUE" or, with `attached`, "NAMEVALUE"; on a
// match `value` is set and i moved to the last word used.
bool take(const std::vector<std::string>& args, std::size_t& i, std::string_view name,
          bool attached, std::string& value) {
  const std::string& t = args[i];
  if (t == name) {
    if (i + 1 >= args.size()) return false;
    value = args[++i];
    return true;
  }
  if (!t.starts_with(name)) return false;
  if (t.size() > name.size() && t[name.size()] == '=') {
    value = t.substr(name.size() + 1);
    return true;
  }
  if (attached) {
    value = t.substr(name.size());
    return true;
  }
  return false;
}

bool take_any(const std::vector<std::string>& args, std::size_t& i,
              std::initializer_list<std::string_view> names, bool attached, std::string& value) {
  for (std::string_view n : names)
    if (take(args, i, n, attached, value)) return true;
  return false;
}

// Options whose value is a separate word that says nothing about the device code: the value
// is skipped with them (-Xcompiler -DX is the host compiler's define, not nvcc's).
constexpr std::string_view kValueOptions[] = {"-o",
                                              "--output-file",
                                              "-MF",
                                              "-MT",
                                              "-MQ",
                                              "-MJ",
                                              "--dependency-output",
                                              "--dependency-target-name",
                                              "-odir",
                                              "--output-directory",
                                              "-Xcompiler",
                                              "--compiler-options",
                                              "-Xptxas",
                                              "--ptxas-options",
                                              "-Xlinker",
                                              "--linker-options",
                                              "-Xnvlink",
                                              "--nvlink-options",
                                              "-Xarchive",
                                              "--archive-options",
                                              "-Xfatbin",
                                              "--fatbin-options",
                                              "-Xclang",
                                              "-Xarch_host",
                                              "-Xarch_device",
                                              "-Xcuda-ptxas",
                                              "-Xcuda-fatbinary",
                                              "-t",
                                              "--threads",
                                              "-maxrregcount",
                                              "--maxrregcount",
                                              "-default-stream",
                                              "--default-stream",
                                              "-l",
                                              "--library",
                                              "-L",
                                              "--library-path",
                                              "-target",
                                              "-imacros",
                                              "-idirafter",
                                              "-isysroot",
                                              "--sysroot",
                                              "-split-compile",
                                              "--split-compile",
                                              "-time",
                                              "--time",
                                              "-keep-dir",
                                              "--keep-dir",
                                              "-run-args",
                                              "--run-args",
                                              "-ldir",
                                              "--libdevice-directory",
                                              "-arbin",
                                              "--archiver-binary"};

void add_arch(DeviceFlags& f, std::string_view text) {
  // Every sm_NN, compute_NN or lto_NN in the text ("arch=compute_90,code=[compute_90,sm_90]").
  for (std::size_t at = 0; at < text.size(); ++at) {
    std::size_t digits = std::string_view::npos;
    for (std::string_view p : {"sm_", "compute_", "lto_"})
      if (text.substr(at).starts_with(p) &&
          (at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1])))) {
        digits = at + p.size();
        break;
      }
    if (digits == std::string_view::npos) continue;
    std::size_t end = digits;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == digits) continue;
    std::string arch = "sm_" + std::string(text.substr(digits, end - digits));
    if (end < text.size() && (text[end] == 'a' || text[end] == 'f')) arch += text[end++];
    if (std::find(f.archs.begin(), f.archs.end(), arch) == f.archs.end()) f.archs.push_back(arch);
    at = end - 1;
  }
}

// The entry's words with --options-file F, -optf F and @F replaced by F's words.
void expand(const std::vector<std::string>& in, const std::string& dir, int depth,
            std::vector<std::string>& out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::string file;
    const bool at = in[i].size() > 1 && in[i][0] == '@';
    if (at) file = in[i].substr(1);
    if (at || (i > 0 && take_any(in, i, {"--options-file", "-optf"}, false, file))) {
      if (depth > 8) throw DriverError(fmt::format("{}: options files nested too deep", file));
      const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : fs::path(dir) / file;
      expand(split_command(read_text(p.string(), "options file")), dir, depth + 1, out);
      continue;
    }
    out.push_back(in[i]);
  }
}

}  // namespace

std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i >= command.size()) throw DriverError("a backslash ends the command");
      if (command[i] != '\n') word += command[i];
    } else if (c == '\'') {
      const std::size_t close = command.find('\'', i + 1);
      if (close == std::string::npos)
        throw DriverError(fmt::format("unterminated ' at character {} of the command", i + 1));
      word += command.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      const std::size_t open = i;
      for (++i;; ++i) {
        if (i >= command.size())
          throw DriverError(
              fmt::format("unterminated \" at character {} of the command", open + 1));
        const char d = command[i];
        if (d == '"') break;
        if (d == '\\' && i + 1 < command.size() &&
            std::string_view("\\\"$`\n").find(command[i + 1]) != std::string_view::npos) {
          if (command[++i] != '\n') word += command[i];
        } else {
          word += d;
        }
      }
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

CompileDb parse_compile_db(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw DriverError(fmt::format("{}:{}: malformed JSON: {}", path, line_col(text, e.byte),
                                  parse_message(e.what())));
  }
  if (!j.is_array())
    throw DriverError(
        fmt::format("{}: not a compilation database (a JSON array of entries with "
                    "directory, file, and command or arguments)",
                    path));
  CompileDb db;
  db.path = path;
  std::size_t n = 0;
  for (const auto& e : j) {
    ++n;
    auto bad = [&](const std::string& why) {
      return DriverError(fmt::format("{}: entry {}: {}", path, n, why));
    };
    if (!e.is_object()) throw bad("not an object");
    auto text_field = [&](const char* name) -> std::string {
      auto it = e.find(name);
      if (it == e.end()) return {};
      if (!it->is_string()) throw bad(fmt::format("'{}' is not a string", name));
      return it->get<std::string>();
    };
    CompileCommand c;
    const std::string dir = text_field("directory"), file = text_field("file");
    if (dir.empty()) throw bad("no 'directory'");
    if (file.empty()) throw bad("no 'file'");
    c.directory = normal(dir);
    c.file = normal(fs::path(file).is_absolute() ? fs::path(file) : fs::path(c.directory) / file);
    if (auto args = e.find("arguments"); args != e.end()) {
      if (!args->is_array()) throw bad("'arguments' is not an array");
      for (const auto& a : *args) {
        if (!a.is_string()) throw bad("'arguments' holds something other than strings");
        c.arguments.push_back(a.get<std::string>());
      }
    } else if (e.contains("command")) {
      try {
        c.arguments = split_command(text_field("command"));
      } catch (const DriverError& x) {
        throw bad(x.what());
      }
    } else {
      throw bad("neither 'arguments' nor 'command'");
    }
    if (c.arguments.empty()) throw bad("an empty command");
    db.entries.push_back(std::move(c));
  }
  return db;
}

CompileDb read_compile_db(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) file = (fs::path(path) / "compile_commands.json").string();
  if (!fs::exists(file, ec))
    throw DriverError(
        fmt::format("-p: no {} (give the build directory where CMake wrote it with "
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or the file itself)",
                    file));
  return parse_compile_db(read_text(file, "-p"), file);
}

const CompileCommand* find_entry(const CompileDb& db, const std::string& file) {
  const std::string want = canonical_or_normal(file);
  for (const auto& e : db.entries)
    if (e.file == want || canonical_or_normal(e.file) == want) return &e;
  return nullptr;
}

std::vector<std::string> cuda_files(const CompileDb& db) {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  for (const auto& e : db.entries) {
    if (!ends_with_cu(e.file)) continue;
    std::string shown = e.file;
    if (!ec) {
      const fs::path rel = fs::path(e.file).lexically_relative(cwd);
      if (!rel.empty() && *rel.begin() != "..") shown = rel.string();
    }
    if (std::find(out.begin(), out.end(), shown) == out.end()) out.push_back(shown);
  }
  return out;
}

DeviceFlags device_flags(const CompileCommand& entry) {
  DeviceFlags f;
  std::vector<std::string> a;
  expand(entry.arguments, entry.directory, 0, a);
  const fs::path dir = entry.directory;
  auto absolute = [&](const std::string& p) {
    return fs::path(p).is_absolute() ? p : (dir / p).lexically_normal().string();
  };
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& t = a[i];
    std::string v;
    if (t.size() < 2 || t[0] != '-') continue;  // the inputs, values of options not known
    // Long and specific spellings first: "-isystem" before "-I", "-include" before "-i...".
    if (take_any(a, i, {"--include-path", "-iquote"}, false, v) || take(a, i, "-I", true, v)) {
      if (!v.empty()) f.include_dirs.push_back(absolute(v));
    } else if (take_any(a, i, {"--system-include", "-isystem"}, true, v)) {
      if (!v.empty()) f.extra.insert(f.extra.end(), {"-isystem", absolute(v)});
    } else if (take_any(a, i, {"--pre-include", "-include"}, false, v)) {
      std::error_code ec;
      const std::string in_dir = absolute(v);
      f.extra.insert(f.extra.end(), {"-include", fs::exists(in_dir, ec) ? in_dir : v});
    } else if (take(a, i, "--define-macro", false, v) || take(a, i, "-D", true, v)) {
      if (!v.empty()) f.defines.push_back(v);
    } else if (take(a, i, "--undefine-macro", false, v) || take(a, i, "-U", true, v)) {
      if (!v.empty()) f.extra.insert(f.extra.end(), {"-U", v});
    } else if (take_any(a, i, {"--std", "-std"}, false, v)) {
      if (v.starts_with("gnu++")) v = "c++" + v.substr(5);
      f.extra.push_back("-std=" + v);
    } else if (take(a, i, "--x", false, v) || take(a, i, "-x", true, v)) {
      if (v == "cu" || v == "cuda") f.extra.insert(f.extra.end(), {"-x", "cu"});
    } else if (t == "--expt-relaxed-constexpr" || t == "-expt-relaxed-constexpr") {
      f.extra.push_back("--expt-relaxed-constexpr");
    } else if (t == "--extended-lambda" || t == "-extended-lambda" ||
               t == "--expt-extended-lambda" || t == "-expt-extended-lambda") {
      f.extra.push_back("--extended-lambda");
    } else if (take_any(a, i, {"--relocatable-device-code", "-rdc"}, false, v)) {
      f.extra.push_back("-rdc=" + v);
    } else if (t == "-dc" || t == "--device-c" || t == "-fgpu-rdc") {
      f.extra.push_back("-rdc=true");
    } else if (t == "--use_fast_math" || t == "-use_fast_math") {
      f.extra.push_back("--use_fast_math");
    } else if (take_any(a, i,
                        {"--ftz", "-ftz", "--prec-div", "-prec-div", "--prec-sqrt", "-prec-sqrt",
                         "--fmad", "-fmad"},
                        false, v)) {
      std::string name = t.substr(0, t.find('='));
      if (!name.starts_with("--")) name = "-" + name;
      f.extra.push_back(name + "=" + v);
    } else if (take_any(a, i, {"--compiler-bindir", "-ccbin"}, false, v)) {
      f.extra.insert(f.extra.end(), {"-ccbin", v.find('/') != std::string::npos ? absolute(v) : v});
    } else if (t == "--allow-unsupported-compiler" || t == "-allow-unsupported-compiler") {
      f.extra.push_back("--allow-unsupported-compiler");
    } else if (take_any(a, i, {"--Xcudafe", "-Xcudafe"}, false, v)) {
      f.extra.insert(f.extra.end(), {"-Xcudafe", v});
    } else if (take_any(a, i,
                        {"--gpu-architecture", "-arch", "--gpu-code", "-code", "--generate-code",
                         "-gencode", "--cuda-gpu-arch", "--offload-arch"},
                        false, v)) {
      add_arch(f, v);
    } else {
      for (std::string_view opt : kValueOptions)
        if (t == opt) {
          ++i;  // its value
          break;
        }
    }
  }
  return f;
}

std::string pick_arch(const std::vector<std::string>& archs) {
  for (const char* preferred : {"sm_90", "sm_90a"})
    if (std::find(archs.begin(), archs.end(), preferred) != archs.end()) return preferred;
  std::string best;
  int best_cc = -1;
  for (const auto& a : archs) {
    const int cc = std::atoi(a.c_str() + 3);
    if (cc > best_cc) {
      best = a;
      best_cc = cc;
    }
  }
  return best;
}

std::vector<std::string> entry_compiler(const CompileCommand& entry) {
  const auto& a = entry.arguments;
  auto is_nvcc = [](const std::string& w) {
    return std::filesystem::path(w).filename().string().starts_with("nvcc");
  };
  auto absolute = [&](const std::string& w) {
    if (w.find('/') == std::string::npos || w.starts_with('/')) return w;
    return (std::filesystem::path(entry.directory) / w).lexically_normal().string();
  };
  if (!a.empty() && is_nvcc(a[0])) return {absolute(a[0])};
  if (a.size() > 1 && is_nvcc(a[1]) && !a[1].starts_with('-'))
    return {absolute(a[0]), absolute(a[1])};
  return {};
}

}  // namespace bankcheck::driver
