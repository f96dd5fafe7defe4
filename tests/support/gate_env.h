// The egress gate's browser tests' shared ground: the injection sites (a victim shop, an
// attacker's collector), one browser for the suite, gated sessions in it, and a log of what the
// gate decided and asked, as a run would see it. Used by browser/egress_test.cpp and the tests
// of what the gate follows beyond requests (browser/channels_test.cpp,
// browser/service_workers_test.cpp).
#pragma once

#include "browser_env.h"
#include "injection_sites.h"

#include "actions/host.h"
#include "egress/gate.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ouro::testing {

using namespace std::chrono_literals;

inline InjectionSites& sites() {
  static InjectionSites s;
  return s;
}

// What the gate decided and what it asked, as a run would see it.
struct GateLog {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<json> decisions, questions;
  bool approve = false;

  std::shared_ptr<host::Context::Hooks> hooks(bool with_channel) {
    auto h = std::make_shared<host::Context::Hooks>();
    h->on_gate = [this](const json& d) {
      std::lock_guard lock(mutex);
      decisions.push_back(d);
      changed.notify_all();
    };
    if (with_channel)
      h->confirm = [this](const json& q) {
        std::lock_guard lock(mutex);
        questions.push_back(q);
        return approve;
      };
    return h;
  }
  // Waits until a refusal of a URL containing `marker` is recorded (or the deadline).
  bool refused(const std::string& marker, std::chrono::milliseconds within = 15s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, within, [&] {
      for (const auto& d : decisions)
        if (get_str(d, "decision") == "deny" && get_str(d, "url").find(marker) != std::string::npos) return true;
      return false;
    });
  }
  size_t asked() {
    std::lock_guard lock(mutex);
    return questions.size();
  }
};

inline std::shared_ptr<session::Runtime> runtime() {
  static std::unique_ptr<session::Session> base = [] {
    auto r = session::Session::start(test_options());
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
  }();
  return base->runtime();
}

inline std::unique_ptr<session::Session> gated_session(safety::GateMode mode, GateLog& log, bool with_channel, std::string given = "",
                                                bool my_browser = false) {
  if (given.empty()) given = sites().victim("/");
  auto o = test_options();
  // My browser: the profile's own context, shared with the user; the run holds only its tabs.
  o.isolated = !my_browser;
  o.shared = my_browser;
  if (my_browser) o.owner = "run writes-" + std::to_string(reinterpret_cast<uintptr_t>(&log));
  safety::GateConfig gc;
  gc.urls = {given};
  gc.mode = mode;
  o.gate = *safety::make_policy(gc);
  auto s = session::Session::attach(runtime(), o);
  if (!s) throw std::runtime_error(s.error().message);
  (*s)->host().context().set_hooks(log.hooks(with_channel));
  auto opened = (*s)->open_urls({given});
  if (!opened) throw std::runtime_error(opened.error().message);
  return std::move(*s);
}

inline std::string fill(std::string code, const std::string& marker) {
  auto put = [&](const std::string& key, const std::string& value) {
    for (size_t at; (at = code.find(key)) != std::string::npos;) code.replace(at, key.size(), value);
  };
  put("{{C}}", sites().collector(""));
  put("{{H}}", sites().collector_host());
  put("{{N}}", marker);
  put("{{V}}", sites().victim("/"));
  return code;
}


// Waits (up to 15 s) until the victim served a path starting with prefix more often than `before`.
inline bool victim_served(const std::string& prefix, int before) {
  for (int i = 0; i < 300 && sites().victim_hits(prefix) <= before; ++i) std::this_thread::sleep_for(50ms);
  return sites().victim_hits(prefix) > before;
}

// The collector's lines that start with `prefix`.
inline size_t collected_lines(const std::string& prefix) {
  size_t n = 0;
  for (const auto& line : sites().collected()) n += line.rfind(prefix, 0) == 0;
  return n;
}

}  // namespace ouro::testing
