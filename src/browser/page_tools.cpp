// Tools pages declare for agents (WebMCP, https://webmachinelearning.github.io/webmcp/), through the
// DevTools Protocol's experimental WebMCP domain: every page session enables it as it is configured,
// so the tools a document registers — in the page or a frame sharing its process — are known as
// they appear. Chromium tells of new tools but not of those a new document dropped, so a frame's
// tools go when it navigates or detaches. What a page declares is capped (names, descriptions,
// schemas, count), since a page may declare anything.
#include "base/log.h"
#include "base/text.h"
#include "browser/browser_impl.h"

#include <fmt/format.h>

namespace ouro::browser {

namespace {

constexpr size_t kNameChars = 128;
constexpr size_t kDescriptionChars = 4000;
constexpr size_t kSchemaChars = 16000;
// Answers are kept until their caller takes them; a page that calls its own tools in a loop must
// not make them a store: a few, each small (a caller's result is cut to 100,000 characters anyway).
constexpr size_t kAnswersKept = 32;
constexpr size_t kOutputBytes = 256 << 10;
constexpr const char* kNoPageTools =
    "this browser does not expose page tools (WebMCP). ouro's own Chromium has them; start Chrome with "
    "--enable-features=WebMCPTesting,DevToolsWebMCPSupport for them there. Use the page's controls instead";

// A tool as the page declared it, cut to what is kept.
json kept_tool(const json& t, const std::string& frame_url) {
  json out = {{"name", clip_line(get_str(t, "name"), kNameChars)},
              {"description", clip_text(get_str(t, "description"), kDescriptionChars)},
              {"frameId", get_str(t, "frameId")},
              {"frameUrl", clip_text(frame_url, 2000)}};
  const json& schema = get_field(t, "inputSchema");
  if (schema.is_object()) {
    if (std::string text = dump_json(schema); text.size() <= kSchemaChars) out["inputSchema"] = schema;
    else out["inputSchema"] = {{"type", "object"}, {"note", "the page's schema is larger than ouro keeps"}};
  } else {
    out["inputSchema"] = {{"type", "object"}};
  }
  json annotations = json::object();
  const json& a = get_field(t, "annotations");
  for (const char* key : {"readOnly", "untrustedContent", "consequential", "debugging", "autosubmit"})
    if (get_field(a, key).is_boolean()) annotations[key] = a[key];
  out["annotations"] = std::move(annotations);
  if (get_field(t, "backendNodeId").is_number_integer()) out["declarative"] = true;
  return out;
}

}  // namespace

void Browser::Impl::enable_page_tools(const std::string& sid, const std::string& frame_id, const std::string& frame_url) {
  {
    std::lock_guard lock(mutex);
    auto& of = page_tools[sid];  // known, waiting for the answer
    if (!frame_id.empty()) of.frame_urls[frame_id] = frame_url;
  }
  std::weak_ptr<Impl> weak = shared_from_this();
  conn->send("WebMCP.enable", json::object(), sid, 10s, [weak, sid](Result<json> r) {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex);
      auto it = self->page_tools.find(sid);
      if (it == self->page_tools.end()) return;  // the session went meanwhile
      it->second.supported = r.has_value();
    }
    self->changed.notify_all();
  });
}

bool Browser::Impl::page_tool_event(const cdp::Event& ev) {
  const std::string& m = ev.method;
  bool ours = m.rfind("WebMCP.", 0) == 0;
  if (!ours && m != "Page.frameNavigated" && m != "Page.frameDetached" && m != "Target.detachedFromTarget") return false;
  bool wake = false;
  {
    std::lock_guard lock(mutex);
    if (m == "Target.detachedFromTarget") {
      page_tools.erase(get_str(ev.params, "sessionId"));
      return false;  // the tracker hears of it too
    }
    auto it = page_tools.find(ev.session_id);
    if (m == "WebMCP.toolResponded") {
      std::string id = get_str(ev.params, "invocationId");
      if (!id.empty() && !tool_answers.count(id)) {
        json answer = ev.params;
        // A page can answer with anything: what is kept waiting for its caller stays small.
        if (answer.contains("output") && dump_json(answer["output"]).size() > kOutputBytes) {
          answer.erase("output");
          answer["status"] = "Error";
          answer["errorText"] = fmt::format("its output was larger than {} KB", kOutputBytes >> 10);
        }
        answer.erase("exception");  // a remote object: its description is all that is read
        if (get_field(ev.params, "exception").is_object())
          answer["errorText"] = clip_text(get_str(ev.params["exception"], "description"), 2000);
        tool_answers[id] = std::move(answer);
        tool_answer_order.push_back(id);
        while (tool_answer_order.size() > kAnswersKept) {
          tool_answers.erase(tool_answer_order.front());
          tool_answer_order.pop_front();
        }
        wake = true;
      }
    } else if (it != page_tools.end()) {
      auto& of = it->second;
      auto drop_frame = [&](const std::string& frame) {
        std::erase_if(of.tools, [&](const json& t) { return get_str(t, "frameId") == frame; });
      };
      if (m == "Page.frameNavigated") {
        const json& frame = get_field(ev.params, "frame");
        std::string id = get_str(frame, "id");
        // A new document: the old one's tools are gone (Chromium does not say so).
        if (!frame.contains("parentId")) {
          of.tools.clear();
          of.frame_urls.clear();
          of.overflow = false;
        } else {
          drop_frame(id);
        }
        if (of.frame_urls.size() < 256 || of.frame_urls.count(id)) of.frame_urls[id] = get_str(frame, "url");
      } else if (m == "Page.frameDetached") {
        std::string id = get_str(ev.params, "frameId");
        drop_frame(id);
        of.frame_urls.erase(id);
      } else if (m == "WebMCP.toolsAdded") {
        for (const auto& t : get_field(ev.params, "tools")) {
          std::string name = get_str(t, "name"), frame = get_str(t, "frameId");
          if (name.empty()) continue;
          // A name registered again in its frame replaces the earlier one.
          std::erase_if(of.tools, [&](const json& k) { return get_str(k, "frameId") == frame && get_str(k, "name") == name; });
          if (of.tools.size() >= PageTools::kMaxPageTools) {
            of.overflow = true;
            continue;
          }
          auto url = of.frame_urls.find(frame);
          of.tools.push_back(kept_tool(t, url == of.frame_urls.end() ? "" : url->second));
        }
      } else if (m == "WebMCP.toolsRemoved") {
        for (const auto& t : get_field(ev.params, "tools")) {
          std::string name = get_str(t, "name"), frame = get_str(t, "frameId");
          std::erase_if(of.tools, [&](const json& k) { return get_str(k, "frameId") == frame && get_str(k, "name") == name; });
        }
      }
    }
  }
  if (wake) changed.notify_all();
  return ours;
}

