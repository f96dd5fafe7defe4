#include "agent/run.h"
#include "base/steady_clock.h"
#include "base/clock.h"
#include "base/text.h"

#include "egress/gate.h"

#include "actions/host.h"
#include "browser/browser.h"
#include "browser/notices.h"
#include "agent/parser.h"
#include "llm/errors.h"
#include "memory/memory.h"
#include "jsrt/summary.h"
#include "safety/injection.h"
#include "safety/redact.h"
#include "safety/secrets.h"

#include <algorithm>
#include <cctype>
#include "session/session.h"
#include "store/database.h"

#include <fmt/format.h>

#include <functional>
#include <shared_mutex>
#include <thread>

namespace ouro::agent {

using Clock = ouro::SteadyClock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// What goes to a model passes the run's secrets: a page's text in the prompt could carry a typed
// value. A message's cache blocks are scrubbed one by one so their offsets follow the text.
llm::Request scrubbed_request(const llm::Request& req, const safety::SecretStore* secrets) {
  llm::Request out = req;
  if (!secrets || secrets->empty()) return out;
  out.system = secrets->scrub_text(std::move(out.system));
  for (auto& m : out.messages) {
    std::string text;
    size_t from = 0;
    for (auto& end : m.cache_blocks) {
      size_t to = std::min(end, m.content.size());
      text += secrets->scrub_text(m.content.substr(from, to - std::min(from, to)));
      from = std::max(from, to);
      end = text.size();
    }
    text += secrets->scrub_text(from < m.content.size() ? m.content.substr(from) : std::string());
    m.content = std::move(text);
  }
  return out;
}

constexpr const char* kContinueFirst =
    "You described your plan but did not write any code. Write the code now in a ```repl block to begin.";
constexpr const char* kContinue =
    "Continue — write code in a ```repl block to proceed with the task, or call setFinal(value) to deliver your response to the user.";
constexpr const char* kNext =
    "Write the next ```repl block(s) to make progress on the task, or call setFinal(value) if you have the answer.";

// Injection flags over every string of a value (the first 200,000 characters of them).
std::vector<safety::InjectionFlag> scan_strings(const json& value) {
  std::string text;
  std::function<void(const json&)> gather = [&](const json& v) {
    if (text.size() > 200000) return;
    if (v.is_string()) text += v.get_ref<const std::string&>() + "\n";
    else if (v.is_array() || v.is_object())
      for (const auto& x : v) gather(x);
  };
  gather(value);
  return safety::scan_for_injection(text);
}

// What a value holds, for comparing a replay with its recording: {kind, size} (a collection's
// items, a string's length).
json value_shape(const json& v) {
  if (v.is_discarded()) return {{"kind", "undefined"}, {"size", 0}};
  if (v.is_null()) return {{"kind", "null"}, {"size", 0}};
  if (v.is_array()) return {{"kind", "array"}, {"size", v.size()}};
  if (v.is_object()) return {{"kind", "object"}, {"size", v.size()}};
  if (v.is_string()) return {{"kind", "string"}, {"size", v.get_ref<const std::string&>().size()}};
  return {{"kind", v.is_boolean() ? "boolean" : "number"}, {"size", 1}};
}

}  // namespace

json RunResult::to_json() const {
  json j = {{"final", final}, {"iterations", iterations}, {"partial", partial}, {"usage", usage.to_json()},
            {"cost", cost_known ? json(cost_usd) : json(nullptr)}};
  if (cancelled) j["cancelled"] = true;
  if (!error.empty()) j["error"] = error;
  if (tabs.is_array()) j["tabs"] = tabs;
  if (action_cache.is_object() && action_cache.value("hits", 0) + action_cache.value("misses", 0) > 0) j["actionCache"] = action_cache;
  j["autonomy"] = {{"actions", actions}, {"asked", asked},
                   {"unasked", actions ? json(static_cast<double>(actions - std::min(asked, actions)) / static_cast<double>(actions)) : json(nullptr)}};
  return j;
}

