#include "actions/pictures.h"

#include "browser/browser.h"
#include "egress/gate.h"
#include "safety/secrets.h"

#include <fmt/format.h>

namespace ouro::actions::impl {

namespace {

constexpr size_t kMaxBoxes = 500;  // as many as helpers.js masks() draws

struct SecretBoxes {
  json rects = json::array();  // viewport CSS pixels of the main document: [{x, y, w, h}]
  bool in_frame = false;       // a frame's document shows a secret
};

const std::string* string_at(const json& strings, const json& index) {
  if (!index.is_number_integer()) return nullptr;
  auto i = index.get<int64_t>();
  if (i < 0 || static_cast<size_t>(i) >= strings.size() || !strings[static_cast<size_t>(i)].is_string()) return nullptr;
  return strings[static_cast<size_t>(i)].get_ptr<const std::string*>();
}

// Where the page shows a secret: the texts of its layout and the values of its fields
// (CDP DOMSnapshot.captureSnapshot), each looked at by the run's scrubber.
Result<SecretBoxes> secret_boxes(Context& ctx, const std::string& tab) {
  json snap = TRY(ctx.browser().send(tab, "DOMSnapshot.captureSnapshot", {{"computedStyles", json::array()}}, ctx.limits().exec_timeout));
  const json& strings = snap.contains("strings") && snap["strings"].is_array() ? snap["strings"] : json::array();
  std::vector<int8_t> holds(strings.size(), -1);  // per string: -1 not looked at yet, 0 no, 1 yes
  auto shows_secret = [&](const json& index) {
    const std::string* s = string_at(strings, index);
    if (!s || s->size() < safety::kMinScrubbedBytes) return false;
    auto& h = holds[static_cast<size_t>(index.get<int64_t>())];
    if (h < 0) h = ctx.secrets()->scrub_text(*s) != *s ? 1 : 0;
    return h == 1;
  };
  SecretBoxes out;
  const json& docs = snap.contains("documents") && snap["documents"].is_array() ? snap["documents"] : json::array();
  for (size_t d = 0; d < docs.size(); ++d) {
    const json& doc = docs[d];
    const json& layout = doc.value("layout", json::object());
    const json& nodes = doc.value("nodes", json::object());
    const json& node_index = layout.value("nodeIndex", json::array());
    const json& bounds = layout.value("bounds", json::array());
    const json& texts = layout.value("text", json::array());
    std::vector<size_t> shown;  // layout indices whose box shows a secret
    for (size_t i = 0; i < texts.size(); ++i)
      if (shows_secret(texts[i])) shown.push_back(i);
    // Field values (inputs, textareas) by node, then to their layout boxes.
    std::set<int64_t> fields;
    for (const char* rare : {"inputValue", "textValue"}) {
      const json& r = nodes.value(rare, json::object());
      const json& idx = r.value("index", json::array());
      const json& val = r.value("value", json::array());
      for (size_t i = 0; i < idx.size() && i < val.size(); ++i)
        if (idx[i].is_number_integer() && shows_secret(val[i])) fields.insert(idx[i].get<int64_t>());
    }
    for (size_t i = 0; i < node_index.size() && !fields.empty(); ++i)
      if (node_index[i].is_number_integer() && fields.count(node_index[i].get<int64_t>())) shown.push_back(i);
    if (shown.empty()) continue;
    if (d > 0) {
      out.in_frame = true;
      continue;
    }
    double sx = doc.value("scrollOffsetX", 0.0), sy = doc.value("scrollOffsetY", 0.0);
    for (size_t i : shown) {
      if (i >= bounds.size() || !bounds[i].is_array() || bounds[i].size() < 4) continue;
      const json& b = bounds[i];
      if (!b[0].is_number() || !b[1].is_number() || !b[2].is_number() || !b[3].is_number()) continue;
      out.rects.push_back({{"x", b[0].get<double>() - sx}, {"y", b[1].get<double>() - sy}, {"w", b[2].get<double>()}, {"h", b[3].get<double>()}});
    }
  }
  return out;
}

}  // namespace

Result<json> picture_of(Context& ctx, const std::string& tab, std::string_view what, const std::function<Result<json>()>& capture) {
  if (!ctx.secrets() || ctx.secrets()->empty()) return capture();
  auto info = ctx.browser().tab_info(tab);
  if (auto origin = egress::secret_origin_shown(ctx, tab, info ? info->url : std::string()))
    return errorf(Code::PermissionDenied,
                  "{}: tab {} is not pictured: a secret was typed into a page of {} in this run, and this tab shows that origin or did "
                  "since (a page can draw a value as pixels, which no masking finds). Read the page as text instead — snapshot, "
                  "getText, find — where the secret shows as [SECRET:name]",
                  what, tab, *origin);
  auto boxes = TRY(secret_boxes(ctx, tab));
  if (boxes.in_frame)
    return errorf(Code::PermissionDenied,
                  "{}: tab {} is not pictured: a frame of its page shows the value of one of the run's secrets. Read the page as text "
                  "instead — snapshot, getText, find — where the secret shows as [SECRET:name]",
                  what, tab);
  if (boxes.rects.empty()) return capture();
  // More places than the page engine covers (masks() takes 500): not pictured rather than half covered.
  if (boxes.rects.size() > kMaxBoxes)
    return errorf(Code::PermissionDenied,
                  "{}: tab {} is not pictured: its page shows a secret's value in {} places, more than can be covered. Read the page as "
                  "text instead — snapshot, getText, find — where the secret shows as [SECRET:name]",
                  what, tab, boxes.rects.size());
  json up = TRY(ctx.browser().call(tab, "masks", json::array({boxes.rects}), "", ctx.limits().exec_timeout));
  if (!get_bool(up, "shown", false) || get_int(up, "count", -1) != static_cast<int64_t>(boxes.rects.size())) {
    (void)ctx.browser().call(tab, "masks", json::array({false}), "", ctx.limits().exec_timeout);
    return errorf(Code::PermissionDenied, "{}: tab {} is not pictured: its page shows a secret's value, and it could not be covered", what, tab);
  }
  auto picture = capture();
  auto down = ctx.browser().call(tab, "masks", json::array({false}), "", ctx.limits().exec_timeout);
  if (!picture) return picture;
  if (!down || !get_bool(*down, "intact", false))
    return errorf(Code::PermissionDenied,
                  "{}: tab {} is not pictured: its page shows a secret's value, and the page moved what covered it while the picture "
                  "was taken",
                  what, tab);
  return picture;
}

}  // namespace ouro::actions::impl
