// A REPL for the jsrt tests: a worker started from the ouro binary, and a host that answers a
// few test functions itself — echo (its first argument), fail (an error), later (its first
// argument after its second's milliseconds, from a thread of its own) and never (no reply).
#pragma once

#include "basics.h"

#include "jsrt/repl.h"

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ouro::jsrt {

using namespace std::chrono_literals;

struct TestHost {
  std::vector<std::thread> threads;
  ~TestHost() {
    for (auto& t : threads) t.join();
  }
  HostCall fn() {
    return [this](const std::string& name, json args, HostReply reply) {
      if (name == "echo") return reply(args.empty() ? json(json::value_t::discarded) : args[0]);
      if (name == "fail") return reply(make_error(Code::NotFound, "no element matches selector '#x' on tab t1"));
      if (name == "later") {
        threads.emplace_back([args, reply] {
          std::this_thread::sleep_for(std::chrono::milliseconds(args.at(1).get<int>()));
          reply(args.at(0));
        });
        return;
      }
      // "never": no reply at all.
    };
  }
};

inline std::unique_ptr<Repl> start(TestHost& host, Millis timeout = 3s, size_t memory_mb = 128) {
  ReplOptions o;
  o.executable = testing::ouro_binary();
  o.host_functions = {"echo", "fail", "later", "never"};
  o.timeout = timeout;
  o.memory_mb = memory_mb;
  auto r = Repl::start(o, host.fn());
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

}  // namespace ouro::jsrt