Run::Run(session::Session& session, llm::Provider& provider, RunOptions options, EventSink sink)
    : m_session(session), m_provider(provider), m_options(std::move(options)), m_sink(std::move(sink)) {
  m_alive->run = this;
  m_actions_at_start = m_session.host().actions();
  if (m_options.resume) {
    m_state = *m_options.resume;
  } else {
    m_state.task = m_options.task;
    m_state.turns = m_options.earlier;
    m_state.turn = static_cast<int>(m_options.earlier.size()) + 1;
    m_state.last_iteration = std::max(1, m_options.first_iteration) - 1;
  }
  // The hooks reach this Run through m_alive: a call the model's code started without awaiting
  // it may still be on the host's pool when the Run ends, and must find it gone, not freed.
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->sub_llm = [alive = m_alive](const std::string& fn, const json& args) -> Result<json> {
    std::shared_lock lock(alive->mutex);
    if (!alive->run) return json("[SUB-CALL ERROR] the run has ended");
    return alive->run->sub_call(fn, args);
  };
  m_goals = Goals(m_options.resume ? m_options.resume->goals : m_options.goals);
  m_state.goals = m_goals.list();
  hooks->goals = [alive = m_alive](const std::string& fn, const json& args) -> Result<json> {
    std::shared_lock lock(alive->mutex);
    if (!alive->run) return make_error(Code::Cancelled, fn + ": the run has ended");
    return alive->run->goal_call(fn, args);
  };
  hooks->confirm = [alive = m_alive](const json& request) {
    std::shared_lock lock(alive->mutex);
    return alive->run && alive->run->ask_confirmation(request);
  };
  hooks->ask_user = [alive = m_alive](const json& question) -> Result<std::string> {
    std::shared_lock lock(alive->mutex);
    if (!alive->run) return make_error(Code::Cancelled, "askUser: the run has ended");
    return alive->run->ask_user(question);
  };
  // Every gate decision is an event; refusals are also told to the model with the page notices,
  // so it knows why a request of its code failed. Never blocks (the network thread calls it).
  hooks->on_gate = [alive = m_alive, box = m_notices](const json& decision) {
    {
      std::shared_lock lock(alive->mutex);
      if (alive->run) alive->run->emit("gate", decision);
    }
    if (get_str(decision, "decision") != "deny") return;
    std::lock_guard lock(box->mutex);
    if (box->notices.size() >= 50) ++box->dropped;
    else
      box->notices.push_back({{"kind", "gate"}, {"tab", get_str(decision, "tab")},
                              {"message", "refused " + get_str(decision, "method") + " " + clip_head(get_str(decision, "url"), 150) + ": " +
                                              get_str(decision, "reason") + " (decided by " + get_str(decision, "by") + ")"}});
  };
  // What identifies each action's target (and, in a replay, each target found again): events,
  // from which a script keeps the details (scripts/script.h). Never blocks.
  hooks->on_record = [alive = m_alive](const std::string& type, const json& data) {
    std::shared_lock lock(alive->mutex);
    if (alive->run) alive->run->emit(type, data);
  };
  hooks->recorded = m_options.recorded;
  hooks->before_call = m_options.before_call;
  hooks->on_change = m_options.on_change;
  m_session.host().context().set_hooks(std::move(hooks));
  egress::deliver_early(m_session.host().context());
  // Never blocks: the listener runs on the network thread.
  m_notice_listener = m_session.browser().notices().add_listener([box = m_notices, context = m_session.context()](const browser::PageNotice& n) {
    if (n.context != context) return;
    std::lock_guard lock(box->mutex);
    if (box->notices.size() >= 50) ++box->dropped;
    else box->notices.push_back(n.to_json());
  });
  m_session.set_log_handler([this](const std::string& line) { emit("log", {{"message", line}}); });
}

Run::~Run() {
  // Sub-calls still running end soon once cancelled; wait for them, then no hook reaches us.
  m_cancel.cancel();
  m_session.host().context().set_hooks(nullptr);
  {
    std::unique_lock lock(m_alive->mutex);
    m_alive->run = nullptr;
  }
  m_session.set_log_handler(nullptr);
  m_session.browser().notices().remove_listener(m_notice_listener);
}

std::string Run::take_notices(int iteration) {
  std::vector<json> notices;
  size_t dropped;
  {
    std::lock_guard lock(m_notices->mutex);
    notices.swap(m_notices->notices);
    dropped = std::exchange(m_notices->dropped, 0);
  }
  std::string lines;
  for (auto& n : notices) {
    std::string kind = get_str(n, "kind");
    std::string type = kind == "dialog" ? "dialog-opened" : kind;
    n["iteration"] = iteration;
    if (kind != "gate") emit(type, n);  // gate decisions were events as they happened
    lines += fmt::format("  {}: {} — {}\n", get_str(n, "tab", "?"), kind, clip_head(get_str(n, "message"), 200));
  }
  if (dropped) lines += fmt::format("  … and {} more page notices\n", dropped);
  return lines;
}

bool Run::ask_confirmation(const json& request) {
  json req = request;
  req["id"] = "c" + std::to_string(++m_confirmations);
  // A `$` command names the element itself: that is the user's say-so for acting on it. Leaving
  // the allowed sites, or taking one of the user's tabs, is still asked.
  if (m_commands_turn && !req.contains("request") && get_str(req, "action") != "use-tab") {
    req.erase("crop");  // nobody is asked: no picture to show
    emit("confirmation-res", {{"id", req["id"]}, {"approved", true}, {"by", "your command"}, {"details", req}});
    return true;
  }
  ++m_asked;
  // When no answer counts as "no": the faces show a countdown to it.
  req["timeoutMs"] = m_options.confirm_timeout.count();
  req["expiresAt"] = static_cast<int64_t>(wall_ms()) + m_options.confirm_timeout.count();
  emit("confirmation-req", {{"id", req["id"]}, {"action", req["action"]}, {"details", req}});
  bool approved = !m_cancel.cancelled() && m_options.confirm && m_options.confirm(req);
  emit("confirmation-res", {{"id", req["id"]}, {"approved", approved}});
  return approved;
}

