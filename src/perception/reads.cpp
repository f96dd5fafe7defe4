// Pages as compact affordances: the page engine (browser/page/affordances/, in the helpers'
// isolated world) builds the MiniPCD snapshot, the details of refs, the ranking of find() and the
// rows of extract(); here they are asked for — in the top document and in every cross-origin
// frame the engine cannot enter (browser/frames.cpp), whose results are merged in with their
// frame-prefixed refs.
#include "perception/reads.h"
#include "perception/merge.h"
#include "base/steady_clock.h"
#include "browser/frames.h"

#include <algorithm>
#include <map>
#include <set>

namespace ouro::perception {


namespace {

constexpr size_t kMaxFrames = 10;  // cross-origin frames looked into per call
constexpr int kMaxFrameDepth = 3;
// All of one call's work in cross-origin frames: a frame that does not answer (a busy renderer)
// costs this much at most, and the call answers with what it has.
constexpr std::chrono::milliseconds kFramesBudget{3000};
using Clock = ouro::SteadyClock;

// Calls the engine's function `fn` (Browser::call) in the helpers world of the tab's top document or of a frame.
Result<json> engine(const Reader& r, const std::string& tab, const std::string& frame, const std::string& fn, const json& args, const char* what,
                    std::optional<Clock::time_point> deadline = std::nullopt) {
  auto timeout = r.timeout;
  if (deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
    if (left.count() <= 0) return errorf(Code::DeadlineExceeded, "{} on tab {}: no time left for frame {}", what, tab, frame);
    timeout = std::min(timeout, left);
  }
  auto out = r.browser.call(tab, fn, args, frame, timeout);
  if (!out) return reworded(out.error(), "{} on tab {}{}: {}", what, tab, frame.empty() ? "" : " (frame " + frame + ")", out.error().message);
  return out;
}

// The frame a call is confined to by its `within` option ("" = the top document and its frames).
std::string within_frame(const json& opts) {
  return opts.contains("within") && opts["within"].is_string() ? browser::Frames::frame_of(opts["within"].get<std::string>()) : "";
}
bool has_within(const json& opts) { return opts.contains("within") && !opts["within"].is_null(); }

struct Entered {
  std::string prefix, ref, url, error;
};

// Enters the cross-origin frames listed by `frames` (the engine's [{ref, url}]) in world `scope`,
// and theirs below them, breadth first; `seed` is the top document's list.
std::vector<Entered> enter_frames(const Reader& r, const std::string& tab, const json& seed, Clock::time_point deadline) {
  std::vector<Entered> out;
  std::vector<std::pair<std::string, json>> level = {{"", seed}};
  for (int depth = 0; depth < kMaxFrameDepth && !level.empty(); ++depth) {
    std::vector<std::pair<std::string, json>> next;
    for (const auto& [scope, list] : level) {
      if (!list.is_array()) continue;
      for (const auto& f : list) {
        if (out.size() >= kMaxFrames) return out;
        Entered e{"", get_str(f, "ref"), get_str(f, "url"), ""};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
          e.error = "not looked into: the time for frames ran out";
          out.push_back(e);
          continue;
        }
        auto prefix = r.browser.frames().enter(tab, scope, e.ref, std::min(left, r.timeout));
        if (!prefix) e.error = prefix.error().message;
        else e.prefix = *prefix;
        out.push_back(e);
        if (!e.prefix.empty())
          if (auto inner = engine(r, tab, e.prefix, "frames", json::array(), "frames", deadline); inner && inner->is_array() && !inner->empty())
            next.emplace_back(e.prefix, *inner);
      }
    }
    level = std::move(next);
  }
  return out;
}

// A frame's engine judges "above the fold" in the frame's own viewport: items of a frame that
// begins below the tab's first 1.2 viewports lose the flag.
void unfold_low_frames(const Reader& r, const std::string& tab, json& snap, const std::vector<Entered>& entered, Clock::time_point deadline) {
  if (entered.empty()) return;
  auto height = r.browser.call(tab, "viewportHeight", json::array(), "", r.timeout);
  if (!height || !height->is_number()) return;
  std::set<std::string> low;
  for (const auto& e : entered) {
    if (e.prefix.empty() || Clock::now() >= deadline) continue;
    auto off = r.browser.frames().offset(tab, e.prefix, r.timeout, false);
    if (off && off->second > 1.2 * height->get<double>()) low.insert(e.prefix + "e");
  }
  if (low.empty()) return;
  auto in_low = [&](const std::string& ref) {
    for (const auto& p : low)
      if (ref.rfind(p, 0) == 0) return true;
    return false;
  };
  if (snap.contains("actions") && snap["actions"].is_array())
    for (auto& a : snap["actions"])
      if (a.contains("fold") && in_low(get_str(a, "ref"))) a.erase("fold");
}

}  // namespace

