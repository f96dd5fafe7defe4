#include "actions/schema.h"
#include "base/text.h"

#include <fmt/format.h>

#include <cmath>

namespace ouro::actions {

namespace {

using Kind = Schema::Kind;

class Parser {
 public:
  explicit Parser(std::string_view text) : m_text(text) {}

  Result<SchemaPtr> parse() {
    auto s = type();
    if (!s) return s;
    skip();
    if (m_pos != m_text.size()) return fail("end of type");
    return s;
  }

 private:
  std::string_view m_text;
  size_t m_pos = 0;
  int m_depth = 0;

  void skip() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  bool eat(std::string_view token) {
    skip();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    m_pos += token.size();
    return true;
  }
  tl::unexpected<Error> fail(std::string_view expected) const {
    return errorf(Code::InvalidArgument, "type '{}': expected {} at offset {}", m_text, expected, m_pos);
  }
  std::string word() {
    skip();
    size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_' || m_text[m_pos] == '$'))
      ++m_pos;
    return std::string(m_text.substr(start, m_pos - start));
  }
  std::optional<double> number() {
    skip();
    size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isdigit(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '.' || m_text[m_pos] == '-' ||
                                     m_text[m_pos] == 'e')) {
      if (m_text.substr(m_pos, 2) == "..") break;
      ++m_pos;
    }
    if (start == m_pos) return std::nullopt;
    try {
      return std::stod(std::string(m_text.substr(start, m_pos - start)));
    } catch (...) {
      return std::nullopt;
    }
  }

  Result<SchemaPtr> type() {
    if (++m_depth > 32) return fail("a shallower type");
    std::vector<SchemaPtr> members;
    do {
      auto p = TRY(postfix());
      members.push_back(std::move(p));
    } while (eat("|"));
    --m_depth;
    if (members.size() == 1) return members[0];
    auto u = std::make_shared<Schema>();
    u->kind = Kind::Union;
    u->items = std::move(members);
    return SchemaPtr(u);
  }

  Result<SchemaPtr> postfix() {
    auto s = TRY(primary());
    while (eat("[]")) {
      auto a = std::make_shared<Schema>();
      a->kind = Kind::Array;
      a->items = {s};
      s = a;
    }
    return s;
  }

  Result<SchemaPtr> primary() {
    auto s = std::make_shared<Schema>();
    skip();
    if (eat("(")) {
      auto inner = TRY(type());
      if (!eat(")")) return fail("')'");
      return inner;
    }
    if (eat("'")) {
      size_t end = m_text.find('\'', m_pos);
      if (end == std::string_view::npos) return fail("a closing quote");
      s->kind = Kind::Literal;
      s->literal = std::string(m_text.substr(m_pos, end - m_pos));
      m_pos = end + 1;
      return SchemaPtr(s);
    }
    if (eat("{")) {
      s->kind = Kind::Object;
      s->open = false;
      while (!eat("}")) {
        if (eat("...")) {
          s->open = true;
          if (!eat("}")) return fail("'}' after '...'");
          break;
        }
        Schema::Field f;
        f.name = word();
        if (f.name.empty()) return fail("a field name");
        f.optional = eat("?");
        if (!eat(":")) return fail("':'");
        f.type = TRY(type());
        s->fields.push_back(std::move(f));
        if (!eat(",") && !eat(";")) {
          if (!eat("}")) return fail("',' or '}'");
          break;
        }
      }
      return SchemaPtr(s);
    }
    std::string w = word();
    if (w == "Secret") {
      // A handle made by secret(name) in the REPL: the value stays with ouro.
      s->kind = Kind::Object;
      s->open = false;
      s->secret_handle = true;
      auto name = std::make_shared<Schema>();
      name->kind = Kind::String;
      s->fields.push_back({"__ouroSecret", false, name});
      return SchemaPtr(s);
    }
    if (w == "Array") {
      if (!eat("<")) return fail("'<'");
      s->kind = Kind::Array;
      s->items = {TRY(type())};
      if (!eat(">")) return fail("'>'");
      return SchemaPtr(s);
    }
    if (w == "Record") {
      if (!eat("<") || word() != "string" || !eat(",")) return fail("'<string,'");
      s->kind = Kind::Record;
      s->items = {TRY(type())};
      if (!eat(">")) return fail("'>'");
      return SchemaPtr(s);
    }
    static const std::pair<const char*, Kind> kWords[] = {
        {"string", Kind::String}, {"number", Kind::Number},   {"integer", Kind::Integer}, {"boolean", Kind::Boolean},
        {"null", Kind::Null},     {"any", Kind::Any},         {"object", Kind::Object},   {"array", Kind::Array},
        {"function", Kind::Function}};
    for (const auto& [name, kind] : kWords) {
      if (w != name) continue;
      s->kind = kind;
      if (kind == Kind::Array) s->items = {std::make_shared<Schema>()};
      if ((kind == Kind::Number || kind == Kind::Integer) && eat("(")) {
        if (eat(">=")) {
          s->min = number();
        } else if (eat(">")) {
          s->min = number();
          s->min_exclusive = true;
        } else {
          s->min = number();
          if (!eat("..")) return fail("'..'");
          s->max = number();
        }
        if (!eat(")")) return fail("')'");
      }
      return SchemaPtr(s);
    }
    return fail("a type");
  }
};

std::string json_type(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return "string";
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "boolean";
  if (v.is_array()) return "array";
  return "object";
}

std::string preview(const json& v) {
  if (v.is_object()) return v.empty() ? "{}" : "{…}";
  if (v.is_array()) return fmt::format("of {} item(s)", v.size());
  return clip_head(dump_json(v), 40);
}

std::string got(const json& v) { return v.is_null() ? "null/undefined" : json_type(v) + " " + preview(v); }

bool accepts_type(const Schema& s, const json& v) {
  switch (s.kind) {
    case Kind::Any: return true;
    case Kind::String: return v.is_string();
    case Kind::Literal: return v.is_string();
    case Kind::Number: return v.is_number();
    case Kind::Integer: return v.is_number();
    case Kind::Boolean: return v.is_boolean();
    case Kind::Null: return v.is_null();
    case Kind::Object: return v.is_object();
    case Kind::Record: return v.is_object();
    case Kind::Array: return v.is_array();
    case Kind::Function: return v.is_boolean();  // the REPL sends `true` in a handler's place
    case Kind::Union:
      for (const auto& m : s.items)
        if (accepts_type(*m, v)) return true;
      return false;
  }
  return false;
}

std::string fmt_num(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<long long>(d));
  return fmt::format("{}", d);
}

}  // namespace

