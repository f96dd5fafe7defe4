#include "session/session.h"

#include "actions/host.h"
#include "actions/registry.h"
#include "net/io.h"
#include "store/database.h"

#include <mutex>

namespace ouro::session {

// Where tab changes go. The browser calls it from its network thread; the session detaches it
// before the REPL goes away.
struct StateSink {
  std::mutex mutex;
  jsrt::Repl* repl = nullptr;
  browser::Browser* browser = nullptr;
  void push() {
    std::lock_guard lock(mutex);
    if (!repl || !browser) return;
    json tabs = json::array();
    for (const auto& t : browser->tabs()) tabs.push_back(t.to_json());
    repl->set_state({{"tabs", tabs}, {"activeTab", browser->active_tab()}});
  }
};

struct LogSink {
  std::mutex mutex;
  std::function<void(const std::string&)> handler;
};

struct Session::Parts {
  std::shared_ptr<StateSink> sink = std::make_shared<StateSink>();
  std::shared_ptr<LogSink> logs = std::make_shared<LogSink>();
  std::unique_ptr<net::IoThread> io;
  std::unique_ptr<store::Database> db;
  std::unique_ptr<browser::Browser> browser;
  std::unique_ptr<actions::Host> host;
  std::unique_ptr<jsrt::Repl> repl;
};

Result<std::unique_ptr<Session>> Session::start(SessionOptions options) {
  std::unique_ptr<Session> s(new Session());
  s->m = std::make_unique<Parts>();
  Parts& p = *s->m;
  p.io = net::IoThread::start();
  p.db = TRY(store::Database::open(options.db_path.empty() ? store::default_data_dir() + "/ouro.db" : options.db_path));
  p.browser = TRY(browser::Browser::start(*p.io, options.browser));
  p.host = std::make_unique<actions::Host>(*p.browser, p.db.get(), options.limits);
  options.repl.host_functions = actions::host_function_names();
  actions::Host* host = p.host.get();
  p.logs->handler = std::move(options.on_log);
  std::weak_ptr<LogSink> weak_logs = p.logs;
  p.repl = TRY(jsrt::Repl::start(
      options.repl, [host](const std::string& fn, json args, jsrt::HostReply reply) { host->call(fn, std::move(args), std::move(reply)); },
      [weak_logs](const std::string& line) {
        if (auto l = weak_logs.lock()) {
          std::lock_guard lock(l->mutex);
          if (l->handler) l->handler(line);
        }
      }));
  p.sink->repl = p.repl.get();
  p.sink->browser = p.browser.get();
  std::weak_ptr<StateSink> weak = p.sink;
  p.host->context().emit_event = [weak](const std::string& handler, const json& data) {
    if (auto sink = weak.lock()) {
      std::lock_guard lock(sink->mutex);
      if (sink->repl) sink->repl->send_event(handler, data);
    }
  };
  p.browser->set_tabs_listener([weak] {
    if (auto sink = weak.lock()) sink->push();
  });
  p.sink->push();
  return s;
}

Session::~Session() {
  if (!m) return;
  if (m->browser) m->browser->set_tabs_listener(nullptr);
  {
    std::lock_guard lock(m->sink->mutex);
    m->sink->repl = nullptr;
  }
  m->repl.reset();
  m->host.reset();
  m->browser.reset();
  m->db.reset();
  m->io.reset();
}

void Session::set_log_handler(std::function<void(const std::string&)> handler) {
  std::lock_guard lock(m->logs->mutex);
  m->logs->handler = std::move(handler);
}

browser::Browser& Session::browser() { return *m->browser; }
jsrt::Repl& Session::repl() { return *m->repl; }
actions::Host& Session::host() { return *m->host; }
store::Database& Session::db() { return *m->db; }

Result<void> Session::open_urls(const std::vector<std::string>& urls) {
  if (urls.empty()) return {};
  auto tabs = m->browser->tabs();
  std::string first;
  for (size_t i = 0; i < urls.size(); ++i) {
    if (i == 0 && !tabs.empty()) {
      first = tabs[0].id;
      TRY(m->browser->navigate(first, urls[0], m->host->context().limits.load_timeout));
    } else {
      auto id = TRY(m->browser->open_tab(urls[i], m->host->context().limits.load_timeout));
      if (first.empty()) first = id;
    }
  }
  TRY(m->browser->switch_tab(first));
  return {};
}

}  // namespace ouro::session
