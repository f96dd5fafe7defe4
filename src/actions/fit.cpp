#include "actions/fit.h"
#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace ouro::actions {

namespace {

size_t text_size(const json& v) { return dump_json(v).size(); }

// Cuts a string at a character boundary, saying how much went.
std::string clip_utf8(const std::string& s, size_t n) { return clip_head(s, n, ClipMark::Count); }

Fitted fit_array(json items, size_t cap, size_t total) {
  size_t used = 2, kept = 0;  // the brackets, then each item and the comma before it
  for (; kept < items.size(); ++kept) {
    used += text_size(items[kept]) + (kept > 0 ? 1 : 0);
    if (used > cap) break;
  }
  if (kept == items.size() && total <= items.size()) return {std::move(items), std::nullopt};
  json out = json::array();
  for (size_t i = 0; i < kept; ++i) out.push_back(std::move(items[i]));
  total = std::max(total, items.size());
  json info = {{"kind", "items"}, {"kept", kept}, {"total", total}, {"cap", cap}};
  return {std::move(out), info};
}

int tree_depth(const json& node, int depth = 1) {
  int best = depth;
  if (node.is_object() && node.contains("children") && node["children"].is_array())
    for (const auto& c : node["children"]) best = std::max(best, tree_depth(c, depth + 1));
  return best;
}

// The most children any node has.
size_t widest(const json& node) {
  if (!node.is_object() || !node.contains("children") || !node["children"].is_array()) return 0;
  size_t best = node["children"].size();
  for (const auto& c : node["children"]) best = std::max(best, widest(c));
  return best;
}

size_t tree_nodes(const json& node) {
  size_t n = 1;
  if (node.is_object() && node.contains("children") && node["children"].is_array())
    for (const auto& c : node["children"]) n += tree_nodes(c);
  return n;
}

// A copy with children below max_depth and beyond max_breadth left out; a node that lost some
// says how many with "omitted". Names and values are clipped so one node cannot fill the cap.
json prune(const json& node, int depth, int max_depth, size_t max_breadth) {
  if (!node.is_object()) return node;
  json out = json::object();
  for (const auto& [k, v] : node.items()) {
    if (k == "children") continue;
    out[k] = v.is_string() ? json(clip_utf8(v.get<std::string>(), 2000)) : v;
  }
  if (!node.contains("children") || !node["children"].is_array()) return out;
  const json& kids = node["children"];
  if (depth >= max_depth) {
    if (!kids.empty()) out["omitted"] = kids.size();
    return out;
  }
  json kept = json::array();
  for (size_t i = 0; i < kids.size() && i < max_breadth; ++i) kept.push_back(prune(kids[i], depth + 1, max_depth, max_breadth));
  if (!kept.empty()) out["children"] = std::move(kept);
  if (kids.size() > max_breadth) out["omitted"] = kids.size() - max_breadth;
  return out;
}

Fitted fit_object(json obj, size_t cap);

Fitted fit_tree(json tree, size_t cap) {
  if (text_size(tree) <= cap) return {std::move(tree), std::nullopt};
  const size_t unlimited = SIZE_MAX;
  int deepest = tree_depth(tree);
  // The deepest cut that fits, by bisection (size grows with depth).
  // Size of the tree cut at each depth, from one walk: a node's own text, plus what its children
  // list costs if it is kept, or its "omitted" count if it is the last level.
  std::vector<size_t> own(static_cast<size_t>(deepest) + 2, 0), list(own.size(), 0), omit(own.size(), 0);
  std::function<void(const json&, int)> walk = [&](const json& n, int depth) {
    json bare = prune(n, depth, depth, 0);
    if (bare.is_object()) bare.erase("omitted");  // a child that is not a node is kept as it is
    own[static_cast<size_t>(depth)] += text_size(bare) + 1;
    if (n.is_object() && n.contains("children") && n["children"].is_array() && !n["children"].empty()) {
      list[static_cast<size_t>(depth)] += 14;
      omit[static_cast<size_t>(depth)] += 18;
      for (const auto& c : n["children"]) walk(c, depth + 1);
    }
  };
  walk(tree, 1);
  auto estimate = [&](int d) {
    size_t total = 0;
    for (int i = 1; i <= d; ++i) total += own[static_cast<size_t>(i)] + (i < d ? list[static_cast<size_t>(i)] : omit[static_cast<size_t>(i)]);
    return total;
  };
  int lo = 0;
  for (int d = 1; d <= deepest && estimate(d) <= cap; ++d) lo = d;
  // The estimate is close, not exact: step back while the real text is over.
  while (lo > 0 && text_size(prune(tree, 1, lo, unlimited)) > cap) --lo;
  json out;
  int depth = lo;
  size_t breadth = unlimited;
  if (depth >= 4) {
    out = prune(tree, 1, depth, unlimited);
  } else {
    // Too wide to show four levels: keep four and trim every node's children.
    depth = std::min(4, deepest);
    size_t blo = 0, bhi = 100000;
    while (bhi - blo > 1) {
      size_t b = (blo + bhi) / 2;
      if (text_size(prune(tree, 1, depth, b)) <= cap) blo = b;
      else bhi = b;
    }
    // Every node's children fit: none is trimmed.
    breadth = blo >= widest(tree) ? unlimited : std::max<size_t>(blo, 1);
    out = prune(tree, 1, depth, breadth);
    if (text_size(out) > cap) {
      // Not even one child a node: the root alone, its children counted, and its own fields cut
      // to the cap should they not fit either.
      depth = 1;
      breadth = unlimited;
      out = prune(tree, 1, 1, 0);
      if (text_size(out) > cap) out = fit_object(std::move(out), cap).value;
    }
  }
  json info = {{"kind", "tree"}, {"kept", tree_nodes(out)}, {"total", tree_nodes(tree)}, {"cap", cap}, {"maxDepth", depth}};
  if (breadth != unlimited) info["maxChildren"] = breadth;
  return {std::move(out), info};
}

Fitted fit_object(json obj, size_t cap) {
  if (text_size(obj) <= cap) return {std::move(obj), std::nullopt};
  json out = json::object();
  size_t used = 2, total = obj.size();
  json dropped = json::array();
  for (auto& [k, v] : obj.items()) {
    size_t need = text_size(json(k)) + 1 + text_size(v) + 1;
    if (used + need <= cap) {
      used += need;
      out[k] = std::move(v);
    } else if (v.is_string() && cap > used + k.size() + 200) {
      // A start of the string, leaving about 100 bytes for the small fields after it, and no
      // longer than what still fits written out (escapes and the cut's mark included): a page's
      // quotes and line breaks take more room written than read.
      const std::string& text = v.get_ref<const std::string&>();
      const size_t room = cap - used - text_size(json(k)) - 2;
      size_t lo = 0, hi = std::min(text.size(), cap - used - k.size() - 100);
      // Plain text fits at its longest start: one measure. Escapes make the search.
      if (text_size(json(clip_utf8(text, hi))) <= room) lo = hi;
      while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (text_size(json(clip_utf8(text, mid))) <= room) lo = mid;
        else hi = mid - 1;
      }
      std::string clipped = clip_utf8(text, lo);
      if (text_size(json(clipped)) > room) {  // not even the mark alone fits
        if (dropped.size() < 20) dropped.push_back(k);
        continue;
      }
      used += text_size(json(k)) + text_size(json(clipped)) + 2;
      out[k] = std::move(clipped);
    } else if (dropped.size() < 20) {
      dropped.push_back(k);
    }
  }
  json info = {{"kind", "fields"}, {"kept", out.size()}, {"total", total}, {"cap", cap}};
  if (!dropped.empty()) info["dropped"] = dropped;
  return {std::move(out), info};
}

}  // namespace