Result<SchemaPtr> parse_schema(std::string_view text) { return Parser(text).parse(); }

std::string describe_schema(const Schema& s) {
  switch (s.kind) {
    case Kind::Any: return "any value";
    case Kind::String: return "a string";
    case Kind::Boolean: return "a boolean";
    case Kind::Null: return "null";
    case Kind::Function: return "a function";
    case Kind::Literal: return "'" + s.literal + "'";
    case Kind::Number:
    case Kind::Integer: {
      std::string out = s.kind == Kind::Integer ? "a whole number" : "a number";
      if (s.min && s.max) out += " from " + fmt_num(*s.min) + " to " + fmt_num(*s.max);
      else if (s.min) out += (s.min_exclusive ? " above " : " ≥ ") + fmt_num(*s.min);
      else if (s.max) out += " ≤ " + fmt_num(*s.max);
      return out;
    }
    case Kind::Array: return s.items[0]->kind == Kind::Any ? "an array" : "an array whose items are " + describe_schema(*s.items[0]);
    case Kind::Record: return "an object whose values are " + describe_schema(*s.items[0]);
    case Kind::Object: {
      if (s.secret_handle) return "a secret handle (secret(name))";
      if (s.fields.empty()) return "an object";
      std::string out = "an object {";
      for (size_t i = 0; i < s.fields.size(); ++i) out += (i ? ", " : " ") + s.fields[i].name + (s.fields[i].optional ? "?" : "");
      return out + " }";
    }
    case Kind::Union: {
      bool literals = true;
      for (const auto& m : s.items) literals = literals && m->kind == Kind::Literal;
      std::string out = literals ? "one of " : "";
      for (size_t i = 0; i < s.items.size(); ++i)
        out += (i ? (literals ? ", " : " or ") : "") + describe_schema(*s.items[i]);
      return out;
    }
  }
  return "a value";
}

