// The colours of the text reports (check, fix), in the style of GCC and Clang diagnostics
// (private to src/report).
#pragma once

#include <fmt/format.h>

#include <string>

#include "bankcheck/report/findings.hpp"

namespace bankcheck::report {

// GCC's default diagnostic colours (GCC_COLORS): locus bold, error bold red, warning bold magenta, note
// bold cyan, caret bold green; conflicting cells of the bank picture bold red.
struct Paint {
  bool on = false;
  std::string operator()(const char* sgr, const std::string& s) const {
    return on ? fmt::format("\033[{}m{}\033[0m", sgr, s) : s;
  }
  std::string locus(const std::string& s) const { return (*this)("01", s); }
  std::string error() const { return (*this)("01;31", "error:"); }
  std::string warning() const { return (*this)("01;35", "warning:"); }
  std::string note() const { return (*this)("01;36", "note:"); }
  // The label of a finding's severity (findings.hpp's one scale), as GCC paints it.
  std::string severity(Severity s) const {
    return s == Severity::Error ? error() : s == Severity::Warning ? warning() : note();
  }
  std::string caret() const { return (*this)("01;32", "^"); }
  // The picture's cells that are conflicts ("NN!") in red.
  std::string picture(const std::string& pic) const {
    if (!on) return pic;
    std::string out;
    size_t pos = 0;
    while (pos < pic.size()) {
      size_t eol = pic.find('\n', pos);
      if (eol == std::string::npos) eol = pic.size();
      std::string line = pic.substr(pos, eol - pos);
      if (line.rfind("  wf", 0) == 0) {
        std::string painted;
        size_t from = 0;
        for (size_t bang = line.find('!'); bang != std::string::npos;
             bang = line.find('!', bang + 1)) {
          const size_t cell = bang >= 2 ? bang - 2 : 0;
          painted +=
              line.substr(from, cell - from) + (*this)("01;31", line.substr(cell, bang + 1 - cell));
          from = bang + 1;
        }
        line = painted + line.substr(from);
      }
      out += line;
      if (eol < pic.size()) out += '\n';
      pos = eol + 1;
    }
    return out;
  }
};

}  // namespace bankcheck::report
