// Browser actions as a person performs them (docs/reference/api.md): trusted input through CDP's
// Input domain at the element's visible centre, after the page helper has scrolled it into view and
// found it attached, visible, enabled and not covered — retried until the action deadline, as
// Playwright's actionability checks do.
#include "egress/gate.h"
#include "base/steady_clock.h"
#include "actions/impl.h"
#include "actions/pictures.h"
#include "safety/sensitive.h"
#include "perception/targets.h"
#include "browser/browser.h"
#include "browser/egress_control.h"
#include "browser/frames.h"
#include "base/text.h"
#include "safety/secrets.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace ouro::actions::impl {

namespace {

using Clock = ouro::SteadyClock;

struct Needs {
  bool enabled = true, editable = false, hit = true;
};

std::chrono::milliseconds action_timeout(Context& ctx, const json& options) {
  if (options.is_object() && options.contains("timeout") && options["timeout"].is_number())
    return std::chrono::milliseconds(static_cast<int64_t>(std::clamp(options["timeout"].get<double>(), 0.0, 60000.0)));
  return ctx.limits().action_timeout;
}

// Waits until the element is actionable; returns the helper's {x, y, element, target}.
Result<json> dismiss_overlays_on(Context& ctx, const std::string& tab);

// In a replay, `selector` becomes the one healing found when the recorded target is gone (perception/targets.h).
Result<json> actionable(Context& ctx, const std::string& tab, std::string& selector, Needs needs, const char* what,
                        std::chrono::milliseconds timeout, bool may_dismiss = true) {
  if (selector.empty()) return errorf(Code::InvalidArgument, "{}: the selector is empty", what);
  auto deadline = Clock::now() + timeout;
  if (may_dismiss) selector = TRY(perception::replay_target(ctx, tab, what, selector, timeout));
  const std::string frame = browser::Frames::frame_of(selector);  // a cross-origin frame's ref runs there
  // A run records what identifies the element, computed in this same call (heal.js).
  const bool identify = perception::recording(ctx);
  const json call_args =
      json::array({selector, json{{"enabled", needs.enabled}, {"editable", needs.editable}, {"hit", needs.hit}, {"identify", identify}}});
  json last;
  Clock::time_point covered_since{};  // epoch: not covered now
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto r = ctx.browser().call(tab, "actionable", call_args, frame, std::max(left, std::chrono::milliseconds(1000)));
    if (!r) {
      if (r.error().code == Code::NotFound && frame.empty())
        return errorf(Code::NotFound, "{}: tab {} was closed while waiting for '{}'", what, tab, selector);
      return reworded(r.error(), "{} '{}' on tab {}: {}", what, selector, tab, r.error().message);
    }
    if (r->value("ok", false)) {
      if (identify && r->contains("details")) perception::record_target(ctx, tab, what, selector, (*r)["details"]);
      r->erase("details");
      if (frame.empty()) return *r;
      // Inside a cross-origin frame: its coordinates moved into the tab's viewport, where input goes.
      // Input is routed to a frame by what the browser last drew, and a scroll inside an
      // out-of-process frame reaches the frames above it asynchronously: read where the frame is
      // until it stays put over two drawn frames (as Playwright waits for a stable box).
      auto wait = std::max(left, std::chrono::milliseconds(1000));
      auto offset = ctx.browser().frames().offset(tab, frame, wait);
      for (int k = 0; offset && k < 10; ++k) {
        TRY(ctx.browser().frames().settle(tab, frame, wait));
        auto now = ctx.browser().frames().offset(tab, frame, wait, false);
        bool still = now && std::abs(now->first - offset->first) < 0.5 && std::abs(now->second - offset->second) < 0.5;
        offset = std::move(now);
        if (still) break;
      }
      if (!offset) return reworded(offset.error(), "{} '{}' on tab {}: {}", what, selector, tab, offset.error().message);
      (*r)["x"] = r->value("x", 0.0) + offset->first;
      (*r)["y"] = r->value("y", 0.0) + offset->second;
      if (r->contains("box") && (*r)["box"].is_object()) {
        (*r)["box"]["x"] = (*r)["box"].value("x", 0.0) + offset->first;
        (*r)["box"]["y"] = (*r)["box"].value("y", 0.0) + offset->second;
      }
      return *r;
    }
    last = *r;
    if (Clock::now() >= deadline) break;
    // Covered for a second (not a transition that ends by itself): see to the overlay now.
    bool covered = last.value("reason", "").find(" is covered by ") != std::string::npos;
    if (!covered) covered_since = {};
    else if (covered_since == Clock::time_point{}) covered_since = Clock::now();
    else if (may_dismiss && Clock::now() - covered_since >= std::chrono::seconds(1)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(last.value("missing", false) ? 100 : 50));
  }
  // Covered: a consent banner or a modal in the way is dismissed once, and the target tried again.
  if (may_dismiss && last.value("reason", "").find(" is covered by ") != std::string::npos) {
    auto dismissed = dismiss_overlays_on(ctx, tab);
    if (dismissed && !(*dismissed)["dismissed"].empty()) {
      auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      auto again = actionable(ctx, tab, selector, needs, what, std::max(rest, std::chrono::milliseconds(1500)), false);
      if (again) (*again)["dismissed"] = (*dismissed)["dismissed"];
      else again.error().message += fmt::format(" (after dismissing {})", dump_json((*dismissed)["dismissed"]));
      return again;
    }
  }
  auto info = ctx.browser().tab_info(tab);
  std::string url = info ? info->url : "?";
  if (last.value("missing", false))
    return errorf(Code::NotFound, "{}: no element matches selector '{}' on tab {} ({}) after waiting {} ms", what, selector, tab, url, timeout.count());
  return errorf(Code::DeadlineExceeded, "{}: {} — selector '{}' on tab {} ({}), waited {} ms", what, last.value("reason", "not actionable"),
                selector, tab, url, timeout.count());
}

