#include "safety/gate.h"

#include "safety/redact.h"

#include <fmt/format.h>

namespace ouro::safety {

std::string_view gate_mode_name(GateMode mode) { return mode == GateMode::Careful ? "careful" : "autonomous"; }

Result<GateMode> parse_gate_mode(std::string_view text) {
  if (text == "careful") return GateMode::Careful;
  if (text == "autonomous") return GateMode::Autonomous;
  return errorf(Code::InvalidArgument, "unknown mode '{}': use 'careful' (asks before writes and before leaving the allowed sites) or "
                "'autonomous' (asks nothing; still refuses to leave the allowed sites)", text);
}

std::string_view decision_name(Decision d) {
  switch (d) {
    case Decision::Allow: return "allow";
    case Decision::Ask: return "ask";
    case Decision::Deny: return "deny";
  }
  return "deny";
}

bool GatePolicy::allowed(const Url& url) const {
  std::lock_guard lock(m_mutex);
  return m_allowed.matches(url);
}

Verdict GatePolicy::scheme_and_address(const Url& url) const {
  std::lock_guard lock(m_mutex);
  return check_scheme_and_address(url, m_named);
}

Result<void> GatePolicy::name_pattern(std::string_view pattern) {
  std::lock_guard lock(m_mutex);
  TRY(m_allowed.add(pattern));
  return m_named.add(pattern);
}

void GatePolicy::name_site_of(const Url& url) {
  std::lock_guard lock(m_mutex);
  if (!m_allowed.matches(url)) m_allowed.add_site_of(url);
  if (!m_named.matches(url)) m_named.add_site_of(url);
}

void GatePolicy::allow_site_of(const Url& url) {
  std::lock_guard lock(m_mutex);
  if (!m_allowed.matches(url)) m_allowed.add_site_of(url);
}

std::vector<std::string> GatePolicy::patterns() const {
  std::lock_guard lock(m_mutex);
  return m_allowed.patterns();
}

Result<std::shared_ptr<GatePolicy>> make_policy(const GateConfig& config) {
  SiteList sites;
  for (const auto& u : config.urls) {
    auto url = parse_url(u);
    if (!url) return errorf(Code::InvalidArgument, "cannot read the URL '{}': {}", u.substr(0, 200), url.error().message);
    sites.add_site_of(*url);
  }
  for (const auto& d : config.allow_domains)
    if (auto added = sites.add(d); !added)
      return errorf(Code::InvalidArgument, "cannot use '{}' as an allowed domain: {}", d.substr(0, 200), added.error().message);
  // URLs the task itself names ("summarize https://example.com/news").
  std::string_view t = config.task;
  for (size_t at = 0; (at = t.find("http", at)) != std::string_view::npos; ++at) {
    if (t.compare(at, 7, "http://") != 0 && t.compare(at, 8, "https://") != 0) continue;
    size_t end = t.find_first_of(" \t\r\n\"'<>()[]{}", at);
    std::string_view candidate = t.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    while (!candidate.empty() && (candidate.back() == '.' || candidate.back() == ',' || candidate.back() == ';')) candidate.remove_suffix(1);
    if (auto url = parse_url(candidate); url && !url->host.empty()) sites.add_site_of(*url);
  }
  return std::make_shared<GatePolicy>(std::move(sites), config.mode);
}

namespace {

bool state_changing(std::string_view method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

std::string sites_text(const GatePolicy& p) {
  auto list = p.patterns();
  if (list.empty()) return "none: the task named no site";
  std::string out;
  for (size_t i = 0; i < list.size() && i < 8; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > 8) out += fmt::format(" and {} more", list.size() - 8);
  return out;
}

}  // namespace

GateVerdict decide(const GatePolicy& policy, const RequestFacts& r) {
  if (!r.top_level && !r.run_caused) return {};  // the page's own
  auto url = parse_url(r.url);
  if (!url) return {Decision::Deny, "unreadable URL", "the request's URL cannot be read: " + url.error().message};
  // data:, blob: and about: carry nothing anywhere.
  if (url->scheme == "data" || url->scheme == "blob" || url->scheme == "about") return {};
  if (Verdict v = policy.scheme_and_address(*url); !v.allowed) return {Decision::Deny, "internal address", v.reason};
  std::string what = r.top_level ? "navigation" : "request";
  if (!policy.allowed(*url)) {
    std::string reason = fmt::format("{} to {} leaves this run's allowed sites ({}){}; the user can allow it with --allow-domain {} "
                                     "(or allowed_domains in the run's options or the settings file)",
                                     what, url->host, sites_text(policy), r.cause.empty() ? "" : "; caused by " + r.cause, url->host);
    if (r.uncertain)
      return {Decision::Deny, "outside allowed sites",
              reason + "; refused without asking: it had no initiator to tell it from the browser's own requests"};
    return {policy.mode() == GateMode::Careful ? Decision::Ask : Decision::Deny, "outside allowed sites", reason};
  }
  if (r.run_caused && state_changing(r.method) && policy.mode() == GateMode::Careful && !r.approved_action)
    return {Decision::Ask, "state-changing request",
            fmt::format("{} {} changes state on {}{}", r.method, r.url.substr(0, 200), url->host, r.cause.empty() ? "" : "; caused by " + r.cause)};
  return {};
}

std::string describe_request(const RequestFacts& r) {
  std::string out = r.method + " " + redact_url_params(r.url.size() > 300 ? r.url.substr(0, 300) + "…" : r.url);
  if (!r.body_preview.empty()) out += " (body: " + r.body_preview + ")";
  return out;
}

}  // namespace ouro::safety