Result<std::string> Run::ask_user(const json& question) {
  json q = question;
  q["id"] = "q" + std::to_string(++m_questions);
  // Which page asked: the run's active tab, for the faces to name (its address without secret
  // query values, its title as the tab shows it).
  if (auto info = m_session.browser().tab_info(m_session.active_tab())) {
    q["url"] = safety::redact_url_params(info->url);
    if (!info->title.empty()) q["pageTitle"] = clip_line(info->title, 200);
  }
  if (m_options.ask_user) {
    q["timeoutMs"] = m_options.ask_timeout.count();
    q["expiresAt"] = static_cast<int64_t>(wall_ms()) + m_options.ask_timeout.count();
  }
  emit("user-question", q);
  std::optional<std::string> answer;
  if (!m_cancel.cancelled() && m_options.ask_user) answer = m_options.ask_user(q);
  bool secret = get_bool(q, "secret", false);
  // A secret answer stays with ouro: the event (and the model) never has it.
  json shown = {{"id", q["id"]}, {"answered", answer.has_value()}};
  if (answer) shown["answer"] = secret ? json("[secret]") : json(clip_head(*answer, 500));
  emit("user-answer", shown);
  if (m_cancel.cancelled()) return make_error(Code::Cancelled, "askUser: the run was cancelled");
  if (!m_options.ask_user)
    return make_error(Code::FailedPrecondition, "askUser: there is no one to ask in this run; decide with what you have, or report back with setFinal()");
  if (!answer)
    return make_error(Code::DeadlineExceeded,
                      "askUser: the user did not answer in time; carry on without it if you can, or report back with setFinal() saying what you need");
  return *answer;
}

void Run::emit(const std::string& type, json data) {
  // Events go to the Command Center, the database, traces and the terminal: secrets in URLs and
  // the run's named secrets (in any of their usual forms) stay behind.
  safety::redact_json_strings(data);
  if (const auto& secrets = m_session.host().context().secrets(); secrets && !secrets->empty()) secrets->scrub(data);
  std::lock_guard lock(m_emit_mutex);
  Event e{++m_seq, type, std::move(data), wall_ms()};
  apply_event(m_state, e.type, e.data);
  if (m_sink) m_sink(e);
}

void Run::checkpoint(int it) {
  json tabs = json::array();
  // In the user's browser, the run's own tabs only (the user's others are not its to reopen).
  for (const auto& t : m_session.host().context().shared_tabs() ? m_session.held_tabs() : m_session.tabs()) tabs.push_back({{"id", t.id}, {"url", safety::redact_url_params(t.url)}, {"title", clip_head(t.title, 200)}});
  std::string env = m_session.storable_env();
  // A tab's URL may hold a typed secret (a submitted GET form): the checkpoint is stored.
  if (const auto& secrets = m_session.host().context().secrets(); secrets && !secrets->empty()) secrets->scrub(tabs);
  json data = {{"iteration", it}, {"tabs", tabs}, {"activeTab", m_session.active_tab()}, {"provider", m_provider.position()}, {"envBytes", env.size()}};
  if (m_options.on_checkpoint) {
    json compacted;
    {
      // The checkpoint's own fields go into the state now (its event, which sets the same ones,
      // follows once it is stored): no copy of the whole history each iteration, and the text is
      // made outside the lock every event takes.
      std::lock_guard lock(m_emit_mutex);
      apply_event(m_state, "checkpoint", data);
      compacted = checkpoint_json(m_state);
    }
    std::string state = dump_json(compacted);
    data["stateBytes"] = state.size();
    if (auto kept = m_options.on_checkpoint(it, state, env); !kept) {
      emit("error", {{"iteration", it}, {"error", "the checkpoint could not be stored: " + kept.error().message}, {"warning", true}});
      return;
    }
  }
  emit("checkpoint", std::move(data));
}

void Run::add_usage(const llm::Response& r) {
  std::lock_guard lock(m_usage_mutex);
  m_usage.add(r.usage);
  m_cost += r.cost_usd;
  m_cost_known = m_cost_known && r.cost_known;
}

Run::Guidance Run::add_guidance(const std::string& text) {
  std::lock_guard lock(m_guidance_mutex);
  if (m_guidance_closed) return Guidance::Closed;
  if (m_guidance.size() >= 20) return Guidance::Full;
  m_guidance.push_back(clip_head(text, 4000));
  return Guidance::Added;
}

void Run::cancel() {
  m_cancel.cancel();
  m_session.repl().interrupt();
}

std::string Run::progress_text() {
  std::lock_guard lock(m_history_mutex);
  if (m_history.empty()) return "nothing yet";
  std::string out;
  for (const auto& r : m_history) out += (out.empty() ? "" : "; ") + r.condensed();
  return clip_head(out, 2000);
}

// A fresh call on the sub-model with the full system prompt and the task context. Never throws:
// failures are errors, shown to the code as "[SUB-CALL ERROR] …".
namespace {

constexpr size_t kMaxImages = 5;
// How a failed sub-call reads to the code that made it (the system prompt tells the model to check for it).
const std::string kSubCallError = "[SUB-CALL ERROR] ";
constexpr size_t kMaxImageBytes = 8u << 20;  // base64, all of one call's images

// A sub-call's images, checked: data URLs of the types providers take, a few, not huge.
Result<std::vector<llm::Image>> images_of(const json& images) {
  std::vector<llm::Image> out;
  if (images.is_null() || images.is_discarded()) return out;
  if (!images.is_array()) return make_error(Code::InvalidArgument, "images must be an array of data URLs (from screenshot())");
  if (images.size() > kMaxImages) return errorf(Code::InvalidArgument, "at most {} images per sub-call, got {}", kMaxImages, images.size());
  size_t total = 0;
  for (const auto& im : images) {
    if (!im.is_string()) return make_error(Code::InvalidArgument, "each image must be a data URL string (from screenshot())");
    total += im.get_ref<const std::string&>().size();
    if (total > kMaxImageBytes)
      return errorf(Code::InvalidArgument, "the images of one sub-call exceed {} MB; screenshot a region (rect) instead of the whole page", kMaxImageBytes >> 20);
    out.push_back(TRY(llm::image_from_data_url(im.get_ref<const std::string&>())));
  }
  return out;
}

}  // namespace

