#include "safety/sites.h"

#include "base/text.h"
#include "safety/redact.h"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace ouro::safety {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int default_port(const std::string& scheme) {
  if (scheme == "http" || scheme == "ws") return 80;
  if (scheme == "https" || scheme == "wss") return 443;
  if (scheme == "ftp") return 21;
  return 0;
}

std::optional<std::array<int, 4>> ipv4(std::string_view h) {
  std::array<int, 4> out{};
  size_t part = 0, i = 0;
  while (part < 4) {
    size_t start = i;
    int v = 0;
    while (i < h.size() && std::isdigit(static_cast<unsigned char>(h[i])) && i - start < 3) v = v * 10 + (h[i++] - '0');
    if (i == start || v > 255) return std::nullopt;
    out[part++] = v;
    if (part < 4) {
      if (i >= h.size() || h[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != h.size()) return std::nullopt;
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) { return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix; }

}  // namespace

Result<Url> parse_url(std::string_view text) {
  auto r = boost::urls::parse_uri(text);
  if (!r) return errorf(Code::InvalidArgument, "'{}' is not an absolute URL ({})", redact_url_params(text.substr(0, 200)), r.error().message());
  Url u;
  u.scheme = lower(r->scheme());
  std::string host = lower(r->encoded_host());
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  // A trailing dot names the same host ("example.com." is example.com).
  while (!host.empty() && host.back() == '.') host.pop_back();
  u.host = host;
  // "http://host:/" has an empty port, which means the default one (WHATWG URL, port state).
  u.port = default_port(u.scheme);
  if (r->has_port() && !r->port().empty()) {
    auto port = port_number(r->port());
    if (!port) return errorf(Code::InvalidArgument, "'{}': port {} is out of range (1 to 65535)", redact_url_params(text.substr(0, 200)), std::string(r->port()).substr(0, 20));
    u.port = *port;
  }
  if ((u.scheme == "http" || u.scheme == "https" || u.scheme == "ws" || u.scheme == "wss") && u.host.empty())
    return errorf(Code::InvalidArgument, "'{}' has no host", redact_url_params(text.substr(0, 200)));
  return u;
}

std::string site_pattern(const std::string& host, int port) {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;  // IPv6 (RFC 3986 §3.2.2)
  return port ? h + ":" + std::to_string(port) : host;
}

std::string site_of_host(std::string_view raw) {
  std::string host = lower(raw);
  if (host.empty() || ipv4(host) || host.find(':') != std::string::npos) return host;
  std::vector<std::string_view> labels;
  std::string_view h = host;
  size_t start = 0;
  for (size_t i = 0; i <= h.size(); ++i)
    if (i == h.size() || h[i] == '.') {
      labels.push_back(h.substr(start, i - start));
      start = i + 1;
    }
  if (labels.size() <= 2) return host;
  size_t keep = 2;
  std::string_view tld = labels.back(), second = labels[labels.size() - 2];
  static const std::array<std::string_view, 8> kSecond = {"co", "com", "org", "net", "ac", "gov", "edu", "ne"};
  if (tld.size() == 2 && std::find(kSecond.begin(), kSecond.end(), second) != kSecond.end()) keep = 3;
  if (labels.size() <= keep) return host;
  std::string out;
  for (size_t i = labels.size() - keep; i < labels.size(); ++i) out += (out.empty() ? "" : ".") + std::string(labels[i]);
  return out;
}

Result<void> SiteList::add(std::string_view raw, PatternRule rule) {
  std::string p = lower(raw);
  Pattern pat;
  bool port_written = false;
  if (auto sep = p.find("://"); sep != std::string::npos) {
    // A URL given where a domain was expected: its host, and its port when one is written.
    auto r = boost::urls::parse_uri(p);
    if (!r) return errorf(Code::InvalidArgument, "'{}' is not a URL or a domain pattern ({})", raw.substr(0, 200), r.error().message());
    if (r->has_port() && r->port().empty())
      return errorf(Code::InvalidArgument, "'{}': the port is empty; write the port number or leave out the ':'", raw.substr(0, 200));
    auto u = TRY(parse_url(p));
    if (u.host.empty()) return errorf(Code::InvalidArgument, "'{}' names no host", raw.substr(0, 200));
    pat.host = u.host;
    pat.scheme = u.scheme;
    port_written = r->has_port();
    pat.port = port_written || rule == PatternRule::Origin ? u.port : 0;
  } else {
    if (p.rfind("*.", 0) == 0) {
      pat.subdomains = true;
      p = p.substr(2);
    }
    // An IPv6 address is written in brackets when a port follows ("[2001:db8::1]:8443", RFC 3986
    // §3.2.2); bare, it is the address alone, on any port.
    std::optional<std::string> port_text;
    if (!p.empty() && p.front() == '[') {
      auto close = p.find(']');
      if (close == std::string::npos || p.find_first_not_of("0123456789abcdef:.", 1) != close || p.substr(1, close - 1).find(':') == std::string::npos ||
          pat.subdomains || (close + 1 < p.size() && p[close + 1] != ':'))
        return errorf(Code::InvalidArgument, "'{}' is not an IPv6 address pattern: use [2001:db8::1] or [2001:db8::1]:8443", raw.substr(0, 200));
      if (close + 1 < p.size()) port_text = p.substr(close + 2);
      p = p.substr(1, close - 1);
    } else if (auto colon = p.rfind(':'); colon != std::string::npos && p.find(':') == colon) {
      port_text = p.substr(colon + 1);
      p = p.substr(0, colon);
    }
    if (port_text) {
      auto port = port_number(*port_text);
      if (!port) return errorf(Code::InvalidArgument, "'{}': the port must be a number from 1 to 65535", raw.substr(0, 200));
      pat.port = *port;
      port_written = true;
    }
    while (!p.empty() && p.back() == '.') p.pop_back();
    if (p.empty() || p.find_first_of("/?#@ *") != std::string::npos)
      return errorf(Code::InvalidArgument, "'{}' is not a domain pattern: use example.com, *.example.com or 127.0.0.1:8080", raw);
    pat.host = p;
  }
  if (rule == PatternRule::Site) {
    pat.scheme.clear();  // a site is its host (and port when written), whatever the scheme
    m_patterns.push_back(std::move(pat));
    return {};
  }
  if (!pat.scheme.empty()) {
    m_patterns.push_back(std::move(pat));
    return {};
  }
  // Origin, no scheme written: https, and for a loopback host http as well; each on the written
  // port, else on its own default port.
  std::vector<std::string> schemes = {"https"};
  if (classify_host(pat.host) == HostKind::Loopback) schemes.push_back("http");
  for (const auto& scheme : schemes) {
    Pattern o = pat;
    o.scheme = scheme;
    if (!port_written) o.port = default_port(scheme);
    m_patterns.push_back(std::move(o));
  }
  return {};
}

void SiteList::add_site_of(const Url& url) {
  if (url.host.empty()) return;
  std::string site = site_of_host(url.host);
  bool address = ipv4(site).has_value() || site.find(':') != std::string::npos || site.find('.') == std::string::npos;
  // An address or a single-label name is that host only, on that port.
  if (address) m_patterns.push_back({url.host, false, url.port, ""});
  else m_patterns.push_back({site, true, 0, ""});
}

void SiteList::add_origin(const Url& url) {
  if (url.host.empty()) return;
  m_patterns.push_back({url.host, false, url.port, url.scheme});
}

bool SiteList::matches(const Url& url) const {
  for (const auto& p : m_patterns) {
    if (p.port && p.port != url.port) continue;
    if (!p.scheme.empty() && p.scheme != url.scheme) continue;
    if (url.host == p.host || url.host == "www." + p.host) return true;
    if (p.subdomains && ends_with(url.host, "." + p.host)) return true;
  }
  return false;
}

std::vector<std::string> SiteList::patterns() const {
  std::vector<std::string> out;
  for (const auto& p : m_patterns) {
    std::string host = (p.subdomains ? "*." : "") + p.host;
    if (p.scheme.empty()) {
      out.push_back(site_pattern(host, p.port));
    } else {
      if (p.host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 address in a URL (RFC 3986 §3.2.2)
      out.push_back(p.scheme + "://" + host + (p.port && p.port != default_port(p.scheme) ? ":" + std::to_string(p.port) : ""));
    }
  }
  return out;
}

HostKind classify_host(std::string_view raw) {
  std::string h = lower(raw);
  if (h == "localhost" || ends_with(h, ".localhost") || h == "::1" || h == "0.0.0.0" || h == "::") return HostKind::Loopback;
  if (auto ip = ipv4(h)) {
    auto [a, b, c, d] = *ip;
    (void)c, (void)d;
    if (a == 127 || a == 0) return HostKind::Loopback;
    if (a == 10 || (a == 172 && b >= 16 && b <= 31) || (a == 192 && b == 168) || (a == 100 && b >= 64 && b <= 127)) return HostKind::Private;
    if (a == 169 && b == 254) return HostKind::LinkLocal;
    return HostKind::Public;
  }
  if (h.find(':') != std::string::npos) {  // IPv6
    if (h.rfind("fe8", 0) == 0 || h.rfind("fe9", 0) == 0 || h.rfind("fea", 0) == 0 || h.rfind("feb", 0) == 0) return HostKind::LinkLocal;
    if (h.rfind("fc", 0) == 0 || h.rfind("fd", 0) == 0) return HostKind::Private;
    if (h.rfind("::ffff:", 0) == 0) return classify_host(h.substr(7));
    return HostKind::Public;
  }
  if (h.find('.') == std::string::npos || ends_with(h, ".local") || ends_with(h, ".internal") || ends_with(h, ".lan") ||
      ends_with(h, ".home.arpa") || ends_with(h, ".intranet") || ends_with(h, ".corp"))
    return HostKind::LocalName;
  return HostKind::Public;
}

std::string_view host_kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::Public: return "public";
    case HostKind::Loopback: return "loopback";
    case HostKind::Private: return "private-network";
    case HostKind::LinkLocal: return "link-local";
    case HostKind::LocalName: return "local-name";
  }
  return "unknown";
}

bool is_privileged_scheme(std::string_view scheme) {
  static const std::array<std::string_view, 7> kSchemes = {"file", "chrome", "chrome-extension", "devtools", "view-source", "javascript", "chrome-untrusted"};
  std::string s = lower(scheme);
  return std::find(kSchemes.begin(), kSchemes.end(), s) != kSchemes.end();
}

Verdict check_scheme_and_address(const Url& url, const SiteList& named) {
  if (is_privileged_scheme(url.scheme)) {
    if (named.matches(url) && url.scheme != "javascript") return {};
    return {false, "'" + url.scheme + ":' URLs are not opened by runs (they reach local files or the browser's own pages)"};
  }
  if (url.host.empty()) return {};  // about:blank, data:, blob: carry no address of their own
  HostKind kind = classify_host(url.host);
  if (kind == HostKind::Public || named.matches(url)) return {};
  return {false, "'" + url.host + "' is a " + std::string(host_kind_name(kind)) +
                     " address; runs do not reach internal addresses unless the task's URLs or --allow-domain name them"};
}

}  // namespace ouro::safety
