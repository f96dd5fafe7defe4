#include "session/start_url.h"

#include "base/ascii.h"
#include "base/text.h"

#include <boost/url/parse.hpp>

namespace ouro::session {

namespace {

bool openable_scheme(std::string_view scheme) {
  for (std::string_view s : {"http", "https", "file", "data", "about"})
    if (equals_nocase(scheme, s)) return true;
  return false;
}

}  // namespace

Result<void> check_start_url(std::string_view url) {
  std::string shown = clip_text(std::string(url), 200);
  // A data: URL is opened as the browser reads it, raw HTML ("<", ">", spaces) included, which the
  // URI grammar (RFC 3986) does not allow.
  if (starts_with_nocase(url, "data:")) return {};
  auto parsed = boost::urls::parse_uri(url);
  if (parsed && openable_scheme(parsed->scheme())) {
    bool web = parsed->scheme_id() == boost::urls::scheme::http || parsed->scheme_id() == boost::urls::scheme::https;
    if (web && (!parsed->has_authority() || parsed->host().empty()))
      return errorf(Code::InvalidArgument, "\"{}\" names no host: give the site's address, as in {}://example.com/", shown,
                    parsed->scheme_id() == boost::urls::scheme::http ? "http" : "https");
    return {};
  }
  // "127.0.0.1:8765" is no URI; "localhost:8765" is one with the scheme "localhost".
  // A scheme of its own that is no host ("javascript:", "mailto:") is not a page at all.
  bool host_like = !parsed || parsed->scheme() == "localhost" || parsed->scheme().find('.') != std::string_view::npos;
  if (host_like && url.find("://") == std::string_view::npos) {
    std::string guess = "http://" + std::string(url);
    if (auto as_http = boost::urls::parse_uri(guess); as_http && as_http->has_authority() && !as_http->host().empty()) {
      std::string host = as_http->host();
      bool local = host == "localhost" || as_http->host_type() == boost::urls::host_type::ipv4 || as_http->host_type() == boost::urls::host_type::ipv6;
      std::string suggestion = local ? guess : "https://" + std::string(url);
      return errorf(Code::InvalidArgument, "\"{}\" has no scheme: add {} (give {})", shown, local ? "http://" : "https:// or http://",
                    clip_text(suggestion, 220));
    }
  }
  return errorf(Code::InvalidArgument, "\"{}\" is not a page a tab can open: give an http://, https:// or file:// URL (or about:blank)", shown);
}

}  // namespace ouro::session
