#include "jsrt/summary.h"
#include "base/base64.h"
#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace ouro::jsrt {

namespace {

constexpr size_t kPreview = 400, kStringPreview = 250, kFieldPreview = 40, kMaxKeys = 25;

// Cuts at a character boundary, at most `max` characters; the callers write their own "...".
std::string clip(std::string_view s, size_t max) { return clip_head(s, max, ClipMark::None, ClipUnit::Chars); }

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

// A stand-in for a value a restart could not bring back ({"$lost": why}; see plain_view).
bool is_lost(const json& v) { return v.is_object() && v.size() == 1 && v.contains("$lost") && v["$lost"].is_string(); }

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
    if (is_lost(v)) {
      out += fmt::format("  {}: not restorable — {}\n", name, v["$lost"].get_ref<const std::string&>());
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
        else if (is_lost(x))
          out += fmt::format("    {}: not restorable — {}\n", f.key(), x["$lost"].get_ref<const std::string&>());
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

// --- env checkpoints ---------------------------------------------------------------------------

namespace {

// As ENV_DEPTH and ENV_BUDGET in js/prelude.js, for the sentences both sides write.
constexpr int kEnvDepth = 64;
constexpr size_t kEnvBudgetMb = 64;
// A plain view writes at most this many nulls for holes, in all its arrays together (`a[1e9] = 1`
// in a thousand arrays is a few KB of checkpoint and would be 1e12 nulls).
constexpr size_t kMaxHoleNulls = 100000;
// A typed array past this many elements is shown by its length: its bytes are compact in the
// checkpoint, one JSON value an element is not (45 MB of Uint8Array would be 45 million of them).
constexpr size_t kMaxTypedElements = 10000;
// Copies of shared objects may add at most this many nodes beyond the checkpoint's own.
constexpr size_t kCopyAllowance = 100000;
// Plain views are at most this deep (copies of shared objects nest; the checkpoint's own values
// are at most kEnvDepth deep).
constexpr int kPlainDepth = 2 * kEnvDepth;

// Appends a member known not to be in `obj` yet. ordered_json's operator[] searches the members
// one by one, so filling an object with 1e5 keys through it takes seconds.
void append(json& obj, const std::string& key, json value) {
  obj.get_ref<json::object_t&>().json::object_t::Container::emplace_back(key, std::move(value));
}

// A JavaScript object's own keys come in this order: array indexes ascending, then the other
// keys as they were added. Object.fromEntries(map) (the prelude's toJSON) orders them so.
json js_key_order(json obj) {
  auto index_of = [](const std::string& k) -> std::optional<uint64_t> {
    if (k.empty() || k.size() > 10 || (k.size() > 1 && k[0] == '0')) return std::nullopt;
    uint64_t n = 0;
    for (char c : k) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (n >= 4294967295u) return std::nullopt;
    return n;
  };
  auto& members = static_cast<json::object_t::Container&>(obj.get_ref<json::object_t&>());
  std::vector<std::pair<uint64_t, size_t>> indexes;  // (index, position in members)
  for (size_t i = 0; i < members.size(); ++i)
    if (auto n = index_of(members[i].first)) indexes.emplace_back(*n, i);
  if (indexes.empty()) return obj;
  std::sort(indexes.begin(), indexes.end());
  json out = json::object();
  for (const auto& [n, i] : indexes) append(out, members[i].first, std::move(members[i].second));
  for (auto& [k, v] : members)
    if (!index_of(k)) append(out, k, std::move(v));
  return out;
}

// The tag of a typed value, or "" for plain JSON.
std::string_view tag_of(const json& e) {
  if (!e.is_object()) return {};
  auto it = e.find("$t");
  if (it == e.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

const json* member(const json& e, const char* key) {
  if (!e.is_object()) return nullptr;
  auto it = e.find(key);
  return it == e.end() ? nullptr : &*it;
}

// The length of a run of array holes ({"$t":"Hole","n"?}).
size_t hole_run(const json& hole) {
  const json* n = member(hole, "n");
  return n && n->is_number_integer() && n->get<int64_t>() > 1 ? static_cast<size_t>(n->get<int64_t>()) : 1;
}

std::string lost_message(const json& tag) {
  std::string kind = get_str(tag, "kind"), name = get_str(tag, "name");
  if (kind == "function") return (name.empty() ? "a function" : "function " + name) + " was not restorable after a restart; define it again";
  if (kind == "getter") return "getter " + name + " was not restorable after a restart; define it again";
  if (kind == "symbol") return "symbol Symbol(" + name + ") was not restorable after a restart; create it again";
  if (kind == "promise") return "a promise was not restorable after a restart; start what made it again";
  if (kind == "instance")
    return "an instance of class " + (name.empty() ? std::string("(anonymous)") : name) +
           " was restored as a plain object with its own data; its class (methods, prototype) was not restorable after a restart";
  if (kind == "too-deep") return fmt::format("this value was nested more than {} levels deep in env and was not kept over a restart", kEnvDepth);
  if (kind == "too-large") return fmt::format("this value was too large to keep over a restart (env's checkpoint is limited to {} MB)", kEnvBudgetMb);
  if (kind == "unreadable") {
    const json* why = member(tag, "why");
    return "this value could not be read when env was saved (" + (why && why->is_string() ? why->get<std::string>() : std::string("it threw")) + ")";
  }
  return "a value (" + kind + ") was not restorable after a restart";
}

// A number as the prelude's toJSON wrote it: integral values as integers, NaN and ±Infinity as
// strings, -0 as 0.
json number(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == std::trunc(d) && std::fabs(d) <= 9007199254740992.0) return static_cast<int64_t>(d);
  return d;
}

double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 31, frac = h & 1023;
  double v = exp == 0 ? std::ldexp(frac, -24) : exp == 31 ? (frac ? NAN : INFINITY) : std::ldexp(frac + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}

struct ViewType {
  const char* name;
  int size;
  char kind;  // 'i' signed, 'u' unsigned, 'f' float, 'h' half, 'b' bigint signed, 'B' bigint unsigned, 'd' DataView
};
constexpr ViewType kViews[] = {{"Int8Array", 1, 'i'},     {"Uint8Array", 1, 'u'},     {"Uint8ClampedArray", 1, 'u'}, {"Int16Array", 2, 'i'},
                               {"Uint16Array", 2, 'u'},   {"Int32Array", 4, 'i'},     {"Uint32Array", 4, 'u'},       {"Float16Array", 2, 'h'},
                               {"Float32Array", 4, 'f'},  {"Float64Array", 8, 'f'},   {"BigInt64Array", 8, 'b'},     {"BigUint64Array", 8, 'B'},
                               {"DataView", 1, 'd'}};

const ViewType* view_type(std::string_view tag) {
  for (const auto& v : kViews)
    if (tag == v.name) return &v;
  return nullptr;
}

// One element of a typed array, read little-endian (JavaScriptCore's typed arrays use the
// machine's order, and ouro runs on little-endian machines).
json element(const ViewType& t, const unsigned char* p) {
  uint64_t u = 0;
  for (int i = t.size - 1; i >= 0; --i) u = (u << 8) | p[i];
  switch (t.kind) {
    case 'u': return u;
    case 'i': {
      int shift = 64 - 8 * t.size;
      return static_cast<int64_t>(u << shift) >> shift;
    }
    case 'b': return std::to_string(static_cast<int64_t>(u));
    case 'B': return std::to_string(u);
    case 'h': return number(half_to_double(static_cast<uint16_t>(u)));
    default: {
      if (t.size == 4) {
        float f;
        uint32_t w = static_cast<uint32_t>(u);
        std::memcpy(&f, &w, 4);
        return number(f);
      }
      double d;
      std::memcpy(&d, &u, 8);
      return number(d);
    }
  }
}

// Date.prototype.toISOString for a time value (ms since the epoch, |t| <= 8.64e15).
std::string iso_date(double ms) {
  int64_t t = static_cast<int64_t>(ms);
  int64_t days = t / 86400000, rem = t % 86400000;
  if (rem < 0) {
    rem += 86400000;
    --days;
  }
  // Howard Hinnant's civil_from_days.
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2);
  std::string year = y >= 0 && y <= 9999 ? fmt::format("{:04}", y) : fmt::format("{}{:06}", y < 0 ? '-' : '+', y < 0 ? -y : y);
  return fmt::format("{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", year, m, d, rem / 3600000, rem / 60000 % 60, rem / 1000 % 60, rem % 1000);
}

bool has_refs(const json& e, int depth = 0) {
  if (depth > kMaxJsonDepth) return false;
  if (e.is_array()) {
    for (const auto& x : e)
      if (has_refs(x, depth + 1)) return true;
  } else if (e.is_object()) {
    if (tag_of(e) == "Ref") return true;
    for (const auto& [k, x] : e.items())
      if (has_refs(x, depth + 1)) return true;
  }
  return false;
}

// The plain view. References are found as the prelude's decoder finds them: every object of the
// checkpoint is registered under its path (keys, indexes, "buf") before its contents, and a Ref
// names one met before it. Paths are built only when the checkpoint has references at all.
class PlainView {
 public:
  explicit PlainView(const json& typed) : m_refs(has_refs(typed)) {}
  size_t m_nulls = 0;  // hole nulls written so far, in the whole view

  json run(const json& typed) {
    json v = view(typed, std::string(), 0);
    return v.is_discarded() ? json::object() : v;
  }

 private:
  struct Target {
    const json* node;
    bool buffer_of_view;  // the ArrayBuffer of the (whole-buffer) typed array at `node`
  };
  bool m_refs;
  std::unordered_map<std::string, Target> m_at;
  std::unordered_set<std::string> m_open;  // objects being viewed: a Ref to one of them is a cycle
  size_t m_direct = 0, m_copied = 0;
  int m_in_copy = 0;

  std::string child(const std::string& key, const json& step) const {
    if (!m_refs) return {};
    if (step.is_number_integer()) return key + "\x01#" + std::to_string(step.get<int64_t>());
    if (step.is_string()) {
      const auto& s = step.get_ref<const std::string&>();
      return key + "\x01." + std::to_string(s.size()) + ":" + s;
    }
    return key + "\x01?";
  }
  std::string child(const std::string& key, size_t index) const { return m_refs ? key + "\x01#" + std::to_string(index) : std::string(); }
  std::string child(const std::string& key, const char* name) const { return m_refs ? child(key, json(name)) : std::string(); }

  void enter(const std::string& key, const json& e, bool buffer_of_view = false) {
    if (!m_refs) return;
    m_at.emplace(key, Target{&e, buffer_of_view});
    m_open.insert(key);
  }
  void leave(const std::string& key) {
    if (m_refs) m_open.erase(key);
  }

  json view(const json& e, const std::string& key, int depth) {
    ++(m_in_copy ? m_copied : m_direct);
    if (!e.is_object() && !e.is_array()) return e;
    if (depth > kPlainDepth) return "[Too deep]";
    std::string_view t = tag_of(e);
    if (e.is_array()) return array(e, key, depth);
    if (t.empty()) return object(e, key, e, depth);
    const json* v = member(e, "v");
    if (t == "undefined" || t == "Symbol") return json(json::value_t::discarded);
    if (t == "Hole") return nullptr;
    if (t == "Num" && v && v->is_string()) return *v == "-0" ? json(0) : *v;
    if ((t == "BigInt" || t == "Str") && v && v->is_string()) return *v;
    if (t == "Ref") return ref(e, depth);
    if (t == "Obj" && v && v->is_object()) return object(*v, key, e, depth);
    if (t == "Map" && v && v->is_array()) {
      enter(key, e);
      json out = json::object();
      std::unordered_map<std::string, size_t> at;  // String(key) -> its member: a later entry overwrites, in place
      for (size_t i = 0; i < v->size(); ++i) {
        const json& pair = (*v)[i];
        if (!pair.is_array() || pair.size() != 2) continue;
        std::string entry = child(key, i);
        json k = view(pair[0], child(entry, size_t(0)), depth + 1), x = view(pair[1], child(entry, size_t(1)), depth + 1);
        if (x.is_discarded()) continue;
        std::string name = map_key(k);
        auto [it, added] = at.emplace(name, out.size());
        if (added) append(out, name, std::move(x));
        else (out.get_ref<json::object_t&>().begin() + static_cast<std::ptrdiff_t>(it->second))->second = std::move(x);
      }
      leave(key);
      return js_key_order(std::move(out));
    }
    if (t == "Set" && v && v->is_array()) {
      enter(key, e);
      json out = json::array();
      for (size_t i = 0; i < v->size(); ++i) {
        json x = view((*v)[i], child(key, i), depth + 1);
        out.push_back(x.is_discarded() ? json(nullptr) : std::move(x));
      }
      leave(key);
      return out;
    }
    if (t == "Date" && v && (v->is_null() || v->is_number())) {
      enter(key, e);
      leave(key);
      return v->is_number() && std::isfinite(v->get<double>()) && std::fabs(v->get<double>()) <= 8.64e15 ? json(iso_date(v->get<double>())) : json(nullptr);
    }
    if (t == "RegExp" && member(e, "flags")) {
      enter(key, e);
      leave(key);
      json source = view(get_field(e, "source"), child(key, "source"), depth + 1);
      return "/" + (source.is_string() ? source.get<std::string>() : std::string()) + "/" + get_str(e, "flags");
    }
    if (t == "Error") {
      enter(key, e);
      json out = {{"name", view(get_field(e, "name"), child(key, "name"), depth + 1)},
                  {"message", view(get_field(e, "message"), child(key, "message"), depth + 1)}};
      // Not shown, but walked: later references may point into them.
      if (const json* cause = member(e, "cause")) (void)view(*cause, child(key, "cause"), depth + 1);
      if (const json* p = member(e, "p"); p && p->is_object())
        for (const auto& [k, x] : p->items()) (void)view(x, child(key, json(k)), depth + 1);
      leave(key);
      return out;
    }
    if (t == "ArrayBuffer") {
      enter(key, e);
      leave(key);
      return {{"byteLength", base64_decode_strict(get_str(e, "b64")).value_or(std::string()).size()}};
    }
    if (t == "Lost") {
      if (get_str(e, "kind") == "instance") return object(v && v->is_object() ? *v : json::object(), key, e, depth);
      enter(key, e);
      leave(key);
      return {{"$lost", lost_message(e)}};
    }
    if (const ViewType* vt = view_type(t)) return typed_view(e, key, *vt, depth);
    return object(e, key, e, depth);  // an unknown tag is a plain object, as the prelude reads it
  }

  json array(const json& e, const std::string& key, int depth) {
    enter(key, e);
    json out = json::array();
    size_t index = 0;
    for (const auto& x : e) {
      if (tag_of(x) == "Hole") {
        size_t run = hole_run(x);
        for (size_t i = 0; i < run && m_nulls < kMaxHoleNulls; ++i, ++m_nulls) out.push_back(nullptr);
        index += run;
        continue;
      }
      json v = view(x, child(key, index++), depth + 1);
      out.push_back(v.is_discarded() ? json(nullptr) : std::move(v));
    }
    leave(key);
    return out;
  }

  // An object's own data (`data`: the plain object itself, or an Obj's or instance's "v").
  json object(const json& data, const std::string& key, const json& node, int depth) {
    enter(key, node);
    json out = json::object();
    for (const auto& [k, x] : data.items()) {  // keys of a JSON object: unique already
      json v = view(x, child(key, json(k)), depth + 1);
      if (!v.is_discarded()) append(out, k, std::move(v));
    }
    leave(key);
    return out;
  }

  json ref(const json& e, int depth) {
    const json* p = member(e, "p");
    if (!p || !p->is_array() || !m_refs) return nullptr;
    std::string key;
    for (const auto& step : *p) key = child(key, step);
    if (m_open.count(key)) return "[Circular]";
    auto it = m_at.find(key);
    if (it == m_at.end()) return nullptr;
    if (it->second.buffer_of_view) return {{"byteLength", bytes_of(*it->second.node).size()}};
    if (m_copied > m_direct + kCopyAllowance) return "[Shared]";
    ++m_in_copy;
    json out = view(*it->second.node, key, depth);
    --m_in_copy;
    return out;
  }

  // The bytes of a whole-buffer view or an ArrayBuffer (through a Ref too).
  std::string bytes_of(const json& e) {
    if (tag_of(e) == "Ref") {
      const json* p = member(e, "p");
      if (!p || !p->is_array()) return {};
      std::string key;
      for (const auto& step : *p) key = child(key, step);
      auto it = m_at.find(key);
      return it == m_at.end() ? std::string() : bytes_of(*it->second.node);
    }
    return base64_decode_strict(get_str(e, "b64")).value_or(std::string());
  }

  json typed_view(const json& e, const std::string& key, const ViewType& vt, int depth) {
    enter(key, e);
    std::string bytes;
    size_t off = 0, count = 0;
    if (member(e, "b64")) {
      bytes = bytes_of(e);
      if (m_refs) m_at.emplace(child(key, "buf"), Target{&e, true});
      count = bytes.size() / static_cast<size_t>(vt.size);
    } else if (const json* buf = member(e, "buf")) {
      if (tag_of(*buf) != "Ref") (void)view(*buf, child(key, "buf"), depth + 1);  // registers it
      bytes = bytes_of(*buf);
      off = static_cast<size_t>(std::max<int64_t>(0, get_int(e, "off")));
      count = static_cast<size_t>(std::max<int64_t>(0, get_int(e, "len")));
    }
    leave(key);
    if (vt.kind == 'd') return {{"byteLength", count}};
    if (count > kMaxTypedElements) return {{"length", count}, {"byteLength", count * static_cast<size_t>(vt.size)}};
    json out = json::array();
    for (size_t i = 0; i < count && off + (i + 1) * static_cast<size_t>(vt.size) <= bytes.size(); ++i)
      out.push_back(element(vt, reinterpret_cast<const unsigned char*>(bytes.data()) + off + i * static_cast<size_t>(vt.size)));
    return out;
  }

  // String(key) for a Map key already in its plain view.
  static std::string map_key(const json& k) {
    if (k.is_string()) return k.get<std::string>();
    if (k.is_discarded()) return "undefined";
    if (k.is_object() || k.is_array()) return "[object Object]";
    return dump_json(k);
  }
};

bool identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$') return false;
  return true;
}

std::string member_path(const std::string& path, const std::string& key) { return identifier(key) ? path + "." + key : path + "[" + dump_json(key) + "]"; }

std::string lost_what(const json& tag) {
  std::string kind = get_str(tag, "kind"), name = get_str(tag, "name");
  if (kind == "function") return name.empty() ? "a function" : "function " + name;
  if (kind == "getter") return "getter " + name;
  if (kind == "symbol") return "symbol Symbol(" + name + ")";
  if (kind == "promise") return "a promise";
  if (kind == "instance") return "an instance of class " + (name.empty() ? std::string("(anonymous)") : name) + " (its data is kept in a plain object)";
  if (kind == "too-deep") return fmt::format("a value nested more than {} levels deep", kEnvDepth);
  if (kind == "too-large") return fmt::format("a value too large for env's checkpoint ({} MB)", kEnvBudgetMb);
  if (kind == "unreadable") return "a value that could not be read (" + clip(get_str(tag, "why"), 200) + ")";
  return "a value (" + clip(kind, 40) + ")";
}

void collect_lost(const json& e, const std::string& path, std::vector<LostValue>& out, size_t max, int depth) {
  if (out.size() >= max || depth > kMaxJsonDepth || (!e.is_object() && !e.is_array())) return;
  if (e.is_array()) {
    size_t index = 0;
    for (const auto& x : e) {
      if (tag_of(x) == "Hole") {
        index += hole_run(x);
        continue;
      }
      collect_lost(x, path + "[" + std::to_string(index++) + "]", out, max, depth + 1);
    }
    return;
  }
  std::string_view t = tag_of(e);
  const json* v = member(e, "v");
  auto each_member = [&](const json& data) {
    if (data.is_object())
      for (const auto& [k, x] : data.items()) collect_lost(x, member_path(path, k), out, max, depth + 1);
  };
  if (t.empty()) return each_member(e);
  if (t == "Lost") {
    out.push_back({path, lost_what(e)});
    if (get_str(e, "kind") == "instance" && v) each_member(*v);
    return;
  }
  if (t == "Obj" && v) return each_member(*v);
  if (t == "Map" && v && v->is_array()) {
    for (size_t i = 0; i < v->size(); ++i) {
      const json& pair = (*v)[i];
      if (!pair.is_array() || pair.size() != 2) continue;
      bool primitive = !pair[0].is_object() && !pair[0].is_array();
      collect_lost(pair[0], fmt::format("[...{}.keys()][{}]", path, i), out, max, depth + 1);
      collect_lost(pair[1], primitive ? path + ".get(" + dump_json(pair[0]) + ")" : fmt::format("[...{}.values()][{}]", path, i), out, max, depth + 1);
    }
    return;
  }
  if (t == "Set" && v && v->is_array()) {
    for (size_t i = 0; i < v->size(); ++i) collect_lost((*v)[i], fmt::format("[...{}][{}]", path, i), out, max, depth + 1);
    return;
  }
  if (t == "Error") {
    if (const json* cause = member(e, "cause")) collect_lost(*cause, path + ".cause", out, max, depth + 1);
    if (const json* p = member(e, "p")) each_member(*p);
    return;
  }
  if (view_type(t)) {
    if (const json* buf = member(e, "buf")) collect_lost(*buf, path + ".buffer", out, max, depth + 1);
    return;
  }
  if (t == "Ref" || t == "Num" || t == "BigInt" || t == "Str" || t == "Symbol" || t == "undefined" || t == "Date" || t == "RegExp" ||
      t == "ArrayBuffer")
    return;
  each_member(e);  // an unknown tag: a plain object
}

}  // namespace

json plain_view(const json& typed) { return PlainView(typed).run(typed); }

std::vector<LostValue> lost_values(const json& typed, size_t max) {
  std::vector<LostValue> out;
  collect_lost(typed, "env", out, max, 0);
  return out;
}

std::string describe_lost(const std::vector<LostValue>& lost) {
  std::string out;
  for (const auto& l : lost) out += (out.empty() ? "" : ", ") + l.path + " (" + l.what + ")";
  return out;
}

}  // namespace ouro::jsrt