// Input events in order. All but the last are pipelined; the last is awaited, and since the
// browser handles Input commands of a session in order, its reply means all of them were
// dispatched to the page. (A Runtime round trip would not do: it does not queue behind input.)
using InputEvents = std::vector<std::pair<const char*, json>>;

Result<void> dispatch(Context& ctx, const std::string& tab, InputEvents events) {
  if (events.empty()) return {};
  for (size_t i = 0; i + 1 < events.size(); ++i) ctx.browser().send_async(tab, events[i].first, std::move(events[i].second));
  TRY(ctx.browser().send(tab, events.back().first, std::move(events.back().second), ctx.limits().exec_timeout));
  return {};
}

json mouse(const char* type, double x, double y, int buttons = 0, int clicks = 0) {
  json p = {{"type", type}, {"x", x}, {"y", y}};
  if (std::string_view(type) != "mouseMoved") p["button"] = "left", p["clickCount"] = clicks;
  if (buttons) p["buttons"] = buttons;
  return p;
}

struct KeyDef {
  std::string key, code, text;
  int key_code = 0;
};

// Named keys of the UI Events KeyboardEvent key values spec; any other single character types itself.
std::optional<KeyDef> key_def(const std::string& name) {
  static const std::map<std::string, KeyDef> keys = {
      {"Enter", {"Enter", "Enter", "\r", 13}},       {"Tab", {"Tab", "Tab", "", 9}},
      {"Escape", {"Escape", "Escape", "", 27}},      {"Backspace", {"Backspace", "Backspace", "", 8}},
      {"Delete", {"Delete", "Delete", "", 46}},      {"ArrowUp", {"ArrowUp", "ArrowUp", "", 38}},
      {"ArrowDown", {"ArrowDown", "ArrowDown", "", 40}}, {"ArrowLeft", {"ArrowLeft", "ArrowLeft", "", 37}},
      {"ArrowRight", {"ArrowRight", "ArrowRight", "", 39}}, {"Home", {"Home", "Home", "", 36}},
      {"End", {"End", "End", "", 35}},               {"PageUp", {"PageUp", "PageUp", "", 33}},
      {"PageDown", {"PageDown", "PageDown", "", 34}}, {"Space", {" ", "Space", " ", 32}},
      {" ", {" ", "Space", " ", 32}},                {"Shift", {"Shift", "ShiftLeft", "", 16}},
      {"Control", {"Control", "ControlLeft", "", 17}}, {"Alt", {"Alt", "AltLeft", "", 18}},
      {"Meta", {"Meta", "MetaLeft", "", 91}},
  };
  if (auto it = keys.find(name); it != keys.end()) return it->second;
  if (name.size() >= 2 && name[0] == 'F' && std::all_of(name.begin() + 1, name.end(), ::isdigit)) {
    int n = std::stoi(name.substr(1));
    if (n >= 1 && n <= 12) return KeyDef{name, name, "", 111 + n};
  }
  // One character (possibly multi-byte UTF-8).
  size_t len = name.empty() ? 0 : (static_cast<unsigned char>(name[0]) < 0x80 ? 1 : static_cast<unsigned char>(name[0]) < 0xE0 ? 2 : static_cast<unsigned char>(name[0]) < 0xF0 ? 3 : 4);
  if (len == 0 || len != name.size()) return std::nullopt;
  KeyDef d{name, "", name, 0};
  char c = name[0];
  if (std::isalpha(static_cast<unsigned char>(c))) d.code = std::string("Key") + static_cast<char>(std::toupper(c)), d.key_code = std::toupper(c);
  else if (std::isdigit(static_cast<unsigned char>(c))) d.code = std::string("Digit") + c, d.key_code = c;
  return d;
}

int modifier_bits(const json& mods) {
  int bits = 0;
  auto add = [&](const std::string& m) {
    if (m == "Alt") bits |= 1;
    else if (m == "Control" || m == "Ctrl") bits |= 2;
    else if (m == "Meta" || m == "Command") bits |= 4;
    else if (m == "Shift") bits |= 8;
  };
  if (mods.is_array())
    for (const auto& m : mods) if (m.is_string()) add(m.get<std::string>());
  if (mods.is_string()) add(mods.get<std::string>());
  return bits;
}

