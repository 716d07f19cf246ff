// `bankcheck diff OLD.json NEW.json`: what changed per finding between two JSON reports of
// check or run.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankcheck::tools {

struct DiffCmdOptions {
  std::string before, after;
  std::string format = "text";       // text or json
  std::string output;
  std::vector<std::string> fail_on;  // gates over the new or worse findings
};

void add_diff(CLI::App& app, DiffCmdOptions& opts);
int run_diff(const DiffCmdOptions& opts);

}  // namespace bankcheck::tools
