// The bank picture of one request as SVG: lanes joined to banks, wavefronts down, the
// conflicting words in red. The drawing of the text picture (explain_view), for browsers.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "bankcheck/report/html_view.hpp"

namespace bankcheck::report {
namespace {

constexpr int kLeft = 64;     // room for the row labels
constexpr int kLaneW = 24;    // one lane column
constexpr int kRowH = 20;     // one wavefront row
constexpr int kMaxRows = 32;  // wavefront rows drawn; the rest are counted
constexpr int kLaneY = 10;    // lane boxes
constexpr int kBankY = 84;    // bank header
constexpr int kGridY = 110;   // first wavefront row

constexpr const char* kConflict = "#d62728";
constexpr const char* kFirst = "#c7ecd2";
constexpr const char* kBroadcast = "#b9d7f0";

std::string lanes_text(std::uint32_t m) {
  std::vector<int> l;
  for (int i = 0; i < model::kWarpSize; ++i)
    if ((m >> i) & 1u) l.push_back(i);
  if (l.empty()) return "no lane";
  if (l.size() == 1) return fmt::format("lane {}", l[0]);
  if (l.back() - l.front() + 1 == static_cast<int>(l.size()))
    return fmt::format("lanes {}-{}", l.front(), l.back());
  std::string s = "lanes ";
  for (size_t i = 0; i < l.size(); ++i) s += fmt::format("{}{}", i ? "," : "", l[i]);
  return s;
}

}  // namespace

std::string render_bank_svg(const model::WarpAccess& a, const model::Verdict& v,
                            const model::Schedule& s, const model::Arch& arch) {
  const int banks = arch.banks;
  const double bank_w = static_cast<double>(kLaneW) * model::kWarpSize / banks;
  const int rows = std::min(s.wavefront_count, kMaxRows);
  // Rows: a label row before each phase (when there are several), then its wavefronts.
  std::vector<int> row_y(static_cast<size_t>(rows));
  std::vector<std::pair<int, int>> phase_labels;  // (y, phase)
  int y = kGridY, last_phase = -1;
  for (int wf = 0; wf < rows; ++wf) {
    const int ph = s.wavefront_phase[wf];
    if (ph != last_phase && s.phase_count > 1) {
      phase_labels.push_back({y, ph});
      y += 16;
      last_phase = ph;
    }
    row_y[static_cast<size_t>(wf)] = y;
    y += kRowH;
  }
  const int grid_end = y;
  const int width = kLeft + model::kWarpSize * kLaneW + 8;
  const int height = grid_end + (s.wavefront_count > rows ? 20 : 0) + 34;

  // Per lane: the banks it touches and whether it waits for a conflicting word.
  std::vector<std::vector<int>> lane_banks(model::kWarpSize);
  std::vector<bool> lane_conflict(model::kWarpSize, false);
  for (int i = 0; i < s.slot_count; ++i) {
    const auto& sl = s.slots[i];
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!((sl.lanes >> l) & 1u)) continue;
      auto& b = lane_banks[static_cast<size_t>(l)];
      if (std::find(b.begin(), b.end(), sl.bank) == b.end()) b.push_back(sl.bank);
      if (sl.round > 0) lane_conflict[static_cast<size_t>(l)] = true;
    }
  }

  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"banks\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2} wavefronts for an ideal of {3}, "
      "{4}-way\" font-family=\"monospace\" font-size=\"10\">\n",
      width, height, v.wavefronts, v.ideal_wavefronts, v.ways);
  // Lines from each lane to the banks it touches, under everything else.
  o += "<g stroke-width=\"1\">\n";
  for (int l = 0; l < model::kWarpSize; ++l)
    for (int b : lane_banks[static_cast<size_t>(l)]) {
      const bool bad = lane_conflict[static_cast<size_t>(l)];
      o += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"{}\" "
          "stroke-opacity=\"{}\"/>\n",
          kLeft + l * kLaneW + kLaneW / 2.0, kLaneY + 18, kLeft + b * bank_w + bank_w / 2.0, kBankY,
          bad ? kConflict : "#7f8c8d", bad ? "0.8" : "0.45");
    }
  o += "</g>\n";
  // Lanes.
  o += fmt::format("<text x=\"4\" y=\"{}\" fill=\"#444\">lane</text>\n", kLaneY + 13);
  for (int l = 0; l < model::kWarpSize; ++l) {
    const bool active = a.lane_active(l);
    const bool bad = lane_conflict[static_cast<size_t>(l)];
    o += fmt::format(
        "<g><title>lane {}{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" "
        "fill=\"{}\" stroke=\"{}\"/><text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" "
        "fill=\"{}\">{}</text></g>\n",
        l,
        active ? fmt::format(": byte {}{}", a.addr[l], bad ? ", waits for a conflicting word" : "")
               : ": inactive",
        kLeft + l * kLaneW + 1, kLaneY, kLaneW - 2,
        !active ? "#f2f2f2"
        : bad   ? "#f6c9c4"
                : "#dbe9f6",
        bad ? kConflict : "#8aa", kLeft + l * kLaneW + kLaneW / 2.0, kLaneY + 13,
        active ? "#222" : "#aaa", l);
  }
  // Banks.
  o += fmt::format("<text x=\"4\" y=\"{}\" fill=\"#444\">bank</text>\n", kBankY + 13);
  for (int b = 0; b < banks; ++b)
    o += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"#eee\" "
        "stroke=\"#999\"/><text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        kLeft + b * bank_w + 1, kBankY, bank_w - 2, kLeft + b * bank_w + bank_w / 2.0, kBankY + 13,
        b);
  // Phases and wavefronts.
  for (auto [py, ph] : phase_labels)
    o += fmt::format(
        "<line x1=\"4\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"/>"
        "<text x=\"4\" y=\"{2}\" fill=\"#555\">phase {3}: {4}</text>\n",
        py + 1, width - 4, py + 12, ph, lanes_text(s.phase_lanes[ph] & a.active));
  for (int wf = 0; wf < rows; ++wf) {
    const int ry = row_y[static_cast<size_t>(wf)];
    o += fmt::format("<text x=\"4\" y=\"{}\" fill=\"#444\">wf {}</text>\n", ry + 13, wf);
    for (int b = 0; b < banks; ++b)
      o += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"none\" "
          "stroke=\"#e4e4e4\"/>\n",
          kLeft + b * bank_w + 1, ry + 1, bank_w - 2, kRowH - 2);
  }
  for (int i = 0; i < s.slot_count; ++i) {
    const auto& sl = s.slots[i];
    if (sl.wavefront >= rows) continue;
    const int ry = row_y[sl.wavefront];
    const bool conflict = sl.round > 0;
    const bool broadcast = (sl.lanes & (sl.lanes - 1)) != 0;
    int lowest = 0;
    while (lowest < model::kWarpSize && !((sl.lanes >> lowest) & 1u)) ++lowest;
    o += fmt::format(
        "<g class=\"{}\"><title>wavefront {}, bank {}: the word at byte {} to {}{}</title>"
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" stroke=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">{}</text></g>\n",
        conflict    ? "conflict"
        : broadcast ? "broadcast"
                    : "word",
        sl.wavefront, sl.bank, sl.addr, lanes_text(sl.lanes),
        conflict ? fmt::format(" (word {} of this bank in its phase: a conflict)", sl.round + 1)
                 : "",
        kLeft + sl.bank * bank_w + 1, ry + 1, bank_w - 2, kRowH - 2,
        conflict    ? kConflict
        : broadcast ? kBroadcast
                    : kFirst,
        conflict ? "#8b0000" : "#6a9", kLeft + sl.bank * bank_w + bank_w / 2.0, ry + 14,
        conflict ? "#fff" : "#123", fmt::format("{}{}", lowest, broadcast ? "+" : ""));
  }
  int ly = grid_end + 4;
  if (s.wavefront_count > rows) {
    o += fmt::format("<text x=\"4\" y=\"{}\" fill=\"#555\">... {} more wavefronts</text>\n",
                     ly + 10, s.wavefront_count - rows);
    ly += 20;
  }
  // Legend.
  o += fmt::format(
      "<g font-size=\"10\"><rect x=\"4\" y=\"{0}\" width=\"14\" height=\"12\" fill=\"{1}\"/>"
      "<text x=\"22\" y=\"{2}\">a bank's word, to one lane</text>"
      "<rect x=\"190\" y=\"{0}\" width=\"14\" height=\"12\" fill=\"{3}\"/>"
      "<text x=\"208\" y=\"{2}\">one word to several lanes (+, broadcast)</text>"
      "<rect x=\"470\" y=\"{0}\" width=\"14\" height=\"12\" fill=\"{4}\"/>"
      "<text x=\"488\" y=\"{2}\">a later word of the same bank and phase (conflict)</text></g>\n",
      ly + 4, kFirst, ly + 14, kBroadcast, kConflict);
  o += "</svg>\n";
  return o;
}

}  // namespace bankcheck::report
