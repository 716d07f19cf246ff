// One kernel's launch settings from three places, flags over the launch comment over the host
// code's launch, with where each setting came from; and every setting still missing, said at
// once with a line of flags to paste.
#include <fmt/format.h>

#include <algorithm>

#include "bankcheck/driver/host_launch.hpp"

namespace bankcheck::driver {
namespace {

std::string dims(const Dim3& d) {
  if (d.z != 1) return fmt::format("{},{},{}", d.x, d.y, d.z);
  if (d.y != 1) return fmt::format("{},{}", d.x, d.y);
  return fmt::format("{}", d.x);
}

bool has_arg(const LaunchSettings& s, const std::string& name, std::size_t index) {
  return std::any_of(s.args.begin(), s.args.end(), [&](const auto& a) {
    return a.first == name || a.first == fmt::format("p{}", index);
  });
}

}  // namespace

LaunchSettings settle(const LaunchSettings& flags, const std::optional<LaunchSettings>& comment,
                      const HostLaunch* launch, const std::vector<std::string>& params,
                      std::string_view file) {
  LaunchSettings s = merge(flags, comment.value_or(LaunchSettings{}));
  const std::string cdetail =
      comment ? fmt::format("// bankcheck: comment at {}:{}", file, comment->line) : "";
  const std::string hdetail = launch ? fmt::format("launch {} at {}:{} in {}", launch->index, file,
                                                   launch->line, launch->via)
                                     : "";
  auto add = [&](std::string setting, std::string from, std::string where, std::string expr = "") {
    s.sources.push_back({std::move(setting), std::move(from), std::move(where), std::move(expr)});
  };

  if (flags.kernel)
    add("kernel", "flag", "--kernel " + *flags.kernel);
  else if (comment && comment->kernel)
    add("kernel", "comment", cdetail);
  else if (launch)
    add("kernel", "host", hdetail, launch->written());
  else
    add("kernel", "default", "the file's only kernel");

  auto dim = [&](const char* name, std::optional<Dim3>& field, const std::optional<Dim3>& flag,
                 const std::optional<Dim3>& host, const std::string& expr) {
    if (flag)
      add(name, "flag", fmt::format("--{} {}", name, dims(*flag)));
    else if (field)
      add(name, "comment", cdetail);
    else if (host) {
      field = host;
      add(name, "host", hdetail, expr);
    } else if (launch) {
      s.unresolved.push_back({name, expr});
    }
  };
  dim("grid", s.grid, flags.grid, launch ? launch->grid : std::nullopt,
      launch ? launch->grid_expr : "");
  dim("block", s.block, flags.block, launch ? launch->block : std::nullopt,
      launch ? launch->block_expr : "");

  if (flags.smem)
    add("smem", "flag", fmt::format("--smem {}", *flags.smem));
  else if (s.smem)
    add("smem", "comment", cdetail);
  else if (launch && launch->smem) {
    s.smem = launch->smem;
    add("smem", "host", hdetail, launch->smem_expr.empty() ? "0 (none given)" : launch->smem_expr);
  } else if (launch) {
    s.unresolved.push_back({"smem", launch->smem_expr});
  }

  // Arguments: the flags' and the comment's by name, then the launch's by position.
  for (const auto& [name, value] : s.args) {
    const bool flag = std::any_of(flags.args.begin(), flags.args.end(),
                                  [&](const auto& a) { return a.first == name; });
    add("arg " + name, flag ? "flag" : "comment",
        flag ? fmt::format("--arg {}={}", name, value) : cdetail);
  }
  if (launch)
    for (std::size_t i = 0; i < launch->args.size(); ++i) {
      const std::string name =
          i < params.size() && !params[i].empty() ? params[i] : fmt::format("p{}", i);
      if (has_arg(s, name, i)) continue;
      const HostArg& a = launch->args[i];
      if (a.value) {
        s.args.push_back({name, *a.value});
        std::string how = a.expr;
        if (a.value->starts_with("zeros:"))
          how += fmt::format(" (its cudaMalloc: {} bytes)", a.value->substr(6));
        else if (*a.value != a.expr)
          how += " (" + *a.value + ")";
        add("arg " + name, "host", hdetail, how);
      } else {
        s.unresolved.push_back({"arg " + name, a.expr});
      }
    }

  if (flags.blocks)
    add("blocks", "flag", "--blocks " + *flags.blocks);
  else if (s.blocks)
    add("blocks", "comment", cdetail);
  return s;
}

std::optional<std::string> missing_settings(const std::string& input, const std::string& kernel,
                                            const LaunchSettings& s,
                                            const std::vector<std::string>& params,
                                            const std::vector<std::string>& types,
                                            const std::vector<bool>& is_pointer,
                                            const std::optional<std::string>& binary_source) {
  auto had = [&](const std::string& setting) -> std::string {
    for (const auto& [name, expr] : s.unresolved)
      if (name == setting)
        return fmt::format(": the host code has `{}`, not a constant bankcheck can evaluate", expr);
    return ": not given";
  };
  std::vector<std::string> items, paste;
  if (!s.grid) {
    items.push_back("grid" + had("grid"));
    paste.push_back("--grid X[,Y[,Z]]");
  }
  if (!s.block) {
    items.push_back("block" + had("block"));
    paste.push_back("--block X[,Y[,Z]]");
  }
  for (std::size_t i = 0; i < is_pointer.size(); ++i) {
    const std::string name =
        i < params.size() && !params[i].empty() ? params[i] : fmt::format("p{}", i);
    if (is_pointer[i] || has_arg(s, name, i)) continue;
    const std::string type = i < types.size() ? types[i] : "";
    items.push_back(fmt::format("argument {}{}{}", name, type.empty() ? "" : " (" + type + ")",
                                had("arg " + name)));
    paste.push_back(fmt::format("--arg {}=VALUE", name));
  }
  if (items.empty()) return std::nullopt;
  std::string msg = fmt::format("kernel {}: {} launch setting{} missing:", kernel, items.size(),
                                items.size() == 1 ? "" : "s");
  for (const auto& i : items) msg += "\n  " + i;
  msg += fmt::format("\ngive {} at once:\n  bankcheck check {} --kernel {}",
                     items.size() == 1 ? "it" : "them", input, kernel);
  for (const auto& p : paste) msg += " " + p;
  const std::string comment =
      fmt::format("// bankcheck: kernel={} grid=X,Y block=X,Y arg=NAME=VALUE", kernel);
  if (!binary_source)
    msg += "\nor write them in the source: " + comment;
  else if (!binary_source->empty())
    msg += fmt::format(
        "\nor write them in its source {}: {}\n(the launches in a binary's host code are not "
        "read)",
        *binary_source, comment);
  else
    msg += "\n(the launches in a binary's host code are not read, and its source file, where a "
           "launch comment could be, was not found)";
  return msg;
}

}  // namespace bankcheck::driver