Result<std::string> Run::sub_query(const std::string& prompt, const json& data, int index, const json& images_in) {
  if (m_cancel.cancelled()) return make_error(Code::Cancelled, "the run was cancelled");
  auto images = images_of(images_in);
  if (!images) return tl::make_unexpected(images.error());
  const std::string sub_model = m_options.sub_model.empty() ? m_options.model : m_options.sub_model;
  if (!images->empty() && !llm::model_family(sub_model, m_provider.name()).vision)
    return errorf(Code::InvalidArgument, "the sub-model {} cannot see images (the model table knows no vision for it); choose a vision model "
                       "with --sub-model (claude-sonnet-4-…, gpt-4.1, gpt-4o, …), or describe the page in text instead",
                       sub_model);
  int n = ++m_sub_calls;
  if (n > m_options.max_sub_calls)
    return errorf(Code::ResourceExhausted, "the limit of {} sub-calls per run is reached; process the rest in code or batch more per call",
                       m_options.max_sub_calls);
  llm::Request req;
  req.model = sub_model;
  req.purpose = llm::Purpose::Sub;
  req.params = m_options.params;
  req.system = system_prompt() + "\n## Current Task Context\nUser's request: \"" + m_options.task + "\"\nProgress so far: " + progress_text() +
               "\n\n## Your Sub-Task\nYou are answering one sub-task for the main loop, with no browser access: reply with the answer "
               "itself, not code.\n" + prompt;
  std::string content = "Execute the sub-task described in your system prompt.";
  if (!data.is_null() && !data.is_discarded())
    content = "Data:\n" + (data.is_string() ? data.get<std::string>() : dump_json(data)) + "\n\n" + content;
  req.system = safety::redact_url_params(req.system);
  req.messages.push_back({"user", safety::redact_url_params(content), std::move(*images)});
  emit("sub-llm-start", {{"index", index}, {"prompt", clip_head(prompt, 300)}, {"dataChars", data.is_null() ? 0 : (data.is_string() ? data.get<std::string>().size() : dump_json(data).size())},
                          {"images", req.messages.back().images.size()}});
  auto t0 = Clock::now();
  auto r = m_provider.complete(scrubbed_request(req, m_session.host().context().secrets().get()), [](const llm::Delta&) {}, m_cancel);
  double ms = ms_since(t0);
  if (!r) {
    emit("sub-llm-complete", {{"index", index}, {"resultMeta", {{"error", r.error().message}, {"ms", ms}}}});
    return tl::make_unexpected(r.error());
  }
  add_usage(*r);
  emit("sub-llm-complete", {{"index", index},
                            {"resultMeta", {{"chars", r->text.size()}, {"preview", clip_head(r->text, 200)}, {"ms", ms}, {"usage", r->usage.to_json()},
                                            {"cost", r->cost_known ? json(r->cost_usd) : json(nullptr)}}}});
  return r->text;
}

Result<json> Run::goal_call(const std::string& function, const json& args) {
  std::lock_guard lock(m_goals_mutex);
  if (function == "listGoals") return m_goals.list();
  const std::string first = !args.empty() && args[0].is_string() ? args[0].get<std::string>() : "";
  Result<json> goal = function == "addGoal" ? m_goals.add(first) : m_goals.update(first, args.size() > 1 ? args[1] : json::object());
  if (!goal) return goal;
  emit(function == "addGoal" ? "goal_added" : "goal_updated", {{"goal", *goal}, {"goals", m_goals.list()}});
  return goal;
}

std::string Run::memory_entries() {
  const host::Context& ctx = m_session.host().context();
  std::string task = m_options.task;
  if (ctx.secrets() && !ctx.secrets()->empty()) task = ctx.secrets()->scrub_text(std::move(task));
  return memory::Memory(m_session.db(), ctx.embeddings().get()).relevant_for(task, 5, 1200);
}

std::string Run::goals_section() {
  std::lock_guard lock(m_goals_mutex);
  return m_goals.prompt_section();
}

