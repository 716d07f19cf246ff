// The message that says every launch setting still missing, for all the run's kernels at
// once, with the names of the host code they lack, the source's own defaults for them, one
// command to paste and `bankcheck run`, which needs none of it; and the shell quoting of that
// command.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "bankcheck/driver/host_launch.hpp"

namespace bankcheck::driver {
namespace {

// What one kernel lacks: the items said, the flags that give those that lack no host name
// ("--grid X[,Y[,Z]]"), and the host names the others lack.
struct Lacks {
  std::vector<std::string> kernels;     // several: kernels that lack exactly the same
  std::vector<std::string> flag_names;  // what --kernel takes for each
  std::vector<std::string> items, flags, host_names;
};

Lacks lacks_of(const KernelSettings& k) {
  const LaunchSettings& s = *k.settings;
  Lacks out;
  out.kernels = {k.kernel};
  out.flag_names = {k.flag_name.empty() ? k.kernel : k.flag_name};
  auto missing = [&](const std::string& setting, std::string item, std::string flag) {
    const auto u = std::find_if(s.unresolved.begin(), s.unresolved.end(),
                                [&](const auto& x) { return x.first == setting; });
    const auto needs = s.unresolved_needs.find(setting);
    if (u == s.unresolved.end()) {
      item += ": not given";
    } else {
      item +=
          fmt::format(": the host code has `{}`, not a constant bankcheck can evaluate", u->second);
      if (needs != s.unresolved_needs.end() &&
          !(needs->second.size() == 1 && needs->second[0] == u->second)) {
        std::string names;
        for (const auto& n : needs->second) (names += names.empty() ? "" : ", ") += n;
        item += " (it lacks " + names + ")";
      }
    }
    out.items.push_back(std::move(item));
    if (needs == s.unresolved_needs.end()) {
      out.flags.push_back(std::move(flag));
      return;
    }
    for (const auto& n : needs->second)
      if (std::find(out.host_names.begin(), out.host_names.end(), n) == out.host_names.end())
        out.host_names.push_back(n);
  };
  if (!s.grid) missing("grid", "grid", "--grid X[,Y[,Z]]");
  if (!s.block) missing("block", "block", "--block X[,Y[,Z]]");
  for (std::size_t i = 0; i < k.is_pointer.size(); ++i) {
    const std::string name =
        i < k.params.size() && !k.params[i].empty() ? k.params[i] : fmt::format("p{}", i);
    if (k.is_pointer[i] || gives_arg(s, name, i)) continue;
    const std::string type = i < k.types.size() ? k.types[i] : "";
    missing("arg " + name,
            fmt::format("argument {}{}", name, type.empty() ? "" : " (" + type + ")"),
            "--arg " + name + "=VALUE");
  }
  return out;
}

std::string plural(std::size_t n, const char* one, const char* many) { return n == 1 ? one : many; }

// "kernel k: 2 launch settings missing:", "kernels a, b: 3 launch settings missing each:",
// then the items.
std::string group_text(const Lacks& g) {
  std::string names;
  for (const auto& k : g.kernels) (names += names.empty() ? "" : ", ") += k;
  std::string out = fmt::format(
      "{} {}: {} launch setting{} missing{}:", plural(g.kernels.size(), "kernel", "kernels"), names,
      g.items.size(), plural(g.items.size(), "", "s"), g.kernels.size() > 1 ? " each" : "");
  for (const auto& i : g.items) out += "\n  " + i;
  return out;
}

}  // namespace

bool gives_arg(const LaunchSettings& s, const std::string& name, std::size_t index) {
  return std::any_of(s.args.begin(), s.args.end(), [&](const auto& a) {
    return a.first == name || a.first == fmt::format("p{}", index);
  });
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

std::optional<std::string> missing_settings(const MissingContext& c,
                                            const std::vector<KernelSettings>& kernels) {
  std::vector<Lacks> groups;
  std::vector<std::string> host_names;
  std::map<std::string, std::string> why;
  std::map<std::string, HostDefault> defaults;
  std::size_t lacking = 0, items = 0;
  for (const KernelSettings& k : kernels) {
    Lacks l = lacks_of(k);
    if (l.items.empty()) continue;
    ++lacking;
    items += l.items.size();
    for (const auto& n : l.host_names) {
      if (std::find(host_names.begin(), host_names.end(), n) == host_names.end())
        host_names.push_back(n);
      if (const auto w = k.settings->host_why.find(n); w != k.settings->host_why.end())
        why.emplace(n, w->second);
      if (const auto d = k.settings->host_defaults.find(n); d != k.settings->host_defaults.end())
        defaults.emplace(n, d->second);
    }
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const Lacks& g) {
      return g.items == l.items && g.flags == l.flags;
    });
    if (same != groups.end()) {
      same->kernels.push_back(k.kernel);
      same->flag_names.push_back(l.flag_names[0]);
    } else
      groups.push_back(std::move(l));
  }
  if (groups.empty()) return std::nullopt;
  const std::size_t selected = std::max(c.kernels_selected, kernels.size());

