// A scripted agent run against real Chromium and the fixture site, with every event kept
// (shared by the agent's tests).
#pragma once

#include "agent/run.h"
#include "browser_env.h"

#include <fstream>
#include <mutex>

namespace ouro::testing {

struct Harness {
  std::unique_ptr<session::Session> session;
  std::unique_ptr<llm::Provider> provider;
  std::mutex mutex;
  std::vector<agent::Event> events;
  std::unique_ptr<agent::Run> run;

  // `tweak`: changes to the session's options before it starts (limits, permissions).
  explicit Harness(const std::vector<json>& script, const std::vector<std::string>& urls = {},
                   const std::function<void(session::SessionOptions&)>& tweak = {}) {
    std::string path = temp_dir() + "/script.jsonl";
    std::ofstream out(path);
    for (const auto& line : script) out << line.dump() << "\n";
    out.close();
    auto p = llm::make_provider(llm::ProviderSpec{"script", "", "", path, {}});
    if (!p) throw std::runtime_error(p.error().message);
    provider = std::move(*p);
    session::SessionOptions options = test_options();
    if (tweak) tweak(options);
    auto s = session::Session::start(std::move(options));
    if (!s) throw std::runtime_error(s.error().message);
    session = std::move(*s);
    std::vector<std::string> full;
    for (const auto& u : urls) full.push_back(site().url(u));
    if (auto r = session->open_urls(full); !r) throw std::runtime_error(r.error().message);
  }

  std::function<bool(const json&)> confirm;
  int max_sub_calls = 50;

  std::string agent_kind = "rlm";

  agent::RunResult go(const std::string& task, int cap = 25) {
    agent::RunOptions o;
    o.task = task;
    o.agent = agent_kind;
    o.model = "scripted";
    o.max_iterations = cap;
    o.confirm = confirm;
    o.max_sub_calls = max_sub_calls;
    run = std::make_unique<agent::Run>(*session, *provider, o, [this](const agent::Event& e) {
      std::lock_guard lock(mutex);
      events.push_back(e);
    });
    return run->execute();
  }

  std::vector<agent::Event> of(const std::string& type) {
    std::lock_guard lock(mutex);
    std::vector<agent::Event> out;
    for (const auto& e : events)
      if (e.type == type) out.push_back(e);
    return out;
  }
  // What each block did, one line each: said when a run went another way than the test expected.
  std::string story() {
    std::string out;
    for (const auto& e : of("code-result")) {
      const json m = e.data.value("metadata", json::object());
      out += "iteration " + e.data.value("iteration", json(0)).dump() + ": " + m.value("summary", m.value("error", "")).substr(0, 400) + "\n";
    }
    return out;
  }
  std::vector<std::string> prompts() {
    std::vector<std::string> out;
    for (const auto& e : of("iteration-start")) out.push_back(e.data.value("prompt", ""));
    return out;
  }
};

}  // namespace ouro::testing
