// Reading the CLI11 App for the generated documentation, and the bash completion.
#include "docgen.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <regex>

#include "bankcheck/model/arch.hpp"
#include "bankcheck/model/occupancy.hpp"

namespace bankcheck::tools {

OptionDoc describe(const CLI::Option& opt) {
  OptionDoc d;
  d.positional = !opt.nonpositional();
  if (d.positional) {
    d.names.push_back(opt.get_name());
  } else {
    for (const std::string& s : opt.get_snames()) d.names.push_back("-" + s);
    for (const std::string& l : opt.get_lnames()) d.names.push_back("--" + l);
  }
  d.required = opt.get_required();
  d.takes_value = opt.get_expected_max() != 0;
  d.repeatable = opt.get_items_expected_max() > 1;
  const std::string type = opt.get_type_name();
  d.type = type.substr(0, type.find(':'));
  // A set validator's description is "{a,b,c}" (CLI::IsMember, the --format validators).
  static const std::regex set(R"(\{([^{}]*)\})");
  if (std::smatch m; std::regex_search(type, m, set)) {
    std::string items = m[1];
    for (size_t at = 0; at <= items.size();) {
      const size_t comma = std::min(items.find(',', at), items.size());
      if (comma > at) d.choices.push_back(items.substr(at, comma - at));
      at = comma + 1;
    }
  }
  d.description = opt.get_description();
  d.default_value = opt.get_default_str();
  return d;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> subs;
  for (const CLI::App* s :
       app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    subs.push_back(s);
  return subs;
}

std::vector<OptionDoc> visible_options(const CLI::App& sub) {
  std::vector<OptionDoc> out;
  for (const CLI::Option* o :
       sub.get_options([](const CLI::Option* o) { return !o->get_group().empty(); }))
    out.push_back(describe(*o));
  return out;
}

std::vector<std::string> value_hints(const std::string& subcommand, const OptionDoc& o) {
  std::vector<std::string> hints;
  if (std::find(o.names.begin(), o.names.end(), "--arch") == o.names.end()) return hints;
  if (subcommand == "occupancy") {
    for (int cc : model::kOccupancyArchs) hints.push_back(fmt::format("sm_{}", cc));
  } else {
    for (const model::Arch& a : model::kArchs) hints.emplace_back(a.name);
  }
  return hints;
}

ValueKind value_kind(const OptionDoc& o) {
  if (!o.takes_value || !o.choices.empty()) return ValueKind::Text;
  static const std::regex dir(R"(\bdirector(y|ies)\b|_DIR\b)");
  static const std::regex file(R"(\bfile\b|\bFILE\b|\bpath\b|\bPATH\b)");
  if (std::regex_search(o.description, dir)) return ValueKind::Directory;
  if (std::regex_search(o.description, file)) return ValueKind::File;
  return ValueKind::Text;
}

std::vector<std::string> file_extensions(const OptionDoc& o) {
  std::vector<std::string> exts;
  static const std::regex ext(R"(\bFILE\.([A-Za-z0-9]+))");
  for (auto it = std::sregex_iterator(o.description.begin(), o.description.end(), ext);
       it != std::sregex_iterator(); ++it)
    if (std::find(exts.begin(), exts.end(), (*it)[1].str()) == exts.end())
      exts.push_back((*it)[1].str());
  return exts;
}

namespace {

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

// A name as a bash identifier ("occupancy", "dynamic-smem" -> "dynamic_smem").
std::string ident(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// A word list for `compgen -W` inside double quotes: the characters the shell would read
// specially are escaped.
std::string quote_words(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) {
    if (!s.empty()) s += ' ';
    for (char c : w) {
      if (std::strchr("\"\\$`<>|&;()'*?[] ", c)) s += '\\';
      s += c;
    }
  }
  return s;
}

// One subcommand's function: the value of the option before the cursor, else its options
// (after `-`), else its positionals' files.
std::string sub_function(const CLI::App& sub) {
  const std::string name = sub.get_name();
  const std::vector<OptionDoc> opts = visible_options(sub);
  std::vector<std::string> option_words, with_value, free_text;
  std::string value_cases;
  std::vector<std::string> positional_exts;
  bool has_positional = false;
  for (const OptionDoc& o : opts) {
    if (o.positional) {
      has_positional = true;
      for (const std::string& e : file_extensions(o)) positional_exts.push_back(e);
      continue;
    }
    for (const std::string& n : o.names) option_words.push_back(n);
    if (!o.takes_value) continue;
    for (const std::string& n : o.names) with_value.push_back(n);
    std::vector<std::string> values = o.choices;
    for (const std::string& h : value_hints(name, o)) values.push_back(h);
    const std::string pattern = join(o.names, " | ");
    if (!values.empty())
      value_cases += fmt::format("      {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")) ;;\n",
                                 pattern, quote_words(values));
    else if (value_kind(o) == ValueKind::Directory)
      value_cases += fmt::format("      {}) _bankcheck_files \"$cur\" -d ;;\n", pattern);
    else if (value_kind(o) == ValueKind::File)
      value_cases += fmt::format("      {}) _bankcheck_files \"$cur\" ;;\n", pattern);
    else
      value_cases += fmt::format("      {}) ;;  # a value the user types\n", pattern);
  }
  std::string f = fmt::format("_bankcheck_{}() {{\n", ident(name));
  f += "  local cur=$1 prev=$2 first=$3\n";
  if (!value_cases.empty())
    f += "  case $prev in\n" + value_cases + "      *) false ;;\n  esac && return 0\n";
  if (sub.get_prefix_command())
    // Everything after the first positional (the program) is the program's own.
    f += "  if [[ -n $first ]]; then _bankcheck_files \"$cur\"; return 0; fi\n";
  f +=
      fmt::format("  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n",
                  quote_words(option_words));
  if (has_positional)
    f += fmt::format("  else\n    _bankcheck_files \"$cur\" {}\n", join(positional_exts));
  f += "  fi\n}\n";
  f += fmt::format("_bankcheck_{}_takes_value=\" {} \"\n\n", ident(name), join(with_value));
  return f;
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::string s =
      "# bash completion for bankcheck, generated from its command line definition by\n"
      "# `bankcheck --generate-completion bash`: subcommands, each one's options, the values "
      "of\n# options with a fixed set, and files where an option or argument takes one.\n"
      "# Installed as share/bash-completion/completions/bankcheck; or: source this file.\n\n";
  s += "# _bankcheck_files CUR [-d | EXT...]: directories, and the files ending in one of EXT\n"
       "# (any file without EXT; none with -d).\n"
       "_bankcheck_files() {\n"
       "  local cur=$1 f ext IFS=$'\\n'\n"
       "  shift\n"
       "  for f in $(compgen -f -- \"$cur\"); do\n"
       "    if [[ -d $f ]]; then COMPREPLY+=(\"$f\"); continue; fi\n"
       "    [[ ${1-} == -d ]] && continue\n"
       "    (($# == 0)) && COMPREPLY+=(\"$f\") && continue\n"
       "    for ext in \"$@\"; do\n"
       "      [[ $f == *.\"$ext\" ]] && COMPREPLY+=(\"$f\") && break\n"
       "    done\n"
       "  done\n"
       "}\n\n";
  std::vector<std::string> names, top_options, cases;
  for (const CLI::Option* o :
       app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); }))
    for (const std::string& n : describe(*o).names) top_options.push_back(n);
  for (const CLI::App* sub : visible_subcommands(app)) {
    names.push_back(sub->get_name());
    s += sub_function(*sub);
  }
  s += fmt::format(
      "_bankcheck() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=\"\" sub=\"\" first=\"\" i takes\n"
      "  ((COMP_CWORD > 0)) && prev=${{COMP_WORDS[COMP_CWORD - 1]}}\n"
      "  COMPREPLY=()\n"
      "  local IFS=$' \\t\\n'\n"
      "  # The subcommand: the first word that is not an option; then its first positional\n"
      "  # (words that are an option's value skipped).\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    local w=${{COMP_WORDS[i]}}\n"
      "    if [[ -z $sub ]]; then\n"
      "      [[ $w != -* ]] && sub=$w && takes=_bankcheck_${{sub//[^A-Za-z0-9]/_}}_takes_value\n"
      "      continue\n"
      "    fi\n"
      "    if [[ $w == -- ]]; then first=--; break; fi\n"
      "    if [[ $w == -* ]]; then\n"
      "      [[ $w != *=* && ${{!takes}} == *\" $w \"* ]] && ((i++))\n"
      "      continue\n"
      "    fi\n"
      "    first=$w\n"
      "    break\n"
      "  done\n"
      "  if [[ -z $sub ]]; then\n"
      "    if [[ $cur == -* ]]; then\n"
      "      COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "    else\n"
      "      COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "    fi\n"
      "    return 0\n"
      "  fi\n"
      "  case $sub in\n",
      quote_words(top_options), quote_words(names));
  for (const std::string& n : names)
    s += fmt::format("    {}) _bankcheck_{} \"$cur\" \"$prev\" \"$first\" ;;\n", n, ident(n));
  s += "  esac\n"
       "  return 0\n"
       "}\n\n"
       "complete -o filenames -F _bankcheck bankcheck\n";
  return s;
}

std::optional<int> generate_docs(const CLI::App& app, int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--generate-man") == 0) {
    std::fputs(man_page(app).c_str(), stdout);
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--generate-completion") == 0) {
    if (argc == 3 && std::strcmp(argv[2], "bash") == 0) {
      std::fputs(bash_completion(app).c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "bankcheck: error: --generate-completion: expected 'bash'\n");
    return 2;
  }
  return std::nullopt;
}

}  // namespace bankcheck::tools
