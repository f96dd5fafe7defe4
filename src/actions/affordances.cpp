// Pages as compact affordances (issue 9, seed 002 §4–§8): the page engine (browser/page/pcd.js,
// in the helpers' isolated world) builds the MiniPCD snapshot, the details of refs, the ranking of
// find() and the rows of extract(); here the REPL's calls reach it with their checked options.
#include "actions/impl.h"

#include "browser/browser.h"

namespace ouro::actions::impl {

namespace {

// Calls __ouroPcd.<fn>(args…) in the tab's helpers world.
Result<json> engine(Context& ctx, const std::string& tab, const std::string& fn, const json& args, const char* what) {
  std::string call = "__ouroPcd." + fn + "(";
  for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + dump_json(args[i]);
  call += ")";
  auto r = ctx.browser.eval_helpers(tab, call, ctx.limits.exec_timeout);
  if (!r) return errorf(r.error().code, "{} on tab {}: {}", what, tab, r.error().message);
  return r;
}

json object_or_empty(const json& args, size_t i) { return args.size() > i && args[i].is_object() ? args[i] : json::object(); }

}  // namespace

Result<json> snapshot(Context& ctx, const json& args) {
  return engine(ctx, arg_string(args, 0), "snapshot", json::array({object_or_empty(args, 1)}), "snapshot");
}

Result<json> details(Context& ctx, const json& args) {
  json refs = args.size() > 1 ? args[1] : json::array();
  if (refs.is_string()) refs = json::array({refs});
  return engine(ctx, arg_string(args, 0), "details", json::array({refs}), "details");
}

Result<json> find_elements(Context& ctx, const json& args) {
  return engine(ctx, arg_string(args, 0), "find", json::array({arg_string(args, 1), object_or_empty(args, 2)}), "find");
}

Result<json> extract(Context& ctx, const json& args) {
  return engine(ctx, arg_string(args, 0), "extract", json::array({object_or_empty(args, 1)}), "extract");
}

}  // namespace ouro::actions::impl
