#include "cli/run.h"
#include "base/clock.h"

#include "base/settings_file.h"

#include "agent/run.h"
#include "base/log.h"
#include "safety/redact.h"
#include "base/text.h"
#include "cli/terminal.h"
#include "hooks/hooks.h"
#include "jsrt/summary.h"
#include "runs/conversation.h"
#include "runs/lifecycle.h"
#include "runs/run.h"
#include "runs/resume.h"
#include "runs/sites.h"
#include "safety/secrets.h"
#include "safety/settings.h"
#include "undo/journal.h"
#include "scripts/rewrite.h"
#include "store/data_dir_lock.h"
#include "store/database.h"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace ouro::cli {

namespace {

// Renders a run's events in the terminal as they happen: tokens as they stream (reasoning set
// apart), each block's result, sub-calls, page changes, and per-iteration time, tokens and cost.
class TerminalView {
 public:
  // model: whether a model answers the run (a replay without one has no prompt and no tokens).
  TerminalView(bool color, bool model) : m_color(color), m_model(model) {}

  void on_event(const agent::Event& e) {
    const json& d = e.data;
    if (e.type == "stream-token") {
      if (d.value("restart", false)) return line(dim("  (connection retried; the answer restarts)"));
      std::string kind = d.value("kind", "text");
      if (kind != m_kind) {
        if (m_mid_line) std::cerr << "\n";
        if (kind == "reasoning") std::cerr << dim("💭 ");
        m_kind = kind;
      }
      std::string tok = d.value("token", "");
      std::cerr << (kind == "reasoning" ? dim(tok) : tok) << std::flush;
      m_mid_line = !tok.empty() && tok.back() != '\n';
      return;
    }
    if (e.type == "iteration-start") {
      m_kind.clear();
      return line(bold(fmt::format("\n▶ Iteration {}", d.value("iteration", 0))) +
                  (m_model ? dim(fmt::format("  (prompt ≈{} tokens)", d.value("promptTokens", 0))) : ""));
    }
    if (e.type == "code-generated" && d.value("strategy", "") == "tool") return line(dim("  ▷ ") + first_line(d.value("code", ""), 160));
    if (e.type == "loop-detected") return line(red("  ⛔ loop detected: ") + d.value("reason", ""));
    if (e.type == "reflection") {
      const json& r = d["reflection"];
      std::string issues;
      for (const auto& i : r.value("issues", json::array())) issues += "; " + i.get<std::string>();
      return line(yellow(fmt::format("  ↺ reflection after step {}: efficiency {}{}", r.value("step", 0), r.value("efficiency", ""), issues)));
    }
    if (e.type == "code-generated") {
      const std::string code = d.value("code", "");
      return line(dim(fmt::format("  ▷ running block {} ({} lines)", d.value("blockIndex", 0) + 1, std::count(code.begin(), code.end(), '\n') + 1)));
    }
    if (e.type == "code-result") {
      const json& m = d["metadata"];
      std::string summary = m.value("summary", m.value("error", ""));
      bool ok = m.value("ok", false);
      return line((ok ? green("  ✓ ") : red("  ✗ ")) + indent_rest(summary, "    "));
    }
    if (e.type == "log") return line(cyan("  log: ") + d.value("message", ""));
    if (e.type == "sub-llm-start") return line(dim(fmt::format("  ↳ sub-call #{}: {}", d.value("index", 0) + 1, first_line(d.value("prompt", ""), 90))));
    if (e.type == "sub-llm-complete") {
      const json& m = d["resultMeta"];
      if (m.contains("error")) return line(red(fmt::format("  ↳ sub-call #{} failed: {}", d.value("index", 0) + 1, m.value("error", ""))));
      return line(dim(fmt::format("  ↳ sub-call #{} done: {} chars in {:.1f} s", d.value("index", 0) + 1, m.value("chars", 0), m.value("ms", 0.0) / 1000)));
    }
    if (e.type == "page-changes") {
      for (const auto& c : d["changes"])
        line(yellow(fmt::format("  ⚠ {} {}: {}", c.value("tabId", ""), c.value("field", ""), c["new"].is_string() ? c["new"].get<std::string>() : std::string("—"))));
      return;
    }
    if (e.type == "error") {
      std::string kind = d.value("kind", "");
      if (d.value("retrying", false)) return line(yellow("  " + kind + ": ") + d.value("note", ""));
      return line(red(kind.empty() ? "  error: " : "  error (" + kind + "): ") + d.value("error", ""));
    }
    if (e.type == "confirmation-res")
      return line(d.value("approved", false) ? green("  ✓ the sensitive action was allowed") : yellow("  ✗ the sensitive action was denied"));
    if (e.type == "iteration-end") {
      const json& u = d["usage"];
      if (!m_model)
        return line(dim(fmt::format("  [{:.1f} s · browser/REPL {:.1f} s · engine {:.1f} ms]", d.value("ms", 0.0) / 1000, d.value("execMs", 0.0) / 1000,
                                    d.value("engineMs", 0.0))));
      return line(dim(fmt::format("  [{:.1f} s · model {:.1f} s · browser/REPL {:.1f} s · engine {:.1f} ms · {} in{} / {} out tokens{}{}]",
                                  d.value("ms", 0.0) / 1000, d.value("modelMs", 0.0) / 1000, d.value("execMs", 0.0) / 1000, d.value("engineMs", 0.0),
                                  u.value("input_tokens", 0), cached(u), u.value("output_tokens", 0), u.value("estimated", false) ? " (estimated)" : "",
                                  d["cost"].is_number() ? fmt::format(" · ${:.4f}", d["cost"].get<double>()) : "")));
    }
    if (e.type == "complete") {
      auto action_cache_note = [](const json& c) -> std::string {
        if (!c.contains("actionCache") || !c["actionCache"].is_object()) return "";
        const json& a = c["actionCache"];
        return fmt::format(" · action cache {}/{} hits", a.value("hits", 0), a.value("hits", 0) + a.value("misses", 0));
      };
      const json& u = d["usage"];
      std::string status = d.value("cancelled", false) ? "cancelled" : d.value("partial", false) ? "stopped with partial results" : "done";
      line(bold(fmt::format("\n■ {} after {} iteration{}", status, d.value("iterations", 0), d.value("iterations", 0) == 1 ? "" : "s")) +
           dim((m_model ? fmt::format(" · {} in{} / {} out tokens{}", u.value("input_tokens", 0), cached(u), u.value("output_tokens", 0),
                                      d["cost"].is_number() ? fmt::format(" · ${:.4f}", d["cost"].get<double>()) : " · cost unknown")
                        : std::string()) +
               action_cache_note(d)));
    }
  }

