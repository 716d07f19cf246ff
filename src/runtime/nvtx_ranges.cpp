// NVTX filter expressions, the ranges a process has open, and the match between them
// (nvtx_ranges.hpp).
#include "bankcheck/runtime/nvtx_ranges.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>

namespace bankcheck::runtime {
namespace {

[[noreturn]] void bad(std::string_view text, std::size_t column, const std::string& what) {
  throw std::invalid_argument("'" + std::string(text) + "': column " + std::to_string(column + 1) +
                              ": " + what);
}

// A character of the expression and whether a backslash escaped it.
struct Char {
  char c;
  bool escaped;
  std::size_t column;  // in the whole text
};

std::vector<Char> unescape(std::string_view text, std::size_t from) {
  std::vector<Char> out;
  for (std::size_t i = from; i < text.size(); ++i) {
    if (text[i] == '\\') {
      if (i + 1 == text.size()) bad(text, i, "a '\\' must be followed by the character it escapes");
      out.push_back({text[i + 1], true, i});
      ++i;
    } else {
      out.push_back({text[i], false, i});
    }
  }
  return out;
}

bool is(const Char& c, char want) { return !c.escaped && c.c == want; }

NvtxName make_name(std::string_view text, const std::vector<Char>& chars, std::size_t begin,
                   std::size_t end, bool regex, bool wildcards) {
  if (begin == end)
    bad(text, begin < chars.size() ? chars[begin].column : text.size(), "an empty range name");
  NvtxName n;
  if (end - begin == 1 && wildcards && (is(chars[begin], '*') || is(chars[begin], '+'))) {
    n.kind = is(chars[begin], '*') ? NvtxName::Kind::AnyMany : NvtxName::Kind::AnyOne;
    n.text = chars[begin].c;
    return n;
  }
  for (std::size_t i = begin; i < end; ++i) {
    const Char& c = chars[i];
    if (!c.escaped && (c.c == '[' || c.c == ']'))
      bad(text, c.column,
          std::string("'") + c.c + "' may only " + (c.c == '[' ? "begin" : "end") +
              " the ranges of a push/pop expression (escape it as \\" + c.c + " in a name)");
    if (!c.escaped && (c.c == '*' || c.c == '+') && !regex)
      bad(text, c.column,
          std::string("'") + c.c + "' stands for ranges of a push/pop stack, alone between two " +
              "'/' (end a push/pop expression with '/'; escape it as \\" + c.c + " in a name)");
    // A regular expression keeps the escapes it understands itself.
    if (regex && c.escaped && c.c != '/' && c.c != '@' && c.c != ',') n.text += '\\';
    n.text += c.c;
  }
  if (regex) {
    n.kind = NvtxName::Kind::Regex;
    try {
      n.re = std::make_shared<const std::regex>(n.text, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      bad(text, chars[begin].column,
          "'" + n.text + "' is not a regular expression (" + e.what() + ")");
    }
  }
  return n;
}

// Per thread: the stacks of each NvtxRanges it pushed to, by domain.
struct ThreadStacks {
  std::uint64_t instance;
  std::map<std::string, std::vector<std::string>, std::less<>> domains;
};
thread_local std::vector<ThreadStacks> t_stacks;

std::map<std::string, std::vector<std::string>, std::less<>>* thread_stacks(std::uint64_t instance,
                                                                            bool make) {
  for (auto& t : t_stacks)
    if (t.instance == instance) return &t.domains;
  if (!make) return nullptr;
  t_stacks.push_back({instance, {}});
  return &t_stacks.back().domains;
}

std::atomic<std::uint64_t> next_instance{1};

bool match_from(const NvtxFilter& f, std::size_t pi, const std::vector<std::string>& s,
                std::size_t si) {
  if (pi == f.names.size()) return !f.top || si == s.size();
  const NvtxName& p = f.names[pi];
  switch (p.kind) {
    case NvtxName::Kind::AnyMany:
      for (std::size_t k = si; k <= s.size(); ++k)
        if (match_from(f, pi + 1, s, k)) return true;
      return false;
    case NvtxName::Kind::AnyOne:
      return si < s.size() && match_from(f, pi + 1, s, si + 1);
    default:
      return si < s.size() && p.matches(s[si]) && match_from(f, pi + 1, s, si + 1);
  }
}

}  // namespace

bool NvtxName::matches(std::string_view name) const {
  switch (kind) {
    case Kind::Literal:
      return name == text;
    case Kind::Regex:
      return std::regex_search(name.begin(), name.end(), *re);
    default:
      return true;
  }
}

NvtxFilter parse_nvtx_filter(std::string_view text) {
  NvtxFilter f;
  f.text = std::string(text);
  const bool regex = text.starts_with("regex:");
  const std::vector<Char> chars = unescape(text, regex ? 6 : 0);
  if (chars.empty()) bad(text, text.size(), "no range named");
  // The domain: before the first '@'.
  std::size_t begin = 0;
  for (std::size_t i = 0; i < chars.size(); ++i)
    if (is(chars[i], '@')) {
      if (begin) bad(text, chars[i].column, "a second '@' (escape it as \\@ in a name)");
      if (i == 0) bad(text, chars[i].column, "an empty domain name before '@'");
      f.domain = make_name(text, chars, 0, i, regex, false);
      begin = i + 1;
    }
  std::size_t end = chars.size();
  if (begin < end && is(chars[begin], '[')) f.bottom = true, ++begin;
  if (begin < end && is(chars[end - 1], ']')) f.top = true, --end;
  f.push_pop = f.bottom || f.top;
  for (std::size_t i = begin; i < end; ++i) f.push_pop = f.push_pop || is(chars[i], '/');
  const char separator = f.push_pop ? '/' : ',';
  // A push/pop expression may end with its '/' ("A/").
  if (f.push_pop && end > begin && is(chars[end - 1], '/')) {
    if (f.top) bad(text, chars[end - 1].column, "']' follows the last range name directly");
    --end;
  }
  if (begin == end)
    bad(text, begin < chars.size() ? chars[begin].column : text.size(), "no range named");
  std::size_t from = begin;
  for (std::size_t i = begin; i <= end; ++i)
    if (i == end || is(chars[i], separator)) {
      f.names.push_back(make_name(text, chars, from, i, regex, f.push_pop));
      from = i + 1;
    }
  return f;
}

bool nvtx_stack_matches(const NvtxFilter& f, const std::vector<std::string>& stack) {
  if (f.bottom) return match_from(f, 0, stack, 0);
  for (std::size_t i = 0; i <= stack.size(); ++i)
    if (match_from(f, 0, stack, i)) return true;
  return false;
}

NvtxRanges::NvtxRanges() : instance_(next_instance++) {}
NvtxRanges::~NvtxRanges() = default;

void NvtxRanges::push(std::string_view domain, std::string_view message) {
  auto& domains = *thread_stacks(instance_, true);
  auto it = domains.find(domain);
  if (it == domains.end())
    it = domains.emplace(std::string(domain), std::vector<std::string>{}).first;
  it->second.emplace_back(message);
}

void NvtxRanges::pop(std::string_view domain) {
  auto* domains = thread_stacks(instance_, false);
  if (!domains) return;
  const auto it = domains->find(domain);
  if (it != domains->end() && !it->second.empty()) it->second.pop_back();
}

void NvtxRanges::start(std::uint64_t id, std::string_view domain, std::string_view message) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_.push_back({id, std::string(domain), std::string(message)});
}

void NvtxRanges::end(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it =
      std::find_if(open_.begin(), open_.end(), [&](const Open& o) { return o.id == id; });
  if (it != open_.end()) open_.erase(it);
}

std::vector<std::string> NvtxRanges::stack(std::string_view domain) const {
  const auto* domains = thread_stacks(instance_, false);
  if (!domains) return {};
  const auto it = domains->find(domain);
  return it == domains->end() ? std::vector<std::string>{} : it->second;
}

bool NvtxRanges::matches(const NvtxFilter& f) const {
  if (f.push_pop) {
    const auto* domains = thread_stacks(instance_, false);
    if (!domains) return false;
    for (const auto& [domain, stack] : *domains)
      if (f.domain.matches(domain) && nvtx_stack_matches(f, stack)) return true;
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const NvtxName& name : f.names) {
    const bool open = std::any_of(open_.begin(), open_.end(), [&](const Open& o) {
      return f.domain.matches(o.domain) && name.matches(o.message);
    });
    if (!open) return false;
  }
  return true;
}

bool NvtxRanges::included(const std::vector<NvtxFilter>& include,
                          const std::vector<NvtxFilter>& exclude) const {
  bool in = include.empty();
  for (const NvtxFilter& f : include) in = in || matches(f);
  if (!in) return false;
  for (const NvtxFilter& f : exclude)
    if (matches(f)) return false;
  return true;
}

NvtxRanges& nvtx_process_ranges() {
  static NvtxRanges* ranges = new NvtxRanges;  // never destroyed: NVTX calls at exit
  return *ranges;
}

}  // namespace bankcheck::runtime
