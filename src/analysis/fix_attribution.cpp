// Attribution: which shared array each recorded request touches, by the byte ranges of the
// kernel's arrays (static ones, then the dynamic window, which extern arrays alias).
#include "fix_steps.hpp"

namespace bankcheck::analysis {
namespace {

// The array holding byte `a`, or -1.
int array_of(const std::vector<ArrayRange>& arrays, std::uint64_t a) {
  for (size_t i = 0; i < arrays.size(); ++i)
    if (a >= arrays[i].offset && a < arrays[i].offset + arrays[i].bytes) return static_cast<int>(i);
  return -1;
}

}  // namespace

Attribution attribute(const ptx::Kernel& k, const KernelReport& rep, const SharedRecorder& rec) {
  Attribution out;
  bool have_extern = false;  // extern arrays alias the window; the first names it
  for (const auto& v : k.shared) {
    if (v.is_extern) {
      if (have_extern) continue;
      have_extern = true;
      out.ranges.push_back({v.name, k.dynamic_shared_offset, rep.dynamic_smem, true});
    } else {
      out.ranges.push_back({v.name, v.offset, v.bytes, false});
    }
  }
  out.requests.resize(out.ranges.size());
  for (const auto& r : rec.requests()) {
    std::vector<bool> hit(out.ranges.size(), false);
    bool outside = false;
    for (int l = 0; l < model::kWarpSize; ++l) {
      if (!r.access.lane_active(l)) continue;
      const int a = array_of(out.ranges, r.access.addr[l]);
      if (a < 0)
        outside = true;
      else
        hit[static_cast<size_t>(a)] = true;
    }
    if (outside) out.unattributed += r.count;
    for (size_t a = 0; a < out.ranges.size(); ++a)
      if (hit[a]) out.requests[a].push_back(&r);
  }
  return out;
}

}  // namespace bankcheck::analysis
