#include "jsrt/summary.h"

#include <fmt/format.h>

#include <cctype>

namespace ouro::jsrt {

namespace {

constexpr size_t kPreview = 400, kStringPreview = 250, kFieldPreview = 40, kMaxKeys = 25;

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Cuts at a character boundary, at most `max` characters.
std::string clip(std::string_view s, size_t max) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (chars == max) break;
      ++chars;
    }
  }
  return std::string(s.substr(0, i));
}

bool secret_key(const std::string& key) {
  std::string k;
  for (char c : key) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* s : {"password", "passwd", "secret", "token", "api_key", "apikey", "authorization", "cookie", "set-cookie", "session", "cvv", "cvc"})
    if (k.find(s) != std::string::npos) return true;
  return false;
}

// What previews show of a value: at most 50 entries per level, 5 levels deep, with secrets
// masked — password-like keys, and the value of anything shaped like a cookie. The model, the
// events and traces see previews; the REPL variable keeps the real data.
json scrub(const json& v, int depth = 0) {
  if (depth > 5) return "…";
  if (v.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < v.size() && i < 50; ++i) out.push_back(scrub(v[i], depth + 1));
    return out;
  }
  if (!v.is_object()) return v;
  bool cookie_like = v.contains("name") && v.contains("value") && (v.contains("domain") || v.contains("httpOnly"));
  json out = json::object();
  size_t n = 0;
  for (auto it = v.begin(); it != v.end() && n < 50; ++it, ++n) {
    if ((cookie_like && it.key() == "value") || (secret_key(it.key()) && (it->is_string() || it->is_number())))
      out[it.key()] = "[REDACTED]";
    else
      out[it.key()] = scrub(*it, depth + 1);
  }
  return out;
}

std::string preview_json(const json& v, size_t max) {
  std::string text = dump_json(scrub(v));
  if (utf8_length(text) <= max) return text;
  return clip(text, max) + "...";
}

bool is_truncated(const json& v) { return v.is_object() && v.value("__truncated", false) && v.contains("data"); }

std::string join_keys(const json& obj, size_t max) {
  std::string out;
  size_t i = 0;
  for (auto it = obj.begin(); it != obj.end(); ++it, ++i) {
    if (i == max) {
      out += fmt::format(", … {} more", obj.size() - max);
      break;
    }
    if (i) out += ", ";
    out += it.key();
  }
  return out;
}

}  // namespace

std::string with_commas(size_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string human_size(size_t n) {
  if (n >= 1000000) return fmt::format("{:.1f}MB", n / 1e6);
  if (n >= 1000) return fmt::format("{:.1f}KB", n / 1e3);
  return fmt::format("{} chars", n);
}

size_t json_chars(const json& value) { return value.is_discarded() ? 0 : utf8_length(dump_json(value)); }

std::string describe_type(const json& v) {
  if (v.is_discarded()) return "undefined";
  if (v.is_null()) return "null";
  if (v.is_array()) return fmt::format("Array<{}>({})", v.empty() ? "unknown" : describe_type(v[0]), v.size());
  if (v.is_object()) return fmt::format("Object({} keys: {})", v.size(), join_keys(v, 12));
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  return "number";
}

std::string describe_schema(const json& raw) {
  if (!raw.is_object() && !raw.is_array()) return describe_type(raw);
  if (raw.is_array()) return fmt::format("Array<{}>", raw.empty() ? "unknown" : describe_type(raw[0]));
  json v = scrub(raw);
  std::string out = "{ ";
  size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    if (i == kMaxKeys) {
      out += fmt::format(", … {} more keys", v.size() - kMaxKeys);
      break;
    }
    if (i) out += ", ";
    out += it.key() + ": " + describe_type(*it);
    if (it->is_string()) {
      const std::string& s = it->get_ref<const std::string&>();
      out += " \"" + clip(s, kFieldPreview) + (utf8_length(s) > kFieldPreview ? "...\"" : "\"");
    } else if (it->is_number() || it->is_boolean()) {
      out += " " + it->dump();
    }
  }
  return out + " }";
}

