#include "llm/setup.h"
#include "base/steady_clock.h"
#include "base/text.h"

#include "llm/errors.h"
#include "llm/provider.h"
#include "llm/streaming.h"

#include <cstdlib>
#include <future>

namespace ouro::llm {

json provider_catalog(std::chrono::milliseconds probe_timeout) {
  json out = json::array();
  std::vector<std::pair<size_t, std::future<std::vector<std::string>>>> probes;
  for (const auto& p : presets()) {
    bool local = std::string(p.key_env).empty();
    json e = {{"name", p.name}, {"kind", p.kind}, {"base_url", p.base_url}, {"local", local}, {"model", p.model}, {"sub_model", p.sub_model}};
    if (!local) {
      e["key_env"] = p.key_env;
      const char* v = std::getenv(p.key_env);
      e["key_set"] = v && *v;
    } else {
      // A local server answers its model list when it runs: probed in parallel, briefly.
      std::string url = std::string(p.base_url) + "/chat/completions";
      probes.emplace_back(out.size(), std::async(std::launch::async, [url, probe_timeout] {
        return list_models(HttpCall{url, {}, "", ""}, probe_timeout, 10);
      }));
    }
    out.push_back(std::move(e));
  }
  for (auto& [i, f] : probes) {
    auto models = f.get();
    out[i]["reachable"] = !models.empty();
    if (!models.empty()) out[i]["models"] = models;
  }
  return out;
}

json test_connection(const Settings& settings, std::chrono::milliseconds timeout) {
  json out = {{"provider", settings.provider}, {"model", settings.model}};
  ProviderSpec spec = settings.spec;
  spec.limits.max_attempts = 1;
  spec.limits.connect_timeout = std::min(spec.limits.connect_timeout, timeout);
  spec.limits.silence_timeout = std::min(spec.limits.silence_timeout, timeout);
  if (auto key = check_key(spec); !key) {
    out["ok"] = false;
    out["kind"] = error_kind::kNoKey;
    out["error"] = key.error().message;
    return out;
  }
  auto provider = make_provider(spec);
  if (!provider) {
    out["ok"] = false;
    out["kind"] = "setup";
    out["error"] = provider.error().message;
    return out;
  }
  Request req;
  req.model = settings.model;
  req.messages.push_back({"user", "Reply with the word OK.", {}});
  req.params.max_tokens = 16;  // one word; reasoning models may need a few more
  req.params.thinking = 0;
  auto t0 = SteadyClock::now();
  CancelToken cancel;
  auto r = (*provider)->complete(req, [](const Delta&) {}, cancel);
  out["ms"] = std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
  if (!r) {
    out["ok"] = false;
    std::string kind = kind_of(r.error());
    out["kind"] = kind.empty() ? "error" : kind;
    out["error"] = r.error().message;
    if (r.error().details.is_object() && r.error().details.contains("models")) out["models"] = r.error().details["models"];
    return out;
  }
  out["ok"] = true;
  out["reply"] = r->text.substr(0, utf8_boundary(r->text, 200));  // whole characters: the answer is JSON
  return out;
}

}  // namespace ouro::llm
