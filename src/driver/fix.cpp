// The fix engine: the check engine with shared requests recorded, registers from
// ptxas, the advisor, and --apply.
#include "bankcheck/driver/fix.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/global_code.hpp"
#include "bankcheck/driver/host_launch.hpp"
#include "bankcheck/driver/nvcc.hpp"
#include "bankcheck/driver/shared_source.hpp"

namespace bankcheck::driver {
namespace {

// `text` with every `from` replaced by `to`.
std::string renamed(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The re-check ran on the temporary copy; its report names the path the user gets: the
// input, the file table (nvcc's .file directives), where settings came from, notes.
void rename_input(analysis::CheckReport& r, const std::string& from, const std::string& to) {
  r.input = renamed(r.input, from, to);
  for (auto& f : r.files) f = renamed(f, from, to);
  for (auto& k : r.kernels) {
    for (auto& s : k.settings_from) s.where = renamed(s.where, from, to);
    for (auto& n : k.notes) n.message = renamed(n.message, from, to);
  }
  for (auto& u : r.unsupported) u.reason = renamed(u.reason, from, to);
}

}  // namespace

void write_fixed_copy(const std::string& path, const std::string& content, bool force,
                      const std::function<void(const std::string& tmp)>& check) {
  // Never over an existing file or through a symbolic link unless --force: hand edits
  // in an earlier X.fixed.cu would be lost, a link's target overwritten.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !force)
    throw DriverError(
        fmt::format("--apply: '{}' {}; give --force to replace it or --apply-to another path", path,
                    S_ISLNK(st.st_mode) ? "is a symbolic link" : "exists"));
  // Written to a temporary file beside it, checked, then renamed: the path holds either
  // nothing or a copy that was checked.
  const std::filesystem::path target(path);
  std::string tmp = (target.parent_path() / (target.stem().string() + ".tmp-XXXXXX")).string();
  const std::string ext = target.extension().string();
  tmp += ext;
  const int fd = ::mkstemps(tmp.data(), static_cast<int>(ext.size()));
  if (fd < 0)
    throw DriverError(
        fmt::format("--apply: cannot write beside '{}': {}", path, std::strerror(errno)));
  {
    const mode_t mask = ::umask(0);  // the mode a plain create would give, not 0600
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  struct Remove {
    std::string path;
    ~Remove() {
      if (!path.empty()) ::unlink(path.c_str());
    }
  } remove_tmp{tmp};
  {
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = errno;
        ::close(fd);
        throw DriverError(fmt::format("--apply: cannot write '{}': {}", tmp, std::strerror(err)));
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
      throw DriverError(fmt::format("--apply: cannot write '{}': {}", tmp, std::strerror(errno)));
  }
  if (check) check(tmp);
  if (!force ? ::link(tmp.c_str(), path.c_str()) != 0 : ::rename(tmp.c_str(), path.c_str()) != 0)
    throw DriverError(fmt::format("--apply: cannot write '{}': {}", path, std::strerror(errno)));
}

FixReport fix(const FixOptions& o) {
  const model::Arch* arch = &find_arch(o.check);
  CheckOptions co = o.check;
  co.record_shared = true;
  Loaded l = load(co);
  FixReport fr;
  fr.check = start_report(l, co, *arch);
  analysis::CheckReport& r = fr.check;
  std::map<std::string, std::uint64_t> sampled;  // CTAs each kernel's prediction counted
  // The names in a declaration's dimensions as nvcc reads them: its command line's macros and
  // the headers found through its -I directories.
  SourceMacros macros;
  if (!l.source_text.empty()) {
    macros.defines = command_line_defines(co.nvcc);
    macros.headers = local_headers_text(l.source_text, l.input, include_search_dirs(co.nvcc));
  }
  run_selected(l, co, *arch, [&](const ptx::Kernel& kernel, KernelRun& run) {
    sampled[kernel.name] = run.report.ctas_analysed;
    r.kernels.push_back(std::move(run.report));
    analysis::AdviseInput in;
    in.kernel = &kernel;
    in.report = &r.kernels.back();
    in.recorder = run.recorder.get();
    in.arch = arch;
    const analysis::SharedSource source =
        read_shared_source(r.source_lines, r.kernels.back().name, macros);
    in.source = &source;
    in.main_file = r.main_file;
    in.top = o.top;
    // Registers: the cubin ptxas built from the same PTX (load()).
    const auto it = l.registers.find(kernel.name);
    if (it != l.registers.end()) {
      in.registers = it->second;
    } else {
      in.registers_note = l.registers_note.empty()
                              ? std::string("registers unknown: the cubin has no such kernel")
                              : l.registers_note;
    }
    fr.kernels.push_back(analysis::advise(in));
    // Global lines with sectors in excess: the change, and its code where it can be written.
    fr.kernels.back().globals = analysis::advise_global(r.kernels.back());
    for (analysis::GlobalFix& g : fr.kernels.back().globals)
      write_global_code(g, r.source_lines, r.main_file, r.kernels.back(), l.signature(kernel),
                        *arch);
  });
  if (o.apply) {
    if (!l.binary.empty()) {
      fr.apply_note = "--apply needs the .cu source (the input is a binary: give its source " +
                      std::string(l.source_text.empty() ? "file" : l.input) + ")";
    } else if (l.source_text.empty()) {
      fr.apply_note = "--apply needs the .cu source (the input is PTX)";
    } else if (auto patched =
                   analysis::apply_fixes(l.source_text, fr.kernels, &fr.applied_changes)) {
      std::filesystem::path in(co.input);
      fr.patched_path =
          !o.apply_to.empty()
              ? o.apply_to
              : (in.parent_path() / (in.stem().string() + ".fixed" + in.extension().string()))
                    .string();
      if (std::filesystem::exists(fr.patched_path) &&
          std::filesystem::equivalent(fr.patched_path, co.input))
        throw DriverError(
            fmt::format("--apply: '{}' is the input; give another path", fr.patched_path));
      CheckOptions again = o.check;
      again.sampled_ctas = sampled;
      write_fixed_copy(fr.patched_path, *patched, o.force, [&](const std::string& tmp) {
        again.input = tmp;
        try {
          fr.recheck = check(again);
        } catch (const EmulationError& e) {
          throw EmulationError(renamed(e.what(), tmp, fr.patched_path), e);
        } catch (const DriverError& e) {
          throw DriverError(renamed(e.what(), tmp, fr.patched_path));
        }
        rename_input(*fr.recheck, tmp, fr.patched_path);
      });
      fr.applied = true;
      fr.apply_skipped = analysis::not_applied(fr.kernels);
    } else {
      const std::vector<std::string> why = analysis::not_applied(fr.kernels);
      if (why.empty()) {
        fr.apply_note =
            "no shared array has bank conflicts to remove, and no global line "
            "sectors to save";
      } else {
        fr.apply_note =
            "no change bankcheck can write (a declaration padding, a global "
            "line's code):";
        for (const auto& w : why) fr.apply_note += "\n  " + w;
      }
    }
  }
  return fr;
}

}  // namespace bankcheck::driver
