// libFuzzer target for the PTX parser (bankcheck::ptx::parse): every input must either
// parse or throw ParseError naming a real position and its line, read whole and with every
// other kernel's body skipped. Any other exception, a
// crash, a hang or a sanitizer report is a bug. Built by fuzz/run.sh; replayed by CTest.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bankcheck/ptx/ast.hpp"

namespace {

// Line `n` (1-based) of `text`, with its line break; empty past the end.
std::string_view raw_line(std::string_view text, int n) {
  std::size_t b = 0;
  for (int k = 1; k < n; ++k) {
    const std::size_t nl = text.find('\n', b);
    if (nl == std::string_view::npos) return {};
    b = nl + 1;
  }
  const std::size_t e = text.find('\n', b);
  return text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
}

int count_lines(std::string_view text) {
  int n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// One parse of `text`, read whole or with every other kernel's body skipped
// (ParseOptions::keep_entry): the postconditions hold either way, and a skipped body lies in
// the text, from its `{` to its `}`.
void parse_and_check(std::string_view text, bool skip_some) {
  bankcheck::ptx::ParseOptions options;
  int entries = 0;
  if (skip_some) options.keep_entry = [&entries](std::string_view) { return entries++ % 2 == 0; };
  try {
    const bankcheck::ptx::Module m = bankcheck::ptx::parse(text, "fuzz.ptx", options);
    const int lines = count_lines(text);
    for (const auto& f : m.functions) {
      if (f.body_skipped) {
        check(f.body.empty() && f.body_begin < f.body_end && f.body_end <= text.size());
        check(text[f.body_begin] == '{' && text[f.body_end - 1] == '}');
      }
      for (const auto& s : f.body) {
        if (s.is_label) {
          check(!s.label.empty());
          continue;
        }
        const auto& i = s.instruction;
        check(i.pos.line >= 1 && i.pos.line <= lines && i.pos.col >= 1);
        check(!i.text.empty() && i.text.find('\n') == std::string::npos);
        check(!i.opcode.empty());
      }
    }
  } catch (const bankcheck::ptx::ParseError& e) {
    // The position lies in the text and line_text is that line (without "\r\n").
    check(e.pos.line >= 1 && e.pos.col >= 1);
    check(e.source == "fuzz.ptx");
    std::string_view line = raw_line(text, e.pos.line);
    check(static_cast<std::size_t>(e.pos.col) <= line.size() + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    check(e.line_text == line);
    check(e.what()[0] != '\0');
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  parse_and_check(text, false);
  parse_and_check(text, true);
  return 0;
}