std::string summarize_value(const json& value) {
  if (value.is_discarded()) return "Result: void";
  if (value.is_null()) return "Result: null";
  if (is_truncated(value)) {
    size_t original = value.value("originalLength", size_t(0));
    return fmt::format("Result truncated (was {}). Use a more specific selector to narrow results.\nKept part: {}",
                       human_size(original), summarize_value(value["data"]).substr(8));
  }
  size_t size = json_chars(value);
  if (value.is_array()) {
    std::string out = fmt::format("Result: Array<{}> ({} items, {} chars total)",
                                  value.empty() ? "empty" : describe_type(value[0]), with_commas(value.size()), with_commas(size));
    if (!value.empty() && value[0].is_object()) out += "\nElement schema: " + describe_schema(value[0]);
    if (!value.empty()) {
      json first = json::array();
      for (size_t i = 0; i < std::min<size_t>(2, value.size()); ++i) first.push_back(value[i]);
      out += "\nPreview (first 2): " + preview_json(first, kPreview);
    }
    if (value.size() > 2) out += fmt::format("\n... and {} more items", with_commas(value.size() - 2));
    return out;
  }
  if (value.is_object()) {
    return fmt::format("Result: Object ({} keys, {} chars)\nSchema: {}\nPreview: {}", value.size(), with_commas(size),
                       describe_schema(value), preview_json(value, kPreview));
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    size_t n = utf8_length(s);
    if (n > 300) return fmt::format("Result: string ({} chars)\nPreview: \"{}...\"", with_commas(n), clip(s, kStringPreview));
    return "Result: string = " + dump_json(value);
  }
  return fmt::format("Result: {} = {}", value.is_boolean() ? "boolean" : "number", clip(dump_json(value), 300));
}

std::string one_liner(const json& value) {
  if (value.is_discarded()) return "→ void";
  if (value.is_null()) return "→ null";
  if (is_truncated(value)) return fmt::format("→ truncated ({})", human_size(value.value("originalLength", size_t(0))));
  if (value.is_array())
    return fmt::format("→ Array<{}> ({} items)", value.empty() ? "empty" : (value[0].is_object() ? "Object" : describe_type(value[0])),
                       with_commas(value.size()));
  if (value.is_object()) return fmt::format("→ Object ({} keys: {})", value.size(), join_keys(value, 5));
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    size_t n = utf8_length(s);
    if (n > 60) return fmt::format("→ string ({} chars)", with_commas(n));
    return "→ " + dump_json(value);
  }
  return "→ " + clip(dump_json(value), 60);
}

std::string summarize_env(const json& env) {
  if (!env.is_object() || env.empty()) return "  (env is empty)";
  std::string out;
  for (auto it = env.begin(); it != env.end(); ++it) {
    const json& v = *it;
    const std::string& name = it.key();
    if (secret_key(name) && (v.is_string() || v.is_number())) {
      out += fmt::format("  {}: {} = \"[REDACTED]\"\n", name, describe_type(v));
      continue;
    }
    if (v.is_array()) {
      out += fmt::format("  {}: Array<{}> ({} items, {} chars)\n", name, v.empty() ? "empty" : (v[0].is_object() ? "Object" : describe_type(v[0])),
                         with_commas(v.size()), with_commas(json_chars(v)));
      if (!v.empty() && v[0].is_object()) out += "    schema: " + describe_schema(v[0]) + "\n";
    } else if (v.is_object()) {
      out += fmt::format("  {}: Object ({} keys: {})\n", name, v.size(), join_keys(v, 12));
      size_t i = 0;
      for (auto f = v.begin(); f != v.end() && i < 12; ++f, ++i) {
        const json& x = *f;
        if (x.is_array())
          out += fmt::format("    {}: Array<{}>({}){}\n", f.key(), x.empty() ? "unknown" : (x[0].is_object() ? "Object" : describe_type(x[0])),
                             x.size(), !x.empty() && x[0].is_object() ? " schema: " + describe_schema(x[0]) : "");
        else if (x.is_object())
          out += fmt::format("    {}: Object ({} keys: {})\n", f.key(), x.size(), join_keys(x, 8));
        else
          out += fmt::format("    {}: {} = {}\n", f.key(), describe_type(x), secret_key(f.key()) ? "\"[REDACTED]\"" : preview_json(x, 60));
      }
    } else if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      size_t n = utf8_length(s);
      if (n > 80) out += fmt::format("  {}: string ({} chars) — preview: \"{}...\"\n", name, with_commas(n), clip(s, 60));
      else out += fmt::format("  {}: string = {}\n", name, dump_json(v));
    } else {
      out += fmt::format("  {}: {} = {}\n", name, describe_type(v), dump_json(v));
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace ouro::jsrt
