#include "safety/gate.h"

#include "base/ascii.h"
#include "base/text.h"

#include "safety/redact.h"

#include <boost/url.hpp>
#include <cctype>
#include <set>
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

namespace {
// Percent-encoding normalisation (RFC 3986 §6.2.2.1, §6.2.2.2): "%7e" and "~" are one octet,
// "%2f" and "%2F" are one; every other character stays as written.
std::string pct_normal(std::string_view encoded) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    int hi = 0, lo = 0;
    if (encoded[i] != '%' || i + 2 >= encoded.size() || (hi = hex(encoded[i + 1])) < 0 || (lo = hex(encoded[i + 2])) < 0) {
      out += encoded[i];
      continue;
    }
    char octet = static_cast<char>(hi * 16 + lo);
    bool unreserved = std::isalnum(static_cast<unsigned char>(octet)) || octet == '-' || octet == '.' || octet == '_' || octet == '~';
    if (unreserved) out += octet;
    else out += fmt::format("%{:02X}", static_cast<unsigned char>(octet));
    i += 2;
  }
  return out;
}

// The URL exactly as written, up to what RFC 3986 §6.2.2 and §6.2.3 say cannot change what it
// names: the case of scheme and host, percent-encoding, an empty path ("/") and the scheme's
// default port. Path, query and fragment are otherwise compared as written (dot segments too):
// anything else the run put into a URL may carry its data.
std::string given_key(std::string_view text) {
  // Characters outside ASCII as their UTF-8 octets percent-encoded (RFC 3987 §3.1), as Chromium
  // writes them: "/wiki/Köln" given is the tab's "/wiki/K%C3%B6ln".
  std::string ascii;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x80) ascii += c;
    else ascii += fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  auto parsed = boost::urls::parse_uri(ascii);
  if (!parsed) return ascii;
  boost::urls::url u = *parsed;
  u.normalize_scheme();
  u.normalize_authority();
  if (u.has_port() && ((u.scheme() == "http" && u.port() == "80") || (u.scheme() == "https" && u.port() == "443"))) u.remove_port();
  std::string out = std::string(u.scheme()) + ":";
  if (u.has_authority()) out += "//" + std::string(u.encoded_authority());
  std::string path = pct_normal(u.encoded_path());
  out += path.empty() && u.has_authority() ? std::string("/") : path;
  if (u.has_query()) out += "?" + pct_normal(u.encoded_query());
  if (u.has_fragment()) out += "#" + pct_normal(u.encoded_fragment());
  return out;
}
}  // namespace

void GatePolicy::add_given_url(std::string_view url) {
  std::lock_guard lock(m_mutex);
  if (m_given.size() < 1000) m_given.insert(given_key(url));
}

bool GatePolicy::given(std::string_view url) const {
  std::lock_guard lock(m_mutex);
  return m_given.count(given_key(url)) > 0;
}

void GatePolicy::set_task(std::string_view task, const std::vector<std::string>& urls) {
  std::string words(task);
  for (const auto& u : urls) words += "\n" + u;
  auto sites = named_sites(task, urls);
  std::lock_guard lock(m_mutex);
  m_provenance = std::make_shared<Provenance>(words);
  m_task_sites = std::move(sites);
}

bool GatePolicy::task_names(const std::string& site) const {
  std::lock_guard lock(m_mutex);
  return m_task_sites.count(site) > 0;
}

std::vector<std::string> GatePolicy::patterns() const {
  std::lock_guard lock(m_mutex);
  return m_allowed.patterns();
}

std::vector<std::string> GatePolicy::named_patterns() const {
  std::lock_guard lock(m_mutex);
  return m_named.patterns();
}

std::vector<std::string> urls_in_text(std::string_view t) {
  std::vector<std::string> out;
  for (size_t at = 0; (at = t.find("http", at)) != std::string_view::npos; ++at) {
    if (t.compare(at, 7, "http://") != 0 && t.compare(at, 8, "https://") != 0) continue;
    size_t end = t.find_first_of(" \t\r\n\"'<>()[]{}", at);
    std::string_view candidate = t.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    while (!candidate.empty() && (candidate.back() == '.' || candidate.back() == ',' || candidate.back() == ';')) candidate.remove_suffix(1);
    if (auto url = parse_url(candidate); url && !url->host.empty()) out.emplace_back(candidate);
  }
  return out;
}

