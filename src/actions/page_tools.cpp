// Page tools (WebMCP): the tools a page declares for agents, listed and called under the run's rules
// (docs/design/provenance.md, "Page tools"). A page's declaration is its own say-so: a tool marked
// read-only is taken at its word only for asking (what it sends still meets the egress gate), and
// its description and output are the page's words, data for the run and never orders.
//   - A tool not marked read-only is a write: careful mode asks first.
//   - A tool marked consequential, or whose name or description approves, confirms, authorises or
//     signs, is asked in every mode unless the user's task names it; with nobody to ask, refused.
//   - After the run called a tool that writes, a tool there that approves is the run approving its
//     own proposal: asked in every mode (the user's task may say to do it).
//   - Its output is noted with the site of the frame that declared the tool.
#include "actions/impl.h"
#include "base/log.h"
#include "base/text.h"
#include "browser/browser.h"
#include "browser/egress_control.h"
#include "browser/page_tools.h"
#include "egress/gate.h"
#include "egress/writes.h"
#include "safety/redact.h"
#include "safety/secrets.h"
#include "safety/sensitive.h"

#include <fmt/format.h>

namespace ouro::actions::impl {

namespace {

// The declared tool of this name in the tab (the top document's first, then its frames').
Result<json> find_tool(Context& ctx, const std::string& tab, const std::string& name) {
  json tools = TRY(ctx.browser().page_tools().list(tab));
  std::string names;
  for (const auto& t : tools) {
    if (get_str(t, "name") == name) return t;
    if (names.size() < 600) names += (names.empty() ? "" : ", ") + get_str(t, "name");
  }
  return errorf(Code::NotFound, "the page in {} declares no tool '{}' (its tools: {}); list them with tools({})", tab, clip_line(name, 80),
                names.empty() ? "none" : names, tab);
}

bool annotated(const json& tool, const char* key) { return get_field(get_field(tool, "annotations"), key) == json(true); }

// Whether the user's own words name the tool ("send_payment", "send payment").
bool task_names_tool(const std::shared_ptr<safety::GatePolicy>& policy, const std::string& name) {
  if (!policy) return false;
  std::string spaced = name;
  for (char& c : spaced)
    if (c == '_' || c == '-' || c == '.') c = ' ';
  return policy->provenance().user_wrote(name) || (spaced != name && policy->provenance().user_wrote(spaced));
}

// What the page's tool does in its own words, as the question shows it.
std::string shown_description(const json& tool) { return clip_line(get_str(tool, "description"), 200); }

}  // namespace

Result<json> page_tools(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  json tools = TRY(ctx.browser().page_tools().list(tab));
  auto info = ctx.browser().tab_info(tab);
  json out = json::array();
  for (const auto& t : tools) {
    std::string frame_url = get_str(t, "frameUrl");
    if (frame_url.empty() && info) frame_url = info->url;
    // The description is the page's words: noted with the site of the frame that declared it.
    egress::note_data_from(ctx, frame_url, json{get_str(t, "name"), get_str(t, "description")});
    out.push_back({{"name", get_str(t, "name")}, {"description", get_str(t, "description")}, {"inputSchema", t.value("inputSchema", json::object())},
                   {"annotations", t.value("annotations", json::object())}, {"frame", safety::redact_url_params(frame_url)}});
  }
  return out;
}

Result<json> call_page_tool(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), name = arg_string(args, 1);
  json input = args.size() > 2 && args[2].is_object() ? args[2] : json::object();
  json tool = TRY(find_tool(ctx, tab, name));
  auto info = ctx.browser().tab_info(tab);
  std::string frame_url = get_str(tool, "frameUrl");
  if (frame_url.empty() && info) frame_url = info->url;
  const bool read_only = annotated(tool, "readOnly");
  const bool consequential = annotated(tool, "consequential");
  auto approves = safety::approval_stem(json{{"text", name}, {"label", get_str(tool, "description")}});
  auto policy = egress::gate_policy(ctx);
  auto mode = egress::gate_mode(ctx);
  auto hooks = ctx.hooks();
  const bool named = task_names_tool(policy, name) || (approves && policy && policy->provenance().user_wrote(*approves));
  auto proposed = egress::proposal_on(ctx, tab);

  std::string why, rule;
  bool every_mode = false;
  if (approves && proposed && !named) {
    why = fmt::format("it would approve what this run itself proposed here ({}): a run does not approve its own proposals", *proposed);
    rule = "self-approval";
    every_mode = true;
  } else if ((consequential || approves) && !named) {
    why = consequential ? "the page marks this tool consequential (it books, buys, transfers or the like)"
                        : "the tool approves, confirms, authorises or signs something";
    rule = "page-tool";
    every_mode = true;
  } else if (!read_only && mode == safety::GateMode::Careful) {
    why = "the page does not mark this tool read-only: calling it may change something on the site";
    rule = "page-tool";
  }
  if (!why.empty()) {
    const std::string shown_input = redact(clip_text(dump_json(input), 400));
    json d = {{"rule", rule}, {"type", "PageTool"}, {"method", "callTool"}, {"tool", clip_line(name, 80)},
              {"url", safety::redact_url_params(frame_url)}, {"reason", why}};
    if (proposed) d["proposed"] = *proposed;
    if (ctx.secrets()) ctx.secrets()->scrub(d);
    if (!hooks || !hooks->confirm) {
      if (every_mode) {
        d["decision"] = "deny";
        d["by"] = "policy";
        egress::record_decision(ctx, std::move(d));
        return errorf(Code::PermissionDenied, "callTool '{}' was refused: {}, and there is nobody to ask. Leave it to the user (say so in setFinal())",
                      clip_line(name, 80), why);
      }
    } else {
      json q = {{"action", "callTool"}, {"tool", clip_line(name, 80)}, {"description", shown_description(tool)}, {"input", shown_input},
                {"tab", tab}, {"url", safety::redact_url_params(frame_url)}, {"reason", why}};
      if (proposed) {
        q["proposed"] = *proposed;
        q["proposed_by"] = ctx.owner();
      }
      if (ctx.secrets()) ctx.secrets()->scrub(q);
      bool yes = hooks->confirm(q);
      d["decision"] = yes ? "allow" : "deny";
      d["by"] = "user";
      egress::record_decision(ctx, std::move(d));
      if (!yes)
        return errorf(Code::PermissionDenied, "callTool '{}' was denied by the user ({}); do not retry it — find another way or report back with setFinal()",
                      clip_line(name, 80), why);
      ctx.browser().egress().approve_activity(tab);
    }
  }
  json output = TRY(ctx.browser().page_tools().call(tab, get_str(tool, "frameId"), name, input, ctx.limits().action_timeout));
  // What it wrote is the run's proposal on this site (a later approval there is the user's).
  if (!read_only && !approves) egress::note_proposal(ctx, tab, "the page's tool '" + clip_line(name, 80) + "'");
  egress::note_data_from(ctx, frame_url, output);
  return output;
}

}  // namespace ouro::actions::impl