void key_events(InputEvents& out, const KeyDef& k, int modifiers) {
  json down = {{"type", k.text.empty() ? "rawKeyDown" : "keyDown"}, {"key", k.key}, {"code", k.code},
               {"windowsVirtualKeyCode", k.key_code}, {"modifiers", modifiers}};
  // With Control/Meta held the key is a shortcut, not text.
  if (!k.text.empty() && !(modifiers & 6)) down["text"] = k.text, down["unmodifiedText"] = k.text;
  out.emplace_back("Input.dispatchKeyEvent", std::move(down));
  out.emplace_back("Input.dispatchKeyEvent", json{{"type", "keyUp"}, {"key", k.key}, {"code", k.code},
                                                  {"windowsVirtualKeyCode", k.key_code}, {"modifiers", modifiers}});
}

// The origin of the document the element is in (actionable()'s "origin"), parsed; nullopt for an
// opaque origin ("null": a sandboxed frame, a data: document).
std::optional<safety::Url> frame_origin(const json& at) {
  std::string origin = at.is_object() ? get_str(at, "origin") : "";
  auto url = safety::parse_url(origin);
  if (!url || url->host.empty()) return std::nullopt;
  return *url;
}

// A picture of what a confirmation is about: the element's visible box (actionable()'s "box", in
// the tab's viewport) with a margin, and the row or card it belongs to ("contextBox") so its
// neighbours say which one it is; at most 640 x 360 CSS pixels around the element's centre, as
// JPEG — {mime, data, outline: the box within the picture} — for the user to see which one it is.
// nullopt when it cannot be taken (the question is asked without it).
std::optional<json> crop_around(Context& ctx, const std::string& tab, const json& at) {
  if (!at.is_object() || !at.contains("box") || !at["box"].is_object()) return std::nullopt;
  const json& box = at["box"];
  double bx = box.value("x", 0.0), by = box.value("y", 0.0), bw = box.value("width", 0.0), bh = box.value("height", 0.0);
  if (!(bw > 0) || !(bh > 0)) return std::nullopt;
  auto metrics = ctx.browser().send(tab, "Page.getLayoutMetrics", json::object(), std::chrono::milliseconds(2000));
  if (!metrics || !(*metrics).contains("cssLayoutViewport")) return std::nullopt;
  const json& vp = (*metrics)["cssLayoutViewport"];
  const double vw = vp.value("clientWidth", 0.0), vh = vp.value("clientHeight", 0.0);
  if (!(vw > 0) || !(vh > 0)) return std::nullopt;
  constexpr double kMargin = 40, kContextMargin = 16, kMaxW = 640, kMaxH = 360;
  double lx = bx - kMargin, ly = by - kMargin, hx = bx + bw + kMargin, hy = by + bh + kMargin;
  if (at.contains("contextBox") && at["contextBox"].is_object()) {
    const json& c = at["contextBox"];
    double cx = c.value("x", 0.0), cy = c.value("y", 0.0), cw = c.value("width", 0.0), ch = c.value("height", 0.0);
    if (cw > 0 && ch > 0) {
      lx = std::min(lx, cx - kContextMargin), ly = std::min(ly, cy - kContextMargin);
      hx = std::max(hx, cx + cw + kContextMargin), hy = std::max(hy, cy + ch + kContextMargin);
    }
  }
  // The margin around the box, inside the viewport, then at most kMax around the box's centre.
  auto span = [](double lo, double hi, double centre, double limit, double max) {
    lo = std::max(lo, 0.0);
    hi = std::min(hi, limit);
    if (hi - lo > max) {
      lo = std::clamp(centre - max / 2, lo, hi - max);
      hi = lo + max;
    }
    return std::pair{std::floor(lo), std::ceil(hi)};
  };
  auto [x0, x1] = span(lx, hx, bx + bw / 2, vw, kMaxW);
  auto [y0, y1] = span(ly, hy, by + bh / 2, vh, kMaxH);
  if (x1 - x0 < 1 || y1 - y0 < 1) return std::nullopt;
  json params = {{"format", "jpeg"}, {"quality", 80}, {"captureBeyondViewport", false},
                 {"clip", {{"x", x0}, {"y", y0}, {"width", x1 - x0}, {"height", y1 - y0}, {"scale", 1}}}};
  // A page under a secret's rule is not pictured; one showing a secret's value has it covered.
  auto shot = picture_of(ctx, tab, "the confirmation's picture",
                         [&] { return ctx.browser().send(tab, "Page.captureScreenshot", params, std::chrono::milliseconds(3000)); });
  if (!shot || !shot->contains("data") || !(*shot)["data"].is_string()) return std::nullopt;
  // The outline: the box within the picture, cut to it.
  double ox = std::max(bx, x0), oy = std::max(by, y0), ox1 = std::min(bx + bw, x1), oy1 = std::min(by + bh, y1);
  return json{{"mime", "image/jpeg"},
              {"data", (*shot)["data"]},
              {"width", x1 - x0},
              {"height", y1 - y0},
              {"outline", {{"x", ox - x0}, {"y", oy - y0}, {"width", std::max(0.0, ox1 - ox)}, {"height", std::max(0.0, oy1 - oy)}}}};
}

