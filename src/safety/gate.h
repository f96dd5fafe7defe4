// The egress gate's rules: given what is known about one request a tab the run holds is about
// to send, allow it, ask the user, or refuse it. Pure: the browser gathers the facts
// (browser/egress.h), egress/gate.cpp asks and answers.
//
// Deny by default. Who made a request (the run's code, the page's scripts, a handler attribute,
// a worker, a frame, a document the run caused) never lets it leave for a site the run is not
// allowed; it only chooses between asking and allowing among the allowed sites.
//   * Before the run first acts (no call that puts its data or choices into a page has run yet:
//     registry.h `changes_page`, or a navigation to a URL other than one exactly as the user
//     gave it), its pages hold
//     nothing of the run's: their own requests — styles, fonts, images, scripts from their CDNs,
//     their calls home — go out as when the user browses. This is what lets pages render.
//   * From the run's first act on, every request of every tab it holds must stay on its allowed
//     sites; anything else is refused without a question, whoever sent it and whenever.
//   * Top-level navigations leave the allowed sites only with the user's yes (careful mode);
//     autonomous mode and a run with no one to ask refuse them.
//   * The rules of every mode (sites.h): privileged schemes and internal addresses are refused
//     unless the task's URLs or --allow-domain name them.
//   * In careful mode, a write after the run acted is asked about even on an allowed site, unless
//     the user approved the action that sent it. A write is judged by what it does, not only by
//     its method: a state-changing method (not GET/HEAD/OPTIONS) — whoever sent it: a write the
//     run arranged through the page's own code is still the run's —, a request whose
//     X-HTTP-Method-Override, X-HTTP-Method or X-Method-Override header or `_method` parameter
//     names one, a form submission (but a GET search form, whose fields are only search terms
//     and paging, which reads like a link), and any request the run's own code sent (execInTab and what
//     it scheduled). The page's own GETs and links the run clicks stay reads.
// An approved navigation adds its site to the run's allowed sites.
#pragma once

#include "base/json.h"
#include "safety/provenance.h"
#include "safety/sites.h"

#include <memory>
#include <mutex>
#include <set>
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
  // The sites the user named (the run's URLs, its task's, --allow-domain, "always"), without
  // those allowed once during the run: what a job the run leaves may reach.
  std::vector<std::string> named_patterns() const;
  // URLs the user gave (the task's, --url, a tab they handed over), exactly — fragment, query and
  // path included; only what RFC 3986 §6.2.2/§6.2.3 call equivalent (scheme and host case,
  // percent-encoding, the default port) is the same URL: a navigation there carries nothing the
  // run chose. Any other URL, however close to a given one, is the run's.
  void add_given_url(std::string_view url);
  bool given(std::string_view url) const;

  // Where what the run writes came from (safety/provenance.h), and the sites its task names (its
  // text and its URLs): a value from one site written on another is the user's intent only when
  // the task names both. --allow-domain and approvals make a site reachable, not a trusted source.
  void set_task(std::string_view task, const std::vector<std::string>& urls);
  Provenance& provenance() const { return *m_provenance; }
  bool task_names(const std::string& site) const;

 private:
  mutable std::mutex m_mutex;
  std::set<std::string> m_given;
  SiteList m_allowed;
  SiteList m_named;
  const GateMode m_mode;
  std::shared_ptr<Provenance> m_provenance = std::make_shared<Provenance>();
  std::set<std::string> m_task_sites;  // guarded by m_mutex
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
// The http(s) URLs written in a text ("summarize https://example.com/news."), as a task's are read.
std::vector<std::string> urls_in_text(std::string_view text);

// What the browser knows about a paused request.
struct RequestFacts {
  std::string url, method = "GET";
  std::string resource_type;     // CDP's: Document, XHR, Fetch, Image, Ping, WebSocket, …
  bool top_level = false;        // a navigation of a tab's main frame
  bool after_acted = false;      // the run had acted (put data or choices into a page) when it was sent
  bool run_caused = false;       // the run's code or actions sent it (see `cause`): for the record only
  std::string cause;             // how that was decided: "the run's code (execInTab)", "during click", …
  bool approved_action = false;  // sent by an action the user approved just before (no second question)
  bool run_code = false;         // sent by code the run put into a page (execInTab, its timers and promises)
  bool form = false;             // it submits a form (the browser's navigation reason says so)
  std::string method_override;   // the method its headers or `_method` name (method_override()), upper case
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

// The method a request asks the server to treat it as, upper case, or "" when it names none: the
// first of the X-HTTP-Method-Override, X-HTTP-Method and X-Method-Override headers (names in any
// case, as Chromium reports them), else a `_method` parameter of the URL's query or of a
// form-encoded or multipart body (RFC 7578). `headers` holds only those headers' name and value.
using HeaderList = std::vector<std::pair<std::string, std::string>>;
std::string method_override(const HeaderList& headers, std::string_view url, std::string_view body);
// One of the method-override header names (any case).
bool is_method_override_header(std::string_view name);

// "POST https://shop.example/cart (body: item=3&qty=1)": method, URL and a redacted body preview.
std::string describe_request(const RequestFacts& request);

}  // namespace ouro::safety
