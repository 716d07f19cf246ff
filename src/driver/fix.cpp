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
  });
  if (o.apply) {
    if (l.source_text.empty()) {
      fr.apply_note = "--apply needs the .cu source (the input is PTX)";
    } else if (auto patched =
                   analysis::apply_padding(l.source_text, fr.kernels, &fr.applied_changes)) {
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
      fr.apply_note =
          "no declaration padding to apply (no array has a padding suggestion "
          "with a declaration bankcheck can edit)";
    }
  }
  return fr;
}

}  // namespace bankcheck::driver
