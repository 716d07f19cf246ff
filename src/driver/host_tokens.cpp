// Tokens of host C++ for the launch reader, and bracket matching on them.
#include "host_tokens.hpp"

#include <cctype>
#include <cstring>

namespace bankcheck::driver::host_tokens {

std::vector<Tok> tokenize(std::string_view code) {
  std::vector<Tok> out;
  std::size_t i = 0;
  auto is_id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < code.size()) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Tok t;
    t.pos = i;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < code.size() &&
         std::isdigit(static_cast<unsigned char>(code[i + 1])))) {
      std::size_t j = i;
      while (j < code.size() &&
             (is_id(code[j]) || code[j] == '.' || code[j] == '\'' ||
              ((code[j] == '+' || code[j] == '-') && (code[j - 1] == 'e' || code[j - 1] == 'E') &&
               code.substr(i, 2) != "0x")))
        ++j;
      t.text = std::string(code.substr(i, j - i));
      std::erase(t.text, '\'');
      t.number = true;
      i = j;
    } else if (is_id(c)) {
      std::size_t j = i;
      while (j < code.size() && is_id(code[j])) ++j;
      t.text = std::string(code.substr(i, j - i));
      t.ident = true;
      i = j;
    } else {
      static const char* ops[] = {"<<<", ">>>", "<<=", ">>=", "::", "->", "<<", ">>", "<=", ">=",
                                  "==",  "!=",  "&&",  "||",  "+=", "-=", "*=", "/=", "++", "--"};
      std::size_t len = 1;
      for (const char* op : ops)
        if (code.substr(i, std::strlen(op)) == op) {
          len = std::strlen(op);
          break;
        }
      t.text = std::string(code.substr(i, len));
      i += len;
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool is_open(const std::string& t) { return t == "(" || t == "[" || t == "{"; }
bool is_close(const std::string& t) { return t == ")" || t == "]" || t == "}"; }

std::size_t match_forward(const std::vector<Tok>& t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (is_open(t[j].text)) ++depth;
    if (is_close(t[j].text) && --depth == 0) return j;
  }
  return t.size();
}
std::size_t match_backward(const std::vector<Tok>& t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i + 1; j-- > 0;) {
    if (is_close(t[j].text)) ++depth;
    if (is_open(t[j].text) && --depth == 0) return j;
  }
  return t.size();
}
// `<` ... `>` backwards from the `>` at i (brackets inside skipped: `k<(N > 4)>`).
std::size_t angle_backward(const std::vector<Tok>& t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i + 1; j-- > 0;) {
    if (t[j].text == ")" || t[j].text == "]") {
      const std::size_t o = match_backward(t, j);
      if (o >= t.size()) break;
      j = o;
      continue;
    }
    if (t[j].text == ">") ++depth;
    if (t[j].text == ">>") depth += 2;
    if (t[j].text == "<" && --depth == 0) return j;
    if (t[j].text == ";" || t[j].text == "{" || t[j].text == "}") break;
  }
  return t.size();
}
std::size_t angle_forward(const std::vector<Tok>& t, std::size_t i) {
  int depth = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (t[j].text == "(" || t[j].text == "[") {
      j = match_forward(t, j);
      if (j >= t.size()) break;
      continue;
    }
    if (t[j].text == "<") ++depth;
    if (t[j].text == ">" && --depth == 0) return j;
    if (t[j].text == ">>" && (depth -= 2) <= 0) return j;
    if (t[j].text == ";" || t[j].text == "{") break;
  }
  return t.size();
}

// Token ranges [from, to) split at commas outside brackets (and outside <> when `angles`).
std::vector<std::pair<std::size_t, std::size_t>> split_commas(const std::vector<Tok>& t,
                                                              std::size_t from, std::size_t to,
                                                              bool angles) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  int depth = 0;
  std::size_t start = from;
  for (std::size_t j = from; j < to; ++j) {
    const auto& s = t[j].text;
    if (is_open(s) || (angles && s == "<")) ++depth;
    if (is_close(s) || (angles && s == ">")) --depth;
    if (s == "," && depth == 0) {
      out.push_back({start, j});
      start = j + 1;
    }
  }
  if (to > start || !out.empty()) out.push_back({start, to});
  return out;
}

std::string join(const std::vector<Tok>& t, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t j = from; j < to && j < t.size(); ++j) {
    if (!s.empty() && (t[j].ident || t[j].number) && (t[j - 1].ident || t[j - 1].number))
      s += ' ';
    else if (!s.empty() && !(t[j].text == "," || t[j].text == ")" || t[j].text == "]" ||
                             t[j - 1].text == "(" || t[j - 1].text == "[" || t[j].text == "(" ||
                             t[j].text == "." || t[j - 1].text == "." || t[j].text == "::" ||
                             t[j - 1].text == "::" || t[j].text == "<" || t[j].text == ">" ||
                             t[j - 1].text == "<" || t[j - 1].text == "&" || t[j].text == "["))
      s += ' ';
    s += t[j].text;
  }
  return s;
}

}  // namespace bankcheck::driver::host_tokens
