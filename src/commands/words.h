// Small text helpers of the command language and the sentence parser (pure).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::commands {

std::string trim(std::string_view s);
std::string lower(std::string_view s);  // ASCII only; other bytes kept
bool starts_with(std::string_view s, std::string_view p);
bool ends_with(std::string_view s, std::string_view p);
std::vector<std::string> split(std::string_view s, char sep);
std::vector<std::string> split_ws(std::string_view s);
// Typographic quotes (“ ” ‘ ’ « ») become straight ones.
std::string normalize_quotes(std::string_view s);
// Removes "double-quoted" parts (and 'single-quoted' ones that open at a word start), appending
// their contents to `out`; returns the text left, a space where each stood.
std::string extract_quoted(std::string_view s, std::vector<std::string>& out);
// The words of `kept` (lower case) in the spelling `text` uses them, joined by spaces.
std::string original_spelling(std::string_view text, const std::vector<std::string>& kept);
// https://x.y/…, http://…, file:…, about:…, localhost:8080/…, example.com, example.com/path
bool looks_like_url(std::string_view s);
// Splits `s` into pieces at separators found outside double quotes (a backslash escapes a quote
// when `escapes`). cut(s, i) says what is at i: 0 nothing, n > 0 a separator of n characters
// (dropped), -1 a piece ends after s[i] (kept, e.g. a full stop). Pieces come back as they are.
std::vector<std::string> split_outside_quotes(std::string_view s, const std::function<int(std::string_view, size_t)>& cut,
                                              bool escapes = false);
// "alpha, beta and gamma" → [alpha, beta, gamma] (outside quotes; "and"/"or"/"&"/",").
std::vector<std::string> split_on_and(std::string_view s);

}  // namespace ouro::commands
