#include "base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ouro {

bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

namespace {

// Builds the value from the parser's events. nlohmann's own builder inserts each member of an
// ordered object with a search of the members before it — quadratic: an object of 100,000 keys
// (a model's env can be one) took 13 s. Members are appended here instead; a key seen twice in
// one object (never in text JSON.stringify wrote, possible in a stranger's) replaces the earlier
// value, as nlohmann's builder does, found through an index once the object has many keys.
class Builder : public nlohmann::json_sax<json> {
 public:
  explicit Builder(json& root) : m_root(root) {}
  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(json(v)); }
  bool string(string_t& v) override { return put(json(std::move(v))); }
  bool binary(binary_t& v) override { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool key(string_t& k) override {
    m_frames.back().key = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    m_error = e.what();
    m_position = position;
    return false;
  }
  const std::string& error() const { return m_error; }
  std::size_t position() const { return m_position; }

 private:
  struct Frame {
    json* value;
    std::string key;
    std::unique_ptr<std::unordered_map<std::string, size_t>> index;  // key -> position, past 32 members
  };
  json* put(json v) {
    if (m_frames.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    Frame& f = m_frames.back();
    if (f.value->is_array()) {
      auto& a = f.value->get_ref<json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    auto& members = static_cast<json::object_t::Container&>(f.value->get_ref<json::object_t&>());
    if (!f.index && members.size() >= 32) {
      f.index = std::make_unique<std::unordered_map<std::string, size_t>>();
      for (size_t i = 0; i < members.size(); ++i) f.index->emplace(members[i].first, i);
    }
    if (f.index) {
      if (auto it = f.index->find(f.key); it != f.index->end()) return &(members[it->second].second = std::move(v));
      f.index->emplace(f.key, members.size());
    } else {
      for (auto& m : members)
        if (m.first == f.key) return &(m.second = std::move(v));
    }
    members.emplace_back(std::move(f.key), std::move(v));
    return &members.back().second;
  }
  bool open(json v) {
    json* at = put(std::move(v));
    m_frames.push_back(Frame{at, {}, nullptr});
    return true;
  }
  bool close() {
    m_frames.pop_back();
    return true;
  }
  json& m_root;
  std::vector<Frame> m_frames;
  std::string m_error;
  std::size_t m_position = 0;
};

}  // namespace

Result<json> parse_json(std::string_view text, std::string_view what) {
  // Nesting is bounded: printing or walking a value a million levels deep would overflow the
  // stack, and no value we exchange needs more than a few dozen levels. It is checked by a scan
  // first rather than by a parser callback: with a callback, nlohmann (3.11) searches the
  // enclosing array at the end of every object for discarded values, quadratic in the length
  // of an array of objects (a large accessibility tree held the network thread for seconds).
  if (nested_deeper_than(text, kMaxJsonDepth))
    return errorf(Code::InvalidArgument, "{} is nested more than {} levels deep", what, kMaxJsonDepth);
  try {
    json value;
    Builder builder(value);
    if (!json::sax_parse(text.begin(), text.end(), &builder))
      return errorf(Code::InvalidArgument, "malformed {} at byte {}: {}", what, builder.position(), builder.error());
    return value;
  } catch (const std::exception& e) {
    return errorf(Code::InvalidArgument, "cannot read {}: {}", what, e.what());
  }
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {

const json* member(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

std::string get_str(const json& j, std::string_view key, std::string_view dflt) {
  const json* v = member(j, key);
  return v && v->is_string() ? v->get_ref<const std::string&>() : std::string(dflt);
}

double get_num(const json& j, std::string_view key, double dflt) {
  const json* v = member(j, key);
  return v && v->is_number() ? v->get<double>() : dflt;
}

int64_t get_int(const json& j, std::string_view key, int64_t dflt) {
  const json* v = member(j, key);
  if (!v || !v->is_number()) return dflt;
  if (v->is_number_integer()) return v->is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(v->get<uint64_t>(), INT64_MAX)) : v->get<int64_t>();
  double d = v->get<double>();
  if (std::isnan(d)) return dflt;
  if (d >= 9.2e18) return INT64_MAX;
  if (d <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(d);
}

bool get_bool(const json& j, std::string_view key, bool dflt) {
  const json* v = member(j, key);
  return v && v->is_boolean() ? v->get<bool>() : dflt;
}

const json& get_field(const json& j, std::string_view key) {
  static const json null_value;
  const json* v = member(j, key);
  return v ? *v : null_value;
}

const json& get_array(const json& j, std::string_view key) {
  static const json empty = json::array();
  const json* v = member(j, key);
  return v && v->is_array() ? *v : empty;
}

}  // namespace ouro
