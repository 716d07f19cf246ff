// One kernel's launch settings from three places, flags over the launch comment over the host
// code's launch, with where each setting came from; and every setting still missing, said at
// once with a line of flags to paste.
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
  std::string hdetail =
      launch ? fmt::format("launch {} at {}:{} in {}", launch->index,
                           launch->file.empty() ? std::string(file) : launch->file, launch->line,
                           launch->via)
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
        if (!a.needs.empty()) s.unresolved_needs["arg " + name] = a.needs;
      }
    }
  if (launch) {
    for (const auto& [setting, names] : launch->needs)
      if (!names.empty() && std::any_of(s.unresolved.begin(), s.unresolved.end(),
                                        [&](const auto& u) { return u.first == setting; }))
        s.unresolved_needs[setting] = names;
    s.host_why = launch->why;
  }

  if (flags.blocks)
    add("blocks", "flag", "--blocks " + *flags.blocks);
  else if (s.blocks)
    add("blocks", "comment", cdetail);
  return s;
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c && std::strchr("_@%+=:,./-", c));
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string rerun_line(const Rerun& r, const std::vector<std::string>& extra) {
  std::vector<std::string> words = r.words;
  if (words.empty()) words = {"bankcheck", "check", r.input};
  words.insert(words.end(), extra.begin(), extra.end());
  if (!r.nvcc.empty()) {
    words.push_back("--");
    words.insert(words.end(), r.nvcc.begin(), r.nvcc.end());
  }
  std::string line;
  for (const auto& w : words) (line += line.empty() ? "" : " ") += shell_quote(w);
  return line;
}

std::optional<std::string> missing_settings(const Rerun& rerun, const std::string& kernel,
                                            const LaunchSettings& s,
                                            const std::vector<std::string>& params,
                                            const std::vector<std::string>& types,
                                            const std::vector<bool>& is_pointer,
                                            const std::optional<std::string>& binary_source) {
  std::vector<std::string> items, flags, host_names;
  // One missing setting: what the host code had, and the flags that give it: the host
  // names it lacks (--host-arg), else its own flag.
  auto missing = [&](const std::string& setting, std::string item, std::string flag) {
    auto u = std::find_if(s.unresolved.begin(), s.unresolved.end(),
                          [&](const auto& x) { return x.first == setting; });
    const auto needs = s.unresolved_needs.find(setting);
    if (u == s.unresolved.end()) {
      item += ": not given";
    } else {
      item += fmt::format(": the host code has `{}`, not a constant bankcheck can evaluate",
                          u->second);
      if (needs != s.unresolved_needs.end() &&
          !(needs->second.size() == 1 && needs->second[0] == u->second)) {
        std::string names;
        for (const auto& n : needs->second) (names += names.empty() ? "" : ", ") += n;
        item += " (it lacks " + names + ")";
      }
    }
    items.push_back(std::move(item));
    if (needs == s.unresolved_needs.end()) {
      flags.push_back(std::move(flag));
      return;
    }
    for (const auto& n : needs->second)
      if (std::find(host_names.begin(), host_names.end(), n) == host_names.end())
        host_names.push_back(n);
  };
  if (!s.grid) missing("grid", "grid", "--grid X[,Y[,Z]]");
  if (!s.block) missing("block", "block", "--block X[,Y[,Z]]");
  for (std::size_t i = 0; i < is_pointer.size(); ++i) {
    const std::string name =
        i < params.size() && !params[i].empty() ? params[i] : fmt::format("p{}", i);
    if (is_pointer[i] || has_arg(s, name, i)) continue;
    const std::string type = i < types.size() ? types[i] : "";
    missing("arg " + name,
            fmt::format("argument {}{}", name, type.empty() ? "" : " (" + type + ")"),
            "--arg " + name + "=VALUE");
  }
  if (items.empty()) return std::nullopt;
  std::string msg = fmt::format("kernel {}: {} launch setting{} missing:", kernel, items.size(),
                                items.size() == 1 ? "" : "s");
  for (const auto& i : items) msg += "\n  " + i;
  if (!host_names.empty()) {
    msg += "\nthe host code does not determine:";
    for (const auto& n : host_names) {
      const auto why = s.host_why.find(n);
      msg += fmt::format("\n  {}: {}", n, why == s.host_why.end() ? "not a constant" : why->second);
    }
  }
  std::vector<std::string> extra{"--kernel", kernel};
  for (const auto& n : host_names) extra.insert(extra.end(), {"--host-arg", n + "=VALUE"});
  for (const auto& f : flags) {
    const auto blank = f.find(' ');
    extra.push_back(f.substr(0, blank));
    extra.push_back(f.substr(blank + 1));
  }
  msg += fmt::format("\ngive {} at once:\n  {}", items.size() == 1 ? "it" : "them",
                     rerun_line(rerun, extra));
  std::string unblank = kernel;  // a comment's values end at a blank: gemm<64,16>
  std::erase(unblank, ' ');
  const std::string comment =
      fmt::format("// bankcheck: kernel={} grid=X,Y block=X,Y arg=NAME=VALUE", unblank);
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
