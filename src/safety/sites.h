// Where a run may go: URL parsing, site patterns (allowlists), and the scheme and address rules
// that hold in every mode (docs/guides/safety.md). Pure functions over plain data; the
// browser's Fetch gate and the navigation capabilities ask these, they decide nothing themselves.
#pragma once

#include "base/error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::safety {

struct Url {
  std::string scheme;  // lower case, without ':'
  std::string host;    // lower case, without brackets for IPv6; empty for file:, about:, …
  int port = 0;        // the explicit or default port; 0 when the scheme has none
};

// Parses an absolute URL; the error says what is wrong with it.
Result<Url> parse_url(std::string_view text);

// "news.bbc.co.uk" → "bbc.co.uk", "a.b.example.com" → "example.com", IPs and single labels as
// they are. An approximation of the registrable domain without the Public Suffix List: a
// two-letter country code under a short second level (co.uk, com.au) keeps three labels.
std::string site_of_host(std::string_view host);

// A site pattern SiteList::add reads back as this host on this port (0: any port):
// "example.com", "example.com:8080", "[2001:db8::1]:8443" (an IPv6 address is bracketed before a
// port, RFC 3986 §3.2.2).
std::string site_pattern(const std::string& host, int port);

// How a pattern's scheme and port are read.
//  Site: the host decides; a port is that port only when written, any port otherwise, and any
//        scheme (a URL's scheme is ignored). An allowlist of where a run may go.
//  Origin: scheme and port as written (RFC 6454 origins): "http://127.0.0.1:8765" is that exactly;
//        no scheme written means https (and http as well for a loopback host, which browsers
//        treat as potentially trustworthy, W3C Secure Contexts §3.1); no port written means the
//        scheme's default port. Where a secret may be typed.
enum class PatternRule { Site, Origin };

// Allowed sites. Patterns: "example.com" (that host and its www.), "*.example.com" (example.com
// and every subdomain), an IP address or "localhost", each optionally with ":port", or a URL
// ("http://127.0.0.1:8765/"). An empty port ("host:", "http://host:/") is an error.
class SiteList {
 public:
  Result<void> add(std::string_view pattern, PatternRule rule = PatternRule::Site);
  // The site of a URL: *.<site_of_host(host)>, so sub-domains of a task's URL are included.
  void add_site_of(const Url& url);
  // Exactly the URL's origin: its scheme, host and port.
  void add_origin(const Url& url);
  bool matches(const Url& url) const;
  bool empty() const { return m_patterns.empty(); }
  std::vector<std::string> patterns() const;

 private:
  struct Pattern {
    std::string host;
    bool subdomains = false;
    int port = 0;        // 0: any
    std::string scheme;  // empty: any
  };
  std::vector<Pattern> m_patterns;
};

enum class HostKind { Public, Loopback, Private, LinkLocal, LocalName };
// Loopback (127/8, ::1, localhost), private (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10),
// link-local (169.254/16 — the cloud metadata address —, fe80::/10), local names (.local,
// .internal, .localhost, .lan, single labels).
HostKind classify_host(std::string_view host);
std::string_view host_kind_name(HostKind kind);

// Schemes a run never opens unless the task names them: file, chrome, chrome-extension,
// devtools, view-source, javascript, chrome-untrusted.
bool is_privileged_scheme(std::string_view scheme);

struct Verdict {
  bool allowed = true;
  std::string reason;  // why not, for the error the model sees and the gate event
};

// The rules that hold in every mode: privileged schemes and internal addresses are refused unless
// `explicitly_named` (the task's URLs and --allow-domain) names the URL. about:blank and data:
// documents carry no address and are allowed.
Verdict check_scheme_and_address(const Url& url, const SiteList& explicitly_named);

}  // namespace ouro::safety