std::vector<std::string> Browser::Impl::page_tool_sessions(const Tab& tab) const {
  std::vector<std::string> out{tab.session_id};
  for (const auto& [sid, child] : children)
    if (child.tab == tab.id && child.type == "iframe" && page_tools.count(sid)) out.push_back(sid);
  return out;
}

Result<json> PageTools::list(const std::string& tab_id, Millis timeout) {
  std::unique_lock lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  const std::string sid = tab->session_id;
  auto deadline = Clock::now() + timeout;
  m_impl->wait_until(lock, deadline, [&] {
    auto it = m_impl->page_tools.find(sid);
    return it == m_impl->page_tools.end() || it->second.supported.has_value();
  });
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  auto it = m_impl->page_tools.find(sid);
  if (it == m_impl->page_tools.end() || it->second.supported == false) return errorf(Code::Unavailable, "{}", kNoPageTools);
  if (!it->second.supported) return errorf(Code::DeadlineExceeded, "page tools of {}: the browser did not answer within {} ms", tab_id, timeout.count());
  json out = json::array();
  for (const auto& s : m_impl->page_tool_sessions(*tab))
    if (auto of = m_impl->page_tools.find(s); of != m_impl->page_tools.end())
      for (const auto& t : of->second.tools)
        if (out.size() < kMaxPageTools) out.push_back(t);
  if (!out.empty()) return out;
  // A Chromium with the DevTools domain but without the pages' API (WebMCPTesting off) lists
  // nothing for ever: say so rather than "no tools".
  lock.unlock();
  auto has_api = m_impl->conn->call("Runtime.evaluate", {{"expression", "typeof document.modelContext"}, {"returnByValue", true}}, sid, timeout);
  if (has_api && get_str(get_field(*has_api, "result"), "value") == "undefined")
    return errorf(Code::Unavailable, "{}", kNoPageTools);
  return out;
}

Result<json> PageTools::call(const std::string& tab_id, const std::string& frame_id, const std::string& name, const json& input,
                                     Millis timeout) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = TRY(m_impl->find_tab(tab_id));
    sid = tab->session_id;
    // The session of the frame that declared it (an out-of-process frame has its own).
    for (const auto& s : m_impl->page_tool_sessions(*tab))
      if (auto of = m_impl->page_tools.find(s); of != m_impl->page_tools.end())
        for (const auto& t : of->second.tools)
          if (get_str(t, "frameId") == frame_id && get_str(t, "name") == name) sid = s;
  }
  auto start = Clock::now();
  auto invoked = m_impl->conn->call("WebMCP.invokeTool", {{"frameId", frame_id}, {"toolName", name}, {"input", input.is_object() ? input : json::object()}},
                                    sid, timeout);
  if (!invoked) {
    if (invoked.error().code == Code::NotFound || invoked.error().code == Code::Unavailable) return tl::make_unexpected(invoked.error());
    return errorf(Code::FailedPrecondition, "the page did not take the call of its tool '{}': {}", name, clip_line(invoked.error().message, 300));
  }
  std::string id = get_str(*invoked, "invocationId");
  if (id.empty()) return errorf(Code::Internal, "the browser did not name the call of the page's tool '{}'", name);
  json answer;
  {
    std::unique_lock lock(m_impl->mutex);
    bool done = m_impl->wait_until(lock, start + timeout, [&] { return m_impl->tool_answers.count(id) > 0; });
    if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
    if (!done) {
      lock.unlock();
      m_impl->conn->send("WebMCP.cancelInvocation", {{"invocationId", id}}, sid, 5s, [](Result<json>) {});
      return errorf(Code::DeadlineExceeded, "the page's tool '{}' did not answer within {} ms; it was cancelled", name, timeout.count());
    }
    answer = std::move(m_impl->tool_answers[id]);
    m_impl->tool_answers.erase(id);
    std::erase(m_impl->tool_answer_order, id);
  }
  std::string status = get_str(answer, "status");
  if (status == "Completed") return answer.contains("output") ? answer["output"] : json(nullptr);
  std::string why = get_str(answer, "errorText");
  if (status == "Canceled") return errorf(Code::Aborted, "the page's tool '{}' was cancelled{}", name, why.empty() ? "" : ": " + clip_line(why, 300));
  return errorf(Code::FailedPrecondition, "the page's tool '{}' failed: {}", name, why.empty() ? "it gave no reason" : clip_line(why, 500));
}

}  // namespace ouro::browser
