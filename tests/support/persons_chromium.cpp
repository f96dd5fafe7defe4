#include "persons_chromium.h"

#include "cdp/transport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <thread>

namespace ouro::testing {

using namespace std::chrono_literals;

bool eventually(const std::function<bool()>& fn, std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (fn()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return fn();
}

PersonsChromium::PersonsChromium(const std::string& extension_dir, Over over) {
  if (over == Over::Pipe) {
    browser::LaunchOptions o;
    o.extra_args = {"--disable-extensions-except=" + extension_dir, "--load-extension=" + extension_dir};
    auto p = browser::ChromiumProcess::spawn(o);
    if (!p) throw std::runtime_error(p.error().message);
    process = std::move(*p);
    conn = cdp::Connection::create(cdp::make_pipe_transport(*io, process->read_fd(), process->write_fd()));
    return;
  }
  remote = std::make_unique<RemoteChromium>(temp_dir() + "/persons-chromium", extension_dir);
  if (remote->port == 0) throw std::runtime_error("Chromium with --remote-debugging-port did not start (" + remote->dir + ".log)");
  auto t = cdp::make_websocket_transport(*io, remote->ws_url());
  if (!t) throw std::runtime_error(t.error().message);
  conn = cdp::Connection::create(std::move(*t));
}

std::string PersonsChromium::extension_id() {
  std::string id;
  eventually([&] {
    auto targets = conn->call("Target.getTargets");
    if (!targets) return false;
    for (const auto& t : get_array(*targets, "targetInfos")) {
      std::string url = get_str(t, "url");
      if (get_str(t, "type") == "service_worker" && url.rfind("chrome-extension://", 0) == 0 && url.ends_with("/service_worker.js"))
        id = url.substr(19, 32);
    }
    return !id.empty();
  }, 15s);
  return id;
}

std::string PersonsChromium::open(const std::string& url) {
  auto created = conn->call("Target.createTarget", {{"url", url}});
  if (!created) throw std::runtime_error(created.error().message);
  auto attached = conn->call("Target.attachToTarget", {{"targetId", (*created)["targetId"]}, {"flatten", true}});
  if (!attached) throw std::runtime_error(attached.error().message);
  return (*attached)["sessionId"];
}

json PersonsChromium::eval(const std::string& session, const std::string& expression) {
  auto r = conn->call("Runtime.evaluate", {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}}, session, 15s);
  if (!r) return json{{"error", r.error().message}};
  if (r->contains("exceptionDetails")) return json{{"exception", (*r)["exceptionDetails"]}};
  return get_field(get_field(*r, "result"), "value");
}

std::string pair(PersonsChromium& chrome, const std::string& ext, ServeProcess& serve) {
  std::string port = serve.base.substr(serve.base.rfind(':') + 1);
  std::string panel = chrome.open("chrome-extension://" + ext + "/sidepanel.html");
  // The panel's script has run once it has shown the connection's state (before that, a submit
  // would be the form's default one).
  if (!eventually([&] {
        return chrome.eval(panel, "(document.getElementById('ext-conn') || {}).textContent !== 'Looking for ouro…'") == true;
      }, 15s)) {
    ADD_FAILURE() << "the side panel did not start";
    return "";
  }
  if (!eventually([&] {
        chrome.eval(panel, "if (document.getElementById('ext-pair').hidden) { document.getElementById('ext-port').value = '" + port +
                               "'; document.getElementById('ext-port-form').requestSubmit(); } true");
        return eventually([&] { return chrome.eval(panel, "!document.getElementById('ext-pair').hidden") == true; }, 5s);
      }, 30s)) {
    ADD_FAILURE() << "the panel asks for no code: " << chrome.eval(panel, "document.body.innerText").dump();
    return "";
  }
  Http code = serve.get("/api/pair/code");
  if (code.status != 200) {
    ADD_FAILURE() << code.raw;
    return "";
  }
  chrome.eval(panel, "document.getElementById('ext-code').value = '" + code.body["code"].get<std::string>() +
                         "'; document.getElementById('ext-pair').requestSubmit(); true");
  if (!eventually([&] {
        Http list = serve.get("/api/pairings");
        return list.status == 200 && list.body.size() == 1 && list.body[0]["connected"] == true;
      }, 30s)) {
    ADD_FAILURE() << serve.get("/api/pairings").raw << "\n" << serve.log();
    return "";
  }
  return panel;
}

}  // namespace ouro::testing
