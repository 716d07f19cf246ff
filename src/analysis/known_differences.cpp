// The known differences from Nsight Compute (known_differences.hpp): how each is recognised
// on a site, and the note its line gets.
#include "bankcheck/analysis/known_differences.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace bankcheck::analysis {

namespace {

// Digits in groups of three, as the measurements are quoted.
std::string grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

}  // namespace

const char* known_difference_id(KnownDifference d) {
  switch (d) {
    case KnownDifference::MaskedWideIdeal:
      return "masked-wide-ideal";
    case KnownDifference::EvictFirstSectors:
      return "evict-first-sectors";
    case KnownDifference::SharedAtomicRetries:
      return "shared-atomic-retries";
    case KnownDifference::PredicatedBypassCopy:
      return "predicated-bypass-copy";
    case KnownDifference::WmmaGlobalLines:
      return "wmma-global-lines";
  }
  return "?";
}

std::string known_difference_note(KnownDifference d, const SiteStats& s) {
  switch (d) {
    case KnownDifference::MaskedWideIdeal:
      return fmt::format(
          "known difference from Nsight Compute: its Source Counters list an ideal of {} "
          "wavefronts for this line's masked {}-byte accesses where bankcheck's is {}: Nsight "
          "packs the active lanes' bytes into 128-byte wavefronts (half a warp or fewer cost it "
          "one), bankcheck counts one per phase with an active lane, the ideal Nsight's "
          "bank-conflict counter subtracts; the wavefronts agree (measured on the H100: "
          "examples/tuned/classic.cu's bitonic sort, line 57, whose ideal Nsight lists as "
          "3,396,745, exactly this rule's, against bankcheck's 3,973,581, "
          "bench/check/measured/h100_run_new/tuned/classic.lines.tsv; a public bitonic sort, "
          "1,401,686 against 1,504,455)",
          grouped(s.nsight_ideal_wavefronts), s.width, grouped(s.ideal_wavefronts));
    case KnownDifference::EvictFirstSectors:
      return fmt::format(
          "known difference from Nsight Compute: it lists 0 L2 sectors for evict-first {} "
          "where bankcheck counts the {} sectors they touch (ideal {}); the memory traffic is "
          "bankcheck's (measured on the H100: bench/transpose, padded_32x8_cs with "
          "__ldcs/__stcs, and the public programs of docs/gpu.md)",
          s.op == model::Op::Store ? "stores (__stcs, st.global.cs: 0 ideal too)"
                                   : "loads (__ldcs, ld.global.cs: with a non-zero ideal)",
          grouped(s.sectors), grouped(s.ideal_sectors));
    case KnownDifference::SharedAtomicRetries:
      return fmt::format(
          "known difference from Nsight Compute: this shared atomic is an LDS + ATOMS.CAST.SPIN "
          "loop; bankcheck costs each warp's passes as if it ran alone ({} wavefronts), while "
          "on the GPU the warps of a CTA that update the same words at once make each other "
          "retry, so Nsight's count follows the run's timing (each pass measured exact alone on "
          "the H100: bench/hardware/atomics, add_f32 126 of 126; about 1% apart on the program "
          "where this was seen)",
          grouped(s.wavefronts));
    case KnownDifference::PredicatedBypassCopy:
      return fmt::format(
          "known difference from Nsight Compute: it reads 0 wavefronts, 0 ideal and 0 sectors "
          "for an LDGSTS.E.BYPASS.128 predicated on P0, as ptxas issued this cp.async.cg; "
          "bankcheck counts the copy's {} requests (measured on the H100: every one of 300 "
          "such instructions read 0, bench/hardware/cpasync)",
          grouped(s.requests));
    case KnownDifference::WmmaGlobalLines:
      return fmt::format(
          "known difference from Nsight Compute: it lists a wmma {} of global memory on the "
          "lines of <mma.h>'s inlined helper and on some or none of the caller's; bankcheck "
          "counts its {} requests on this line (measured on the H100: bench/hardware/wmma, "
          "probe_wmma.cu and probe_forms.cu)",
          s.op == model::Op::Store ? "store" : "load", grouped(s.requests));
  }
  return {};
}

void note_known_differences(const ptx::Kernel& k, const SassPlan& plan, KernelReport& rep) {
  // Per line and difference: the sum of its sites' figures.
  using Key = std::tuple<int, int, KnownDifference>;
  std::map<Key, std::pair<SiteStats, int>> found;  // figures, column of the first site
  const auto add = [&](const SiteReport& s, KnownDifference d) {
    auto [it, fresh] = found.try_emplace(Key{s.file, s.line, d}, s.stats, s.col);
    if (fresh) return;
    SiteStats& t = it->second.first;
    t.requests += s.stats.requests;
    t.wavefronts += s.stats.wavefronts;
    t.ideal_wavefronts += s.stats.ideal_wavefronts;
    t.nsight_ideal_wavefronts += s.stats.nsight_ideal_wavefronts;
    t.sectors += s.stats.sectors;
    t.ideal_sectors += s.stats.ideal_sectors;
  };
  std::uint32_t warps = static_cast<std::uint32_t>((rep.block.count() + 31) / 32);
  for (const SiteReport& s : rep.sites) {
    if (s.site < 0 || static_cast<std::size_t>(s.site) >= k.sites.size() || s.line <= 0) continue;
    const ptx::Instr& in = k.code[k.sites[static_cast<std::size_t>(s.site)].instr];
    const SiteStats& st = s.stats;
    if (st.space == ptx::Space::Shared && st.width >= 8 &&
        st.nsight_ideal_wavefronts != st.ideal_wavefronts &&
        (in.op == ptx::Opc::Ld || in.op == ptx::Opc::St))
      add(s, KnownDifference::MaskedWideIdeal);
    if (st.space == ptx::Space::Global && in.mod.evict_first &&
        (in.op == ptx::Opc::Ld || in.op == ptx::Opc::St))
      add(s, KnownDifference::EvictFirstSectors);
    const std::size_t i = static_cast<std::size_t>(s.site);
    if (i < plan.sites.size() && st.space == ptx::Space::Shared && warps > 1 &&
        plan.sites[i].kind == SassSite::Kind::SpinLoop)
      add(s, KnownDifference::SharedAtomicRetries);
    if (i < plan.sites.size() && in.op == ptx::Opc::CpAsync && plan.sites[i].predicated_bypass)
      add(s, KnownDifference::PredicatedBypassCopy);
    if ((in.op == ptx::Opc::WmmaLoad || in.op == ptx::Opc::WmmaStore) &&
        st.space == ptx::Space::Global)
      add(s, KnownDifference::WmmaGlobalLines);
  }
  for (const auto& [key, value] : found) {
    const auto& [file, line, d] = key;
    NoteReport n{file, line, value.second, known_difference_note(d, value.first)};
    n.known = known_difference_id(d);
    rep.notes.push_back(std::move(n));
  }
}

}  // namespace bankcheck::analysis
