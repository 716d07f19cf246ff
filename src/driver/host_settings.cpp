// One kernel's launch settings from three places, flags over the launch comment over the host
// code's launch, with where each setting came from (what is still missing is said by
// missing_settings.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "bankcheck/driver/host_launch.hpp"

namespace bankcheck::driver {
namespace {

std::string dims(const Dim3& d) {
  if (d.z != 1) return fmt::format("{},{},{}", d.x, d.y, d.z);
  if (d.y != 1) return fmt::format("{},{}", d.x, d.y);
  return fmt::format("{}", d.x);
}

}  // namespace

LaunchSettings settle(const LaunchSettings& flags, const std::optional<LaunchSettings>& comment,
                      const HostLaunch* launch, const std::vector<std::string>& params,
                      std::string_view file) {
  LaunchSettings s = merge(flags, comment.value_or(LaunchSettings{}));
  const std::string cdetail =
      comment ? fmt::format("// bankcheck: comment at {}:{}", file, comment->line) : "";
  std::string hdetail = launch
                            ? fmt::format("launch {} at {}:{} in {}", launch->index,
                                          launch->file.empty() ? std::string(file) : launch->file,
                                          launch->line, launch->via)
                            : "";
  if (launch && !launch->host_values_used.empty()) {
    std::string given;
    bool no_arguments = false;
    for (const std::string& name : launch->host_values_used) {
      if (name == "(argc = 1)") {  // an assumption, not a --host-arg
        no_arguments = true;
        continue;
      }
      given += (given.empty() ? "" : ", ") + name;
    }
    if (!given.empty()) hdetail += " with --host-arg " + given;
    if (no_arguments) hdetail += " (the program run without arguments: argc = 1)";
  }
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
      const HostArg& a = launch->args[i];
      if (gives_arg(s, name, i)) {
        // A fill given without a size (`--arg data=random`) takes the size the host code
        // allocates for that argument, not the default gigabyte.
        if (a.value && a.value->starts_with("zeros:"))
          for (auto& [n, v] : s.args) {
            if ((n != name && n != fmt::format("p{}", i)) ||
                (v != "zeros" && v != "random" && v != "iota"))
              continue;
            v.append(":").append(a.value->substr(6));
            for (auto& src : s.sources)
              if (src.setting == "arg " + n)
                src.where += fmt::format(" (of the size of its cudaMalloc, {} bytes, {})",
                                         a.value->substr(6), hdetail);
          }
        continue;
      }
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
        if (!a.needs.empty()) s.unresolved_needs["arg " + name] = a.needs;
      }
    }
  if (launch) {
    for (const auto& [setting, names] : launch->needs)
      if (!names.empty() && std::any_of(s.unresolved.begin(), s.unresolved.end(),
                                        [&](const auto& u) { return u.first == setting; }))
        s.unresolved_needs[setting] = names;
    s.host_why = launch->why;
    s.host_defaults = launch->defaults;
  }

  if (flags.blocks)
    add("blocks", "flag", "--blocks " + *flags.blocks);
  else if (s.blocks)
    add("blocks", "comment", cdetail);
  return s;
}

}  // namespace bankcheck::driver
