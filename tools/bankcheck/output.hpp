// The one output writer of every subcommand: a report to standard output or to the file
// -o names, with the write, the flush and the close checked.
#pragma once

#include <string>
#include <string_view>

namespace bankcheck::tools {

// Writes `text` to `path`, or to standard output when `path` is empty. Throws UserError
// "-o: cannot write 'PATH': REASON" (REASON from errno: "No such file or directory",
// "No space left on device", ...) or "cannot write to standard output: REASON".
void write_output(std::string_view text, const std::string& path);

// Throws UserError when `output` (-o) names `input` (by name or by inode): the report
// never replaces the file it is about.
void refuse_input_as_output(const std::string& output, const std::string& input);

}  // namespace bankcheck::tools
