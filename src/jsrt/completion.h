// Gives a REPL input the value a console would show: the completion value of its last statement.
// JavaScriptCore has no REPL mode, so the last top-level expression statement is rewritten into a
// `return`, checked by the engine's own parser; anything it cannot prove safe is left unchanged.
#pragma once

#include <functional>
#include <string>

namespace ouro::jsrt {

// `valid(body)` says whether `(async () => {\n<body>\n})` parses.
std::string add_completion_return(const std::string& code, const std::function<bool(const std::string&)>& valid);

// Makes top-level declarations outlive the input, as in a console: `const t = x` becomes
// `globalThis.t = x`, `class A {…}` becomes `globalThis.A = class A {…}`, and top-level function
// declarations are exported on the first line (they are hoisted). Names for which `reserved`
// is true (the API) stay local. A destructuring declaration (`const {a, b: c} = o`, `let [x, ...y]
// = f()`) keeps its bindings and copies each name it binds to the global object after its
// statement, where `valid` (as above) says the input still parses; without `valid`, or where no
// such place is found, it stays local.
std::string persist_declarations(const std::string& code, const std::function<bool(std::string_view)>& reserved,
                                 const std::function<bool(const std::string&)>& valid = {});

}  // namespace ouro::jsrt
