// `bankcheck explain`: one warp request (raw addresses) or a block's access expression,
// explained with the bank picture.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bankcheck/report/views.hpp"

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct ExplainOptions {
  std::string op = "ld";
  int width = 0;  // 0: from --type/--decl, or 4 for raw addresses
  std::optional<std::string> addrs;
  std::optional<std::string> type, decl, expr, active;
  std::string block = "32";
  std::vector<std::string> sets;
  std::string arch = "sm_90";
  report::Format format = report::Format::Text;
  std::string output;
  int columns = 0;                     // --columns (0: not given)
  std::optional<std::string> swizzle;  // --swizzle none|32B|64B|128B
};

void add_explain(CLI::App& app, ExplainOptions& opts);
int run_explain(const ExplainOptions& opts);

}  // namespace bankcheck::tools
