// The REPL worker process: JavaScriptCore (C API) behind a pipe, in a seccomp sandbox. One JS
// thread runs evaluations; a reader thread takes messages off the pipe so an interrupt can stop
// a script that never yields. Facts this relies on are measured in shared/research/js-engine.md:
// JSC drains microtasks when an outermost API call returns, and its watchdog callback must re-arm
// itself.
#include "jsrt/worker.h"
#include "base/steady_clock.h"

#include "base/text.h"
#include "jsrt/channel.h"
#include "jsrt/completion.h"
#include "jsrt/crash_report.h"
#include "jsrt/syntax.h"
#include "jsrt/protocol.h"
#include "jsrt/sandbox.h"

#include <JavaScriptCore/JavaScript.h>
#include <fcntl.h>
#include <jsc/jsc.h>
#include <sys/prctl.h>

#include "base/priority.h"
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

extern "C" {
// Exported by libjavascriptcoregtk but declared only in the uninstalled JSContextRefPrivate.h.
typedef bool (*JSShouldTerminateCallback)(JSContextRef, void*);
void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef, double limit, JSShouldTerminateCallback, void* context);
}

namespace ouro::embedded {
extern const std::string_view prelude_js;
extern const std::string_view url_js;
}

namespace ouro::jsrt {

namespace {

using Clock = ouro::SteadyClock;
using namespace std::chrono_literals;

enum Kill : int { kNone = 0, kTimeout = 1, kMemory = 2, kInterrupt = 3 };

class JStr {
 public:
  explicit JStr(std::string_view s) {
    std::string z(s);
    m_ref = JSStringCreateWithUTF8CString(z.c_str());
  }
  ~JStr() { JSStringRelease(m_ref); }
  operator JSStringRef() const { return m_ref; }