Result<json> Run::sub_call(const std::string& function, const json& args) {
  if (function == "llm_query") {
    std::string prompt = !args.empty() && args[0].is_string() ? args[0].get<std::string>() : "";
    json images = args.size() > 2 && args[2].is_object() && args[2].contains("images") ? args[2]["images"] : json();
    // options.choices: the answer is one of them, exactly as the code gave it (or an error).
    const json choices = args.size() > 2 && args[2].is_object() && args[2].contains("choices") ? args[2]["choices"] : json();
    if (choices.is_array() && choices.size() > 50)
      return json(kSubCallError + "at most 50 choices, got " + std::to_string(choices.size()) + "; narrow them in code first");
    if (choices.is_array() && !choices.empty()) {
      prompt += "\n\nAnswer with exactly one of these choices, written as it is here, and nothing else:";
      for (const auto& c : choices) prompt += "\n- " + c.get<std::string>();
    }
    auto answer = sub_query(prompt, args.size() > 1 ? args[1] : json(), 0, images);
    if (!answer) return json(kSubCallError + answer.error().message);
    if (choices.is_array() && !choices.empty()) {
      auto folded = [](std::string t) {
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
        while (!t.empty() && (t.back() == '.' || t.back() == '"' || t.back() == '\'')) t.pop_back();
        while (!t.empty() && (t.front() == '"' || t.front() == '\'' || t.front() == '-' || t.front() == ' ')) t.erase(0, 1);
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return t;
      };
      for (const auto& c : choices)
        if (folded(c.get<std::string>()) == folded(*answer)) return c;
      return json(kSubCallError + "the answer was none of the choices: " + clip_line(*answer, 200));
    }
    return json(*answer);
  }
  // llm_batch: every item settles (Promise.allSettled), at most sub_concurrency at a time.
  const json items = !args.empty() && args[0].is_array() ? args[0] : json::array();
  std::vector<json> results(items.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < items.size();) {
      const json& item = items[i];
      std::string prompt;
      json data, images;
      if (item.is_string()) prompt = item;
      else if (item.is_object()) {
        prompt = item.value("prompt", "");
        if (item.contains("data")) data = item["data"];
        if (item.contains("images")) images = item["images"];
      }
      if (prompt.empty()) {
        results[i] = {{"status", "rejected"}, {"error", "each item must be a prompt string or { prompt, data }"}};
        continue;
      }
      // Decided by the result, not by its text: a model's answer may itself begin with the marker.
      auto answer = sub_query(prompt, data, static_cast<int>(i), images);
      if (!answer) results[i] = {{"status", "rejected"}, {"error", kSubCallError + answer.error().message}};
      else results[i] = {{"status", "fulfilled"}, {"value", *answer}};
    }
  };
  std::vector<std::thread> threads;
  size_t n = std::min<size_t>(static_cast<size_t>(std::max(1, m_options.sub_concurrency)), items.size());
  for (size_t i = 0; i < n; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return json(results);
}

// `$ click Next; type "x" into Search`: the turn is act() on the active tab, one block, no model call.
RunResult Run::execute_commands(const std::string& commands) {
  RunResult result;
  const int it = std::max(1, m_options.first_iteration);
  result.iterations = 1;
  m_commands_turn = true;
  auto t_iter = Clock::now();
  emit("iteration-start", {{"iteration", it}, {"taskGoal", m_options.task}, {"promptTokens", 0}, {"prompt", ""}, {"commands", true}});
  std::string code = "setFinal(await act(activeTab, " + json(commands).dump() + "))";
  emit("code-generated", {{"iteration", it}, {"blockIndex", 0}, {"code", code}, {"strategy", "commands"}});
  auto r = m_session.repl().eval(code, m_options.block_timeout);
  double exec_ms = ms_since(t_iter);
  json meta;
  json final;
  bool have_final = false;
  BlockRecord br;
  br.code = code;
  if (r && r->ok && r->final) {
    final = *r->final;
    have_final = true;
    bool ok = final.is_object() && final.value("ok", false);
    std::string lines;
    for (const auto& st : final.value("steps", json::array()))
      lines += (lines.empty() ? "" : "\n") + std::string(get_str(st, "status") == "done" ? "✓ " : get_str(st, "status") == "failed" ? "✗ " : "· ") +
               get_str(st, "command") + (get_str(st, "did").empty() ? "" : " — " + get_str(st, "did")) +
               (get_str(st, "error").empty() ? "" : " — " + get_str(st, "error"));
    meta = {{"ok", ok}, {"summary", lines}, {"ms", r->ms}};
    if (!ok) meta["error"] = get_str(final, "error");
    br.ok = ok;
    br.summary = lines;
    br.one_liner = ok ? "→ done" : "→ " + clip_head(get_str(final, "error"), 80);
  } else {
    std::string err = !r ? r.error().message : r->error_message.empty() ? "act() gave no result" : r->error_message;
    meta = {{"ok", false}, {"error", err}, {"summary", err}};
    br.ok = false;
    br.summary = "Result: ERROR — " + err;
    br.one_liner = "→ ERROR: " + clip_head(err, 80);
    result.error = err;
  }
  emit("code-result", {{"iteration", it}, {"blockIndex", 0}, {"metadata", meta}});
  {
    std::lock_guard lock(m_history_mutex);
    IterationRecord record;
    record.number = it;
    record.blocks.push_back(std::move(br));
    m_history.push_back(std::move(record));
  }
  emit("iteration-end", {{"iteration", it}, {"ms", ms_since(t_iter)}, {"modelMs", 0}, {"execMs", exec_ms}, {"engineMs", 0},
                         {"usage", llm::Usage{}.to_json()}, {"cost", 0}, {"codeBlocks", 1}});
  if (have_final && !(final.is_object() && final.value("ok", false))) result.partial = true;
  return finish(std::move(result), have_final, std::move(final));
}

