#include "perception/merge.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace ouro::perception {

size_t list_cap(const json& opts, const char* key) {
  if (opts.contains("topK") && opts["topK"].is_number()) return static_cast<size_t>(std::clamp(opts["topK"].get<double>(), 1.0, 200.0));
  return std::string_view(key) == "actions" ? 30 : 20;
}

void merge_lists(json& top, const std::vector<json>& subs, const json& opts) {
  for (const char* key : {"actions", "forms", "collections"}) {
    json framed = json::array();
    long more = 0;
    for (const auto& s : subs) {
      if (s.contains(key) && s[key].is_array())
        for (const auto& item : s[key]) framed.push_back(item);
      if (s.contains("more") && s["more"].contains(key) && s["more"][key].is_number()) more += s["more"][key].get<long>();
    }
    if (framed.empty() && more == 0) continue;
    json own = top.contains(key) && top[key].is_array() ? top[key] : json::array();
    size_t cap = list_cap(opts, key);
    bool ranked = opts.contains("text") && opts["text"].is_string() && !opts["text"].get<std::string>().empty();
    json all = json::array();
    if (ranked) {
      // Ranked by a text: one list by score, whichever document an element is in.
      for (auto& i : own) all.push_back(i);
      for (auto& i : framed) all.push_back(i);
      std::stable_sort(all.begin(), all.end(), [](const json& a, const json& b) { return a.value("score", 0.0) > b.value("score", 0.0); });
    } else {
      size_t for_frames = std::min(framed.size(), std::max<size_t>(1, cap / 3));
      size_t for_own = std::min(own.size(), cap > for_frames ? cap - for_frames : 0);
      for (size_t i = 0; i < for_own; ++i) all.push_back(own[i]);
      for (size_t i = 0; i < framed.size() && all.size() < cap; ++i) all.push_back(framed[i]);
      for (size_t i = for_own; i < own.size() && all.size() < cap; ++i) all.push_back(own[i]);
    }
    more += static_cast<long>(own.size() + framed.size()) - static_cast<long>(std::min(all.size(), cap));
    if (all.size() > cap) all.erase(all.begin() + static_cast<long>(cap), all.end());
    top[key] = std::move(all);
    if (more > 0) {
      if (!top.contains("more") || !top["more"].is_object()) top["more"] = json::object();
      long before = top["more"].contains(key) && top["more"][key].is_number() ? top["more"][key].get<long>() : 0;
      // The top's own `more` counted what it left out; the trimmed own items are counted above.
      top["more"][key] = before + more;
    }
  }
}

void fit_snapshot(json& snap, size_t max_chars) {
  for (int guard = 0; guard < 200 && snap.dump().size() > max_chars; ++guard) {
    bool cut = false;
    for (const char* key : {"actions", "collections", "forms"})
      if (snap.contains(key) && snap[key].is_array() && !snap[key].empty()) {
        snap[key].erase(snap[key].end() - 1);
        if (!snap.contains("more") || !snap["more"].is_object()) snap["more"] = json::object();
        snap["more"][key] = snap["more"].value(key, 0L) + 1;
        cut = true;
        break;
      }
    if (!cut) break;
  }
}

}  // namespace ouro::perception