Result<std::shared_ptr<GatePolicy>> make_policy(const GateConfig& config) {
  SiteList sites;
  std::vector<std::string> given;
  for (const auto& u : config.urls) {
    // A data: URL (raw HTML as a browser takes it, which the URI grammar refuses) names no site.
    if (starts_with_nocase(u, "data:")) continue;
    auto url = parse_url(u);
    if (!url) return errorf(Code::InvalidArgument, "cannot read the URL '{}': {}", u.substr(0, 200), url.error().message);
    sites.add_site_of(*url);
    given.push_back(u);
  }
  for (const auto& d : config.allow_domains)
    if (auto added = sites.add(d); !added)
      return errorf(Code::InvalidArgument, "cannot use '{}' as an allowed domain: {}", d.substr(0, 200), added.error().message);
  // URLs the task itself names ("summarize https://example.com/news").
  for (auto& u : urls_in_text(config.task)) {
    sites.add_site_of(*parse_url(u));
    given.push_back(std::move(u));
  }
  auto policy = std::make_shared<GatePolicy>(std::move(sites), config.mode);
  for (const auto& url : given) policy->add_given_url(url);
  policy->set_task(config.task, config.urls);
  return policy;
}

namespace {

bool state_changing(std::string_view method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

bool same_ascii_ci(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A method as named: trimmed, upper case, at most 32 characters.
std::string method_name(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r' || v.back() == '\n')) v.remove_suffix(1);
  std::string out(v.substr(0, 32));
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Percent-decoding that keeps what is not a valid escape as written (WHATWG URL §5.1: the
// form-urlencoded parser never fails); '+' is a space.
std::string form_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// `_method` among application/x-www-form-urlencoded pairs (WHATWG URL §5.1), a query or a body.
std::string method_param(std::string_view encoded) {
  encoded = encoded.substr(0, 64 * 1024);
  while (!encoded.empty()) {
    size_t amp = encoded.find('&');
    std::string_view pair = encoded.substr(0, amp);
    encoded = amp == std::string_view::npos ? std::string_view{} : encoded.substr(amp + 1);
    size_t eq = pair.find('=');
    if (eq != std::string_view::npos && same_ascii_ci(form_decode(pair.substr(0, eq)), "_method")) return method_name(form_decode(pair.substr(eq + 1)));
  }
  return {};
}

// `_method` as a part of a multipart/form-data body (RFC 7578 §4.2): `name="_method"`, a blank line, the value.
std::string method_part(std::string_view body) {
  body = body.substr(0, 64 * 1024);
  for (size_t at = 0; (at = body.find("name=\"_method\"", at)) != std::string_view::npos; ++at) {
    size_t start = body.find("\r\n\r\n", at);
    if (start == std::string_view::npos) return {};
    start += 4;
    size_t end = body.find("\r\n", start);
    return method_name(body.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
  }
  return {};
}

std::string sites_text(const GatePolicy& p) {
  auto list = p.patterns();
  if (list.empty()) return "none: the task named no site";
  std::string out;
  for (size_t i = 0; i < list.size() && i < 8; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > 8) out += fmt::format(" and {} more", list.size() - 8);
  return out;
}

// A GET form whose every field is a search term or a way to page or order results (q=…, query=…,
// page=…, sort=…): it reads, like a link. Any other field — an amount, a recipient, an id to
// delete — makes the submission a write.
bool search_form(std::string_view method, std::string_view url) {
  if (method != "GET") return false;
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed || !parsed->has_query()) return false;
  static const std::set<std::string, std::less<>> kSearchFields = {
      "q", "query", "search", "search_query", "searchterm", "s", "k", "keyword", "keywords", "term", "terms", "text",
      "page", "p", "sort", "order", "lang", "hl", "from", "size", "limit", "offset"};
  size_t n = 0;
  for (const auto& param : parsed->params()) {
    std::string key(param.key);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!kSearchFields.count(key)) return false;
    ++n;
  }
  return n > 0;
}

}  // namespace

GateVerdict decide(const GatePolicy& policy, const RequestFacts& r) {
  auto url = parse_url(r.url);
  if (!url) return {Decision::Deny, "unreadable URL", "the request's URL cannot be read: " + url.error().message};
  // data:, blob: and about: carry nothing anywhere.
  if (url->scheme == "data" || url->scheme == "blob" || url->scheme == "about") return {};
  std::string caused = r.cause.empty() ? "" : "; sent by " + r.cause;
  if (!r.top_level && !r.after_acted) return {};  // the page's own, before the run put anything into it
  if (Verdict v = policy.scheme_and_address(*url); !v.allowed) return {Decision::Deny, "internal address", v.reason};
  if (!policy.allowed(*url)) {
    if (!r.top_level)
      return {Decision::Deny, "outside allowed sites",
              fmt::format("{} {} was refused: it leaves this run's allowed sites ({}), and after the run has acted on its pages nothing may be "
                          "sent elsewhere, whoever sends it{}; the user can allow the site with --allow-domain {} (or allowed_domains)",
                          r.method, url->host, sites_text(policy), caused, url->host)};
    std::string reason = fmt::format("navigation to {} leaves this run's allowed sites ({}){}; the user can allow it with --allow-domain {} "
                                     "(or allowed_domains in the run's options or the settings file)",
                                     url->host, sites_text(policy), caused, url->host);
    return {policy.mode() == GateMode::Careful ? Decision::Ask : Decision::Deny, "outside allowed sites", reason};
  }
  if (!r.after_acted || policy.mode() != GateMode::Careful || r.approved_action) return {};
  // A write is judged by what it does: its method, the method it asks to be treated as, a form it
  // submits, or the run's own code that sent it. The page's own GETs and links the run clicks are reads.
  std::string what = fmt::format("{} {}", r.method, clip_head(r.url, 200));
  if (state_changing(r.method)) return {Decision::Ask, "state-changing request", fmt::format("{} changes state on {}{}", what, url->host, caused)};
  if (!r.method_override.empty() && state_changing(r.method_override))
    return {Decision::Ask, "method override",
            fmt::format("{} asks {} to treat it as {} (a method-override header or _method parameter), which changes state{}", what, url->host,
                        r.method_override, caused)};
  if (r.form && !search_form(r.method, r.url))
    return {Decision::Ask, "form submission",
            fmt::format("{} submits a form on {}: a form submitted after the run acted is a write whatever its method{}", what, url->host, caused)};
  if (r.run_code)
    return {Decision::Ask, "the run's code",
            fmt::format("{} was sent to {} by the run's own code (execInTab, or what it scheduled): what the run's code sends is a write "
                        "whatever its method",
                        what, url->host)};
  return {};
}

bool is_method_override_header(std::string_view name) {
  return same_ascii_ci(name, "X-HTTP-Method-Override") || same_ascii_ci(name, "X-HTTP-Method") || same_ascii_ci(name, "X-Method-Override");
}

std::string method_override(const HeaderList& headers, std::string_view url, std::string_view body) {
  for (const auto& [name, value] : headers)
    if (is_method_override_header(name)) return method_name(value);
  if (auto parsed = boost::urls::parse_uri_reference(url); parsed && parsed->has_query())
    if (std::string m = method_param(parsed->encoded_query()); !m.empty()) return m;
  if (std::string m = method_part(body); !m.empty()) return m;
  return method_param(body);
}

std::string describe_request(const RequestFacts& r) {
  std::string out = r.method + " " + redact_url_params(clip_head(r.url, 300));
  if (!r.body_preview.empty()) out += " (body: " + r.body_preview + ")";
  return out;
}

}  // namespace ouro::safety