Result<llm::Response> Run::call_model(int it, const llm::Request& request, double& ms) {
  const llm::Request req = scrubbed_request(request, m_session.host().context().secrets().get());
  auto t0 = Clock::now();
  auto r = m_provider.complete(req, [&](const llm::Delta& d) {
    if (d.kind == llm::Delta::Kind::Restart) emit("stream-token", {{"iteration", it}, {"restart", true}, {"token", ""}});
    else emit("stream-token", {{"iteration", it}, {"token", d.text}, {"kind", d.kind == llm::Delta::Kind::Reasoning ? "reasoning" : "text"}});
  }, m_cancel);
  ms = ms_since(t0);
  if (!r) {
    std::string kind = llm::kind_of(r.error());
    Error e = r.error();
    e.message = "the model call failed" + (kind.empty() ? std::string() : " (" + kind + ")") + ": " + e.message;
    return tl::make_unexpected(std::move(e));
  }
  return r;
}

RunResult Run::execute() {
  if (size_t at = m_options.task.find_first_not_of(" \t\r\n"); at != std::string::npos && m_options.task[at] == '$')
    return execute_commands(m_options.task.substr(at + 1));
  if (m_options.agent == "tools") return execute_tools();
  RunResult result;
  auto& browser = m_session.browser();
  auto& repl = m_session.repl();
  TabDiffer differ;
  const std::string system = system_prompt();
  std::string instruction = kNext;
  json final;
  bool have_final = false;

  // Iterations count on across the turns of a conversation; the cap is per turn.
  int first = std::max(1, m_options.first_iteration);
  int cap = m_options.max_iterations;
  std::string resumed;
  if (m_options.resume) {
    // After a crash: the history, usage and iteration count of the last checkpoint; the
    // iteration the crash cut short is done again.
    const RunState& from = *m_options.resume;
    first = from.last_iteration + 1;
    cap = std::max(1, m_options.max_iterations - from.turn_iterations);
    {
      std::lock_guard lock(m_history_mutex);
      m_history = from.history;
    }
    {
      std::lock_guard lock(m_usage_mutex);
      m_usage = from.usage;
      m_cost = from.cost;
      m_cost_known = from.cost_known;
    }
    emit("resumed", {{"fromIteration", first}, {"checkpointIteration", from.checkpoint_iteration}, {"note", m_options.resume_note}});
    resumed = "## Resumed After A Restart\n" + m_options.resume_note + "\n\n";
  }
  const std::string conversation = conversation_so_far(m_options.earlier, m_options.conversation_budget_tokens);
  // Memory across tasks: what earlier runs left that shares words with this task, found once so
  // the prompt's cached prefix stays the same from one iteration to the next.
  const std::string memories = relevant_memories(memory_entries());
  size_t history_budget = m_options.history_budget_tokens;
  int overflow_retried_at = 0;  // the iteration whose prompt was compacted after a context overflow
  const int turn_first = m_options.resume ? first - m_options.resume->turn_iterations : first;  // this turn's first iteration
  // A crash before the first iteration ends resumes from here: the turn's start, its tabs open.
  if (!m_options.resume) checkpoint(first - 1);
  // A pool's run stops at a boundary where its browser has gone, to move elsewhere (run.h).
  auto browser_lost = [&]() -> bool {
    if (!m_options.stop_when_browser_lost) return false;
    auto dead = m_session.browser().dead();
    if (!dead) return false;
    result.browser_lost = dead->message;
    return true;
  };
  for (int it = first; it < first + cap; ++it) {
    if (m_cancel.cancelled()) break;
    if (browser_lost()) return lost(std::move(result));
    result.iterations = it - turn_first + 1;
    auto t_iter = Clock::now();

    // 1. Context: task, progress, page changes, browser state, variables, store keys, history.
    auto t_ctx = Clock::now();
    std::string changes = differ.changes(browser, m_session.context());
    if (std::string notices = take_notices(it); !notices.empty())
      changes += (changes.empty() ? "## Page Changes Since Last Iteration\n" : "") + std::string("Page notices (dialogs are dismissed unless handleDialog says otherwise):\n") + notices;
    if (!changes.empty()) emit("page-changes", {{"iteration", it}, {"changes", differ.last_changes()}});
    std::string vars = "## REPL Variables (env)\n" + (repl.env_plain().map([](const json& e) { return jsrt::summarize_env(e); }).value_or("  (unreadable)")) + "\n";
    std::string keys = "## Persistent Store Keys\n  " + m_session.db().kv_keys().map([](const std::vector<std::string>& k) { return json(k).dump(); }).value_or("[]") + "\n";
    std::vector<std::string> history;
    {
      std::lock_guard lock(m_history_mutex);
      history = history_blocks(m_history, history_budget);
    }
    std::string guidance;
    std::vector<std::string> messages;
    {
      std::lock_guard lock(m_guidance_mutex);
      messages = std::exchange(m_guidance, {});
    }
    // Told outside the lock: a face that adds a message holds its own lock while it waits for this one.
    for (const auto& g : messages) {
      guidance += "\"" + g + "\"\n";
      emit("user-message", {{"text", g}, {"iteration", it}, {"guidance", true}});
    }
    if (!guidance.empty()) guidance = "## Message From The User (sent while you worked)\n" + guidance + "Take it into account from now on.\n\n";
    // Stable first, so providers can cache the prefix: the earlier turns, the relevant
    // memories, then the history, block by block as compaction leaves them; then what is new this iteration — the
    // task and its progress, the user's message, page changes, browser state, env, store keys.
    std::string user;
    std::vector<size_t> stable;
    auto add_stable = [&](const std::string& part) {
      if (part.empty()) return;
      user += safety::redact_url_params(part);
      stable.push_back(user.size());
    };
    if (!conversation.empty()) add_stable(conversation + "\n");
    if (!memories.empty()) add_stable(memories + "\n");
    // The goals change rarely (a goal added or done): kept in the stable part, before the history.
    if (std::string goals = goals_section(); !goals.empty()) add_stable(goals + "\n");
    for (const auto& block : history) add_stable(block);
    user += safety::redact_url_params(task_reinforcement(m_options.task, it - turn_first + 1, m_options.max_iterations, m_history) + "\n" + std::exchange(resumed, "") + guidance +
                                      (changes.empty() ? "" : changes + "\n") +
                                      browser_state(browser, m_session.context(), m_session.active_tab()) + "\n" + vars + "\n" + keys + "\n" +
                                      instruction);
    double context_ms = ms_since(t_ctx);
    size_t prompt_tokens = estimate_tokens(system) + estimate_tokens(user);
    result.max_prompt_tokens = std::max(result.max_prompt_tokens, prompt_tokens);
    emit("iteration-start", {{"iteration", it}, {"taskGoal", m_options.task}, {"promptTokens", prompt_tokens}, {"prompt", user}, {"cacheBlocks", stable}});

    // 2. The model, streamed.
    llm::Request req{m_options.model, system, {{"user", user, {}, stable}}, m_options.params, llm::Purpose::Main};
    double model_ms = 0;
    auto response = call_model(it, req, model_ms);
    if (!response) {
      if (m_cancel.cancelled()) break;
      std::string kind = llm::kind_of(response.error());
      if (kind == llm::error_kind::kContextOverflow && overflow_retried_at != it) {
        // Compact the history hard and ask once more; a second overflow ends the run.
        overflow_retried_at = it;
        history_budget = std::max<size_t>(500, history_budget / 4);
        emit("error", {{"iteration", it}, {"kind", kind}, {"error", response.error().message}, {"retrying", true},
                       {"note", fmt::format("compacting the history to {} tokens and trying this iteration once more", history_budget)}});
        --it;
        continue;
      }
      result.error = response.error().message;
      json ev = {{"iteration", it}, {"error", result.error}};
      if (!kind.empty()) ev["kind"] = kind;
      emit("error", ev);
      break;
    }
    add_usage(*response);
    for (const auto& w : response->warnings) emit("error", {{"iteration", it}, {"error", w}, {"warning", true}});

    // 3. Code blocks by the fallback chain; none means a continuation prompt, never the end.
    auto t_parse = Clock::now();
    Extracted code = extract_code_blocks(response->text);
    double parse_ms = ms_since(t_parse);
    IterationRecord record;
    record.number = it;
    double exec_ms = 0, summarise_ms = 0;
    if (code.blocks.empty()) {
      record.note = response->text;
      instruction = it == turn_first ? kContinueFirst : kContinue;
    } else {
      instruction = kNext;
      for (size_t b = 0; b < code.blocks.size(); ++b) {
        if (m_cancel.cancelled()) break;
        emit("code-generated", {{"iteration", it}, {"blockIndex", b}, {"code", code.blocks[b]}, {"strategy", code.strategy}});
        auto t_exec = Clock::now();
        (void)m_session.host().take_notes();  // notes of calls from earlier blocks are stale
        auto r = repl.eval(code.blocks[b], m_options.block_timeout);
        auto notes = m_session.host().take_notes();
        exec_ms += ms_since(t_exec);
        auto t_sum = Clock::now();
        BlockRecord br;
        br.code = code.blocks[b];
        json meta;
        if (!r) {
          br.ok = false;
          br.summary = "Result: ERROR — " + r.error().message;
          br.one_liner = "→ ERROR: " + clip_head(r.error().message, 80);
          // Its kind, as a result's: the Command Center shows a block cut short by a cancel as stopped, not failed.
          meta = {{"ok", false}, {"error", r.error().message}, {"kind", r.error().code == Code::Cancelled ? "interrupted" : "error"}};
        } else if (!r->ok) {
          std::string err = jsrt::error_text(*r);
          br.ok = false;
          br.summary = "Result: ERROR — " + err;
          br.one_liner = "→ ERROR: " + clip_head(err, 80);
          br.logs = r->logs;
          meta = {{"ok", false}, {"error", err}, {"kind", r->kind}, {"ms", r->ms}};
        } else {
          br.summary = jsrt::summarize_value(r->value);
          br.one_liner = jsrt::one_liner(r->value);
          br.logs = r->logs;
          meta = {{"ok", true}, {"summary", br.summary}, {"type", jsrt::describe_type(r->value)}, {"chars", jsrt::json_chars(r->value)}, {"ms", r->ms},
                  {"shape", value_shape(r->value)}};
        }
        if (r && r->final) {
          br.set_final = true;
          br.summary += "\nsetFinal() called: " + jsrt::one_liner(*r->final);
          final = *r->final;
          have_final = true;
          meta["finalShape"] = value_shape(*r->final);
        }
        if (m_options.vet_block && get_bool(meta, "ok", true)) {
          if (std::string why = m_options.vet_block(meta); !why.empty()) {
            br.ok = false;
            br.summary = "Result: ERROR — " + why;
            br.one_liner = "→ ERROR: " + clip_head(why, 80);
            meta["ok"] = false;
            meta["error"] = why;
            if (br.set_final) {  // not delivered: the replay stops here, or its model takes over
              br.set_final = false;
              have_final = false;
              final = json();
            }
          }
        }
        for (const auto& n : notes) br.summary += "\nNote: " + n;
        if (std::string notices = take_notices(it); !notices.empty()) br.summary += "\nPage notices while it ran:\n" + notices;
        // Page text that reads like instructions to the agent is marked where the model sees it.
        if (r && r->ok) {
          std::vector<safety::InjectionFlag> flags = scan_strings(r->value);
          if (!flags.empty()) {
            br.summary += "\n⚠ " + safety::describe_flags(flags);
            json list = json::array();
            for (const auto& f : flags) list.push_back({{"kind", f.kind}, {"excerpt", f.excerpt}});
            meta["injection"] = list;
            emit("injection-flag", {{"iteration", it}, {"blockIndex", b}, {"flags", list}});
          }
        }
        summarise_ms += ms_since(t_sum);
        meta["summary"] = br.summary;
        meta["oneLiner"] = br.one_liner;
        if (br.set_final) meta["setFinal"] = true;
        if (!br.logs.empty()) {
          // As many as the history shows (five, and that there were more), for the checkpoint.
          json logs = json::array();
          for (size_t l = 0; l < br.logs.size() && l < 6; ++l) logs.push_back(clip_head(br.logs[l], 400));
          meta["logs"] = logs;
        }
        if (!notes.empty()) meta["notes"] = notes;
        emit("code-result", {{"iteration", it}, {"blockIndex", b}, {"metadata", meta}});
        record.blocks.push_back(std::move(br));
        if (have_final) break;
      }
    }
    {
      std::lock_guard lock(m_history_mutex);
      m_history.push_back(record);
    }
    if (auto env = repl.env_plain())
      emit("env-update", {{"iteration", it}, {"metadata", jsrt::summarize_env(*env)}});
    llm::Usage iter_usage = response->usage;
    json end_note = record.blocks.empty() ? json(clip_head(record.note, 400)) : json();
    emit("iteration-end", {{"iteration", it},
                           {"note", end_note},
                           {"ms", ms_since(t_iter)},
                           {"modelMs", model_ms},
                           {"execMs", exec_ms},
                           {"engineMs", context_ms + parse_ms + summarise_ms},
                           {"contextMs", context_ms},
                           {"parseMs", parse_ms},
                           {"summariseMs", summarise_ms},
                           {"usage", iter_usage.to_json()},
                           {"cost", response->cost_known ? json(response->cost_usd) : json(nullptr)},
                           {"codeBlocks", record.blocks.size()}});
    if (have_final) break;
    if (browser_lost()) return lost(std::move(result));
    checkpoint(it);
  }
  return finish(std::move(result), have_final, std::move(final));
}

