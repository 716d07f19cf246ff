// The program's environment (environment.hpp).
#include "environment.hpp"

#include <string_view>

#include "bankcheck/runtime/run_options.hpp"

namespace bankcheck::launch {
namespace {

// The protocol's variables: how each is set from the plan. A list is joined with its
// separator before the user's own value; a value replaces the user's; an empty one is not set.
enum class How { Value, List, ValueIfGiven };
struct Variable {
  const char* name;
  How how;
  char separator;
  std::string (*value)(const EnvironmentPlan&);
  std::vector<std::string> (*list)(const EnvironmentPlan&);
};

constexpr Variable kVariables[] = {
    {runtime::kJobVariable, How::Value, 0, [](const EnvironmentPlan& p) { return p.job; }, nullptr},
    {"LD_PRELOAD", How::List, ' ', nullptr, [](const EnvironmentPlan& p) { return p.preload; }},
    {"LD_LIBRARY_PATH", How::List, ':', nullptr,
     [](const EnvironmentPlan& p) { return p.libraries; }},
    {"BANKCHECK_ARCH", How::Value, 0, [](const EnvironmentPlan& p) { return p.arch; }, nullptr},
    {"BANKCHECK_GPU_PATCHES", How::Value, 0, [](const EnvironmentPlan& p) { return p.gpu_patches; },
     nullptr},
    {"NVTX_INJECTION64_PATH", How::ValueIfGiven, 0,
     [](const EnvironmentPlan& p) { return p.nvtx_injection; }, nullptr},
};

// Variables of an outer `bankcheck run` or of a library's tests, never the program's.
bool stale(std::string_view name) {
  return name.starts_with("BANKCHECK_RUN_") || name == "BANKCHECK_EXECUTOR";
}

}  // namespace

std::vector<std::string> program_environment(const std::vector<std::string>& inherited,
                                             const EnvironmentPlan& plan) {
  std::vector<std::string> env;
  std::vector<std::string> user(std::size(kVariables));  // the user's value of each
  for (const std::string& e : inherited) {
    const std::string_view name = std::string_view(e).substr(0, e.find('='));
    bool ours = stale(name);
    for (std::size_t i = 0; i < std::size(kVariables); ++i)
      if (name == kVariables[i].name) {
        const bool keep = kVariables[i].how == How::ValueIfGiven && plan.nvtx_injection.empty();
        if (!keep) {
          user[i] = e.substr(name.size() + 1);
          ours = true;
        }
      }
    if (!ours) env.push_back(e);
  }
  for (std::size_t i = 0; i < std::size(kVariables); ++i) {
    const Variable& v = kVariables[i];
    std::string value;
    if (v.how == How::List) {
      for (const std::string& item : v.list(plan))
        if (!item.empty()) value += (value.empty() ? "" : std::string(1, v.separator)) + item;
      if (!user[i].empty()) value += (value.empty() ? "" : std::string(1, v.separator)) + user[i];
    } else {
      value = v.value(plan);
    }
    if (!value.empty()) env.push_back(std::string(v.name) + "=" + value);
  }
  return env;
}

}  // namespace bankcheck::launch
