// Where Nsight Compute lists a SASS instruction (nsight_lines.hpp).
#include "bankcheck/analysis/nsight_lines.hpp"

#include <algorithm>

namespace bankcheck::analysis {

std::vector<ptx::SourcePos> nsight_lines(const sass::Kernel& sk, const std::vector<int>& file_of,
                                         const std::vector<std::uint32_t>& offsets) {
  std::vector<ptx::SourcePos> out;
  if (offsets.empty() || sk.source_lines.empty()) return out;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> common;
  bool first = true;
  for (const std::uint32_t off : offsets) {
    const std::size_t i = off / 16;
    if (i >= sk.source_lines.size() || sk.source_lines[i].empty()) continue;
    if (first) {
      common = sk.source_lines[i];
      first = false;
      continue;
    }
    std::erase_if(common, [&](const auto& fl) {
      return std::find(sk.source_lines[i].begin(), sk.source_lines[i].end(), fl) ==
             sk.source_lines[i].end();
    });
  }
  for (const auto& [f, line] : common) {
    if (f >= file_of.size() || file_of[f] < 0) continue;
    const ptx::SourcePos pos{file_of[f], static_cast<int>(line), 0};
    if (std::none_of(out.begin(), out.end(), [&](const ptx::SourcePos& q) {
          return q.file == pos.file && q.line == pos.line;
        }))
      out.push_back(pos);
  }
  return out;
}

}  // namespace bankcheck::analysis