// No self-approval (docs/guides/safety.md): a control that approves, confirms, authorises or signs
// on a site where this run submitted something is the user's to press, in every mode — unless
// their task says to do it. With no one to ask (a person driving the REPL) it goes on. True when
// the user was asked (and said yes): no second question about the same click.
Result<bool> not_self_approved(Context& ctx, const std::string& action, const std::string& tab, const std::string& selector, const json& target,
                               const std::string& element) {
  if (action != "click" && action != "select") return false;
  auto stem = safety::approval_stem(target);
  if (!stem) return false;
  auto proposed = egress::proposal_on(ctx, tab);
  if (!proposed) return false;
  auto policy = egress::gate_policy(ctx);
  if (policy && policy->provenance().user_wrote(*stem)) return false;
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->confirm) return false;
  auto info = ctx.browser().tab_info(tab);
  std::string what = element.empty() ? "'" + selector + "'" : element;
  std::string reason = fmt::format("it would approve what this run itself proposed here ({}): a run does not approve its own proposals", *proposed);
  json request = {{"action", action}, {"selector", selector}, {"tab", tab}, {"url", info ? info->url : ""}, {"element", element},
                  {"reason", reason}, {"target", target}, {"proposed", *proposed}, {"proposed_by", ctx.owner()}};
  json d = {{"rule", "self-approval"}, {"type", "Approval"}, {"method", action}, {"url", info ? info->url : ""}, {"proposed", *proposed}};
  bool yes = hooks->confirm(request);
  d["decision"] = yes ? "allow" : "deny";
  d["by"] = "user";
  d["reason"] = reason;
  egress::record_decision(ctx, std::move(d));
  if (!yes)
    return errorf(Code::PermissionDenied, "{} on {} was refused: {}. Leave the approval to the user (say so in setFinal()), do not retry it",
                  action, what, reason);
  ctx.browser().egress().approve_activity(tab);
  return true;
}

// Asks before acting on a sensitive element, when a confirmer is installed (agent runs). The
// question names the origin of the element's own frame when it is not the tab's. A secret typed
// into its own origin (checked before, secret_may_go) asks nothing: the user granted it for that
// site, so an unattended run can sign in.
Result<void> gate(Context& ctx, const std::string& action, const std::string& tab, const std::string& selector, const json& at,
                  bool granted_secret = false) {
  const json& target = at.is_object() && at.contains("target") ? at["target"] : json::object();
  std::string element = at.is_object() ? at.value("element", "") : "";
  auto why = safety::sensitive_reason(action, target);
  if (TRY(not_self_approved(ctx, action, tab, selector, target, element))) return {};
  // What it submits is the run's proposal on this site (a later approval there is the user's) —
  // once it goes ahead: a submit the user refused proposed nothing.
  const bool proposes = why && action == "click" && !safety::approval_stem(target) && why->find("password") == std::string::npos;
  auto go_ahead = [&]() -> Result<void> {
    if (proposes) egress::note_proposal(ctx, tab, element.empty() ? selector : element);
    return {};
  };
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->confirm) return go_ahead();
  auto mode = egress::gate_mode(ctx);
  if (mode == safety::GateMode::Autonomous) return go_ahead();  // asks nothing; the egress gate still holds the sites
  if (granted_secret) return go_ahead();
  if (!why) return go_ahead();
  // Under the egress gate a submitted form asks only if it writes (a GET search does not) —
  // unless its label says what it does (Buy, Pay, Delete, …).
  if (mode && *why == "it submits a form") {
    why = safety::sensitive_reason("select", target);
    if (!why) return go_ahead();
  }
  auto info = ctx.browser().tab_info(tab);
  std::string frame = at.is_object() ? get_str(at, "origin") : "";
  std::string reason = *why;
  if (!frame.empty()) {
    auto tab_url = info ? safety::parse_url(info->url) : Result<safety::Url>(make_error(Code::NotFound, "no tab"));
    auto own = frame_origin(at);
    bool same = tab_url && own && tab_url->scheme == own->scheme && tab_url->host == own->host && tab_url->port == own->port;
    if (!same) reason += ", in a frame of " + frame + " (not the tab's site)";
  }
  json request = {{"action", action}, {"selector", selector}, {"tab", tab}, {"url", info ? info->url : ""}, {"element", element},
                  {"reason", reason}, {"target", target}};
  if (!frame.empty()) request["frame"] = frame;
  // Which one it is: the page, the row or card the element belongs to, and a picture of it.
  if (info && !info->title.empty()) request["pageTitle"] = clip_line(info->title, 200);
  if (std::string context = at.is_object() ? get_str(at, "context") : ""; !context.empty()) request["context"] = clip_line(context, 200);
  if (auto crop = crop_around(ctx, tab, at)) request["crop"] = std::move(*crop);
  if (!hooks->confirm(request))
    return errorf(Code::PermissionDenied, "{} on {} was denied by the user ({}); do not retry it — find another way or report back with setFinal()",
                  action, element.empty() ? "'" + selector + "'" : element, *why);
  ctx.browser().egress().approve_activity(tab);
  return go_ahead();
}

