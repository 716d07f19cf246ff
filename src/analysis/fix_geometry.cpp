// Geometry: how an array is laid out in rows and elements, from its declaration, else from
// the lane strides of its accesses, else as 128-byte bank rows.
#include <fmt/format.h>

#include <map>

#include "fix_steps.hpp"

namespace bankcheck::analysis {
namespace {

std::string without_indent(const std::string& line) {
  const auto from = line.find_first_not_of(" \t");
  return from == std::string::npos ? std::string() : line.substr(from);
}

}  // namespace

std::map<std::uint64_t, std::uint64_t> lane_strides(const Requests& reqs) {
  std::map<std::uint64_t, std::uint64_t> strides;
  for (const auto* r : reqs) {
    int prev = -1;
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!r->access.lane_active(l)) continue;
      if (prev >= 0 && r->access.addr[l] > r->access.addr[prev])
        strides[r->access.addr[l] - r->access.addr[prev]] += r->count;
      prev = l;
    }
  }
  return strides;
}

int scalar_bytes(const std::string& type) {
  static const std::map<std::string, int> sizes = {{"char", 1},          {"signed char", 1},
                                                   {"unsigned char", 1}, {"bool", 1},
                                                   {"short", 2},         {"unsigned short", 2},
                                                   {"half", 2},          {"__half", 2},
                                                   {"int", 4},           {"unsigned", 4},
                                                   {"unsigned int", 4},  {"float", 4},
                                                   {"long long", 8},     {"unsigned long long", 8},
                                                   {"double", 8},        {"float2", 8},
                                                   {"int2", 8},          {"float4", 16},
                                                   {"int4", 16},         {"double2", 16},
                                                   {"int8_t", 1},        {"uint8_t", 1},
                                                   {"int16_t", 2},       {"uint16_t", 2},
                                                   {"int32_t", 4},       {"uint32_t", 4},
                                                   {"int64_t", 8},       {"uint64_t", 8}};
  const auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

bool declaration_fits(const SharedDecl& d, std::uint64_t bytes) {
  const int size = scalar_bytes(d.type);
  if (size == 0) return true;
  std::uint64_t n = 1;
  for (long long v : d.dim_values) {
    if (v <= 0) return true;
    n *= static_cast<std::uint64_t>(v);
  }
  return n * static_cast<std::uint64_t>(size) == bytes;
}

std::optional<Member> member_for(const std::vector<SharedDecl>& decls, const std::string& var,
                                 const ArrayRange& ar, const Requests& reqs) {
  std::uint64_t at = 0;
  std::optional<Member> found;
  for (const SharedDecl& d : decls) {
    if (d.member_of != var) continue;
    const int size = scalar_bytes(d.type);
    if (size == 0) return std::nullopt;  // its size, and so the offsets after it, unknown
    std::uint64_t bytes = static_cast<std::uint64_t>(size);
    for (long long v : d.dim_values) {
      if (v <= 0) return std::nullopt;
      bytes *= static_cast<std::uint64_t>(v);
    }
    if (d.is_union) at = 0;
    at = (at + static_cast<std::uint64_t>(size) - 1) / static_cast<std::uint64_t>(size) *
         static_cast<std::uint64_t>(size);
    bool inside = !d.dims.empty() && at + bytes <= ar.bytes;
    for (const auto* r : reqs)
      for (int l = 0; l < model::kWarpSize && inside; ++l) {
        const std::uint64_t a = r->access.addr[l];
        if (r->access.lane_active(l) && a >= ar.offset && a < ar.offset + ar.bytes)
          inside = a >= ar.offset + at && a + r->access.width <= ar.offset + at + bytes;
      }
    if (inside && !found) found = Member{&d, {ar.symbol, ar.offset + at, bytes, false}};
    at += bytes;
  }
  return found;
}

std::optional<Geometry> find_geometry(ArrayFix& af, const ArrayRange& ar, const Requests& reqs,
                                      Widths w, const model::Arch& arch) {
  Geometry g;
  const std::uint64_t bank_row = static_cast<std::uint64_t>(arch.banks) * 4;
  int elem = w.min;
  if (af.decl && !ar.is_extern) {
    long long n = 1;
    for (long long v : af.decl->dim_values) n = v > 0 && n > 0 ? n * v : -1;
    if (n > 0 && ar.bytes % static_cast<std::uint64_t>(n) == 0) {
      const auto e = static_cast<int>(ar.bytes / static_cast<std::uint64_t>(n));
      if (e >= 1 && e <= 16 && (e & (e - 1)) == 0) elem = e;
    }
  }
  g.elem_bytes = elem;
  g.unit = std::max(1, w.max / elem);
  const bool record = af.decl && !af.decl->record.empty() && af.decl->dims.size() == 1 &&
                      af.decl->dim_values[0] > 0 && !ar.is_extern;
  if (ar.bytes == 0) {
    af.error = "its size is unknown (dynamic shared memory with no --smem)";
  } else if (record) {
    // One row per element of the class type: its stride is what a padding changes.
    const auto n = static_cast<std::uint64_t>(af.decl->dim_values[0]);
    g.source = Geometry::Source::Record;
    g.record = af.decl->record;
    g.elem_bytes = elem = w.min;
    g.unit = std::max(1, w.max / elem);
    g.row_bytes = ar.bytes / n;
    if (ar.bytes % n || g.row_bytes % static_cast<std::uint64_t>(elem))
      af.error = fmt::format("its {} B are not {} elements of {}", ar.bytes, n, g.record);
  } else if (af.decl && af.decl->dims.size() >= 2 && af.decl->dim_values.back() > 0 &&
             !ar.is_extern) {
    g.source = Geometry::Source::Declaration;
    g.row_bytes =
        static_cast<std::uint64_t>(af.decl->dim_values.back()) * static_cast<std::uint64_t>(elem);
  } else if (af.decl && af.decl->dims.size() >= 2) {
    const std::string d = without_indent(af.decl->text);
    af.error = fmt::format(
        "the dimensions in '{}' are not constants bankcheck can evaluate (literals, -D macros, "
        "#define, const and constexpr of the file or its headers, template arguments), so its "
        "row length is unknown",
        d.substr(0, 80));
  } else {
    // No 2-D declaration: the most common lane stride of 128 bytes or more that divides
    // the array (PTX input), else 128-byte bank rows.
    std::map<std::uint64_t, std::uint64_t> strides;
    if (!af.decl)
      for (auto [d, n] : lane_strides(reqs))
        if (d >= bank_row && ar.bytes % d == 0 && d < ar.bytes) strides[d] = n;
    std::uint64_t best = 0, votes = 0;
    for (auto [d, n] : strides)
      if (n > votes) best = d, votes = n;
    g.source = best ? Geometry::Source::Accesses : Geometry::Source::BankRows;
    g.row_bytes = best ? best : bank_row;
  }
  if (af.error.empty()) {
    const std::uint64_t unit_bytes =
        static_cast<std::uint64_t>(g.unit) * static_cast<std::uint64_t>(elem);
    if ((g.unit & (g.unit - 1)) != 0 || g.row_bytes % unit_bytes != 0)
      af.error =
          fmt::format("its {}-byte accesses do not tile its rows of {} B", w.max, g.row_bytes);
    for (const auto* r : reqs)
      for (int l = 0; l < model::kWarpSize && af.error.empty(); ++l)
        if (r->access.lane_active(l) && r->access.addr[l] >= ar.offset &&
            r->access.addr[l] < ar.offset + ar.bytes &&
            r->access.addr[l] + r->access.width > ar.offset + ar.bytes)
          af.error = "an access runs past its end";
  }
  if (!af.error.empty()) return std::nullopt;
  g.rows = ar.bytes / g.row_bytes;  // full rows; a partial last one is left unmapped
  return g;
}

}  // namespace bankcheck::analysis
