// Text and JSON views of an explained block: verdict, why, and the bank picture of the
// worst warp (banks across, wavefronts down, the lane each bank serves in each cell).
#include "bankcheck/report/explain_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "bankcheck/model/analyze.hpp"
#include "bankcheck/model/swizzle.hpp"
#include "bankcheck/report/check_view.hpp"  // tool_version

namespace bankcheck::report {
namespace {

using model::Op;

std::string verb(Op op) {
  switch (op) {
    case Op::Load:
      return "read";
    case Op::Store:
      return "write";
    default:
      return "update";
  }
}

std::vector<int> lanes_of(std::uint32_t m) {
  std::vector<int> out;
  for (int l = 0; l < model::kWarpSize; ++l)
    if ((m >> l) & 1u) out.push_back(l);
  return out;
}

// "0", "0 and 16", "0, 1, 2, 3 and 31" (up to six), "0, 1, 2, ..., 31 (32 in all)".
template <typename T>
std::string list(const std::vector<T>& v, bool count = true) {
  if (v.empty()) return "none";
  if (v.size() == 1) return fmt::format("{}", v[0]);
  if (v.size() <= 6) {
    std::string s;
    for (size_t i = 0; i + 1 < v.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", v[i]);
    return s + fmt::format(" and {}", v.back());
  }
  std::string s = fmt::format("{}, {}, {}, ..., {}", v[0], v[1], v[2], v.back());
  return count ? s + fmt::format(" ({} in all)", v.size()) : s;
}

std::string lane_range(std::uint32_t m) {
  const auto l = lanes_of(m);
  if (l.empty()) return "no lanes";
  if (l.back() - l.front() + 1 == static_cast<int>(l.size()))
    return l.size() == 1 ? fmt::format("lane {}", l[0])
                         : fmt::format("lanes {}-{}", l.front(), l.back());
  return "lanes " + list(l);
}

std::string width_text(int width) { return fmt::format("{} byte{}", width, width == 1 ? "" : "s"); }

std::string verdict_text(std::uint32_t wavefronts, std::uint32_t ideal, std::uint32_t ways) {
  if (wavefronts == 0) return "no active lane: 0 wavefronts";
  std::string s = fmt::format("{} wavefront{} for an ideal of {}", wavefronts,
                              wavefronts == 1 ? "" : "s", ideal);
  if (wavefronts == ideal) return s + ": no bank conflict";
  if (wavefronts < ideal)
    return s + ": below its ideal, which the hardware cannot do (a counting error in bankcheck)";
  return s + fmt::format(": {}-way bank conflict, {} excess", ways, wavefronts - ideal);
}

}  // namespace

std::string why(const model::WarpAccess& a, const model::Verdict&, const model::Schedule& s,
                const model::Arch& arch, std::optional<model::Op> site_op) {
  if (!a.active) return "no lane is active";
  // The bank that needed the most rounds in one phase.
  std::map<std::pair<int, int>, std::vector<const model::Slot*>> by_bank;
  for (int i = 0; i < s.slot_count; ++i)
    by_bank[{s.slots[i].phase, s.slots[i].bank}].push_back(&s.slots[i]);
  const std::vector<const model::Slot*>* worst = nullptr;
  int worst_bank = 0;
  for (auto& [key, slots] : by_bank) {
    std::sort(slots.begin(), slots.end(), [](const model::Slot* x, const model::Slot* y) {
      return x->wavefront < y->wavefront;
    });
    // Atomic CAS lists each lane twice (two wavefronts); count distinct rounds.
    int rounds = 0;
    for (auto* sl : slots) rounds = std::max(rounds, sl->round + 1);
    int best = 0;
    if (worst)
      for (auto* sl : *worst) best = std::max(best, sl->round + 1);
    if (!worst || rounds > best) {
      worst = &slots;
      worst_bank = key.second;
    }
  }
  const bool atomic = a.op == Op::Atomic || a.op == Op::AtomicCas;
  std::string merge;
  if (s.merge_distance)
    merge = fmt::format(
        "; its phases were paired because every active lane n shares its address "
        "with lane n^{}",
        s.merge_distance);
  int rounds = 0;
  if (worst)
    for (auto* sl : *worst) rounds = std::max(rounds, sl->round + 1);
  if (!worst || rounds <= 1) {
    bool broadcast = false;
    for (int i = 0; i < s.slot_count; ++i)
      broadcast |= (s.slots[i].lanes & (s.slots[i].lanes - 1)) != 0;
    std::string t = "no bank has to deliver two different words in one phase";
    if (broadcast) t += " (lanes that share a word get it by broadcast)";
    if (arch.rule == model::BankRule::Fermi && a.width == 16)
      t += "; cc 2.x serves each half-warp of a 128-bit request in at least two passes";
    return t + merge;
  }
  std::vector<int> lanes;
  std::vector<std::uint32_t> bytes;
  int last_round = -1;
  for (auto* sl : *worst) {
    if (sl->round == last_round) continue;  // CAS: the same lane's second wavefront
    last_round = sl->round;
    lanes.push_back(lanes_of(sl->lanes).empty() ? -1 : lanes_of(sl->lanes).front());
    bytes.push_back(sl->addr);
  }
  if (atomic) {
    std::string t = fmt::format(
        "lanes {} update bank {}: shared atomics serve one lane per bank per wavefront, even "
        "when the lanes share an address",
        list(lanes), worst_bank);
    if (a.op == Op::AtomicCas) t += "; a compare-and-swap takes two wavefronts per lane";
    return t;
  }
  std::string t =
      fmt::format("lanes {} {} {} different words of bank {} (bytes {})", list(lanes),
                  verb(site_op.value_or(a.op)), lanes.size(), worst_bank, list(bytes, false));
  if (arch.rule == model::BankRule::Tesla) t += "; cc 1.x serves one broadcast word per pass";
  return t + merge;
}

std::string render_picture(const model::WarpAccess& access, const model::Verdict& verdict,
                           const model::Schedule& s, const model::Arch& arch, int columns) {
  std::string out;
  if (!verdict.wavefronts) return out;
  const int banks = arch.banks;
  // Banks per group: all of them when they fit (or no limit), else the widest power-of-two
  // part that fits, 8 at the least.
  int group = banks;
  if (columns > 0)
    while (group > 8 && group % 2 == 0 && picture_columns(group) > columns) group /= 2;
  constexpr int kMaxRows = 64;
  for (int first = 0; first < banks; first += group) {
    const int last = std::min(banks, first + group);
    if (first > 0) out += "\n";
    std::string header = "    bank ";
    for (int b = first; b < last; ++b) header += fmt::format(" {:>2} ", b);
    while (header.back() == ' ') header.pop_back();
    out += header + "\n";
    int last_phase = -1;
    for (int wf = 0; wf < s.wavefront_count && wf < kMaxRows; ++wf) {
      const int phase = s.wavefront_phase[wf];
      if (phase != last_phase && s.phase_count > 1) {
        out += fmt::format("  phase {}: {}\n", phase,
                           lane_range(s.phase_lanes[phase] & access.active));
        last_phase = phase;
      }
      std::vector<std::string> cells(static_cast<size_t>(banks), "  . ");
      for (int i = 0; i < s.slot_count; ++i) {
        const auto& sl = s.slots[i];
        if (sl.wavefront != wf) continue;
        auto& cell = cells[sl.bank];
        if (cell != "  . ") continue;  // one cell per bank: the first word it delivers
        const auto lanes = lanes_of(sl.lanes);
        const char mark = sl.round > 0 ? '!' : (lanes.size() > 1 ? '+' : ' ');
        cell = fmt::format(" {:>2}{}", lanes.empty() ? 0 : lanes.front(), mark);
      }
      std::string row = fmt::format("  wf {:>3} ", wf);
      for (int b = first; b < last; ++b) row += cells[static_cast<size_t>(b)];
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n";
    }
    if (s.wavefront_count > kMaxRows)
      out += fmt::format("  ... {} more wavefronts\n", s.wavefront_count - kMaxRows);
  }
  out +=
      "  cell: lowest lane the bank serves; + broadcast to several lanes; ! the bank's "
      "second or later word in its phase (a conflict); . idle\n";
  return out;
}

std::string render_text(const ExplainResult& r) { return render_text(r, 0); }

std::string render_text(const ExplainResult& r, int columns) {
  std::string out;
  const auto& arch = *r.arch;
  const analysis::WarpResult& worst = r.warps.at(static_cast<size_t>(r.worst_warp));
  const bool many = r.warps.size() > 1;
  std::string what =
      r.array_name.empty()
          ? fmt::format("shared {} of {}", model::op_name(r.requests.at(0).op),
                        width_text(r.requests.at(0).width))
          : fmt::format("{} ({})", r.requests.size() == 1 ? r.requests[0].label : r.array_name,
                        r.element_type);
  out += fmt::format("{}: {}: {}\n", arch.name, what,
                     verdict_text(worst.wavefronts, worst.ideal_wavefronts, worst.ways));
  if (many) {
    const double pct = r.total_wavefronts ? 100.0 * static_cast<double>(r.total_excess) /
                                                static_cast<double>(r.total_wavefronts)
                                          : 0.0;
    out += fmt::format(
        "  block {}x{}x{}: {} warps, {} wavefronts for an ideal of {} ({} excess, {:.0f}% of all); "
        "worst warp {}\n",
        r.block[0], r.block[1], r.block[2], r.warps.size(), r.total_wavefronts,
        r.total_ideal_wavefronts, r.total_excess, pct, r.worst_warp);
  }
  for (size_t q = 0; q < r.requests.size(); ++q) {
    const auto& info = r.requests[q];
    const auto& wr = worst.requests[q];
    const auto& s = wr.schedule;
    out += fmt::format(
        "\n{}{} {}, {}: {}\n", many ? fmt::format("warp {}, ", worst.warp) : "", info.label,
        model::op_name(info.op), width_text(info.width),
        verdict_text(wr.verdict.wavefronts, wr.verdict.ideal_wavefronts, wr.verdict.ways));
    out += fmt::format("  why: {}\n", why(wr.access, wr.verdict, s, arch));
    out += render_picture(wr.access, wr.verdict, s, arch, columns);
  }
  if (many) {
    // Warps grouped by verdict, in order.
    out += "\nwarps:\n";
    size_t i = 0, lines = 0;
    while (i < r.warps.size()) {
      size_t j = i;
      const auto& a = r.warps[i];
      while (j + 1 < r.warps.size() && r.warps[j + 1].wavefronts == a.wavefronts &&
             r.warps[j + 1].ideal_wavefronts == a.ideal_wavefronts && r.warps[j + 1].ways == a.ways)
        ++j;
      if (lines++ < 16)
        out += fmt::format("  {}: {}\n",
                           i == j ? fmt::format("warp {}", i) : fmt::format("warps {}-{}", i, j),
                           verdict_text(a.wavefronts, a.ideal_wavefronts, a.ways));
      i = j + 1;
    }
    if (lines > 16) out += fmt::format("  ... {} more groups\n", lines - 16);
  }
  if (r.swizzle >= 0)
    out += fmt::format("\naddresses taken through {} (a tile a tensor copy writes in that mode)\n",
                       model::tma_swizzle_name(static_cast<model::TmaSwizzle>(r.swizzle)));
  if (!r.swizzle_options.empty()) {
    out +=
        "\nif a tensor copy (cp.async.bulk.tensor) writes this tile, its swizzle mode moves "
        "the elements:\n";
    for (const auto& o : r.swizzle_options) {
      const auto mode = static_cast<model::TmaSwizzle>(o.mode);
      out += fmt::format(
          "  {}: {} wavefronts for an ideal of {} (now {}){}\n", model::tma_swizzle_name(mode),
          o.wavefronts, o.ideal_wavefronts, r.total_wavefronts,
          o.mode ? fmt::format("; wgmma descriptors' layout type {}, the tile aligned to {} bytes",
                               model::wgmma_layout_type(mode), model::tma_swizzle_alignment(mode))
                 : std::string());
    }
  }
  return out;
}

nlohmann::json to_json(const ExplainResult& r) {
  using nlohmann::json;
  const analysis::WarpResult& worst = r.warps.at(static_cast<size_t>(r.worst_warp));
  json j;
  j["schema_version"] = kExplainJsonSchemaVersion;
  j["tool"] = {{"name", "bankcheck"}, {"version", tool_version()}};
  j["arch"] = r.arch->name;
  if (!r.array_name.empty()) j["array"] = r.array_name;
  if (!r.element_type.empty()) j["element_type"] = r.element_type;
  if (r.array_bytes) j["array_bytes"] = r.array_bytes;
  j["block"] = {r.block[0], r.block[1], r.block[2]};
  j["wavefronts"] = worst.wavefronts;
  j["ideal_wavefronts"] = worst.ideal_wavefronts;
  j["excess"] = worst.excess();
  j["ways"] = worst.ways;
  j["worst_warp"] = r.worst_warp;
  j["total_wavefronts"] = r.total_wavefronts;
  j["total_ideal_wavefronts"] = r.total_ideal_wavefronts;
  j["total_excess"] = r.total_excess;
  if (r.swizzle >= 0)
    j["swizzle"] = model::tma_swizzle_name(static_cast<model::TmaSwizzle>(r.swizzle));
  if (!r.swizzle_options.empty()) {
    nlohmann::json opts = nlohmann::json::array();
    for (const auto& o : r.swizzle_options) {
      const auto mode = static_cast<model::TmaSwizzle>(o.mode);
      opts.push_back({{"swizzle", model::tma_swizzle_name(mode)},
                      {"total_wavefronts", o.wavefronts},
                      {"total_ideal_wavefronts", o.ideal_wavefronts},
                      {"wgmma_layout_type", model::wgmma_layout_type(mode)},
                      {"alignment", model::tma_swizzle_alignment(mode)}});
    }
    j["swizzle_options"] = opts;
  }
  json reqs = json::array();
  for (const auto& info : r.requests)
    reqs.push_back({{"label", info.label}, {"op", model::op_name(info.op)}, {"width", info.width}});
  j["requests"] = reqs;
  json warps = json::array();
  for (const auto& w : r.warps) {
    json wj = {{"warp", w.warp},
               {"wavefronts", w.wavefronts},
               {"ideal_wavefronts", w.ideal_wavefronts},
               {"excess", w.excess()},
               {"ways", w.ways}};
    json rq = json::array();
    for (size_t q = 0; q < w.requests.size(); ++q) {
      const auto& wr = w.requests[q];
      json lanes = json::array();
      for (int l = 0; l < model::kWarpSize; ++l)
        lanes.push_back(wr.access.lane_active(l) ? json(wr.access.addr[l]) : json(nullptr));
      json sched = json::array();
      for (int i = 0; i < wr.schedule.slot_count; ++i) {
        const auto& sl = wr.schedule.slots[i];
        sched.push_back({{"wavefront", sl.wavefront},
                         {"phase", sl.phase},
                         {"bank", sl.bank},
                         {"addr", sl.addr},
                         {"lanes", lanes_of(sl.lanes)},
                         {"conflict", sl.round > 0}});
      }
      rq.push_back({{"label", r.requests[q].label},
                    {"wavefronts", wr.verdict.wavefronts},
                    {"ideal_wavefronts", wr.verdict.ideal_wavefronts},
                    {"excess", wr.verdict.excess()},
                    {"ways", wr.verdict.ways},
                    {"merge_distance", wr.schedule.merge_distance},
                    {"addresses", lanes},
                    {"why", why(wr.access, wr.verdict, wr.schedule, *r.arch)},
                    {"schedule", sched}});
    }
    wj["requests"] = rq;
    warps.push_back(wj);
  }
  j["warps"] = warps;
  return j;
}

}  // namespace bankcheck::report
