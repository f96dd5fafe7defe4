#include "commands/words.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace ouro::commands {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  char q = 0;
  for (char c : s) {
    if (q) {
      if (c == q) q = 0;
    } else if (c == '"') {
      q = c;
    } else if (c == sep) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string normalize_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    // U+201C/U+201D “ ” (E2 80 9C/9D), U+2018/U+2019 ‘ ’ (E2 80 98/99), « » (C2 AB/BB)
    if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80) {
      unsigned char d = static_cast<unsigned char>(s[i + 2]);
      if (d == 0x9C || d == 0x9D) { out += '"'; i += 2; continue; }
      if (d == 0x98 || d == 0x99) { out += '\''; i += 2; continue; }
    }
    if (c == 0xC2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) == 0xAB || static_cast<unsigned char>(s[i + 1]) == 0xBB)) {
      out += '"';
      ++i;
      continue;
    }
    out += static_cast<char>(c);
  }
  return out;
}

std::string extract_quoted(std::string_view s, std::vector<std::string>& out) {
  std::string rest;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]));
    if (c == '"' || (c == '\'' && word_start)) {
      size_t end = s.find(c, i + 1);
      // A single quote closes at a word end only ("don't" is not a quote).
      while (c == '\'' && end != std::string_view::npos && end + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[end + 1])))
        end = s.find(c, end + 1);
      if (end != std::string_view::npos && end > i) {
        out.emplace_back(s.substr(i + 1, end - i - 1));
        rest += ' ';
        i = end;
        continue;
      }
    }
    rest += c;
  }
  return rest;
}

std::string original_spelling(std::string_view text, const std::vector<std::string>& kept) {
  auto toks = split_ws(text);
  std::string out;
  size_t k = 0;
  for (const auto& t : toks) {
    if (k >= kept.size()) break;
    std::string clean;
    for (char c : t)
      if (!(c == ',' || c == '.' || c == '!' || c == '?' || c == ':')) clean += c;
    if (lower(clean) == kept[k]) {
      out += (out.empty() ? "" : " ") + clean;
      ++k;
    }
  }
  // Anything not found as written (changed by punctuation rules) is added as kept.
  for (; k < kept.size(); ++k) out += (out.empty() ? "" : " ") + kept[k];
  return out;
}

bool looks_like_url(std::string_view s) {
  static const std::regex url(R"(^(https?://\S+|file:/\S+|about:\S+|data:\S+|localhost(:\d+)?(/\S*)?|127\.0\.0\.1(:\d+)?(/\S*)?|[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}(:\d+)?(/\S*)?)$)",
                              std::regex::icase);
  std::string t = trim(s);
  return !t.empty() && t.size() < 4096 && std::regex_match(t, url);
}

std::vector<std::string> split_outside_quotes(std::string_view s, const std::function<int(std::string_view, size_t)>& cut, bool escapes) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      cur += c;
      if (escapes && c == '\\' && i + 1 < s.size()) cur += s[++i];
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') {
      quoted = true;
      cur += c;
      continue;
    }
    int n = cut(s, i);
    if (n < 0) {
      cur += c;
      out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    if (n > 0) {
      out.push_back(std::move(cur));
      cur.clear();
      i += static_cast<size_t>(n) - 1;
      continue;
    }
    cur += c;
  }
  out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> split_on_and(std::string_view s) {
  auto word = [](std::string_view str, size_t i, std::string_view w) {
    return lower(str.substr(i, w.size())) == w && (i == 0 || std::isspace(static_cast<unsigned char>(str[i - 1]))) &&
           (i + w.size() >= str.size() || std::isspace(static_cast<unsigned char>(str[i + w.size()])));
  };
  std::vector<std::string> out;
  for (auto& piece : split_outside_quotes(s, [&](std::string_view str, size_t i) {
         if (str[i] == ',' || str[i] == '&') return 1;
         return word(str, i, "and") ? 3 : word(str, i, "or") ? 2 : 0;
       }))
    if (auto t = trim(piece); !t.empty()) out.push_back(std::move(t));
  return out;
}

}  // namespace ouro::commands