RunResult Run::lost(RunResult result) {
  std::lock_guard lock(m_usage_mutex);
  result.usage = m_usage;
  result.cost_usd = m_cost;
  result.cost_known = m_cost_known;
  result.partial = true;
  result.error = result.browser_lost;
  return result;
}

RunResult Run::finish(RunResult result, bool have_final, json final) {
  {
    std::lock_guard lock(m_usage_mutex);
    result.usage = m_usage;
    result.cost_usd = m_cost;
    result.cost_known = m_cost_known;
  }
  result.action_cache = m_session.host().context().action_cache().to_json();
  result.actions = m_session.host().actions() - m_actions_at_start;
  result.asked = m_asked.load();
  result.cancelled = m_cancel.cancelled();
  if (have_final && !result.cancelled) {
    result.final = std::move(final);
  } else {
    result.partial = true;
    auto env = m_session.repl().env_plain().value_or(json::object());
    std::string why = result.cancelled       ? "Task cancelled by user."
                      : !result.error.empty() ? "The run stopped: " + result.error + "."
                                              : fmt::format("Stopped after {} iterations without setFinal().", result.iterations);
    result.final = {{"partial", true}, {"message", why + " Partial results may be available in env."}, {"env", env}};
  }
  // The answer is shown and kept (the run's row, memory across tasks, hooks, a follow-up's
  // context): the run's secrets, in any of their forms, stay behind in it as in every record.
  if (const auto& secrets = m_session.host().context().secrets(); secrets && !secrets->empty()) secrets->scrub(result.final);
  {
    std::lock_guard lock(m_guidance_mutex);
    result.unread_guidance = std::exchange(m_guidance, {});
    m_guidance_closed = true;  // a message from now on is not this run's to read
  }
  // In the user's own browser the tabs the run held stay open: say which they are.
  if (m_session.host().context().shared_tabs()) {
    result.tabs = json::array();
    // Once the run has acted on them they keep to its allowed sites after it ends, until the user
    // replaces their page (egress/gate.h leave_tabs).
    bool kept = egress::has_acted(m_session.host().context());
    for (const auto& t : m_session.held_tabs())
      result.tabs.push_back({{"id", t.id}, {"url", safety::redact_url_params(t.url)}, {"title", t.title}, {"underRule", kept}});
    if (const auto& secrets = m_session.host().context().secrets(); secrets && !secrets->empty()) secrets->scrub(result.tabs);
  }
  emit("complete", result.to_json());
  return result;
}

}  // namespace ouro::agent