Fitted fit_result(json value, Shape shape, size_t cap) {
  // The page helpers cut arrays themselves (they must not ship megabytes over CDP): undo the
  // wrapper, keeping the count they saw.
  if (shape == Shape::Array && value.is_object() && value.contains("__truncated") && value.contains("data") && value["data"].is_array()) {
    // The page's count, as far as a count of items can go (a huge or NaN one is no count).
    const double given = get_num(value, "total");
    size_t total = given > 0 && given < 1e15 ? static_cast<size_t>(given) : 0;
    json data = std::move(value["data"]);
    auto f = fit_array(std::move(data), cap, total);
    if (!f.truncated) f.truncated = json{{"kind", "items"}, {"kept", f.value.size()}, {"total", std::max(total, f.value.size())}, {"cap", cap}};
    return f;
  }
  switch (shape) {
    case Shape::Array:
      if (value.is_array()) {
        size_t n = value.size();
        return fit_array(std::move(value), cap, n);
      }
      break;
    case Shape::Tree:
      if (value.is_object()) return fit_tree(std::move(value), cap);
      break;
    case Shape::Object:
      if (value.is_object() && !value.contains("__truncated")) return fit_object(std::move(value), cap);
      break;
    case Shape::Free:
      break;
  }
  return {std::move(value), std::nullopt};
}

std::string truncation_note(const std::string& function, const json& t) {
  std::string kind = t.value("kind", "");
  std::string cap = with_commas(t.value("cap", size_t(0)));
  if (kind == "items")
    return fmt::format("{} returned {} of {} items (results are capped at {} chars); the array's .truncated property says so. "
                       "Narrow the query (a selector, a filter) to get the rest.",
                       function, with_commas(t.value("kept", size_t(0))), with_commas(t.value("total", size_t(0))), cap);
  if (kind == "tree")
    return fmt::format("{} returned {} of {} nodes, pruned to depth {}{} (capped at {} chars); pruned nodes carry \"omitted\": n. "
                       "Read a part of the page with querySelectorAll or getText(selector) instead.",
                       function, with_commas(t.value("kept", size_t(0))), with_commas(t.value("total", size_t(0))), t.value("maxDepth", 0),
                       t.contains("maxChildren") ? fmt::format(" and {} children per node", t.value("maxChildren", size_t(0))) : "", cap);
  return fmt::format("{} returned {} of {} fields (capped at {} chars); the object's .truncated property says so.", function,
                     with_commas(t.value("kept", size_t(0))), with_commas(t.value("total", size_t(0))), cap);
}

}  // namespace ouro::actions
