// The program's environment (environment.hpp).
#include "environment.hpp"

#include <algorithm>
#include <filesystem>
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

// The user's list less its items in a withheld directory: LD_PRELOAD's files (separated by
// spaces or colons, as ld.so reads them) and LD_LIBRARY_PATH's directories (colons or
// semicolons). Unchanged, as written, when nothing is withheld.
std::string without_withheld(const std::string& list, const Variable& v,
                             const std::vector<std::string>& withheld) {
  if (withheld.empty() || v.how != How::List) return list;
  const bool files = std::string_view(v.name) == "LD_PRELOAD";
  const char* separators = files ? " :" : ":;";
  auto same_dir = [](const std::filesystem::path& a, const std::string& b) {
    std::error_code ec;
    const std::filesystem::path na = (a / "").lexically_normal(),
                                nb = (std::filesystem::path(b) / "").lexically_normal();
    return na == nb || std::filesystem::equivalent(a, b, ec);
  };
  // An empty item of LD_LIBRARY_PATH is the working directory: it stays; LD_PRELOAD's are none.
  std::vector<std::string> kept;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find_first_of(separators, at), list.size());
    const std::string item = list.substr(at, end - at);
    at = end + 1;
    if (item.empty()) {
      if (!files) kept.push_back(item);
      continue;
    }
    const std::filesystem::path dir =
        files ? std::filesystem::path(item).parent_path() : std::filesystem::path(item);
    bool drop = false;
    for (const std::string& w : withheld) drop = drop || (!dir.empty() && same_dir(dir, w));
    if (!drop) kept.push_back(item);
  }
  std::string joined;
  for (std::size_t i = 0; i < kept.size(); ++i)
    joined += (i ? std::string(1, v.separator) : "") + kept[i];
  return joined;
}

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
      const std::string own = without_withheld(user[i], v, plan.withheld);
      if (!own.empty()) value += (value.empty() ? "" : std::string(1, v.separator)) + own;
    } else {
      value = v.value(plan);
    }
    if (!value.empty()) env.push_back(std::string(v.name) + "=" + value);
  }
  return env;
}

}  // namespace bankcheck::launch
