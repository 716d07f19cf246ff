// The documents the help texts name, where they are: installed beside bankcheck
// (PREFIX/share/doc/bankcheck, found from the executable's own directory, so a moved prefix
// still finds them), or, for a bankcheck run from its build tree, where nothing is installed,
// the source tree's docs/.
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace bankcheck::tools {

// The directory of the documentation this bankcheck can show: the source tree's docs/ for
// the bankcheck of its build tree, the install beside the executable, else the configured
// prefix's (BANKCHECK_DOCDIR, where it will be once installed).
const std::string& doc_dir();

// doc_dir()/file: "json.md", "schema/check.schema.json".
std::string doc_path(std::string_view file);

// Every "@DOCDIR@" in the help texts of `app` and its subcommands (descriptions, footers,
// options) becomes doc_dir(), or with `installed` the configured prefix's documentation: the
// manual page and the completion are written for the install, whatever bankcheck writes them.
void resolve_doc_paths(CLI::App& app, bool installed);

}  // namespace bankcheck::tools