Result<json> click_at(Context& ctx, const std::string& tab, const json& at, int count = 1) {
  double x = at["x"], y = at["y"];
  InputEvents events;
  events.emplace_back("Input.dispatchMouseEvent", mouse("mouseMoved", x, y));
  for (int i = 1; i <= count; ++i) {
    events.emplace_back("Input.dispatchMouseEvent", mouse("mousePressed", x, y, 1, i));
    events.emplace_back("Input.dispatchMouseEvent", mouse("mouseReleased", x, y, 0, i));
  }
  TRY(dispatch(ctx, tab, std::move(events)));
  json out = {{"element", at.value("element", "")}};
  if (at.contains("dismissed")) out["dismissed"] = at["dismissed"];
  return out;
}

// Presses each overlay's button, one per round (the page changes), for at most three rounds;
// then says what is left.
Result<json> dismiss_overlays_on(Context& ctx, const std::string& tab) {
  json dismissed = json::array(), remaining = json::array();
  for (int round = 0; round < 4; ++round) {
    json found = TRY(ctx.browser().call(tab, "overlays", json::array(), "", ctx.limits().exec_timeout));
    if (!found.is_array()) found = json::array();
    remaining = json::array();
    const json* press = nullptr;
    for (const auto& o : found) {
      if (!press && round < 3 && o.contains("button") && o["button"].is_object()) press = &o;
      else remaining.push_back({{"kind", o.value("kind", "")}, {"element", o.value("element", "")},
                                {"why", o.contains("button") && o["button"].is_object() ? "still there" : "no button to close it"}});
    }
    if (!press) break;
    const json& b = (*press)["button"];
    TRY(click_at(ctx, tab, json{{"x", b.value("x", 0.0)}, {"y", b.value("y", 0.0)}}));
    dismissed.push_back({{"kind", press->value("kind", "")}, {"element", press->value("element", "")}, {"pressed", b.value("label", "")},
                         {"choice", b.value("choice", "")}});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  return json{{"dismissed", dismissed}, {"remaining", remaining}};
}

}  // namespace

bool is_secret_handle(const json& v) { return v.is_object() && v.contains("__ouroSecret") && v["__ouroSecret"].is_string(); }

namespace {

// What to type: a string as it is, or the secret a handle names (checked against the element's
// frame by secret_may_go before it is typed). The value goes to the page only, never back.
struct ToType {
  std::string text;
  std::optional<safety::Secret> secret;
};

Result<ToType> text_to_type(Context& ctx, const json& v, const std::string& action) {
  if (v.is_string()) return ToType{v.get<std::string>(), std::nullopt};
  if (!is_secret_handle(v)) return ToType{dump_json(v), std::nullopt};
  std::string name = v["__ouroSecret"].get<std::string>();
  std::optional<safety::Secret> s = ctx.secrets() ? ctx.secrets()->find(name) : std::nullopt;
  if (!s) {
    std::string known;
    if (ctx.secrets())
      for (const auto& n : ctx.secrets()->names()) known += (known.empty() ? "" : ", ") + n;
    return errorf(Code::NotFound, "{}: no secret named '{}' (configured: {}); the user adds secrets with --secret NAME@DOMAIN or in the settings file",
                  action, name, known.empty() ? "none" : known);
  }
  std::string value = s->value;
  return ToType{std::move(value), std::move(s)};
}

// A secret goes only into an element whose own document's origin (scheme, host and port) is one
// of the secret's — not merely the tab's: a third-party sign-in frame on an allowed page is
// another origin (RFC 6454). Refused in every mode: no question could make it the secret's site.
// Where it may go, the page it goes into may talk only to the secret's sites from then on
// (egress/gate.h restrict_to_secret_sites).
Result<void> secret_may_go(Context& ctx, const ToType& typing, const std::string& tab, const json& at, const std::string& action) {
  if (!typing.secret) return {};
  auto origin = frame_origin(at);
  if (origin && typing.secret->sites.matches(*origin)) {
    egress::restrict_to_secret_sites(ctx, tab, *origin, typing.secret->sites);
    return {};
  }
  std::string where;
  for (const auto& p : typing.secret->sites.patterns()) where += (where.empty() ? "" : ", ") + p;
  std::string frame = at.is_object() ? get_str(at, "origin", "null") : "null";
  return errorf(Code::PermissionDenied, "{}: secret '{}' may only be typed into pages of {}; the field on tab {} is in a document of {}", action,
                typing.secret->name, where, tab, frame.substr(0, 200));
}

}  // namespace

