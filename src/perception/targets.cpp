#include "perception/targets.h"
#include "base/steady_clock.h"

#include "base/text.h"
#include "browser/browser.h"
#include "browser/frames.h"
#include "safety/secrets.h"

#include <fmt/format.h>

#include <thread>

namespace ouro::perception {

using host::Context;

namespace {

// Selectors longer than this are not recorded (a clipped one would never match the code again),
// and a healed one this long is not taken.
constexpr size_t kMaxSelector = 500;

bool healable(const json& h) { return get_bool(h, "ok") && !get_str(h, "selector").empty() && get_str(h, "selector").size() <= kMaxSelector; }

using Clock = ouro::SteadyClock;


// What heal.js's heal() may take for an action: a text field for typing, a list for select, …
std::string verb_for(const std::string& action, const json& details) {
  if (action == "getText" || action == "getDOM") return "read";
  if (action == "type") return "type";
  if (action == "select") return "select";
  if (action == "upload") return "upload";
  if (action == "fill") {
    std::string role = get_str(details, "role"), tag = get_str(details, "tag");
    if (tag == "select") return "select";
    if (role == "checkbox" || role == "radio" || role == "switch") return "click";
    return "fill-text";
  }
  return "click";
}

std::string candidates_text(const json& cands) {
  std::string out;
  for (const auto& c : cands.is_array() ? cands : json::array()) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} \"{}\" {:.2f}", get_str(c, "role", "?"), clip_text(get_str(c, "name"), 60), get_num(c, "score"));
  }
  return out.empty() ? "none" : out;
}

}  // namespace

bool recording(const Context& ctx) {
  auto hooks = ctx.hooks();
  return hooks && hooks->on_record;
}

void record_target(Context& ctx, const std::string& tab, const std::string& action, const std::string& selector, const json& details) {
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->on_record || selector.size() > kMaxSelector) return;
  json d = details;
  if (d.is_null()) {
    auto r = ctx.browser().call(tab, "identifySelector", json::array({selector}), browser::Frames::frame_of(selector), ctx.limits().exec_timeout);
    if (!r || !r->is_object()) return;
    d = std::move(*r);
  }
  if (!d.is_object() || d.contains("error")) return;
  // What a read read (its text) may show a secret the run typed: never kept in a script.
  if (ctx.secrets()) ctx.secrets()->scrub(d);
  // Bounded: the page clips every string; a page that still sends a lot is not recorded.
  if (dump_json(d).size() > 4000) return;
  hooks->on_record("target", json{{"action", action}, {"selector", selector}, {"tab", tab}, {"details", std::move(d)}});
}

std::string describe_details(const json& d) {
  std::string out = fmt::format("{} \"{}\"", get_str(d, "role", get_str(d, "tag", "element")), clip_text(get_str(d, "name"), 80));
  std::vector<std::string> more;
  if (auto l = get_str(d, "label"); !l.empty() && l != get_str(d, "name")) more.push_back("label \"" + clip_text(l, 60) + "\"");
  if (auto p = get_str(d, "placeholder"); !p.empty()) more.push_back("placeholder \"" + clip_text(p, 60) + "\"");
  if (const json& lm = get_field(d, "landmark"); lm.is_object())
    more.push_back("in " + get_str(lm, "role") + (get_str(lm, "name").empty() ? "" : " \"" + clip_text(get_str(lm, "name"), 40) + "\""));
  if (auto h = get_str(d, "heading"); !h.empty()) more.push_back("under \"" + clip_text(h, 60) + "\"");
  if (const json& a = get_field(d, "attrs"); a.is_object()) {
    for (const char* k : {"name", "type", "href", "data-testid"})
      if (auto v = get_str(a, k); !v.empty()) more.push_back(fmt::format("{}={}", k, clip_text(v, 60)));
  }
  if (!more.empty()) out += " (" + fmt::format("{}", fmt::join(more, ", ")) + ")";
  return out;
}

Result<std::string> replay_target(Context& ctx, const std::string& tab, const std::string& action, const std::string& selector,
                                  std::chrono::milliseconds timeout) {
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->recorded) return selector;
  auto rec = hooks->recorded(action, selector);
  if (!rec || !rec->is_object()) return selector;
  const json details = get_field(*rec, "details");
  if (!details.is_object() || (get_str(details, "role").empty() && (verb_for(action, details) != "read" || get_str(details, "tag").empty())))
    return selector;
  const int step = static_cast<int>(get_int(*rec, "step"));
  const std::string frame = browser::Frames::frame_of(selector);
  const std::string verb = verb_for(action, details);
  const json check_args = json::array({selector, details}), heal_args = json::array({details, verb});
  auto deadline = Clock::now() + timeout;
  Clock::time_point bad_since{};
  std::string why = "no element matches it", last_healed;
  json last_heal;
  auto healed = [&](const json& h) -> std::string {
    std::string next = get_str(h, "selector");
    if (hooks->on_record && selector.size() <= kMaxSelector) {
      json ev = {{"step", step}, {"action", action}, {"tab", tab}, {"old", selector}, {"new", next},
                 {"confidence", get_num(h, "confidence")}, {"candidates", get_field(h, "candidates")}, {"reason", why}};
      if (ctx.secrets()) ctx.secrets()->scrub(ev);  // names and labels the page shows may hold one
      hooks->on_record("heal", std::move(ev));
    }
    return next;
  };
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto wait = std::max(left, std::chrono::milliseconds(1000));
    auto c = ctx.browser().call(tab, "check", check_args, frame, wait);
    if (!c) return reworded(c.error(), "{} '{}' on tab {}: {}", action, selector, tab, c.error().message);
    std::string state = get_str(*c, "state", "ok");
    if (state == "ok") return selector;
    if (state == "weak") {
      // It resolves, but fits the record badly: another element takes it only by a clear margin.
      auto h = ctx.browser().call(tab, "heal", heal_args, frame, wait);
      if (h && healable(*h) && get_num(*h, "confidence") >= get_num(*c, "score") + 0.2) {
        why = fmt::format("'{}' names an element that fits the recording poorly ({:.2f})", selector, get_num(*c, "score"));
        return healed(*h);
      }
      return selector;
    }
    why = get_str(*c, "why", why);
    auto now = Clock::now();
    if (bad_since == Clock::time_point{}) bad_since = now;
    // A page still loading misses elements for a moment: heal after 400 ms, and take a match only
    // when two looks in a row agree on it.
    if (now - bad_since >= std::chrono::milliseconds(400) && frame.empty()) {
      auto h = ctx.browser().call(tab, "heal", heal_args, frame, wait);
      if (!h) return reworded(h.error(), "{} '{}' on tab {}: {}", action, selector, tab, h.error().message);
      last_heal = *h;
      if (healable(*h)) {
        std::string sel = get_str(*h, "selector");
        if (sel == last_healed) return healed(*h);
        last_healed = sel;
      } else {
        last_healed.clear();
      }
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(last_healed.empty() ? 100 : 150));
  }
  std::string heal_why = last_heal.is_object() ? get_str(last_heal, "why", "no confident match") :
                         frame.empty() ? "no confident match" : "a target inside a cross-origin frame is not healed";
  std::string message = fmt::format("{}: step {} of the replay: '{}' {}; it looked for {}; healing found {}; best candidates: {}", action, step,
                                    clip_text(selector, 200), why, describe_details(details), heal_why, candidates_text(get_field(last_heal, "candidates")));
  if (ctx.secrets()) message = ctx.secrets()->scrub_text(std::move(message));
  return make_error(Code::NotFound, message);
}

}  // namespace ouro::perception
