// A run under the gate on the fixture site, as the integrity tests drive one: its questions and
// the gate's provenance decisions recorded, the user's answer chosen by the test; and the second
// site the same loopback server is (localhost), where a page's value is another site's.
#pragma once

#include "browser_env.h"

#include "actions/host.h"
#include "safety/gate.h"

#include <mutex>
#include <string>
#include <vector>

namespace ouro::testing {

// 127.0.0.1 and localhost are two sites on the same loopback server.
inline std::string on_localhost(const std::string& path) {
  std::string u = site().url(path);
  return u.replace(u.find("127.0.0.1"), 9, "localhost");
}

struct GatedRun {
  std::mutex mutex;
  std::vector<json> questions, decisions;
  bool approve = false;
  std::unique_ptr<session::Session> s;

  // mine: in the profile's own context, as My browser works (the run acts on the tabs it holds).
  GatedRun(safety::GateMode mode, const std::string& task, std::vector<std::string> urls, bool channel = true, bool mine = false) {
    s = isolated_session([&](session::SessionOptions& o) {
      if (mine) {
        o.isolated = false;
        o.shared = true;
      }
      safety::GateConfig gc;
      gc.task = task;
      gc.urls = urls;
      gc.allow_domains = {"127.0.0.1", "localhost"};  // reachable; a site is trusted as a source only when the task names it
      gc.mode = mode;
      o.gate = *safety::make_policy(gc);
    });
    auto h = std::make_shared<host::Context::Hooks>();
    h->on_gate = [this](const json& d) {
      std::lock_guard lock(mutex);
      if (get_str(d, "rule") == "provenance") decisions.push_back(d);
    };
    if (channel)
      h->confirm = [this](const json& q) {
        std::lock_guard lock(mutex);
        questions.push_back(q);
        return approve;
      };
    s->host().context().set_hooks(h);
  }
  // Reads the account number off the injected page, then writes it with `write` (code using
  // env.acct and env.form, the form's tab); the outcome: "written" or the error.
  std::string copy(const std::string& form_url, const std::string& write = "await type(env.form, '#name', env.acct)") {
    json r = ok("const src = await openTab('" + site().url("/injected?access_token=tok-5517-secret") + "');\n"
                "env.acct = (await getText(src, '#note')).match(/DE[0-9 ]+[0-9]/)[0];\n"
                "env.form = await openTab('" + form_url + "');\n"
                "let out; try { " + write + "; out = 'written' } catch (e) { out = e.message }\n"
                "out",
                s.get());
    return r.is_string() ? r.get<std::string>() : r.dump();
  }
  std::string field() { return ok("await execInTab(env.form, 'document.querySelector(\"#name\").value')", s.get()).get<std::string>(); }
  size_t asked() {
    std::lock_guard lock(mutex);
    return questions.size();
  }
};

}  // namespace ouro::testing
