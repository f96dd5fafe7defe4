// The egress gate's rules (seed 000 §10 layers 2–3, seed 003 "Security Gate", issue 8): given
// what is known about one request a tab is about to send, allow it, ask the user, or refuse it.
// Pure: the browser gathers the facts (browser/egress.h), actions/egress.cpp asks and answers.
//
//   * The rules of every mode (sites.h): privileged schemes and internal addresses are refused
//     unless the task's URLs or --allow-domain name them.
//   * A top-level navigation, whoever caused it, and any request the run caused (its code, its
//     clicks and keys) must stay on the run's allowed sites; leaving them is asked about in
//     careful mode and refused in autonomous mode or with no one to ask.
//   * A state-changing request (not GET/HEAD/OPTIONS) the run caused is asked about in careful
//     mode even on an allowed site.
//   * Requests the page makes by itself (its subresources, its own scripts' calls) go out.
// An approved navigation adds its site to the run's allowed sites.
#pragma once

#include "base/json.h"
#include "safety/sites.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace ouro::safety {

enum class GateMode { Careful, Autonomous };
std::string_view gate_mode_name(GateMode mode);
Result<GateMode> parse_gate_mode(std::string_view text);

// One run's policy. Thread-safe: the network thread reads it while an approval widens it.
class GatePolicy {
 public:
  GatePolicy(SiteList allowed, GateMode mode) : m_allowed(std::move(allowed)), m_named(m_allowed), m_mode(mode) {}

  GateMode mode() const { return m_mode; }
  bool allowed(const Url& url) const;
  // The rules of every mode: what the user named explicitly (task URLs, --allow-domain).
  Verdict scheme_and_address(const Url& url) const;
  // After the user approved a navigation to it.
  void allow_site_of(const Url& url);
  // A site the user named by what they did (the tab they handed over, one they let the run
  // use): allowed, and named for the scheme and address rules (a fixture on 127.0.0.1 works).
  void name_site_of(const Url& url);
  // The same for a site pattern the user allowed "always" ("example.com", "127.0.0.1:8080").
  Result<void> name_pattern(std::string_view pattern);
  std::vector<std::string> patterns() const;

 private:
  mutable std::mutex m_mutex;
  SiteList m_allowed;
  SiteList m_named;
  const GateMode m_mode;
};

// Where a run's allowed sites come from: the sites of its URLs (--url, `urls`) and of the http(s)
// URLs written in its task, and the --allow-domain / `allowed_domains` patterns.
struct GateConfig {
  std::vector<std::string> urls;
  std::vector<std::string> allow_domains;
  std::string task;
  GateMode mode = GateMode::Careful;
};
// InvalidArgument names a pattern or URL that cannot be read.
Result<std::shared_ptr<GatePolicy>> make_policy(const GateConfig& config);

// What the browser knows about a paused request.
struct RequestFacts {
  std::string url, method = "GET";
  std::string resource_type;     // CDP's: Document, XHR, Fetch, Image, Ping, WebSocket, …
  bool top_level = false;        // a navigation of a tab's main frame
  bool run_caused = false;       // the run's code or actions sent it (see `cause`)
  std::string cause;             // how that was decided: "ouro script on the stack", "during click", …
  bool approved_action = false;  // caused by an action the user approved just before (no second question)
  // Possibly the run's, possibly the browser's own (a favicon or a preload with no initiator while
  // the run's code ran): held to the allowed sites like the run's, but refused, never asked about.
  bool uncertain = false;
  std::string body_preview;      // redacted, short
};

enum class Decision { Allow, Ask, Deny };
std::string_view decision_name(Decision d);

struct GateVerdict {
  Decision decision = Decision::Allow;
  std::string rule;    // "outside allowed sites", "state-changing request", "internal address", ""
  std::string reason;  // a sentence for the model's error, the question and the gate event
};

GateVerdict decide(const GatePolicy& policy, const RequestFacts& request);

// "POST https://shop.example/cart (body: item=3&qty=1)": method, URL and a redacted body preview.
std::string describe_request(const RequestFacts& request);

}  // namespace ouro::safety