 private:
  void line(const std::string& text) {
    if (m_mid_line) std::cerr << "\n";
    m_mid_line = false;
    std::cerr << text << "\n" << std::flush;
  }
  std::string wrap(const char* code, const std::string& s) const { return m_color ? std::string("\033[") + code + "m" + s + "\033[0m" : s; }
  std::string dim(const std::string& s) const { return wrap("2", s); }
  // " (3,000 cached)" when the provider's prompt cache answered part of the input.
  static std::string cached(const json& u) {
    int64_t n = u.value("cache_read_tokens", int64_t(0));
    return n > 0 ? fmt::format(" ({} cached)", n) : "";
  }
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string red(const std::string& s) const { return wrap("31", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }
  std::string cyan(const std::string& s) const { return wrap("36", s); }
  static std::string first_line(const std::string& s, size_t n) { return clip_head(std::string_view(s).substr(0, s.find('\n')), n); }
  static std::string indent_rest(const std::string& s, const std::string& pad) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += pad;
    }
    return out;
  }
  bool m_color;
  bool m_model;
  bool m_mid_line = false;
  std::string m_kind;
};

}  // namespace

namespace {

// The flags as a run's request {task, urls, options}: checked by the same rules as the API's, kept
// with the run for a follow-up or a resume. `stored`: a continued or resumed run's own request,
// which the flags add to.
json request_from_flags(const CommonFlags& flags, const RunFlags& rf, const json* stored) {
  json options = json::object();
  std::vector<std::string> urls = flags.urls;
  std::string task = rf.task;
  if (stored) {
    // The run's own options and start pages, with what these flags add.
    task = get_str(*stored, "task");
    for (const auto& u : get_array(*stored, "urls"))
      if (u.is_string() && std::find(urls.begin(), urls.end(), u.get<std::string>()) == urls.end()) urls.insert(urls.begin(), u.get<std::string>());
    if (stored->contains("options") && (*stored)["options"].is_object()) options = (*stored)["options"];
  }
  if (!rf.context.empty()) options["context"] = rf.context;
  else if (!options.contains("context") && (!flags.profile.empty() || !flags.browser_ws.empty())) options["context"] = "mine";
  if (!flags.allow_domains.empty()) {
    json sites = options.contains("allowed_domains") && options["allowed_domains"].is_array() ? options["allowed_domains"] : json::array();
    for (const auto& d : flags.allow_domains) sites.push_back(d);
    options["allowed_domains"] = sites;
  }
  if (!flags.mode.empty()) options["mode"] = flags.mode;
  if (rf.max_iterations_given || !options.contains("max_iterations")) options["max_iterations"] = rf.max_iterations;
  if (rf.agent != "rlm") options["agent"] = rf.agent;
  // The model parameters too: run options, checked and kept as the API's are.
  if (rf.settings.max_tokens) options["max_tokens"] = *rf.settings.max_tokens;
  if (rf.settings.temperature) options["temperature"] = *rf.settings.temperature;
  if (rf.settings.thinking) options["thinking"] = *rf.settings.thinking;
  if (rf.no_remember) options["remember"] = false;
  if (rf.replay) {
    // The values too: a resume goes on with them (the task, kept with the run, carries them as well).
    options["script"] = {{"name", rf.replay->script().name}, {"version", rf.replay->script().version}, {"vars", rf.replay->vars()}};
    // A model takes over where a step cannot heal when one is given (--provider).
    if (rf.settings.provider) options["script"]["fallback"] = true;
  }
  return {{"task", task}, {"urls", urls}, {"options", options}};
}

}  // namespace