Result<json> click(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), sel = arg_string(args, 1);
  json options = args.size() > 2 ? args[2] : json();
  auto at = TRY(actionable(ctx, tab, sel, {}, "click", action_timeout(ctx, options)));
  TRY(gate(ctx, "click", tab, sel, at));
  int count = options.is_object() && options.value("double", false) ? 2 : 1;
  return click_at(ctx, tab, at, count);
}

Result<json> dismiss_overlays(Context& ctx, const json& args) { return dismiss_overlays_on(ctx, arg_string(args, 0)); }

Result<json> hover(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), sel = arg_string(args, 1);
  auto at = TRY(actionable(ctx, tab, sel, {.enabled = false}, "hover", ctx.limits().action_timeout));
  TRY(dispatch(ctx, tab, {{"Input.dispatchMouseEvent", mouse("mouseMoved", at["x"], at["y"])}}));
  return json{{"element", at.value("element", "")}};
}

// Types like a person: focus by clicking, caret to the end, then one key press per character,
// so keydown/keypress/input/keyup all fire and framework-controlled inputs see every change.
// Date and time fields (<input type=date|time|datetime-local|month|week>) take no typed text in
// Chromium (their segments take digits in the locale's order): their value is set as a person's
// date is read — 2016-11-08, 11/08/2016, November 8, 2016 — with input and change events
// (binding.js setDate).
bool is_date_input(const std::string& input_type) {
  return input_type == "date" || input_type == "time" || input_type == "datetime-local" || input_type == "month" || input_type == "week";
}
Result<json> set_date_field(Context& ctx, const std::string& tab, const std::string& sel, const std::string& input_type, const std::string& text,
                            const char* what) {
  auto r = TRY(ctx.browser().call(tab, "setDate", json::array({sel, text}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout));
  if (!r.is_object() || !r.value("ok", false)) {
    std::string example = r.is_object() ? get_str(r, "example") : "";
    return errorf(Code::InvalidArgument, "{}: '{}' is a {} field and '{}' is not a {} it takes ({}){}", what, sel, input_type, clip_text(text, 60),
                  input_type, r.is_object() ? get_str(r, "reason", "refused") : "refused", example.empty() ? "" : "; write it like " + example);
  }
  return json{{"set", get_str(r, "value")}};
}

// A tab in the background has no system focus (Document.hasFocus() is false there while keys
// still land); with focus emulated (CDP Emulation.setFocusEmulationEnabled) hasFocus() tells which
// frame of the tab keys go to. Where it cannot be set, FocusWatch holds the field's document to
// having the focus only if it had it when typing began.
void start_typing(Context& ctx, const std::string& tab) {
  // Best effort: without it the check is the weaker one described above.
  (void)ctx.browser().send(tab, "Emulation.setFocusEmulationEnabled", json{{"enabled", true}}, ctx.limits().exec_timeout);
}

// Where the keyboard focus is, seen from the field typing goes into (helpers.js holdsFocus): still
// there, gone elsewhere in the tab, or its document replaced (a key navigated it). The first check
// marks the document typing began in.
class FocusWatch {
 public:
  enum Where { Held, Left, Replaced };
  FocusWatch(Context& ctx, const std::string& tab, const std::string& sel)
      : m_ctx(ctx), m_tab(tab), m_sel(sel), m_frame(browser::Frames::frame_of(sel)), m_token(std::to_string(++s_count)) {}
  Result<Where> check() {
    bool first = !m_checked;
    m_checked = true;
    auto r = m_ctx.browser().call(m_tab, "holdsFocus", json::array({m_sel, m_token, first}), m_frame, m_ctx.limits().exec_timeout);
    if (!r && (r.error().cause == Cause::ContextGone || r.error().cause == Cause::PageNavigated)) return first ? Left : Replaced;
    if (!r) return tl::unexpected(r.error());
    if (!r->is_object()) return Left;
    if (r->value("gone", false)) return Replaced;
    bool in_document = r->value("document", false);
    if (first) m_document_focus = in_document;
    return r->value("active", false) && (in_document || !m_document_focus) ? Held : Left;
  }

 private:
  static inline std::atomic<uint64_t> s_count{0};
  Context& m_ctx;
  const std::string m_tab, m_sel, m_frame, m_token;
  bool m_checked = false, m_document_focus = false;
};

Result<json> type(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), sel = arg_string(args, 1);
  ToType typing = TRY(text_to_type(ctx, args.size() > 2 ? args[2] : json(""), "type"));
  const std::string& text = typing.text;
  auto at = TRY(actionable(ctx, tab, sel, {.editable = true}, "type", ctx.limits().action_timeout));
  TRY(secret_may_go(ctx, typing, tab, at, "type"));
  TRY(gate(ctx, "type", tab, sel, at, typing.secret.has_value()));
  if (is_date_input(get_str(at, "inputType")) && !typing.secret) {
    json set = TRY(set_date_field(ctx, tab, sel, get_str(at, "inputType"), text, "type"));
    return json{{"element", at.value("element", "")}, {"typed", text.size()}, {"value", set["set"]}};
  }
  start_typing(ctx, tab);
  TRY(click_at(ctx, tab, at));
  const std::string frame = browser::Frames::frame_of(sel);
  TRY(ctx.browser().call(tab, "prepareEdit", json::array({sel, "end"}), frame, ctx.limits().exec_timeout));
  std::vector<std::string> chars;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    chars.push_back(text.substr(i, len));
    i += len;
  }
  // The origin checked above is the field's frame's: each key goes only while the focus is still
  // in that field. One key at a time, then where the focus is: a page that moves it (to another
  // field, a hidden input, a frame of another origin) gets no key after the one it moved it on.
  // A key (Enter in a form) may replace the document: after the last one that is the typing done;
  // before it, the field is gone and the rest is not sent.
  FocusWatch watch(ctx, tab, sel);
  // A secret's length is not told, not even this way.
  auto count_text = [&](size_t sent) {
    return typing.secret ? fmt::format("some of the characters of [SECRET:{}]", typing.secret->name) : fmt::format("{} of {} characters", sent, chars.size());
  };
  auto focus_left = [&](size_t sent) -> Result<bool> {
    auto where = watch.check();
    if (!where) return reworded(where.error(), "type '{}' on tab {}: could not tell where the focus is after {}: {}", sel, tab, count_text(sent),
                                where.error().message);
    if (*where == FocusWatch::Replaced && sent == chars.size()) return false;
    if (*where == FocusWatch::Replaced)
      return errorf(Code::Aborted, "type '{}' on tab {}: the page was replaced after {} (a key navigated it); typing stopped and nothing "
                    "more was sent", sel, tab, count_text(sent));
    return *where == FocusWatch::Left;
  };
  auto stopped = [&](size_t sent) {
    return errorf(Code::Aborted,
                  "type '{}' on tab {}: the focus left the field after {} — the page moved it elsewhere (another field or frame), so "
                  "typing stopped and nothing more was sent; the field may hold only part of the text",
                  sel, tab, count_text(sent));
  };
  if (TRY(focus_left(0))) return stopped(0);
  for (size_t i = 0; i < chars.size(); ++i) {
    std::string ch = chars[i] == "\n" ? "Enter" : chars[i];
    InputEvents events;
    auto k = key_def(ch);
    if (k && !k->code.empty()) key_events(events, *k, std::isupper(static_cast<unsigned char>(ch[0])) ? 8 : 0);
    else events.emplace_back("Input.insertText", json{{"text", ch}});  // no key for it: insert as an IME would
    TRY(dispatch(ctx, tab, std::move(events)));
    if (TRY(focus_left(i + 1))) return stopped(i + 1);
  }
  // A secret's length is not told: the code has no need of it.
  if (typing.secret) return json{{"element", at.value("element", "")}, {"typed", "[SECRET:" + typing.secret->name + "]"}};
  return json{{"element", at.value("element", "")}, {"typed", text.size()}};
}

