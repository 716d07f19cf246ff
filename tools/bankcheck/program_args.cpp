// Bankcheck's words apart from a program's (program_args.hpp).
#include "program_args.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bankcheck::tools {

ProgramWords find_program(const CLI::App& sub, int first, int argc, char** argv) {
  ProgramWords w;
  int i = first;
  while (i < argc) {
    const std::string word = argv[i];
    if (word == "--") {
      w.end = i;
      if (i + 1 < argc) w.program = i + 1;
      w.after_dashes = true;
      return w;
    }
    if (word.size() > 2 && word.starts_with("--")) {
      const std::size_t eq = word.find('=');
      const CLI::Option* opt = sub.get_option_no_throw(word.substr(0, eq));
      const bool takes_value = opt && opt->get_items_expected_max() > 0;
      i += takes_value && eq == std::string::npos ? 2 : 1;
      continue;
    }
    if (word.size() > 1 && word[0] == '-') {
      // Short options, possibly bundled: the first that takes a value takes the rest of the
      // word, or the next word.
      int step = 1;
      for (std::size_t c = 1; c < word.size(); ++c) {
        const CLI::Option* opt = sub.get_option_no_throw(std::string{'-', word[c]});
        if (!opt) break;  // the parser says what is wrong with it
        if (opt->get_items_expected_max() > 0) {
          if (c + 1 == word.size()) step = 2;
          break;
        }
      }
      i += step;
      continue;
    }
    w.end = i;
    w.program = i;
    return w;
  }
  w.end = argc;
  return w;
}

namespace {

// The file execvp would run for `word`: the word itself when it has a slash, else the first
// executable of that name on PATH.
std::string resolve(const std::string& word) {
  if (word.find('/') != std::string::npos) return word;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string f = (dir.empty() ? std::string(".") : dir) + "/" + word;
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(f.c_str(), X_OK) == 0)
      return f;
  }
  return "";
}

}  // namespace

bool is_program(const std::string& word) {
  const std::string file = resolve(word);
  struct stat st {};
  if (file.empty() || ::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      ::access(file.c_str(), X_OK) != 0)
    return false;
  std::ifstream f(file, std::ios::binary);
  Elf64_Ehdr h{};
  f.read(reinterpret_cast<char*>(&h), sizeof h);
  const std::streamsize got = f.gcount();
  if (got >= 2 && h.e_ident[0] == '#' && h.e_ident[1] == '!') return true;
  if (got < static_cast<std::streamsize>(sizeof h) ||
      std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64)
    return false;
  if (h.e_type == ET_EXEC) return true;
  if (h.e_type != ET_DYN) return false;
  // A position-independent executable names its program interpreter; a shared library does not.
  for (unsigned p = 0; p < h.e_phnum && p < 256; ++p) {
    Elf64_Phdr ph{};
    f.seekg(static_cast<std::streamoff>(h.e_phoff + std::uint64_t{p} * h.e_phentsize));
    f.read(reinterpret_cast<char*>(&ph), sizeof ph);
    if (f.gcount() != static_cast<std::streamsize>(sizeof ph)) return false;
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                         "OPQRSTUVWXYZ0123456789_-+=/.,:@%") == std::string::npos;
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace bankcheck::tools