std::optional<std::string> check_value(const Schema& s, const json& v, const std::string& path) {
  auto mismatch = [&] { return fmt::format("{} must be {}, got {}", path, describe_schema(s), got(v)); };
  switch (s.kind) {
    case Kind::Any: return std::nullopt;
    case Kind::Literal:
      if (!v.is_string() || v.get_ref<const std::string&>() != s.literal) return mismatch();
      return std::nullopt;
    case Kind::Number:
    case Kind::Integer: {
      if (!v.is_number()) return mismatch();
      double d = v.get<double>();
      if (!std::isfinite(d)) return mismatch();
      if (s.kind == Kind::Integer && std::floor(d) != d) return mismatch();
      if (s.min && (d < *s.min || (s.min_exclusive && d == *s.min))) return mismatch();
      if (s.max && d > *s.max) return mismatch();
      return std::nullopt;
    }
    case Kind::Array: {
      if (!v.is_array()) return mismatch();
      for (size_t i = 0; i < v.size(); ++i)
        if (auto e = check_value(*s.items[0], v[i], fmt::format("{}[{}]", path, i))) return e;
      return std::nullopt;
    }
    case Kind::Record: {
      if (!v.is_object()) return mismatch();
      for (const auto& [k, x] : v.items())
        if (auto e = check_value(*s.items[0], x, path + "." + k)) return e;
      return std::nullopt;
    }
    case Kind::Object: {
      if (!v.is_object()) return mismatch();
      for (const auto& f : s.fields) {
        bool absent = !v.contains(f.name) || v[f.name].is_null();
        if (absent) {
          if (f.optional || f.type->kind == Kind::Any || f.type->kind == Kind::Null) continue;
          return fmt::format("{}.{} is missing ({} needs it: {})", path, f.name, path, describe_schema(*f.type));
        }
        if (auto e = check_value(*f.type, v[f.name], path + "." + f.name)) return e;
      }
      if (!s.open) {
        for (const auto& [k, x] : v.items()) {
          bool known = false;
          for (const auto& f : s.fields) known = known || f.name == k;
          if (known) continue;
          std::string names;
          for (const auto& f : s.fields) names += (names.empty() ? "" : ", ") + f.name;
          std::string key = clip_head(k, 40);
          return fmt::format("{} has no field '{}' (known: {})", path, key, names);
        }
      }
      return std::nullopt;
    }
    case Kind::Union: {
      // Report the nested problem of the one member of the value's JSON type, if only one is.
      const Schema* only = nullptr;
      int n = 0;
      for (const auto& m : s.items) {
        if (!check_value(*m, v, path)) return std::nullopt;
        if (accepts_type(*m, v)) only = m.get(), ++n;
      }
      bool not_a_handle = only && only->secret_handle && !(v.is_object() && v.contains("__ouroSecret"));
      if (n == 1 && only->kind != Kind::Literal && !not_a_handle) return check_value(*only, v, path);
      return mismatch();
    }
    default:
      if (!accepts_type(s, v)) return mismatch();
      return std::nullopt;
  }
}

json to_json_schema(const Schema& s) {
  switch (s.kind) {
    case Kind::Any: return json::object();
    case Kind::String: return {{"type", "string"}};
    case Kind::Boolean: return {{"type", "boolean"}};
    case Kind::Null: return {{"type", "null"}};
    case Kind::Function: return {{"type", "boolean"}, {"description", "a handler function (REPL only)"}};
    case Kind::Literal: return {{"const", s.literal}};
    case Kind::Number:
    case Kind::Integer: {
      json j = {{"type", s.kind == Kind::Integer ? "integer" : "number"}};
      if (s.min) j[s.min_exclusive ? "exclusiveMinimum" : "minimum"] = *s.min;
      if (s.max) j["maximum"] = *s.max;
      return j;
    }
    case Kind::Array: return {{"type", "array"}, {"items", to_json_schema(*s.items[0])}};
    case Kind::Record: return {{"type", "object"}, {"additionalProperties", to_json_schema(*s.items[0])}};
    case Kind::Object: {
      json j = {{"type", "object"}};
      if (s.fields.empty()) return j;
      json props = json::object(), required = json::array();
      for (const auto& f : s.fields) {
        props[f.name] = to_json_schema(*f.type);
        if (!f.optional) required.push_back(f.name);
      }
      j["properties"] = props;
      if (!required.empty()) j["required"] = required;
      if (!s.open) j["additionalProperties"] = false;
      return j;
    }
    case Kind::Union: {
      bool literals = true;
      for (const auto& m : s.items) literals = literals && m->kind == Kind::Literal;
      if (literals) {
        json e = json::array();
        for (const auto& m : s.items) e.push_back(m->literal);
        return {{"type", "string"}, {"enum", e}};
      }
      json any = json::array();
      for (const auto& m : s.items) any.push_back(to_json_schema(*m));
      return {{"anyOf", any}};
    }
  }
  return json::object();
}

}  // namespace ouro::actions
