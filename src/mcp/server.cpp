#include "mcp/server.h"
#include "base/clock.h"
#include "safety/secrets.h"

#include "actions/host.h"
#include "actions/registry.h"
#include "agent/run.h"
#include "base/text.h"
#include "jsrt/summary.h"
#include "llm/provider.h"
#include "mcp/sampling_provider.h"
#include "runs/run.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <thread>
#include <mutex>
#include <unistd.h>

namespace ouro::mcp {

namespace {

// What leaves the REPL for the client's model is bounded whatever the value's size (principle 2).
constexpr size_t kPreviewChars = 4000;
constexpr size_t kMaxLogLines = 20;
constexpr size_t kMaxResultChars = 40000;  // a snapshot is ~4,000 tokens by design; this is a backstop
constexpr std::chrono::milliseconds kActLoadWait{10000};  // browser_act's wait for the page its last step led to

// The MCP tools, declared once: name, title and, for the registry's capabilities, the capability
// whose description, parameter schema and risk class (actions/registry.cpp) the tool takes.
// browser_exec and browser_task run code and whole tasks: they say what they may do themselves.
struct ToolDecl {
  const char* tool;
  const char* title;
  const char* capability;  // nullptr: not a registry capability
};
constexpr ToolDecl kTools[] = {
    {"browser_exec", "Run JavaScript in the browser REPL", nullptr},
    {"browser_snapshot", "Snapshot the page's actions", "snapshot"},
    {"browser_act", "Act on the page", "act"},
    {"browser_tabs", "List the open tabs", "tabs"},
    {"browser_screenshot", "Screenshot the page", "screenshot"},
    {"browser_page_tools", "List the page's own tools (WebMCP)", "tools"},
    {"browser_call_page_tool", "Call one of the page's own tools (WebMCP)", "callTool"},
    {"browser_task", "Run a whole browser task", nullptr},
};

// Tool annotations (MCP 2025-06-18, server/tools: ToolAnnotations) — hints a host uses to decide
// what to run without asking. From the registry's risk class: a capability that reads (and puts
// nothing into the page) is read-only and idempotent; one that acts on a page (clicks, typing,
// form submits) may destroy what it acts on; everything but ouro's own tab list touches the web
// (open world). Code and tasks may do anything a page allows.
json annotations(const char* title, const actions::Capability* cap) {
  bool read_only = false, destructive = true, idempotent = false, open_world = true;
  if (cap) {
    read_only = !cap->changes_page && (cap->risk == actions::Risk::Read || cap->risk == actions::Risk::Local);
    destructive = cap->risk == actions::Risk::Act || cap->risk == actions::Risk::Storage;
    idempotent = read_only;
    open_world = cap->risk != actions::Risk::Local;
  }
  return {{"title", title}, {"readOnlyHint", read_only}, {"destructiveHint", destructive}, {"idempotentHint", idempotent}, {"openWorldHint", open_world}};
}

const char* kExecDescription =
    "Runs JavaScript in ouro's browser REPL (top-level await; the last expression is the value) and returns the value's metadata "
    "summary — type, size, schema, first items — and a preview of at most 4,000 characters, never the whole value. State persists "
    "between calls: keep data in variables or env (env.rows = await extract(activeTab)) and look at it piece by piece. The browser API "
    "(openTab, navigate, click, type, snapshot, find, extract, read, getText, execInTab, …) takes a tab id first; `activeTab` and "
    "`tabs` are predeclared.";

const char* kTaskDescription =
    "Runs a whole browser task with ouro's own agent (a model writing REPL code, several iterations) in a browser context of its own, "
    "and returns its final answer. Progress is reported per iteration. Give the start URLs when the task needs particular sites. "
    "Its model is the one configured for ouro (an API key); without one, it asks your model through MCP sampling "
    "(sampling/createMessage) when this client offers sampling, and otherwise answers an error saying how to configure a key.";

// browser_exec's description: the text above and the REPL's functions as the registry declares
// them (names and parameters; the full reference is `ouro help api`).
std::string exec_description() {
  std::string text = std::string(kExecDescription) + "\n\nFunctions:";
  std::string group;
  for (const auto& c : actions::registry()) {
    if (c.internal || c.property) continue;
    if (c.group != group) {
      group = c.group;
      text += "\n" + group + ": ";
    } else {
      text += ", ";
    }
    std::string params;
    for (const auto& p : c.params) params += (params.empty() ? "" : ", ") + p.name + (p.optional ? "?" : "");
    text += c.name + "(" + params + ")";
  }
  return text;
}

json tool_entry(const ToolDecl& d, const std::string& description, json schema, const actions::Capability* cap) {
  return {{"name", d.tool}, {"title", d.title}, {"description", description}, {"inputSchema", std::move(schema)}, {"annotations", annotations(d.title, cap)}};
}

// The capability's parameters as a tool's input schema, its tab made optional (the active tab).
json registry_input_schema(const actions::Capability& cap) {
  json schema = actions::params_json_schema(cap);
  if (schema.contains("properties") && schema["properties"].contains("tabId")) {
    schema["properties"]["tabId"]["description"] = "The tab (t1, t2, … as browser_tabs lists them); default: the active tab";
    json required = json::array();
    for (const auto& r : get_array(schema, "required"))
      if (r != "tabId") required.push_back(r);
    if (required.empty()) schema.erase("required");
    else schema["required"] = required;
  }
  return schema;
}

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// What a failed evaluation says, once: "the code threw TypeError: nope (line 2)", or for a plain
// Error "the code threw an error: click: no element matches …". Nothing starts with "Error:":
// hosts put that in front of an error result themselves.
std::string eval_error_text(const jsrt::EvalResult& r) {
  std::string message = r.error_message;
  for (const std::string& prefix : {r.error_name.empty() ? std::string("Error: ") : r.error_name + ": ", std::string("Error: ")})
    while (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (r.kind == "interrupted") return "browser_exec: the evaluation was interrupted; the REPL's state is kept";
  if (!r.kind.empty())
    return fmt::format("browser_exec: the evaluation was stopped ({}): {}. The REPL's state is kept; try smaller steps", r.kind, message);
  std::string s = "browser_exec: the code threw " + (r.error_name.empty() || r.error_name == "Error" ? std::string("an error: ") : r.error_name + ": ") + message;
  if (s.find("line " + std::to_string(r.error_line)) == std::string::npos) s += jsrt::error_place(r);
  return s + ". The REPL's state is kept: fix the code and run it again";
}

// A host call's error as the tool's: "browser_act: …", without the capability's own "act: ".
std::string host_error_text(const std::string& tool, const actions::Capability& cap, std::string message) {
  for (const std::string& prefix : {cap.name + ": ", std::string("Error: ")})
    while (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return tool + ": " + message;
}

// browser_act's answer, each step once: what was done, where the page is now, what went wrong.
//   Done: 2 steps in 0.3 s.
//   1. type "Kathy" into the Name field — typed "Kathy" into textbox "Name" (e3)
//   2. click the Sign in link — clicked link "Sign in" (e7)
//   Page now: "Sign in" http://…/login (loaded)
std::string act_text(const json& r, const std::string& page) {
  const json& steps = get_array(r, "steps");
  const bool ok = get_bool(r, "ok");
  size_t failed_at = 0, planned = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string status = get_str(steps[i], "status");
    if (status == "failed" && !failed_at) failed_at = i + 1;
    if (status == "planned") ++planned;
  }
  std::string text;
  if (planned && planned == steps.size()) text = fmt::format("Planned (dryRun: nothing was done), {}:", plural(steps.size(), "step"));
  else if (ok) text = fmt::format("Done: {} in {:.1f} s.", plural(steps.size(), "step"), get_int(r, "ms") / 1000.0);
  else if (failed_at)
    text = fmt::format("Failed at step {} of {}{}.", failed_at, steps.size(), failed_at < steps.size() ? "; the steps after it were not run" : "");
  else text = "Failed: " + get_str(r, "error", "the commands did not run");
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& st = steps[i];
    std::string status = get_str(st, "status");
    std::string line = fmt::format("\n{}. {}", i + 1, clip_text(get_str(st, "command"), 300));
    if (status == "done") line += get_str(st, "did").empty() ? "" : " — " + clip_text(get_str(st, "did"), 300);
    else if (status == "failed") line += " — FAILED: " + clip_text(get_str(st, "error", "failed"), 1500);
    else if (status == "skipped") line += " (not run)";
    if (st.contains("data") && !st["data"].is_null())
      line += "\n   data: " + clip_text(st["data"].is_string() ? st["data"].get<std::string>() : dump_json(st["data"]), kPreviewChars);
    text += line;
  }
  if (!page.empty()) text += "\nPage now: " + page;
  if (failed_at && get_str(steps[failed_at - 1], "error").find("snapshot") == std::string::npos)
    text += "\nTo go on: see what the page offers (browser_snapshot) and name the target by its ref (e12) or its visible words, then send "
            "the failed step and those after it again.";
  return text;
}

// Progress for a call that takes a while (an evaluation, a long act): every 2 s the seconds so
// far, so a client that asked for progress sees it is alive (and may reset its timeout on it).
class Heartbeat {
 public:
  Heartbeat(CallContext& ctx, std::string what) : m_thread([this, &ctx, what = std::move(what)] {
    const double start = steady_ms();
    std::unique_lock lock(m_mutex);
    while (!m_cv.wait_for(lock, std::chrono::seconds(2), [this] { return m_done; })) {
      double s = (steady_ms() - start) / 1000.0;
      ctx.progress(s, std::nullopt, fmt::format("{} running for {:.0f} s", what, s));
    }
  }) {}
  ~Heartbeat() {
    {
      std::lock_guard lock(m_mutex);
      m_done = true;
    }
    m_cv.notify_all();
    m_thread.join();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
  std::thread m_thread;  // last: started once the members it uses exist
};

}  // namespace

struct BrowserTools::Parts {
  std::unique_ptr<session::Session> session;
  std::optional<TaskSupport> task;
  std::mutex exec_mutex;  // the REPL runs one evaluation at a time
  std::atomic<bool> ending{false};  // the connection ends: what is cancelled now, nobody asked to stop
  json tools = json::array();
  std::map<std::string, const actions::Capability*> by_tool;

