// Tokens of the small C-like language that `bankcheck explain` reads: identifiers, integer
// literals and punctuators of index expressions, declarations and type names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::explain::detail {

enum class TokKind { Ident, Number, Punct, End, Bad };

struct Token {
  TokKind kind = TokKind::End;
  std::string text;        // Ident: the name; Punct: the operator; Bad: the error message
  std::int64_t value = 0;  // Number: the value (literals above INT64_MAX wrap, as in C)
  int pos = 0;             // 0-based offset of the token (Bad: of the offending character)
};

// Splits `text` into tokens, always ending with one End token (at text.size()). A lexical
// error does not throw: it becomes a Bad token, so the parser reports errors left to right.
std::vector<Token> tokenize(std::string_view text);

}  // namespace bankcheck::explain::detail