Result<json> fill(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  const json& data = args.size() > 1 ? args[1] : json();
  if (!data.is_object() || data.empty())
    return make_error(Code::InvalidArgument, "fill(tabId, formData): formData must be an object like {'#email': 'a@b.c'}");
  json filled = json::array();
  for (auto it = data.begin(); it != data.end(); ++it) {
    // In a replay, a field the key no longer names is found again from what was recorded.
    std::string sel = TRY(perception::replay_target(ctx, tab, "fill", it.key(), ctx.limits().action_timeout));
    const json& value = it.value();
    // <select>: pick the option; checkbox/radio: click when the state differs; else replace the text.
    auto kind = TRY(ctx.browser().call(tab, "controlKind", json::array({sel}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout));
    if (is_secret_handle(value)) kind = nullptr;  // a secret is always typed as text
    if (kind.is_array() && kind[0] == "SELECT") {
      json sel_args = json::array({tab, sel, value});
      TRY(select(ctx, sel_args));
      if (perception::recording(ctx)) perception::record_target(ctx, tab, "fill", sel, nullptr);
    } else if (kind.is_array() && (kind[1] == "checkbox" || kind[1] == "radio")) {
      bool want = value.is_boolean() ? value.get<bool>() : (value.is_string() ? !value.get<std::string>().empty() && value != "false" : !value.is_null());
      if (want != kind[2].get<bool>()) {
        auto at = TRY(actionable(ctx, tab, sel, {}, "fill", ctx.limits().action_timeout));
        TRY(gate(ctx, "fill", tab, sel, at));
        TRY(click_at(ctx, tab, at));
      }
    } else {
      ToType typing = TRY(text_to_type(ctx, value, "fill"));
      const std::string& text = typing.text;
      auto at = TRY(actionable(ctx, tab, sel, {.editable = true}, "fill", ctx.limits().action_timeout));
      TRY(secret_may_go(ctx, typing, tab, at, "fill"));
      TRY(gate(ctx, "fill", tab, sel, at, typing.secret.has_value()));
      if (kind.is_array() && kind[1].is_string() && is_date_input(kind[1].get<std::string>()) && !typing.secret) {
        TRY(set_date_field(ctx, tab, sel, kind[1].get<std::string>(), text, "fill"));
        filled.push_back(it.key());
        continue;
      }
      start_typing(ctx, tab);
      TRY(click_at(ctx, tab, at));
      TRY(ctx.browser().call(tab, "prepareEdit", json::array({sel, "select"}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout));
      // The text goes in as one edit, only while the focus is in the field whose origin was
      // checked (a page's focus handler may have moved it).
      FocusWatch watch(ctx, tab, sel);
      if (TRY(watch.check()) != FocusWatch::Held)
        return errorf(Code::Aborted, "fill '{}' on tab {}: the page moved the focus out of the field before its text went in; nothing was "
                      "typed into it", sel, tab);
      InputEvents events;
      if (text.empty()) key_events(events, *key_def("Delete"), 0);
      else events.emplace_back("Input.insertText", json{{"text", text}});
      TRY(dispatch(ctx, tab, std::move(events)));
    }
    filled.push_back(it.key());
  }
  return json{{"filled", filled}};
}

Result<json> select(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), sel = arg_string(args, 1);
  json value = args.size() > 2 ? args[2] : json();
  sel = TRY(perception::replay_target(ctx, tab, "select", sel, ctx.limits().action_timeout));
  if (auto hooks = ctx.hooks(); hooks && hooks->confirm) {
    auto target = TRY(ctx.browser().call(tab, "targetInfo", json::array({sel}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout));
    if (!target.is_null()) TRY(gate(ctx, "select", tab, sel, json{{"target", target}}));
  }
  auto deadline = Clock::now() + ctx.limits().action_timeout;
  json r;
  while (true) {
    r = TRY(ctx.browser().call(tab, "selectOption", json::array({sel, value}), browser::Frames::frame_of(sel), ctx.limits().exec_timeout));
    if (r.value("ok", false)) {
      if (perception::recording(ctx)) perception::record_target(ctx, tab, "select", sel, nullptr);
      return json{{"selected", r["selected"]}};
    }
    if (!r.value("missing", false) || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto info = ctx.browser().tab_info(tab);
  return errorf(r.value("missing", false) ? Code::NotFound : Code::InvalidArgument, "select: {} — selector '{}' on tab {} ({})",
                r.value("reason", "failed"), sel, tab, info ? info->url : "?");
}

Result<json> key_press(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), key = arg_string(args, 1);
  auto k = key_def(key);
  if (!k)
    return errorf(Code::InvalidArgument, "keyPress: unknown key '{}'; use a single character or a name like Enter, Tab, Escape, "
                  "Backspace, ArrowDown, PageDown, F5", key);
  int mods = modifier_bits(args.size() > 2 ? args[2] : json());
  InputEvents events;
  key_events(events, *k, mods);
  TRY(dispatch(ctx, tab, std::move(events)));
  return json(true);
}

// Scrolls with the mouse wheel at the viewport's centre, as a person would, then reports where
// the page is. direction: up | down | left | right | top | bottom.
Result<json> scroll(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), dir = arg_string(args, 1);
  auto state = TRY(ctx.browser().call(tab, "scrollState", json::array(), "", ctx.limits().exec_timeout));
  double vw = state.value("viewportWidth", 1280.0), vh = state.value("viewportHeight", 800.0);
  double amount = args.size() > 2 && args[2].is_number() ? args[2].get<double>() : vh * 0.8;
  double dx = 0, dy = 0;
  if (dir == "down") dy = amount;
  else if (dir == "up") dy = -amount;
  else if (dir == "right") dx = amount;
  else if (dir == "left") dx = -amount;
  else if (dir == "bottom") dy = state.value("height", 0.0);
  else if (dir == "top") dy = -state.value("height", 0.0) - state.value("y", 0.0);
  else return errorf(Code::InvalidArgument, "scroll: direction must be up, down, left, right, top or bottom (got '{}')", dir);
  TRY(ctx.browser().send(tab, "Input.dispatchMouseEvent",
                       {{"type", "mouseWheel"}, {"x", vw / 2}, {"y", vh / 2}, {"deltaX", dx}, {"deltaY", dy}}, ctx.limits().exec_timeout));
  // The wheel scrolls asynchronously; wait (briefly) for the position to settle.
  json before = state, now = state;
  for (int i = 0; i < 20; ++i) {
    now = TRY(ctx.browser().call(tab, "scrollStateSettled", json::array(), "", ctx.limits().exec_timeout));
    if (now != before) {
      before = now;
      continue;
    }
    if (i >= 2) break;
  }
  now.erase("width");
  now.erase("viewportWidth");
  return now;
}

}  // namespace ouro::actions::impl