  json exec(const json& args, CallContext& ctx);
  json registry_call(const std::string& tool, const actions::Capability& cap, json args, CallContext& ctx);
  json run_task(const json& args, CallContext& ctx);
  json act_result(const std::string& tool, const std::string& tab, const std::string& active_before, const json& r);
};

Result<std::unique_ptr<BrowserTools>> BrowserTools::create(std::unique_ptr<session::Session> session, std::optional<TaskSupport> task) {
  std::unique_ptr<BrowserTools> t(new BrowserTools());
  t->m = std::make_unique<Parts>();
  t->m->session = std::move(session);
  t->m->task = std::move(task);
  json& tools = t->m->tools;
  for (const auto& d : kTools) {
    if (!d.capability) continue;
    const actions::Capability* cap = actions::find(d.capability);
    if (!cap) return errorf(Code::Internal, "the registry has no capability '{}' for the MCP tool {}", d.capability, d.tool);
    t->m->by_tool[d.tool] = cap;
  }
  for (const auto& d : kTools) {
    const std::string name = d.tool;
    if (auto it = t->m->by_tool.find(name); it != t->m->by_tool.end()) {
      tools.push_back(tool_entry(d, it->second->doc, registry_input_schema(*it->second), it->second));
    } else if (name == "browser_exec") {
      tools.push_back(tool_entry(d, exec_description(),
                                 {{"type", "object"},
                                  {"properties", {{"code", {{"type", "string"}, {"description", "JavaScript for the REPL"}}}}},
                                  {"required", {"code"}}},
                                 nullptr));
    } else {  // browser_task
      tools.push_back(tool_entry(d, kTaskDescription,
                                 {{"type", "object"},
                                  {"properties",
                                   {{"task", {{"type", "string"}, {"description", "What to do, in plain words"}}},
                                    {"urls", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Pages to start on"}}},
                                    {"options",
                                     {{"type", "object"},
                                      {"description", "A run's options, as POST /api/runs takes them (max_iterations, allowed_domains, mode, "
                                                      "permissions, remember, agent, model, …)"}}}}},
                                  {"required", {"task"}}},
                                 nullptr));
    }
  }
  return t;
}

BrowserTools::~BrowserTools() = default;

json BrowserTools::list() { return m->tools; }

void BrowserTools::ending() { m->ending = true; }

json BrowserTools::call(const std::string& name, const json& arguments, CallContext& ctx) {
  json out;
  if (name == "browser_exec") {
    out = m->exec(arguments, ctx);
  } else if (name == "browser_task") {
    out = m->run_task(arguments, ctx);
  } else if (auto it = m->by_tool.find(name); it != m->by_tool.end()) {
    out = m->registry_call(name, *it->second, arguments, ctx);
  } else {
    std::string names;
    for (const auto& t : m->tools) names += (names.empty() ? "" : ", ") + get_str(t, "name");
    return error_result(fmt::format("unknown tool '{}' (the tools: {})", clip_text(name, 100), names));
  }
  // An answer leaves ouro for another program: the session's secrets, in any of their forms, stay
  // behind (a value the REPL computed is not a capability's result, which the host masked already).
  if (!m->session) return out;
  if (const auto& secrets = m->session->host().context().secrets(); secrets && !secrets->empty() && out.contains("content") && out["content"].is_array())
    for (auto& c : out["content"])
      if (c.is_object() && c.contains("text") && c["text"].is_string()) c["text"] = secrets->scrub_text(c["text"].get<std::string>());
  return out;
}

json BrowserTools::Parts::exec(const json& args, CallContext& ctx) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (it.key() != "code") return error_result(fmt::format("browser_exec: unknown argument '{}' (its arguments: code)", clip_text(it.key(), 100)));
  const json& code = get_field(args, "code");
  if (!code.is_string()) return error_result(fmt::format("browser_exec: the argument 'code' must be a string, got {}", code.is_null() ? "nothing" : code.type_name()));
  std::lock_guard lock(exec_mutex);
  if (ctx.cancelled()) return error_result("cancelled");
  jsrt::Repl* repl = &session->repl();
  Result<jsrt::EvalResult> r = make_error(Code::Internal, "");
  {
    CancelHookScope hook(ctx, [repl] { repl->interrupt(); });
    Heartbeat beat(ctx, "browser_exec");
    r = repl->eval(code.get<std::string>());
  }
  if (!r) return error_result("browser_exec: the REPL failed: " + r.error().message);
  std::string text;
  for (size_t i = 0; i < r->logs.size() && i < kMaxLogLines; ++i) text += "log: " + clip_text(r->logs[i], 500) + "\n";
  if (r->logs.size() > kMaxLogLines) text += fmt::format("log: … {} more lines\n", r->logs.size() - kMaxLogLines);
  if (!r->ok) return error_result(text + eval_error_text(*r));
  const json& shown = r->final ? *r->final : r->value;
  const std::string summary = jsrt::summarize_value(shown);
  text += (r->final ? "setFinal " : "") + summary;
  // The value itself when it is small and the summary did not already show it whole.
  if (!shown.is_discarded() && summary.find(dump_json(shown)) == std::string::npos) {
    std::string dumped = shown.is_string() ? shown.get<std::string>() : dump_json(shown);
    if (dumped.size() <= kPreviewChars) text += "\n\nValue: " + dumped;
    else text += fmt::format("\n\nPreview (first and last characters of {}; keep the value in a variable and read parts of it):\n{}",
                             jsrt::with_commas(dumped.size()), clip_text(dumped, kPreviewChars));
  }
  for (const auto& n : session->host().take_notes()) text += "\nnote: " + n;
  text += fmt::format("\n({:.1f} ms)", r->ms);
  return text_result(text);
}

json BrowserTools::Parts::registry_call(const std::string& tool, const actions::Capability& cap, json args, CallContext& ctx) {
  // Host calls are not interrupted by a cancellation: they end at their own deadlines.
  std::string tab;
  if (args.contains("tabId")) {
    if (!args["tabId"].is_string()) return error_result(fmt::format("{}: tabId must be a string such as \"t1\", got {}", tool, args["tabId"].type_name()));
    tab = args["tabId"].get<std::string>();
    args.erase("tabId");
  }
  if (cap.name == "tabs") {
    if (!args.empty()) return error_result(tool + ": takes no arguments");
    std::string active = session->active_tab();
    json list = json::array();
    for (const auto& t : session->tabs()) {
      json j = t.to_json();
      j["active"] = t.id == active;
      list.push_back(j);
    }
    return text_result(dump_json(list));
  }
  if (tab.empty()) tab = session->active_tab();
  if (tab.empty()) return error_result(tool + ": no tab is open; open one with browser_exec: await openTab(\"https://…\")");
  actions::Capability named = cap;
  named.tool = tool;  // messages name the MCP tool
  auto call_args = actions::tool_args(named, args, tab);
  if (!call_args) return error_result(call_args.error().message);
  const std::string active_before = session->active_tab();
  Result<json> r = make_error(Code::Internal, "");
  {
    Heartbeat beat(ctx, tool);
    r = session->host().call_sync(cap.name, std::move(*call_args));
  }
  if (!r) return error_result(host_error_text(tool, cap, r.error().message));
  if (cap.name == "act" && r->is_object()) {
    Heartbeat beat(ctx, tool);  // its wait for the page
    return act_result(tool, tab, active_before, *r);
  }
  if (cap.name == "screenshot") {
    // A data URL from the capability: data:image/png;base64,…
    std::string url = r->is_string() ? r->get<std::string>() : "";
    size_t comma = url.find(',');
    if (url.rfind("data:", 0) != 0 || comma == std::string::npos || url.find(";base64") > comma)
      return error_result(tool + ": the screenshot came back in an unexpected form");
    std::string mime = url.substr(5, url.find(';') - 5);
    json content = json::array({{{"type", "image"}, {"data", url.substr(comma + 1)}, {"mimeType", mime}}});
    return {{"content", content}};
  }
  std::string text = r->is_string() ? r->get<std::string>() : dump_json(*r);
  text = clip_text(text, kMaxResultChars);
  // A page's tools speak in the page's words: data for the client's model, never orders.
  if (cap.answers == actions::Capability::Answers::ByItself) {
    for (size_t at; (at = text.find("</untrusted_page_content")) != std::string::npos;) text.replace(at, 2, "<\\/");
    text = "<untrusted_page_content>\n" + text + "\n</untrusted_page_content>";
  }
  return text_result(text);
}

// After act: a navigation its last step started (a link, a submit, Enter) is given 0.4 s to begin
// and then waited for up to its load event, at most kActLoadWait (waitForLoad); the answer names
// the page the tab is on then — or the page of the tab a step opened or switched to (the session's
// active tab changed).
json BrowserTools::Parts::act_result(const std::string& tool, const std::string& tab, const std::string& active_before, const json& r) {
  const bool dry = !get_array(r, "steps").empty() && get_str(get_array(r, "steps")[0], "status") == "planned";
  const std::string active = session->active_tab();
  const std::string where = !active.empty() && active != active_before ? active : tab;
  std::string page;
  if (!dry) {
    auto loaded = session->host().call_sync("waitForLoad", json::array({where, static_cast<double>(kActLoadWait.count())}));
    std::string state = "loaded";
    if (!loaded) {
      state = loaded.error().code == Code::DeadlineExceeded ? fmt::format("still loading after {} s", kActLoadWait.count() / 1000)
                                                            : "not known: " + clip_text(host_error_text(tool, *actions::find("waitForLoad"), loaded.error().message), 300);
    }
    for (const auto& t : session->tabs())
      if (t.id == where)
        page = fmt::format("\"{}\" {} ({}{})", clip_text(t.title, 200), clip_text(t.url, 500), state, where != tab ? ", tab " + where : "");
    if (page.empty()) page = fmt::format("tab {} is gone ({})", where, state);
  }
  return text_result(clip_text(act_text(r, page), kMaxResultChars), !get_bool(r, "ok"));
}

namespace {
std::string needs_model(const std::string& why) {
  return "browser_task needs a model, and none is available: configure an API key for ouro (ANTHROPIC_API_KEY or OPENAI_API_KEY in the "
         "server's environment, `ouro auth set`, or --provider/--api-key on `ouro mcp`), or use an MCP client that offers sampling, whose "
         "own model then drives the task with no key. The other tools (browser_exec, browser_snapshot, browser_act, …) work without a model." +
         (why.empty() ? std::string() : " (" + clip_text(why, 300) + ")");
}
}  // namespace

// browser_task: an ordinary run (runs/lifecycle.h) — kept in the database with its events, so
// History lists it and it resumes like any run — in a context of its own, on the connection's
// browser. Its arguments are a run's request: task, urls, options (the API's, with its checks).
json BrowserTools::Parts::run_task(const json& args, CallContext& ctx) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (it.key() != "task" && it.key() != "urls" && it.key() != "options")
      return error_result(fmt::format("browser_task: unknown argument '{}' (its arguments: task, urls?, options?)", clip_text(it.key(), 100)));
  auto parsed = runs::parse_request(args);
  if (!parsed) return error_result("browser_task: " + parsed.error().message);
  runs::RunSpec spec = std::move(*parsed);
  // The model is looked for first: without one configured (and no client's to sample) nothing starts.
  if (this->task && !this->task->no_model_reason.empty() && !offers_sampling(ctx.client_capabilities()) && !spec.commands() && !spec.script)
    return error_result(needs_model(this->task->no_model_reason));
  if (!this->task || !session) return error_result("browser_task: this server has no browser for tasks");
  if (!spec.browser.empty() && spec.browser != "ouro") return error_result("browser_task: options.browser: over MCP a task uses the server's own browser");
  spec.context = "clean";  // its own cookies and storage, apart from browser_exec's
  auto setup = this->task->setup();
  if (!setup) return error_result("browser_task: " + setup.error().message);
  store::Database& db = session->db();
  auto created = runs::Run::create(db, args, runs::State::Running);
  if (!created) return error_result("browser_task: " + created.error().message);
  std::shared_ptr<runs::Run> run = std::move(*created);
  run->open_log(setup->hooks);
  if (auto kept = run->keep_running(); !kept) return error_result("browser_task: " + kept.error().message);
  setup->default_max_iterations = this->task->max_iterations;
  // The model: the configured one, else the client's through sampling.
  if (offers_sampling(ctx.client_capabilities())) setup->client_model = std::make_unique<SamplingProvider>(ctx, SamplingProvider::Options{});
  auto source = std::make_shared<runs::SessionSource>([runtime = session->runtime()](session::SessionOptions so) {
    return session::Session::attach(runtime, std::move(so));
  });
  if (auto started = run->start(spec, std::move(*setup), source); !started) {  // kept as failed, saying why
    if (started.error().details.is_object() && started.error().details.value("kind", "") == "no-model") return error_result(needs_model(started.error().message));
    return error_result("browser_task: " + started.error().message);
  }
  runs::Run* running = run.get();
  const double total = run->life().max_iterations();
  runs::Conversation one;
  one.view = [&ctx, total](const agent::Event& e) {
    int it = static_cast<int>(get_int(e.data, "iteration"));
    if (e.type == "iteration-start") ctx.progress(it - 0.5, total, fmt::format("iteration {} started", it));
    else if (e.type == "iteration-end") ctx.progress(it, total, fmt::format("iteration {} done", it));
  };
  one.stopping = [this] { return ending.load(); };
  agent::RunResult r;
  {
    CancelHookScope hook(ctx, [running] { running->cancel(); });
    r = run->converse(runs::Asker{}, std::move(one)).result;
  }
  const std::string run_id = run->id();
  run->close();  // its context closes now, before the answer goes back
  std::string answer = r.final.is_string() ? r.final.get<std::string>() : dump_json(r.final, 2);
  std::string text = clip_text(answer, kMaxResultChars);
  text += fmt::format("\n\n(run {}; {}{}{})", run_id, plural(static_cast<size_t>(r.iterations), "iteration"), r.partial ? "; partial results" : "",
                      r.error.empty() ? "" : "; " + r.error);
  return text_result(text, r.cancelled || (!r.error.empty() && r.final.is_null()));
}

namespace {

// One message per write, whole: the protocol's only writer of `fd`.
class LineWriter {
 public:
  explicit LineWriter(int fd) : m_fd(fd) {}
  void write_line(const std::string& line) {
    std::lock_guard lock(m_mutex);
    if (m_broken) return;
    std::string data = line + "\n";
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(m_fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        spdlog::warn("mcp: the client stopped reading ({}); answers are dropped", std::strerror(errno));
        m_broken = true;
        return;
      }
      done += static_cast<size_t>(n);
    }
  }

 private:
  int m_fd;
  std::mutex m_mutex;
  bool m_broken = false;
};

}  // namespace

void serve_stdio(Tools& tools, const Protocol::Info& info, int in_fd, int out_fd) {
  LineWriter writer(out_fd);
  Protocol protocol(tools, info, [&writer](const std::string& line) { writer.write_line(line); });
  LineSplitter splitter;
  std::vector<char> buf(64 * 1024);
  while (true) {
    ssize_t n = ::read(in_fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    splitter.feed(std::string_view(buf.data(), static_cast<size_t>(n)), [&](LineSplitter::Line line) {
      if (line.overlong) protocol.on_overlong_line();
      else protocol.on_line(line.text);
    });
  }
  // stdio shutdown: the client closed our input. What still runs is cancelled and waited for a
  // while; a call still busy then (a host call that ends only at its own deadline) is left to
  // end there, and the Protocol's destructor joins it.
  spdlog::info("mcp: the client closed the connection");
  tools.ending();
  protocol.cancel_all();
  if (!protocol.drain_for(std::chrono::seconds(10)))
    spdlog::warn("mcp: {} call(s) still running 10 s after the client left; waiting for their own deadlines", protocol.calls_in_flight());
}

}  // namespace ouro::mcp
