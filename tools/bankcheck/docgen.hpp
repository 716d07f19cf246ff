// The manual page and the bash completion, generated from the command line's CLI11 App: every
// subcommand and option the App defines appears in both, so neither can drift from --help.
// The build writes them with the hidden flags below (tools/bankcheck/CMakeLists.txt) and
// installs the results; the prose CLI11 does not hold (DESCRIPTION, EXIT STATUS, ENVIRONMENT,
// FILES, EXAMPLES, SEE ALSO) is in manpage.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bankcheck::tools {

// What the generators need to know of one option or positional, read from CLI11.
struct OptionDoc {
  std::vector<std::string> names;  // "-o", "--output"; a positional: its name ("files")
  bool positional = false;
  bool required = false;
  bool takes_value = false;
  bool repeatable = false;
  std::string type;                  // CLI11's type name without its validators ("TEXT", "INT")
  std::vector<std::string> choices;  // the values a set validator accepts ({a,b,c}); else empty
  std::string description;
  std::string default_value;  // the captured default, or empty
};
OptionDoc describe(const CLI::Option& opt);
// The subcommands --help lists (not hidden ones), in the order they were added.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);
// The options and positionals of a subcommand in the order they were added (--help first),
// hidden ones left out.
std::vector<OptionDoc> visible_options(const CLI::App& sub);

// The values an option's argument completes to beyond its choices: the architectures for
// --arch (the occupancy calculator's for `occupancy`), else none.
std::vector<std::string> value_hints(const std::string& subcommand, const OptionDoc& o);
// Whether an option's argument is a directory or a file (from its description's words), for
// completion; neither: a value the user types.
enum class ValueKind { Text, File, Directory };
ValueKind value_kind(const OptionDoc& o);
// The file extensions a positional names in its description ("FILE.cu or FILE.ptx": cu, ptx);
// empty: any file.
std::vector<std::string> file_extensions(const OptionDoc& o);

// The manual page (roff, man(7) macros) of `app`.
std::string man_page(const CLI::App& app);
// A bash completion script for `app` (needs bash only, not the bash-completion package).
std::string bash_completion(const CLI::App& app);

// The hidden flags: `bankcheck --generate-man` prints the manual page and
// `bankcheck --generate-completion bash` the completion; returns the exit status when argv is
// one of them, else nothing (the command line is parsed as usual).
std::optional<int> generate_docs(const CLI::App& app, int argc, char** argv);

}  // namespace bankcheck::tools
