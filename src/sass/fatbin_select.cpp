// The cubin and PTX a device of one architecture would use, and what is missing.
#include "bankcheck/sass/fatbin_select.hpp"

namespace bankcheck::sass {

namespace {

// Architectures of one family share the major version (sm_100, sm_103: family 10).
bool same_family(std::uint32_t a, std::uint32_t b) { return a / 10 == b / 10; }

// Whether code for `e` runs on (cubin) or compiles for (PTX) a device of `sm`.
bool usable(const FatbinEntry& e, std::uint32_t sm) {
  switch (e.variant) {
    case ArchVariant::ArchSpecific:
      return e.sm == sm;
    case ArchVariant::FamilySpecific:
      return same_family(e.sm, sm) && e.sm <= sm;
    case ArchVariant::Plain:
      // SASS runs on its own architecture only; PTX is compiled for any later one.
      return e.kind == FatbinKind::Cubin ? e.sm == sm : e.sm <= sm;
  }
  return false;
}

int specificity(ArchVariant v) {
  return v == ArchVariant::ArchSpecific ? 2 : v == ArchVariant::Plain ? 1 : 0;
}

// True when `a` is preferred to `b` (both usable): newer, then the cubin's own
// architecture, then more specific.
bool better(const FatbinEntry& a, const FatbinEntry& b, const FatbinEntry* cubin) {
  if (a.sm != b.sm) return a.sm > b.sm;
  if (cubin) {
    const bool am = a.variant == cubin->variant, bm = b.variant == cubin->variant;
    if (am != bm) return am;
  }
  return specificity(a.variant) > specificity(b.variant);
}

const FatbinEntry* best(std::span<const FatbinEntry> entries, FatbinKind kind, std::uint32_t sm,
                        const FatbinEntry* cubin) {
  const FatbinEntry* found = nullptr;
  for (const FatbinEntry& e : entries)
    if (e.kind == kind && usable(e, sm) && (!found || better(e, *found, cubin))) found = &e;
  return found;
}

std::string suffix(ArchVariant v) {
  return v == ArchVariant::ArchSpecific ? "a" : v == ArchVariant::FamilySpecific ? "f" : "";
}

std::string listing(std::span<const FatbinEntry> entries) {
  std::string s;
  for (const FatbinEntry& e : entries) {
    if (e.kind == FatbinKind::Other) continue;
    const std::string name = e.arch_name();
    if (s.find(name) != std::string::npos) continue;
    s += (s.empty() ? "" : ", ") + name;
  }
  return s.empty() ? "no PTX or cubin" : s;
}

}  // namespace

FatbinSelection select_for_arch(std::span<const FatbinEntry> entries, std::uint32_t sm) {
  FatbinSelection out;
  out.cubin = best(entries, FatbinKind::Cubin, sm, nullptr);
  out.ptx = best(entries, FatbinKind::Ptx, sm, out.cubin);
  // The suggestions name the cubin's own architecture when there is one (sm_90a -> compute_90a).
  const std::string arch = std::to_string(out.cubin ? out.cubin->sm : sm) +
                           (out.cubin ? suffix(out.cubin->variant) : "");
  const std::string device = "sm_" + std::to_string(sm);
  if (out.cubin && !out.ptx) {
    out.missing.push_back("the fat binary has SASS for " + out.cubin->arch_name() +
                          " but no PTX: add -gencode arch=compute_" + arch + ",code=compute_" +
                          arch);
  } else if (!out.cubin && out.ptx) {
    out.missing.push_back(
        "the fat binary has PTX for " + out.ptx->arch_name() + " but no SASS for " + device +
        " (counts stay at the PTX level): add -gencode arch=compute_" + arch + ",code=sm_" + arch);
  } else if (!out.cubin && !out.ptx) {
    out.missing.push_back("the fat binary has neither SASS nor PTX for " + device + " (it holds " +
                          listing(entries) + "): add -gencode arch=compute_" + arch + ",code=[sm_" +
                          arch + ",compute_" + arch + "]");
  }
  out.same_arch = out.cubin && out.ptx && out.ptx->sm == out.cubin->sm &&
                  out.ptx->variant == out.cubin->variant;
  return out;
}

}  // namespace bankcheck::sass
