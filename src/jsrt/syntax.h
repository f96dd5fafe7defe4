// Where a syntax error is in the code a person or a model wrote. The REPL wraps code in an async
// function, so an input that ends early fails on the wrapper's closing brace — a line and a `}`
// nobody wrote. This finds the bracket, string or comment the input left open instead.
#pragma once

#include <optional>
#include <string_view>

namespace ouro::jsrt {

struct Unclosed {
  char opener = 0;  // ( [ { " ' ` or * for a block comment
  int line = 0;     // 1-based, in the code as given
  int column = 0;   // 1-based, in characters (UTF-8 code points)
};

// The innermost bracket, string, template or block comment still open at the end of `code`;
// nullopt when everything that opens also closes. A lexical scan (strings, templates with
// ${…}, comments, regular expression literals after an operator), not a parser.
std::optional<Unclosed> last_unclosed(std::string_view code);

}  // namespace ouro::jsrt
