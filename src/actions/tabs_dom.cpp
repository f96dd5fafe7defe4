// Tab management and DOM introspection (docs/reference/api.md).
#include "egress/holds.h"
#include "egress/gate.h"
#include "safety/redact.h"
#include "actions/impl.h"
#include "actions/pictures.h"
#include "perception/targets.h"
#include "browser/browser.h"
#include "browser/frames.h"
#include "store/database.h"

#include <map>

#include <functional>

namespace ouro::actions::impl {

std::string arg_string(const json& args, size_t i) {
  return i < args.size() && args[i].is_string() ? args[i].get<std::string>() : std::string();
}

namespace {

std::chrono::milliseconds timeout_arg(const json& args, size_t i, std::chrono::milliseconds dflt) {
  if (i < args.size() && args[i].is_number()) {
    double ms = args[i].get<double>();
    if (ms > 0) return std::chrono::milliseconds(static_cast<int64_t>(std::min(ms, 120000.0)));
  }
  return dflt;
}

}  // namespace

Result<json> read_helper(Context& ctx, const std::string& tab, const char* fn, json args, const std::string& what, const std::string& selector) {
  return perception::read(reader(ctx), tab, fn, std::move(args), what, selector);
}

Result<json> open_tab(Context& ctx, const json& args) {
  std::string url = arg_string(args, 0);
  TRY(egress::check_navigation(ctx, "openTab", url));
  if (ctx.shared_tabs()) return json(TRY(egress::open_held_tab(ctx, url)));  // held (and gated) from its first request
  auto id = TRY(ctx.browser().open_tab(url.empty() ? "about:blank" : url, ctx.limits().load_timeout, ctx.browser_context()));
  return json(id);
}

Result<json> close_tab(Context& ctx, const json& args) {
  TRY(ctx.browser().close_tab(arg_string(args, 0)));
  return json(true);
}

Result<json> navigate(Context& ctx, const json& args) {
  TRY(egress::check_navigation(ctx, "navigate", arg_string(args, 1), arg_string(args, 0)));
  auto info = TRY(ctx.browser().navigate(arg_string(args, 0), arg_string(args, 1), ctx.limits().load_timeout));
  return info.to_json();
}

Result<json> switch_tab(Context& ctx, const json& args) {
  TRY(ctx.browser().switch_tab(arg_string(args, 0)));
  return json(true);
}

Result<json> wait_for_load(Context& ctx, const json& args) {
  auto info = TRY(ctx.browser().wait_for_load(arg_string(args, 0), timeout_arg(args, 1, ctx.limits().load_timeout)));
  return info.to_json();
}

Result<json> exec_in_tab(Context& ctx, const json& args) {
  return ctx.browser().eval_page(arg_string(args, 0), arg_string(args, 1), ctx.limits().exec_timeout, ctx.limits().result_cap);
}

// A read of one element: in a replay its selector is found again when the page changed under it
// (perception/targets.h), and a run records what identifies what it read.
Result<json> read_element(Context& ctx, const std::string& tab, std::string sel, const char* fn, const char* what) {
  if (!sel.empty()) sel = TRY(perception::replay_target(ctx, tab, what, sel, ctx.limits().action_timeout));
  auto r = TRY(read_helper(ctx, tab, fn, json::array({sel}), what, sel));
  if (!sel.empty() && perception::recording(ctx)) perception::record_target(ctx, tab, what, sel, nullptr);
  return r;
}

Result<json> get_dom(Context& ctx, const json& args) { return read_element(ctx, arg_string(args, 0), arg_string(args, 1), "dom", "getDOM"); }

Result<json> get_text(Context& ctx, const json& args) { return read_element(ctx, arg_string(args, 0), arg_string(args, 1), "text", "getText"); }

Result<json> get_links(Context& ctx, const json& args) {
  return ctx.browser().call(arg_string(args, 0), "links", json::array(), "", ctx.limits().exec_timeout);
}

Result<json> get_inputs(Context& ctx, const json& args) {
  return ctx.browser().call(arg_string(args, 0), "inputs", json::array(), "", ctx.limits().exec_timeout);
}

Result<json> query_selector(Context& ctx, const json& args) {
  std::string sel = arg_string(args, 1);
  return ctx.browser().call(arg_string(args, 0), "query", json::array({sel}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout);
}

Result<json> query_selector_all(Context& ctx, const json& args) {
  std::string sel = arg_string(args, 1);
  return ctx.browser().call(arg_string(args, 0), "queryAll", json::array({sel}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout);
}

// Accessibility.getFullAXTree, compacted: ignored and unnamed generic nodes give way to their
// children, inline text boxes go, static text becomes {role: "text", name}.
Result<json> get_accessibility_tree(Context& ctx, const json& args) {
  auto r = TRY(ctx.browser().send(arg_string(args, 0), "Accessibility.getFullAXTree", json::object(), ctx.limits().exec_timeout));
  std::map<std::string, const json*> nodes;
  std::string root;
  for (const auto& n : r["nodes"]) {
    std::string id = n.value("nodeId", "");
    nodes[id] = &n;
    if (root.empty() && !n.contains("parentId")) root = id;
  }
  auto prop = [](const json& n, const char* key) -> std::string {
    if (!n.contains(key) || !n[key].contains("value")) return "";
    const json& v = n[key]["value"];
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  std::function<json(const std::string&, int)> build = [&](const std::string& id, int depth) -> json {
    json out = json::array();
    auto it = nodes.find(id);
    if (it == nodes.end() || depth > 200) return out;
    const json& n = *it->second;
    json kids = json::array();
    for (const auto& c : n.value("childIds", json::array()))
      for (auto& k : build(c.get<std::string>(), depth + 1)) kids.push_back(std::move(k));
    std::string role = prop(n, "role"), name = prop(n, "name"), value = prop(n, "value");
    if (role == "InlineTextBox") return out;
    if (role == "StaticText") {
      if (!name.empty()) out.push_back({{"role", "text"}, {"name", name}});
      return out;
    }
    bool ignored = n.value("ignored", false);
    if (ignored || ((role == "generic" || role == "none" || role == "LineBreak" || role.empty()) && name.empty())) return kids;
    json node = {{"role", role}};
    if (!name.empty()) node["name"] = name;
    if (!value.empty()) node["value"] = value;
    // A link or button whose only child repeats its name says nothing more.
    if (kids.size() == 1 && kids[0].value("role", "") == "text" && kids[0].value("name", "") == name) kids.clear();
    if (!kids.empty()) node["children"] = std::move(kids);
    out.push_back(std::move(node));
    return out;
  };
  json tree = build(root, 0);
  // Too large a tree is pruned by the host (actions/fit.h), keeping it a tree.
  return tree.size() == 1 ? tree[0] : json{{"role", "RootWebArea"}, {"children", tree}};
}

Result<json> screenshot(Context& ctx, const json& args) {
  // Vision models are billed by pixels, not bytes: encode fast rather than small.
  std::string tab = arg_string(args, 0);
  json params = {{"format", "png"}, {"captureBeyondViewport", false}, {"optimizeForSpeed", true}};
  bool marks = false;
  if (args.size() > 1 && args[1].is_object()) {
    const json& r = args[1];
    marks = r.value("marks", false);
    if (r.contains("width") || r.contains("height") || r.contains("x") || r.contains("y")) {
      params["clip"] = {{"x", r.value("x", 0.0)}, {"y", r.value("y", 0.0)}, {"width", r.value("width", 0.0)},
                        {"height", r.value("height", 0.0)}, {"scale", 1}};
      if (params["clip"]["width"].get<double>() <= 0 || params["clip"]["height"].get<double>() <= 0)
        return make_error(Code::InvalidArgument, "screenshot(tabId, rect): rect needs a positive width and height");
    }
  }
  // Set-of-marks: the page engine outlines each visible control with its ref while the picture
  // is taken, and takes the outlines away again whatever happens.
  return picture_of(ctx, tab, "screenshot", [&]() -> Result<json> {
    if (marks) TRY(ctx.browser().call(tab, "marks", json::array({true}), "", ctx.limits().exec_timeout));
    auto r = ctx.browser().send(tab, "Page.captureScreenshot", params, ctx.limits().exec_timeout);
    if (marks) (void)ctx.browser().call(tab, "marks", json::array({false}), "", ctx.limits().exec_timeout);
    if (!r) return tl::make_unexpected(r.error());
    return json("data:image/png;base64," + r->value("data", ""));
  });
}

Result<json> llm_query(Context& ctx, const json& args) {
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->sub_llm) return json("[SUB-CALL ERROR] llm_query needs a model: it works inside `ouro run`, not in `ouro exec` or `ouro repl`");
  return hooks->sub_llm("llm_query", args);
}

Result<json> llm_batch(Context& ctx, const json& args) {
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->sub_llm) return json("[SUB-CALL ERROR] llm_batch needs a model: it works inside `ouro run`, not in `ouro exec` or `ouro repl`");
  return hooks->sub_llm("llm_batch", args);
}

Result<json> store(Context& ctx, const json& args) {
  if (!ctx.db()) return make_error(Code::FailedPrecondition, "store(): no database is open");
  std::string key = arg_string(args, 0);
  if (key.empty()) return make_error(Code::InvalidArgument, "store(key, value): key must be a non-empty string");
  // What the run writes outlives it: masked as every record of the run is.
  json stored = scrubbed_for_storage(ctx, json::array({key, args.size() > 1 ? args[1] : json(nullptr)}));
  auto hooks = ctx.hooks();
  std::optional<std::string> before;
  if (hooks && hooks->on_change) before = TRY(ctx.db()->kv_get(stored[0].get<std::string>()));
  const std::string value = dump_json(stored[1]);
  TRY(ctx.db()->kv_set(stored[0].get<std::string>(), value));
  // For undo (docs/guides/undo.md): what the key held before, and holds now (JSON texts).
  if (hooks && hooks->on_change && before != value)
    hooks->on_change({{"kind", "kv"}, {"key", stored[0]}, {"before", before ? json(*before) : json(nullptr)}, {"after", value}});
  return json(true);
}

Result<json> retrieve(Context& ctx, const json& args) {
  if (!ctx.db()) return make_error(Code::FailedPrecondition, "retrieve(): no database is open");
  auto v = TRY(ctx.db()->kv_get(arg_string(args, 0)));
  if (!v) return json(nullptr);
  return scrubbed_on_reading(ctx, TRY(parse_json(*v, "stored value")));
}

}  // namespace ouro::actions::impl
