// Where a launch setting came from: what every report says beside a kernel's grid, block,
// shared memory and arguments.
#pragma once

#include <string>

namespace bankcheck::analysis {

// Where one launch setting came from: `setting` is "kernel", "grid", "block", "smem",
// "blocks" or "arg NAME"; `from` is "flag", "comment", "host" (the file's own launch) or
// "default"; `where` says which flag, comment or launch ("launch 1 at f.cu:42 in main"),
// `expr` what the host code wrote there ("(n + 255) / 256"; empty for flags and comments).
struct SettingSource {
  std::string setting, from, where, expr;
};

}  // namespace bankcheck::analysis
