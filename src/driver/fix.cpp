// The fix engine: the check engine with shared requests recorded, registers from
// ptxas, the advisor, and --apply.
#include "bankcheck/driver/fix.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bankcheck/driver/nvcc.hpp"

namespace bankcheck::driver {

FixReport fix(const FixOptions& o) {
  const model::Arch* arch = &find_arch(o.check);
  CheckOptions co = o.check;
  co.record_shared = true;
  Loaded l = load(co);
  FixReport fr;
  fr.check = start_report(l, co, *arch);
  analysis::CheckReport& r = fr.check;
  // Registers: ptxas on the same PTX, for the target architecture.
  std::map<std::string, KernelResources> resources;
  std::string resources_note;
  try {
    resources = ptxas_resources(l.ptx_text, co.arch, co.nvcc.nvcc);
  } catch (const DriverError& e) {
    resources_note = fmt::format("registers unknown: {}", e.what());
    const auto nl = resources_note.find('\n');
    if (nl != std::string::npos) resources_note.resize(nl);
  }
  run_selected(l, co, *arch, [&](const ptx::Kernel& kernel, KernelRun& run) {
    r.kernels.push_back(std::move(run.report));
    analysis::AdviseInput in;
    in.kernel = &kernel;
    in.report = &r.kernels.back();
    in.recorder = run.recorder.get();
    in.arch = arch;
    in.source_lines = &r.source_lines;
    in.main_file = r.main_file;
    in.top = o.top;
    const auto it = resources.find(kernel.name);
    if (it != resources.end()) {
      in.registers = it->second.registers;
    } else {
      in.registers_note = resources_note.empty()
                              ? std::string("registers unknown: ptxas reported nothing for it")
                              : resources_note;
    }
    fr.kernels.push_back(analysis::advise(in));
  });
  if (o.apply) {
    if (l.source_text.empty()) {
      fr.apply_note = "--apply needs the .cu source (the input is PTX)";
    } else if (auto patched = analysis::apply_padding(l.source_text, fr.kernels,
                                                       &fr.applied_changes)) {
      std::filesystem::path in(co.input);
      fr.patched_path = !o.apply_to.empty()
                            ? o.apply_to
                            : (in.parent_path() / (in.stem().string() + ".fixed" +
                                                   in.extension().string()))
                                  .string();
      if (std::filesystem::exists(fr.patched_path) &&
          std::filesystem::equivalent(fr.patched_path, co.input))
        throw DriverError(fmt::format("--apply: '{}' is the input; give another path", fr.patched_path));
      {
        std::ofstream f(fr.patched_path, std::ios::binary);
        if (!f) throw DriverError(fmt::format("--apply: cannot write '{}'", fr.patched_path));
        f << *patched;
        f.close();  // a full disk shows at the flush the close does
        if (!f)
          throw DriverError(fmt::format("--apply: cannot write '{}': {}", fr.patched_path,
                                        errno ? std::strerror(errno) : "write failed"));
      }
      fr.applied = true;
      CheckOptions again = o.check;
      again.input = fr.patched_path;
      fr.recheck = check(again);
    } else {
      fr.apply_note = "no declaration padding to apply (no array has a padding suggestion "
                      "with a declaration bankcheck can edit)";
    }
  }
  return fr;
}

}  // namespace bankcheck::driver