namespace {

// --resume of a run in the database of an `ouro serve` that is up: that server's to resume (it
// may be running it now) — one on this data directory, or on another that uses this database file.
Result<void> refuse_a_served_run(const std::string& db_path, const std::string& run_id) {
  auto pid = store::DataDirLock::holder(std::filesystem::path(db_path).parent_path().string());
  if (auto target = store::configured_database(db_path); !pid && target && !store::is_postgres_url(*target))
    pid = store::DataDirLock::database_holder(*target);
  if (!pid) return {};
  return errorf(Code::FailedPrecondition,
                "run {} is in the database of the ouro serve that is up ({}); resume it there: the Command Center's "
                "Resume, or POST /api/runs/{}/resume",
                run_id, *pid > 0 ? "pid " + std::to_string(*pid) : "its process id is not recorded", run_id);
}

// The run the flags name, with its spec: --continue, the conversation as the database keeps it
// (a run of the Command Center's, or an earlier `ouro run`): its env and its turns; --resume, an
// interrupted run from its checkpoint (one `ouro run` was doing when it was killed is still
// running: nothing marked it); else a new run. The flags are its options, checked by the same
// rules as the API's and kept with the run for a follow-up or a resume.
struct Taken {
  std::shared_ptr<runs::Run> run;
  runs::RunSpec spec;
};
Result<Taken> take_run(store::Database& db, const CommonFlags& flags, const RunFlags& rf) {
  Taken t;
  if (!rf.continue_id.empty()) t.run = TRY(runs::Run::continued(db, rf.continue_id, rf.task));
  else if (!rf.resume_id.empty())
    t.run = TRY(runs::Run::resumed(db, rf.resume_id, {runs::State::Interrupted, runs::State::Running, runs::State::Queued}));
  const json request = request_from_flags(flags, rf, t.run ? &t.run->request() : nullptr);
  t.spec = TRY(runs::parse_request(request));
  if (!t.run) t.run = TRY(runs::Run::create(db, request, runs::State::Running));
  else t.spec = TRY(t.run->set_request(request));
  return t;
}

// The settings file, read once for the run: its safety settings, its hooks and its model, over
// the flags' browser and model.
Result<runs::Setup> setup_from(const CommonFlags& flags, const RunFlags& rf) {
  llm::SettingsFlags sf = rf.settings;
  // Keys `ouro auth set` kept in the file when there was no keyring.
  sf.secrets_path = (!flags.base_data_dir.empty() ? flags.base_data_dir : flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/secrets.json";
  CommonFlags with_config = flags;
  if (rf.settings.config_path) with_config.config_path = *rf.settings.config_path;
  const SettingsFile settings_file = TRY(read_settings_file(config_path_of(with_config)));
  auto file = TRY(safety::safety_settings_from(settings_file.data, settings_file.where()));
  runs::Setup setup;
  setup.hooks = hooks::Pipeline::create(TRY(hooks::hooks_config_from(settings_file.data, settings_file.where())));
  setup.base = TRY(session_options(with_config, {}, false, {}, &file));
  setup.file = std::move(file);
  setup.model_flags = sf;
  setup.model_flags.file = settings_file.data;
  setup.default_context = "";  // the default context of the browser this run launches or attaches to
  setup.default_max_iterations = rf.max_iterations;
  return setup;
}

// After the run: how to follow it up, a replay's figures, --save-script.
void tell_after(store::Database& db, runs::Run& run, runs::State state, const RunFlags& rf, bool modelless) {
  const store::Database::RunRow row = run.row();
  if (!modelless) std::cerr << fmt::format("run {} · follow up with: ouro run --continue {} \"…\"\n", row.id, row.id);
  if (scripts::ReplayProvider* replay = run.life().replay()) {
    double ms = row.updated_at - row.created_at;
    std::cerr << fmt::format("replayed in {:.1f} s{} · path {}{}\n", ms / 1000,
                             rf.recorded_ms > 0 ? fmt::format(" (the recorded run took {:.1f} s)", rf.recorded_ms / 1000) : "",
                             replay->path(), replay->heals() ? fmt::format(" · {} target(s) healed", replay->heals()) : "");
  }
  // --save-script NAME: a run that delivered its final is kept as a script (its proposed parameters).
  if (rf.save_script.empty()) return;
  auto script = state == runs::State::Done ? scripts::from_run(db, row.id, rf.save_script)
                                           : Result<scripts::Script>(make_error(Code::FailedPrecondition, "the run did not finish with its final"));
  auto saved = script ? scripts::save(db, std::move(*script)) : Result<scripts::Script>(tl::make_unexpected(script.error()));
  if (saved) undo::note_script(db, row.id, run.life().turn_number(), saved->name, saved->version);
  if (saved) std::cerr << fmt::format("saved as script {} v{} ({} steps); replay: ouro replay {}\n", saved->name, saved->version, saved->steps.size(), saved->name);
  else std::cerr << "not saved as a script: " << saved.error().message << "\n";
}

}  // namespace

// `ouro run`: the flags become a run (runs/run.h) with the same options, checks and messages as
// the API's; the run carries itself, and the terminal shows its events and asks its questions.
Result<int> cmd_run(const CommonFlags& flags, RunFlags rf) {
  if (rf.task.find_first_not_of(" \t\n") == std::string::npos && rf.resume_id.empty())
    return make_error(Code::InvalidArgument, "run needs a task: ouro run \"Summarize the unread emails in my inbox\" --url https://mail.example.com");
  if (!rf.resume_id.empty() && !rf.continue_id.empty())
    return make_error(Code::InvalidArgument, "--resume and --continue are for different runs: resume an interrupted one, or continue a finished one");
  const std::string db_path = (flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/ouro.db";
  if (!rf.resume_id.empty()) TRY(refuse_a_served_run(db_path, rf.resume_id));
  auto db = TRY(store::Database::open(db_path));
  auto [run, spec] = TRY(take_run(*db, flags, rf));
  std::unique_ptr<std::ofstream> trace;
  if (!rf.trace.empty()) {
    trace = std::make_unique<std::ofstream>(rf.trace, std::ios::trunc);
    if (!*trace) return errorf(Code::InvalidArgument, "cannot write the trace file {}", rf.trace);
  }
  runs::Setup setup = TRY(setup_from(flags, rf));
  const std::shared_ptr<runs::EventLog> log = run->open_log(setup.hooks);
  TRY(run->keep_running());
  // A start that fails is kept as the API keeps one: failed, saying why.
  TRY(run->start(spec, std::move(setup),
                 std::make_shared<runs::SessionSource>([](session::SessionOptions so) { return session::Session::start(std::move(so)); })));
  runs::Lifecycle* life = &run->life();

  std::atomic<bool> cancelled{false};
  TerminalConfirmer confirmer(std::chrono::seconds(rf.confirm_timeout_s), cancelled);
  confirmer.remember = [kept_db = db.get(), id = run->id(), life](const std::string& site) { runs::remember_site(*kept_db, site, id, life->turn_number()); };
  runs::Asker asker;
  asker.confirm = [&](const json& req) { return confirmer.ask(req); };
  asker.ask_user = [&](const json& q) { return confirmer.ask_text(q, std::chrono::seconds(rf.ask_timeout_s)); };
  asker.confirm_timeout = std::chrono::seconds(rf.confirm_timeout_s);
  asker.ask_timeout = std::chrono::seconds(rf.ask_timeout_s);
  // A replay with no model to take over: no prompt, no tokens, and nothing a follow-up could ask.
  const bool modelless = life->replay() && !life->replay()->has_fallback();
  TerminalView view(isatty(2), !modelless);
  log->set_sink([](const runs::StoredEvent& e) {
    // A replay that healed steps, or that a model took over from: a new version of its script.
    if (e.type == "script-saved")
      std::cerr << fmt::format("saved {} v{} from v{} (see the change: ouro script show {} --diff)\n", get_str(e.data, "name"),
                               get_int(e.data, "version"), get_int(e.data, "based_on"), get_str(e.data, "name"));
  });
  std::cerr << fmt::format("ouro {} · {}\n", life->replay() ? "replay" : "run", life->banner());
  InterruptWatcher watcher([&] {
    std::cerr << "\n(cancelling…)\n";
    cancelled = true;
    run->cancel();
  });
  std::mutex trace_mutex;
  runs::Conversation one;  // one turn: `ouro run --continue` opens the next
  one.view = [&](const agent::Event& e) {
    view.on_event(e);
    if (!trace) return;
    std::lock_guard lock(trace_mutex);
    *trace << dump_json(safety::redact_json(e.to_json())) << "\n" << std::flush;
  };
  const auto [r, state, recorded] = run->converse(asker, std::move(one));
  tell_after(*db, *run, state, rf, modelless);
  // As on every face: a run whose events could not be stored stops and fails (its record would
  // be missing steps, and a resume could not rebuild it).
  if (std::string why = log->store_error(); !why.empty()) return errorf(Code::Unavailable, "run {}: the run's events could not be stored: {}", run->id(), why);
  if (rf.as_json) {
    // The run's id and state with the result: what History, --continue and the API know it by.
    json out = r.to_json();
    out["runId"] = run->id();
    out["state"] = runs::name(state);
    std::cout << dump_json(out) << "\n";
  } else {
    print_value(r.final, false);
  }
  if (r.cancelled) return 130;
  return r.partial ? 1 : 0;
}

}  // namespace ouro::cli
