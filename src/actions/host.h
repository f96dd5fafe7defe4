// Answers the REPL's host calls: looks the capability up in the registry, checks the arguments,
// runs the implementation on a pool thread (implementations block on the browser), and adds the
// "[PAGE NAVIGATED]" note to errors on a tab whose page changed since the last interaction.
#pragma once

#include "host/context.h"
#include "base/thread_pool.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <atomic>
#include <vector>

namespace ouro::actions {

struct Capability;

class Host {
 public:
  // Acts in browser_context ("" = the profile's) as `owner` (a run's name; "" = "session N").
  // With shared_tabs the context is the user's: acting on a tab needs it held (claims.h).
  Host(browser::Browser& browser, store::Database* db, host::Limits limits = {}, std::string browser_context = {}, std::string owner = {},
       bool shared_tabs = false, size_t threads = 8);
  ~Host();

  // Any thread; reply runs on a pool thread (or inline for argument errors).
  void call(const std::string& function, json args, std::function<void(Result<json>)> reply);
  // Runs a capability and waits (CLI and tests).
  Result<json> call_sync(const std::string& function, json args);
  host::Context& context() { return *m_ctx; }
  // What the model should know about the calls since the last take: results that were cut to
  // the cap ("getLinks returned 2,212 of 5,340 items …"). At most 20 lines.
  std::vector<std::string> take_notes();
  // Calls so far that acted on a page or wrote into one (the registry's changes_page or writes),
  // past their checks: what a run's autonomy is measured against.
  size_t actions() const { return m_actions.load(); }

 private:
  struct Outcome {
    Result<json> result;
    std::optional<json> truncated;  // see actions/fit.h
  };
  Outcome run(const std::string& function, const json& args);
  // Runs a tab's queued actions in order, on one pool thread at a time.
  void drain(const std::string& tab);
  Result<void> check_permission(const Capability& cap, const json& args);
  // Shared so that timers and browser callbacks can hold it weakly and find it gone.
  std::shared_ptr<host::Context> m_ctx;
  std::unique_ptr<ThreadPool> m_pool;
  struct TabQueue {
    std::deque<std::function<void()>> jobs;
    bool running = false;
  };
  std::mutex m_order_mutex;
  std::map<std::string, TabQueue> m_order;  // acting calls waiting, by tab
  std::mutex m_notes_mutex;
  std::vector<std::string> m_notes;
  std::atomic<size_t> m_actions{0};
};

}  // namespace ouro::actions
