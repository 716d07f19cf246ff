// Where the documentation is (doc_paths.hpp).
#include "doc_paths.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <system_error>

#include "bankcheck/install_dirs.hpp"

namespace bankcheck::tools {

const std::string& doc_dir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const fs::path bin = exe.parent_path();
      // The build tree: this executable's own build directory, and the sources beside it.
      if (fs::equivalent(bin, BANKCHECK_BUILD_TOOL_DIR, ec) &&
          fs::exists(fs::path(BANKCHECK_SOURCE_DOCDIR) / "json.md", ec))
        return std::string(BANKCHECK_SOURCE_DOCDIR);
      // An install, wherever its prefix was moved: PREFIX/bin and PREFIX/DOCDIR.
      const fs::path beside = bin / ".." / BANKCHECK_INSTALL_DOCDIR;
      if (fs::exists(beside / "json.md", ec)) return fs::weakly_canonical(beside, ec).string();
    }
    return std::string(BANKCHECK_DOCDIR);
  }();
  return dir;
}

std::string doc_path(std::string_view file) { return doc_dir() + "/" + std::string(file); }

void resolve_doc_paths(CLI::App& app, bool installed) {
  const std::string dir = installed ? std::string(BANKCHECK_DOCDIR) : doc_dir();
  const auto resolved = [&](std::string s) {
    static const std::string mark = "@DOCDIR@";
    for (std::size_t at = s.find(mark); at != std::string::npos; at = s.find(mark, at + dir.size()))
      s.replace(at, mark.size(), dir);
    return s;
  };
  const std::function<void(CLI::App&)> walk = [&](CLI::App& a) {
    a.description(resolved(a.get_description()));
    a.footer(resolved(a.get_footer()));
    for (CLI::Option* o : a.get_options()) o->description(resolved(o->get_description()));
    for (CLI::App* sub : a.get_subcommands(std::function<bool(CLI::App*)>{})) walk(*sub);
  };
  walk(app);
}

}  // namespace bankcheck::tools