Result<json> snapshot(const Reader& r, const std::string& tab, json opts) {
  if (!opts.is_object()) opts = json::object();
  opts.erase("refPrefix");  // the host's to set
  if (std::string frame = within_frame(opts); !frame.empty()) return engine(r, tab, frame, "snapshot", json::array({opts}), "snapshot");
  json top = TRY(engine(r, tab, "", "snapshot", json::array({opts}), "snapshot"));
  if (!top.is_object() || has_within(opts) || !top.contains("frames")) return top;
  auto deadline = Clock::now() + kFramesBudget;
  auto entered = enter_frames(r, tab, top["frames"], deadline);
  json frames = json::array();
  std::vector<json> subs;
  for (const auto& e : entered) {
    json f = {{"ref", e.ref}, {"url", e.url}};
    if (!e.error.empty()) {
      f["error"] = e.error;
    } else if (auto sub = engine(r, tab, e.prefix, "snapshot", json::array({opts}), "snapshot", deadline); !sub) {
      f["frame"] = e.prefix;
      f["error"] = sub.error().message;
    } else {
      f["frame"] = e.prefix;
      if (sub->contains("title") && !get_str(*sub, "title").empty()) f["title"] = get_str(*sub, "title");
      if (sub->contains("error")) f["error"] = (*sub)["error"];
      subs.push_back(std::move(*sub));
    }
    frames.push_back(std::move(f));
  }
  top["frames"] = std::move(frames);
  merge_lists(top, subs, opts);
  unfold_low_frames(r, tab, top, entered, deadline);
  if (top.contains("more") && !top.contains("hint"))
    top["hint"] = "More via snapshot({text, kind, topK, within}) or find(\"description\"); rows via extract({collection: ref}).";
  fit_snapshot(top);
  return top;
}

Result<json> details(const Reader& r, const std::string& tab, json refs) {
  if (refs.is_null()) refs = json::array();
  if (refs.is_string()) refs = json::array({refs});
  if (!refs.is_array()) return errorf(Code::InvalidArgument, "details: refs must be a ref or an array of refs");
  // By frame, each group in one call; answers go back in the order asked.
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < refs.size() && i < 200; ++i)
    groups[refs[i].is_string() ? browser::Frames::frame_of(refs[i].get<std::string>()) : ""].push_back(i);
  json out = json::array();
  for (size_t i = 0; i < refs.size() && i < 200; ++i) out.push_back(nullptr);
  for (const auto& [frame, idx] : groups) {
    json list = json::array();
    for (size_t i : idx) list.push_back(refs[i]);
    auto got = engine(r, tab, frame, "details", json::array({list}), "details");
    std::optional<std::pair<double, double>> offset;
    std::vector<std::string> path;
    if (got && !frame.empty()) {
      auto off = r.browser.frames().offset(tab, frame, r.timeout, false);
      if (off) offset = *off;
      if (auto p = r.browser.frames().path(tab, frame)) path = *p;
    }
    for (size_t k = 0; k < idx.size(); ++k) {
      json d = got && got->is_array() && k < got->size() ? (*got)[k] : json{{"ref", refs[idx[k]]}, {"error", got ? "no answer" : got.error().message}};
      if (!frame.empty() && d.is_object() && !d.contains("error")) {
        if (offset && d.contains("rect") && d["rect"].is_object()) {
          d["rect"]["x"] = std::round(d["rect"].value("x", 0.0) + offset->first);
          d["rect"]["y"] = std::round(d["rect"].value("y", 0.0) + offset->second);
        }
        json fp = json::array();
        for (auto& p : path) fp.push_back(p);
        for (auto& p : get_array(d, "framePath")) fp.push_back(p);
        d["framePath"] = std::move(fp);
        d["frame"] = frame;
      }
      out[idx[k]] = std::move(d);
    }
  }
  return out;
}

Result<json> find(const Reader& r, const std::string& tab, const std::string& description, json opts) {
  if (!opts.is_object()) opts = json::object();
  if (std::string frame = within_frame(opts); !frame.empty())
    return engine(r, tab, frame, "find", json::array({description, opts}), "find");
  json top = TRY(engine(r, tab, "", "find", json::array({description, opts}), "find"));
  if (has_within(opts) || !top.is_array()) return top;
  auto cross = engine(r, tab, "", "frames", json::array(), "find");
  if (!cross || !cross->is_array() || cross->empty()) return top;
  auto deadline = Clock::now() + kFramesBudget;
  for (const auto& e : enter_frames(r, tab, *cross, deadline)) {
    if (e.prefix.empty()) continue;
    if (auto sub = engine(r, tab, e.prefix, "find", json::array({description, opts}), "find", deadline); sub && sub->is_array())
      for (auto& c : *sub) top.push_back(c);
  }
  std::stable_sort(top.begin(), top.end(), [](const json& a, const json& b) { return a.value("score", 0.0) > b.value("score", 0.0); });
  size_t k = opts.contains("topK") && opts["topK"].is_number() ? static_cast<size_t>(std::clamp(opts["topK"].get<double>(), 1.0, 100.0)) : 10;
  if (top.size() > k) top.erase(top.begin() + static_cast<long>(k), top.end());
  return top;
}

Result<json> extract(const Reader& r, const std::string& tab, json opts) {
  if (!opts.is_object()) opts = json::object();
  std::string frame = opts.contains("collection") && opts["collection"].is_string()
                          ? browser::Frames::frame_of(opts["collection"].get<std::string>())
                          : "";
  return engine(r, tab, frame, "extract", json::array({opts}), "extract");
}


Result<json> read(const Reader& r, const std::string& tab, const char* fn, json args, const std::string& what, const std::string& selector) {
  auto out = TRY(r.browser.call(tab, fn, std::move(args), browser::Frames::frame_of(selector), r.timeout));
  if (out.is_null() && !selector.empty()) {
    auto info = r.browser.tab_info(tab);
    return errorf(Code::NotFound, "{}: no element matches selector '{}' on tab {} ({})", what, selector, tab, info ? info->url : "?");
  }
  return out;
}

}  // namespace ouro::perception