 private:
  JSStringRef m_ref;
};

std::string to_std(JSContextRef ctx, JSValueRef v) {
  JSStringRef s = JSValueToStringCopy(ctx, v, nullptr);
  if (!s) return {};
  size_t max = JSStringGetMaximumUTF8CStringSize(s);
  std::string out(max, '\0');
  size_t n = JSStringGetUTF8CString(s, out.data(), max);
  out.resize(n > 0 ? n - 1 : 0);
  JSStringRelease(s);
  return out;
}

struct Resolvers {
  JSObjectRef resolve = nullptr, reject = nullptr;
};

class Worker {
 public:
  explicit Worker(int fd) : m_chan(fd) {}
  // The reader is joined: ending our side of the socket ends its read at once.
  ~Worker() {
    if (!m_reader.joinable()) return;
    m_leaving = true;
    ::shutdown(m_chan.fd(), SHUT_RDWR);
    m_reader.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int run() {
    // JIT off: LLM-written code is glue, not number crunching, and the interpreter is a much
    // smaller attack surface for whatever a hostile page talks the model into writing.
    jsc_options_set_boolean("useJIT", FALSE);
    m_group = JSContextGroupCreate();
    m_ctx = JSGlobalContextCreateInGroup(m_group, nullptr);
    JSContextGroupSetExecutionTimeLimit(m_group, kTick, &Worker::on_tick, this);
    m_statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

    m_reader = std::thread([this] { read_loop(); });
    // Let JSC start its helper threads before the sandbox forbids new descriptors.
    JSValueRef exc = nullptr;
    JSEvaluateScript(m_ctx, JStr("[1,2,3].map(x => x * 2).join()"), nullptr, nullptr, 1, &exc);
    JSGarbageCollect(m_ctx);
    report_fatal_signals();  // after the engine has taken the signals it handles itself
    if (auto r = enter_sandbox(); !r) {
      fprintf(stderr, "ouro repl worker: %s\n", r.error().message.c_str());
      return 3;
    }
    while (true) {
      std::optional<Frame> f = pop(Clock::time_point::max());
      if (!f) return 0;
      dispatch(*f, /*in_eval=*/false);
    }
  }

 private:
  static constexpr double kTick = 0.005;

  Channel m_chan;
  std::thread m_reader;  // takes frames from the parent; ends the process when the parent goes
  std::atomic<bool> m_leaving{false};  // run() returned: the end of the socket is ours, not the parent's
  JSContextGroupRef m_group = nullptr;
  JSGlobalContextRef m_ctx = nullptr;
  int m_statm = -1;

  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<Frame> m_inbox;
  std::deque<Frame> m_deferred;  // replies and events that arrived between evaluations
  bool m_eof = false;

  std::atomic<int> m_kill{kNone};
  std::atomic<bool> m_armed{false};
  Clock::time_point m_deadline;
  size_t m_rss_cap = 0;

  uint64_t m_next_call = 1;
  std::map<uint64_t, Resolvers> m_pending;
  std::multimap<Clock::time_point, Resolvers> m_timers;
  JSObjectRef m_on_state = nullptr, m_on_event = nullptr, m_on_restore = nullptr, m_on_checkpoint = nullptr;
  bool m_settled = false;
  uint64_t m_eval_id = 0;

  // --- plumbing -------------------------------------------------------------------------------

  void read_loop() {
    while (true) {
      auto text = m_chan.read();
      if (!text) {
        if (m_leaving) return;
        // The parent is gone; nobody is left to serve.
        _exit(0);
      }
      auto frame = decode_frame(*text);
      if (!frame) continue;
      if (frame->header.value("t", "") == "interrupt") {
        {
          // Under the mutex pop() waits with: set between its check and its wait, the wake-up
          // would be lost and the interrupt would wait for the evaluation's deadline.
          std::lock_guard lock(m_mutex);
          if (m_armed) m_kill = kInterrupt;
        }
        m_cv.notify_all();
        continue;
      }
      std::lock_guard lock(m_mutex);
      m_inbox.push_back(std::move(*frame));
      m_cv.notify_all();
    }
  }

  std::optional<Frame> pop(Clock::time_point until) {
    std::unique_lock lock(m_mutex);
    ouro::wait_until(m_cv, lock, until, [&] { return !m_inbox.empty() || m_eof || (m_armed && m_kill != kNone); });
    if (m_inbox.empty()) return std::nullopt;
    Frame f = std::move(m_inbox.front());
    m_inbox.pop_front();
    return f;
  }

  // Nothing to do on failure: either the parent is gone (the reader thread then sees the end of the
  // pipe and exits) or the message is over the pipe's 512 MiB, which the memory limits rule out.
  void send(const json& header, std::string_view payload = {}) { (void)m_chan.write(encode_frame(header, payload)); }

  size_t rss() const {
    char buf[128];
    ssize_t n = pread(m_statm, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    unsigned long size = 0, resident = 0;
    sscanf(buf, "%lu %lu", &size, &resident);
    return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  }

  static bool on_tick(JSContextRef ctx, void* self_ptr) {
    auto* self = static_cast<Worker*>(self_ptr);
    if (self->m_armed && self->m_kill == kNone) {
      if (Clock::now() >= self->m_deadline) self->m_kill = kTimeout;
      else if (self->m_rss_cap && self->rss() > self->m_rss_cap) self->m_kill = kMemory;
    }
    if (self->m_armed && self->m_kill != kNone) return true;  // uncatchable, even by try/finally
    JSContextGroupSetExecutionTimeLimit(JSContextGetGroup(ctx), kTick, &Worker::on_tick, self_ptr);
    return false;
  }

  // --- native functions visible to the prelude ----------------------------------------------

  JSObjectRef make_fn(const char* name, JSObjectCallAsFunctionCallback cb) {
    static JSClassRef cls = [] {
      JSClassDefinition def = kJSClassDefinitionEmpty;
      def.className = "OuroNative";
      def.callAsFunction = nullptr;
      return JSClassCreate(&def);
    }();
    (void)cls;
    JSObjectRef f = JSObjectMakeFunctionWithCallback(m_ctx, JStr(name), cb);
    return f;
  }

  static JSValueRef n_call(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t argc, const JSValueRef argv[], JSValueRef* exc) {
    Worker* w = s_self;
    if (argc < 2) return JSValueMakeUndefined(ctx);
    Resolvers r;
    JSObjectRef promise = JSObjectMakeDeferredPromise(ctx, &r.resolve, &r.reject, exc);
    if (!promise) return nullptr;
    JSValueProtect(ctx, r.resolve);
    JSValueProtect(ctx, r.reject);
    uint64_t id = w->m_next_call++;
    w->m_pending[id] = r;
    w->send({{"t", "call"}, {"id", id}, {"fn", to_std(ctx, argv[0])}}, to_std(ctx, argv[1]));
    return promise;
  }

  static JSValueRef n_log(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t argc, const JSValueRef argv[], JSValueRef*) {
    if (argc >= 1) {
      std::string text = to_std(ctx, argv[0]);
      text = clip_head(text, 20000, ClipMark::None) + (text.size() > 20000 ? "… (log line truncated)" : "");
      s_self->send({{"t", "log"}}, dump_json(text));
    }
    return JSValueMakeUndefined(ctx);
  }

  static JSValueRef n_timer(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t argc, const JSValueRef argv[], JSValueRef* exc) {
    double ms = argc >= 1 ? JSValueToNumber(ctx, argv[0], nullptr) : 0;
    Resolvers r;
    JSObjectRef promise = JSObjectMakeDeferredPromise(ctx, &r.resolve, &r.reject, exc);
    if (!promise) return nullptr;
    JSValueProtect(ctx, r.resolve);
    JSValueProtect(ctx, r.reject);
    s_self->m_timers.emplace(Clock::now() + std::chrono::microseconds(static_cast<int64_t>(ms * 1000)), r);
    return promise;
  }

  // done(ok, valueText|undefined, finalText|undefined); env is saved after it (save_env).
  static JSValueRef n_done(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t argc, const JSValueRef argv[], JSValueRef*) {
    Worker* w = s_self;
    if (w->m_settled || argc < 1) return JSValueMakeUndefined(ctx);
    w->m_settled = true;
    bool ok = JSValueToBoolean(ctx, argv[0]);
    auto text_or_empty = [&](size_t i) { return argc > i && !JSValueIsUndefined(ctx, argv[i]) ? to_std(ctx, argv[i]) : std::string(); };
    std::string final_text = text_or_empty(2);
    if (!final_text.empty()) w->send({{"t", "final"}}, final_text);
    std::string value = text_or_empty(1);
    json header = {{"t", "result"}, {"id", w->m_eval_id}, {"ok", ok}};
    if (ok && value.empty()) header["undefined"] = true;
    w->m_result_header = header;
    w->m_result_payload = std::move(value);
    return JSValueMakeUndefined(ctx);
  }

  static JSValueRef n_now(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t, const JSValueRef[], JSValueRef*) {
    static const auto origin = Clock::now();
    return JSValueMakeNumber(ctx, std::chrono::duration<double, std::milli>(Clock::now() - origin).count());
  }

  // register(restoreEnv, checkpointEnv, onState, onEvent): the prelude's functions the worker
  // calls. Model code cannot reach them: `host` is gone from the global object by then.
  static JSValueRef n_register(JSContextRef ctx, JSObjectRef, JSObjectRef, size_t argc, const JSValueRef argv[], JSValueRef*) {
    Worker* w = s_self;
    if (argc >= 4) {
      JSObjectRef* slots[] = {&w->m_on_restore, &w->m_on_checkpoint, &w->m_on_state, &w->m_on_event};
      for (size_t i = 0; i < 4; ++i) {
        *slots[i] = JSValueToObject(ctx, argv[i], nullptr);
        if (*slots[i]) JSValueProtect(ctx, *slots[i]);
      }
    }
    return JSValueMakeUndefined(ctx);
  }

  static inline Worker* s_self = nullptr;
  // Names a top-level declaration may not replace globally: the API (it would fail silently).
  std::set<std::string> m_reserved = {"tabs", "activeTab", "env", "setFinal", "log", "sleep", "setTimeout", "console",
                                      "interceptRequests", "performance", "globalThis", "undefined", "NaN", "Infinity"};
  json m_result_header;
  std::string m_result_payload;

  void install(const json& functions) {
    s_self = this;
    JSObjectRef host = JSObjectMake(m_ctx, nullptr, nullptr);
    auto set = [&](JSObjectRef obj, const char* name, JSValueRef v) {
      JSObjectSetProperty(m_ctx, obj, JStr(name), v, kJSPropertyAttributeNone, nullptr);
    };
    set(host, "call", make_fn("call", n_call));
    set(host, "log", make_fn("log", n_log));
    set(host, "timer", make_fn("timer", n_timer));
    set(host, "done", make_fn("done", n_done));
    set(host, "register", make_fn("register", n_register));
    set(host, "now", make_fn("now", n_now));
    set(JSContextGetGlobalObject(m_ctx), "__ouroHost", host);
    json api = json::array();
    for (const auto& f : functions) {
      api.push_back(json::array({f}));
      m_reserved.insert(f.get<std::string>());
    }
    // URL and URLSearchParams first (jsrt/js/url.js): the prelude counts them among the built-ins.
    JSValueRef url_exc = nullptr;
    JSEvaluateScript(m_ctx, JStr(std::string(embedded::url_js)), nullptr, JStr("ouro:url"), 1, &url_exc);
    if (url_exc) {
      send({{"t", "fatal"}, {"message", "url.js failed: " + to_std(m_ctx, url_exc)}});
      _exit(4);
    }
    std::string prelude(embedded::prelude_js);
    prelude.replace(prelude.find("= __API__;") + 2, 7, api.dump());
    JSValueRef exc = nullptr;
    JSEvaluateScript(m_ctx, JStr(prelude), nullptr, JStr("ouro:prelude"), 1, &exc);
    if (exc) {
      send({{"t", "fatal"}, {"message", "prelude failed: " + to_std(m_ctx, exc)}});
      _exit(4);
    }
  }

  // --- messages --------------------------------------------------------------------------------

  void settle(const Frame& f) {
    uint64_t id = f.header.value("id", uint64_t(0));
    auto it = m_pending.find(id);
    if (it == m_pending.end()) return;  // a reply for a call of an evaluation that was stopped
    Resolvers r = it->second;
    m_pending.erase(it);
    JSValueRef arg;
    JSObjectRef fn;
    if (f.header.value("ok", false)) {
      fn = r.resolve;
      if (f.header.value("undefined", false) || f.payload.empty()) arg = JSValueMakeUndefined(m_ctx);
      else {
        arg = JSValueMakeFromJSONString(m_ctx, JStr(f.payload));
        if (!arg) arg = JSValueMakeUndefined(m_ctx);
      }
    } else {
      fn = r.reject;
      auto err = parse_json(f.payload.empty() ? "{}" : f.payload);
      std::string msg = err && err->is_object() ? err->value("message", "host call failed") : "host call failed";
      std::string name = err && err->is_object() && (*err)["name"].is_string() ? (*err)["name"].get<std::string>() : "";
      JSValueRef m = JSValueMakeString(m_ctx, JStr(msg));
      arg = nullptr;
      if (name == "TypeError" || name == "RangeError") {
        // The engine's own constructor, so `e instanceof TypeError` holds in model code.
        JSObjectRef global = JSContextGetGlobalObject(m_ctx);
        JSValueRef ctor = JSObjectGetProperty(m_ctx, global, JStr(name), nullptr);
        if (ctor && JSValueIsObject(m_ctx, ctor)) arg = JSObjectCallAsConstructor(m_ctx, JSValueToObject(m_ctx, ctor, nullptr), 1, &m, nullptr);
      }
      if (!arg) arg = JSObjectMakeError(m_ctx, 1, &m, nullptr);
      if (std::string code = err && err->is_object() ? err->value("code", "") : ""; !code.empty() && JSValueIsObject(m_ctx, arg))
        JSObjectSetProperty(m_ctx, JSValueToObject(m_ctx, arg, nullptr), JStr("code"), JSValueMakeString(m_ctx, JStr(code)), kJSPropertyAttributeNone, nullptr);
    }
    JSObjectCallAsFunction(m_ctx, fn, nullptr, 1, &arg, nullptr);  // drains microtasks on return
    JSValueUnprotect(m_ctx, r.resolve);
    JSValueUnprotect(m_ctx, r.reject);
  }

  void dispatch(Frame& f, bool in_eval) {
    const std::string t = f.header.value("t", "");
    if (t == "init") {
      install(f.header.value("functions", json::array()));
      send({{"t", "ready"}, {"pid", getpid()}});
    } else if (t == "eval") {
      evaluate(f);
    } else if (t == "reply" || t == "event") {
      if (!in_eval) return m_deferred.push_back(std::move(f));
      if (t == "reply") return settle(f);
      if (!m_on_event) return;
      JSValueRef args[2] = {JSValueMakeString(m_ctx, JStr(f.header.value("handler", ""))),
                            JSValueMakeFromJSONString(m_ctx, JStr(f.payload.empty() ? "null" : f.payload))};
      if (!args[1]) args[1] = JSValueMakeNull(m_ctx);
      JSObjectCallAsFunction(m_ctx, m_on_event, nullptr, 2, args, nullptr);
    } else if (t == "state") {
      if (!m_on_state) return;
      JSValueRef v = JSValueMakeFromJSONString(m_ctx, JStr(f.payload.empty() ? "{}" : f.payload));
      if (v) JSObjectCallAsFunction(m_ctx, m_on_state, nullptr, 1, &v, nullptr);
    } else if (t == "restore") {
      // The prelude decodes the checkpoint (typed JSON, or an older plain one) and sets env.
      if (!m_on_restore) return;
      JSValueRef text = JSValueMakeString(m_ctx, JStr(f.payload.empty() ? "{}" : f.payload));
      JSObjectCallAsFunction(m_ctx, m_on_restore, nullptr, 1, &text, nullptr);
    }
  }

  // Sends env's checkpoint (the prelude's typed JSON) after a successful evaluation. Saving runs
  // model-made values (Proxy traps) and may meet a huge env, so it has a deadline and a memory
  // budget of its own; past them the evaluation still succeeds, the parent keeps the checkpoint
  // it had, and the code is told.
  void save_env(int budget_ms, size_t memory) {
    if (!m_on_checkpoint) return;
    m_deadline = Clock::now() + std::chrono::milliseconds(budget_ms);
    m_rss_cap = rss() + memory;
    m_kill = kNone;
    m_armed = true;
    JSValueRef exc = nullptr;
    JSValueRef text = JSObjectCallAsFunction(m_ctx, m_on_checkpoint, nullptr, 0, nullptr, &exc);
    m_armed = false;
    int kill = m_kill.exchange(kNone);
    std::string why;
    if (kill != kNone) {
      JSValueRef e2 = nullptr;
      JSEvaluateScript(m_ctx, JStr("0"), nullptr, nullptr, 1, &e2);  // absorb the termination, as evaluate does
      JSGarbageCollect(m_ctx);
      why = kill == kTimeout   ? "saving it took longer than " + std::to_string(budget_ms) + " ms"
            : kill == kMemory ? "saving it needed more than " + std::to_string(memory >> 20) + " MB"
                              : "saving it was interrupted";
    } else if (exc) {
      why = "saving it failed: " + to_std(m_ctx, exc).substr(0, 300);
    } else if (!text || !JSValueIsString(m_ctx, text)) {
      why = "env is not a value that can be saved";
    }
    if (why.empty()) {
      send({{"t", "env"}}, to_std(m_ctx, text));
      return;
    }
    send({{"t", "log"}}, dump_json("[env] env was not checkpointed after this input (" + why +
                                   "); if the REPL restarts, env comes back as an earlier input left it"));
  }

  bool parses(const std::string& body) {
    JSValueRef exc = nullptr;
    return JSCheckScriptSyntax(m_ctx, JStr("(async () => {\n" + body + "\n})"), nullptr, 0, &exc);
  }

  // {name, message, line, column} of an error the parser threw.
  json error_info(JSValueRef exc) {
    json info = {{"name", "SyntaxError"}, {"message", to_std(m_ctx, exc)}};
    JSObjectRef e = JSValueToObject(m_ctx, exc, nullptr);
    if (!e) return info;
    for (const char* key : {"line", "column"}) {
      JSValueRef v = JSObjectGetProperty(m_ctx, e, JStr(key), nullptr);
      if (JSValueIsNumber(m_ctx, v)) info[key] = static_cast<int>(JSValueToNumber(m_ctx, v, nullptr));
    }
    info["message"] = to_std(m_ctx, JSObjectGetProperty(m_ctx, e, JStr("message"), nullptr));
    info["name"] = to_std(m_ctx, JSObjectGetProperty(m_ctx, e, JStr("name"), nullptr));
    return info;
  }

  // A syntax error placed in the code as it was written: checked again without the REPL's
  // rewrites, in a wrapper that shares its first line; an input that ends early (the parser
  // trips on the wrapper's closing brace) is told which bracket, string or comment is left open.
  json syntax_error(JSValueRef evaluated, const std::string& code) {
    static const std::string prefix = "(async () => {";
    JSValueRef exc = nullptr;
    if (JSCheckScriptSyntax(m_ctx, JStr(prefix + code + "\n})"), nullptr, 1, &exc) || !exc) return error_info(evaluated);
    json info = error_info(exc);
    int line = info.value("line", 0);
    if (line == 1 && info.contains("column")) info["column"] = std::max(1, info["column"].get<int>() - static_cast<int>(prefix.size()));
    int lines = 1 + static_cast<int>(std::count(code.begin(), code.end(), '\n'));
    std::string message = info.value("message", std::string());
    bool ended = line > lines || message.find("Unexpected EOF") != std::string::npos || message.find("end of script") != std::string::npos;
    // JavaScriptCore gives no column for a syntax error: the token it names, on its line.
    if (!ended && !info.contains("column") && line >= 1 && line <= lines) {
      auto quote = message.find('\'');
      auto end = quote == std::string::npos ? std::string::npos : message.find('\'', quote + 1);
      if (end != std::string::npos && end > quote + 1) {
        size_t begin = 0;
        for (int l = 1; l < line; ++l) begin = code.find('\n', begin) + 1;
        std::string_view text = std::string_view(code).substr(begin, code.find('\n', begin) - begin);
        if (auto at = text.find(message.substr(quote + 1, end - quote - 1)); at != std::string_view::npos)
          info["column"] = 1 + static_cast<int>(std::count_if(text.begin(), text.begin() + static_cast<long>(at),
                                                                [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
      }
    }
    if (ended) {
      static const std::map<char, std::string> what = {{'(', "the '('"}, {'[', "the '['"}, {'{', "the '{'"},
                                                       {'"', "the string (\")"}, {'\'', "the string (')"}, {'`', "the template literal (`)"},
                                                       {'*', "the comment (/*)"}};
      if (auto open = last_unclosed(code)) {
        info["message"] = fmt::format("the code ends before {} opened here is closed", what.at(open->opener));
        info["line"] = open->line;
        info["column"] = open->column;
      } else {
        info["message"] = "the code ends early: " + message;
        info["line"] = lines;
        info.erase("column");
      }
    }
    return info;
  }

  void drop_pending() {
    for (auto& [id, r] : m_pending) {
      JSValueUnprotect(m_ctx, r.resolve);
      JSValueUnprotect(m_ctx, r.reject);
    }
    m_pending.clear();
    for (auto& [t, r] : m_timers) {
      JSValueUnprotect(m_ctx, r.resolve);
      JSValueUnprotect(m_ctx, r.reject);
    }
    m_timers.clear();
  }

  void evaluate(const Frame& f) {
    auto started = Clock::now();
    m_eval_id = f.header.value("id", uint64_t(0));
    // From here on the code may act: a worker that dies before saying so has run none of it.
    send({{"t", "began"}, {"id", m_eval_id}});
    int timeout_ms = f.header.value("timeout_ms", 30000);
    size_t memory = f.header.value("memory_mb", size_t(128)) << 20;
    std::string code = add_completion_return(f.payload, [this](const std::string& b) { return parses(b); });
    code = persist_declarations(code, [this](std::string_view name) { return m_reserved.count(std::string(name)) > 0; },
                                [this](const std::string& b) { return parses(b); });
    // The wrapper shares the first line with the code, so line numbers are the user's own.
    std::string script = "__ouroRun(async () => {" + code + "\n})";

    m_settled = false;
    m_result_header = json();
    m_result_payload.clear();
    m_deadline = started + std::chrono::milliseconds(timeout_ms);
    m_rss_cap = rss() + memory;
    m_kill = kNone;
    m_armed = true;

    JSValueRef exc = nullptr;
    JSEvaluateScript(m_ctx, JStr(script), nullptr, JStr("repl"), 1, &exc);
    if (exc && !m_settled && m_kill == kNone) {
      // A syntax error: the script never ran.
      json info = syntax_error(exc, f.payload);
      m_settled = true;
      m_result_header = {{"t", "result"}, {"id", m_eval_id}, {"ok", false}};
      m_result_payload = dump_json(info);
    }
    // Replies and events that came in between evaluations belong to this one's event loop now.
    while (!m_deferred.empty() && !m_settled && m_kill == kNone) {
      Frame d = std::move(m_deferred.front());
      m_deferred.pop_front();
      dispatch(d, true);
    }
    while (!m_settled && m_kill == kNone) {
      auto now = Clock::now();
      while (!m_timers.empty() && m_timers.begin()->first <= now && m_kill == kNone) {
        Resolvers r = m_timers.begin()->second;
        m_timers.erase(m_timers.begin());
        JSObjectCallAsFunction(m_ctx, r.resolve, nullptr, 0, nullptr, nullptr);
        JSValueUnprotect(m_ctx, r.resolve);
        JSValueUnprotect(m_ctx, r.reject);
      }
      if (m_settled || m_kill != kNone) break;
      if (m_pending.empty() && m_timers.empty()) {
        bool has_inbox;
        {
          std::lock_guard lock(m_mutex);
          has_inbox = !m_inbox.empty();
        }
        if (!has_inbox) {
          m_settled = true;
          m_result_header = {{"t", "result"}, {"id", m_eval_id}, {"ok", false}};
          m_result_payload = json{{"name", "Error"},
                                  {"message", "the code awaits a promise that can never settle (nothing is pending: no API call, "
                                              "no timer). Check for a missing resolve() or an await on a non-API promise."}}
                                 .dump();
          break;
        }
      }
      auto until = m_deadline;
      if (!m_timers.empty()) until = std::min(until, m_timers.begin()->first);
      std::optional<Frame> next = pop(until);
      if (Clock::now() >= m_deadline && !m_settled) m_kill = kTimeout;
      if (next) dispatch(*next, true);
    }
    m_armed = false;
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    int kill = m_kill.exchange(kNone);
    if (kill == kNone && m_settled && m_result_header.value("ok", false))
      save_env(f.header.value("checkpoint_ms", 5000), memory);
    if (kill != kNone && !m_settled) {
      drop_pending();
      // A termination that hit inside a microtask drain can poison the next entry; absorb it.
      JSValueRef e2 = nullptr;
      JSEvaluateScript(m_ctx, JStr("0"), nullptr, nullptr, 1, &e2);
      JSGarbageCollect(m_ctx);
      std::string kind = kill == kTimeout ? "timeout" : kill == kMemory ? "memory" : "interrupted";
      std::string message = kill == kTimeout   ? "evaluation stopped: it ran longer than its " + std::to_string(timeout_ms) + " ms deadline"
                            : kill == kMemory ? "evaluation stopped: it used more than its " + std::to_string(memory >> 20) + " MB memory limit"
                                              : "evaluation interrupted";
      send({{"t", "result"}, {"id", m_eval_id}, {"ok", false}, {"kind", kind}, {"ms", ms}},
           json{{"name", "Error"}, {"message", message}}.dump());
      return;
    }
    m_result_header["ms"] = ms;
    send(m_result_header, m_result_payload);
  }
};

}  // namespace

int worker_main(int fd, bool probe) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0;
  signal(SIGPIPE, SIG_IGN);
  close_other_fds(fd);
  if (probe) {
    // Start the engine as an evaluation would, enter the sandbox, then try the forbidden things.
    jsc_options_set_boolean("useJIT", FALSE);
    JSGlobalContextRef ctx = JSGlobalContextCreate(nullptr);
    JSEvaluateScript(ctx, JStr("1+1"), nullptr, nullptr, 1, nullptr);
    if (auto r = enter_sandbox(); !r) {
      fprintf(stderr, "%s\n", r.error().message.c_str());
      return 3;
    }
    std::string report = probe_forbidden_syscalls();
    (void)!write(fd, report.data(), report.size());
    return 0;
  }
  // Model code is background work: on a busy machine the server that owns this worker (its API,
  // its network thread) comes first. Lowering one's own priority needs no privilege (setpriority(2)).
  run_in_background(kModelCodeNice);  // before its threads start: they take its nice value
  Worker w(fd);
  return w.run();
}

}  // namespace ouro::jsrt
