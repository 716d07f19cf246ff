// A kernel fault reported as compute-sanitizer reports it (fault_report.hpp).
#include "fault_report.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace bankcheck::runtime {
namespace {

const char* space_word(ptx::Space s) {
  switch (s) {
    case ptx::Space::Shared:
      return "__shared__";
    case ptx::Space::Local:
      return "__local__";
    default:
      return "__global__";
  }
}

const char* op_word(emu::EmuError::Access::Op op) {
  switch (op) {
    case emu::EmuError::Access::Op::Write:
      return "write";
    case emu::EmuError::Access::Op::Atomic:
      return "atomic";
    default:
      return "read";
  }
}

// "file.cu:12" of the instruction, or the module's name.
std::string where(const driver::Loaded& l, const ptx::Kernel& k, int instr) {
  if (instr < 0 || static_cast<std::size_t>(instr) >= k.locs.size()) return l.input;
  const ptx::SourcePos& p = k.locs[static_cast<std::size_t>(instr)];
  if (p.line <= 0) return l.input;
  const std::string file = p.file >= 0 && static_cast<std::size_t>(p.file) < l.program.files.size()
                               ? l.program.files[static_cast<std::size_t>(p.file)]
                               : l.input;
  return fmt::format("{}:{}", file.empty() ? l.input : file, p.line);
}

// "and is N bytes after the nearest allocation at 0x.. of size M bytes", or empty.
std::string nearest(emu::GlobalMemory& memory, std::uint64_t a) {
  const emu::GlobalMemory::Buffer* best = nullptr;
  std::uint64_t distance = ~0ull;
  bool after = false;
  for (const auto& b : memory.buffers()) {
    const bool past = a >= b->base + b->size;
    const std::uint64_t d = past ? a - (b->base + b->size) + 1 : b->base - a;
    if (a >= b->base && !past) continue;  // inside (a straddling access): not "nearest"
    if (d < distance) {
      distance = d;
      best = b.get();
      after = past;
    }
  }
  if (!best) return "";
  return fmt::format("and is {} bytes {} the nearest allocation at 0x{:x} of size {} bytes",
                     distance, after ? "after" : "before", best->base, best->size);
}

}  // namespace

std::string fault_lines(const driver::EmulationError& e, const ptx::Kernel& k,
                        const driver::Loaded& l, const LaunchRequest& r,
                        emu::GlobalMemory& memory) {
  const driver::KernelSignature& sig = l.signature(k);
  std::string out;
  auto line = [&](const std::string& s) { out += "========= " + s + "\n"; };
  using Kind = emu::EmuError::Kind;
  const auto& a = e.access;
  if (a.known && (e.kind == Kind::OutOfBounds || e.kind == Kind::Misaligned)) {
    line(fmt::format("Invalid {} {} of size {} bytes", space_word(a.space), op_word(a.op),
                     a.size));
  } else if (e.kind == Kind::Assert) {
    line("Device-side assertion failed");
  } else {
    line(fmt::format("Kernel stopped: {}", e.what()));
  }
  line(fmt::format("    at {} in {}", sig.signature, where(l, k, e.instr)));
  if (a.known) {
    const std::uint64_t t = static_cast<std::uint64_t>(a.warp) * 32 + static_cast<std::uint64_t>(a.lane);
    const std::uint64_t bx = r.block.x, by = r.block.y;
    line(fmt::format("    by thread ({},{},{}) in block ({},{},{})", t % bx, (t / bx) % by,
                     t / (bx * by), e.cta.x, e.cta.y, e.cta.z));
    line(fmt::format("    Address 0x{:x} is {}", a.address,
                     e.kind == Kind::Misaligned ? "misaligned" : "out of bounds"));
    if (e.kind == Kind::OutOfBounds && a.space == ptx::Space::Global)
      if (const std::string n = nearest(memory, a.address); !n.empty()) line("    " + n);
  } else {
    line(fmt::format("    in block ({},{},{})", e.cta.x, e.cta.y, e.cta.z));
  }
  out.pop_back();
  return out;
}

LaunchResult fault_result(const driver::EmulationError& e, const ptx::Kernel& k,
                          const driver::Loaded& l, const LaunchRequest& r,
                          emu::GlobalMemory& memory, const std::string& name) {
  using Kind = emu::EmuError::Kind;
  switch (e.kind) {
    case Kind::OutOfBounds:
    case Kind::Misaligned:
    case Kind::Assert:
    case Kind::Trap: {
      // The GPU's driver's own lines first (a failed assert()'s), then compute-sanitizer's.
      std::fputs(e.device_text.c_str(), stderr);
      std::fprintf(stderr, "%s\n", fault_lines(e, k, l, r, memory).c_str());
      std::fflush(stderr);
      const FaultKind f = e.kind == Kind::Misaligned ? FaultKind::MisalignedAddress
                          : e.kind == Kind::Assert   ? FaultKind::Assert
                          : e.kind == Kind::Trap     ? FaultKind::Trap
                                                     : FaultKind::IllegalAddress;
      return {LaunchStatus::Fault, f, fmt::format("kernel {} faulted: {}", name, e.what())};
    }
    default:
      return {LaunchStatus::NotSupported, FaultKind::IllegalAddress,
              fmt::format("kernel {} could not be emulated to its end: {}", name, e.what())};
  }
}

}  // namespace bankcheck::runtime