  std::string msg;
  if (selected == 1 && lacking == 1)
    msg = group_text(groups[0]);
  else {
    msg = fmt::format("{} of the {} kernels lack launch settings:", lacking, selected);
    for (const auto& g : groups) msg += "\n" + group_text(g);
  }
  if (!host_names.empty()) {
    msg += "\nthe host code does not determine:";
    for (const auto& n : host_names) {
      const auto w = why.find(n);
      msg += fmt::format("\n  {}: {}", n, w == why.end() ? "not a constant" : w->second);
      if (const auto d = defaults.find(n); d != defaults.end())
        msg += fmt::format("; the source's default: {} ({})", d->second.value, d->second.where);
    }
  }

  // The command: the host names with the source's defaults where it has them, then per
  // kernel what lacks no host name, with --kernel (an --arg or --grid is one kernel's).
  std::vector<std::string> host_args;
  bool defaulted = false;
  for (const auto& n : host_names) {
    const auto d = defaults.find(n);
    defaulted = defaulted || d != defaults.end();
    host_args.insert(
        host_args.end(),
        {"--host-arg",
         n + "=" + (d != defaults.end() ? std::to_string(d->second.value) : std::string("VALUE"))});
  }
  const bool per_kernel =
      std::any_of(groups.begin(), groups.end(), [](const Lacks& g) { return !g.flags.empty(); });
  std::vector<std::string> lines;
  if (!per_kernel) {
    std::vector<std::string> extra;
    if (!c.rerun.kernel.empty()) extra = {"--kernel", c.rerun.kernel};
    extra.insert(extra.end(), host_args.begin(), host_args.end());
    lines.push_back(rerun_line(c.rerun, extra));
  } else {
    for (const auto& g : groups)
      for (const auto& k : g.flag_names) {
        std::vector<std::string> extra{"--kernel", k};
        extra.insert(extra.end(), host_args.begin(), host_args.end());
        for (const auto& f : g.flags) {
          const auto blank = f.find(' ');
          extra.push_back(f.substr(0, blank));
          extra.push_back(f.substr(blank + 1));
        }
        lines.push_back(rerun_line(c.rerun, extra));
      }
  }
  msg += fmt::format("\ngive {} at once{}{}:", items == 1 ? "it" : "them",
                     lines.size() > 1 ? ", one command per kernel" : "",
                     defaulted ? " (the source's defaults filled in: put the sizes to check)" : "");
  for (const auto& l : lines) msg += "\n  " + l;

  std::vector<std::string> comments;
  for (const auto& g : groups)
    for (const auto& k : g.flag_names) {
      std::string unblank = k;  // a comment's values end at a blank: gemm<64,16>
      std::erase(unblank, ' ');
      comments.push_back(
          fmt::format("// bankcheck: kernel={} grid=X,Y block=X,Y arg=NAME=VALUE", unblank));
    }
  auto comment_lines = [&] {
    if (comments.size() == 1) return ": " + comments[0];
    std::string s = ", one comment per kernel:";
    for (const auto& l : comments) s += "\n  " + l;
    return s;
  };
  if (!c.binary_source)
    msg += "\nor write them in the source" + comment_lines();
  else if (!c.binary_source->empty())
    msg += fmt::format(
        "\nor write them in its source {}:{}\n(the launches in a binary's host code "
        "are not read)",
        *c.binary_source, comment_lines());
  else
    msg +=
        "\n(the launches in a binary's host code are not read, and its source file, where a "
        "launch comment could be, was not found)";
  if (!c.program.empty())
    msg += fmt::format(
        "\nor run the program, whose own launches, arguments and data need none of them: "
        "bankcheck run -- {} [ARGS...]",
        c.program == "PROGRAM" ? std::string("PROGRAM") : shell_quote(c.program));
  return msg;
}

std::optional<std::string> missing_settings(const Rerun& rerun, const std::string& kernel,
                                            const LaunchSettings& s,
                                            const std::vector<std::string>& params,
                                            const std::vector<std::string>& types,
                                            const std::vector<bool>& is_pointer,
                                            const std::optional<std::string>& binary_source) {
  MissingContext c;
  c.rerun = rerun;
  c.binary_source = binary_source;
  return missing_settings(c, {{kernel, &s, params, types, is_pointer, {}}});
}

}  // namespace bankcheck::driver
