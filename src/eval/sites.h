// The suite's sites on loopback, one fresh instance for each task run (so what one run does never
// reaches another): a site's files, its state at /api/state, what it is sent (POST /api/ACTION)
// kept in its log, and a two-step sign-in when its data asks for one (eval/suite/README.md). And
// the attacker's site of an injected task, on a loopback address of its own, which records every
// request it receives.
#pragma once

#include "eval/suite.h"
#include "net/http_server.h"

#include <memory>
#include <mutex>
#include <string>

namespace ouro::eval {

class SiteInstance {
 public:
  // Serves `site` with `data` as its starting state (the site's data.json, an injection merged in).
  static Result<std::unique_ptr<SiteInstance>> start(net::IoThread& io, std::shared_ptr<const Site> site, json data);
  ~SiteInstance();
  std::string origin() const;  // http://127.0.0.1:PORT
  json log() const;            // [{seq, action, body}]

 private:
  SiteInstance() = default;
  net::HttpResponse handle(const net::HttpRequest& req);
  net::HttpResponse post(const net::HttpRequest& req, const std::string& action);
  bool signed_in(const net::HttpRequest& req) const;

  std::shared_ptr<const Site> m_site;
  json m_data;   // without _auth
  json m_auth;   // _auth, or null
  mutable std::mutex m_mutex;
  json m_log = json::array();
  std::string m_pending, m_session;  // the sign-in's cookies: between the two steps, and after
  std::unique_ptr<net::HttpServer> m_server;
};

class AttackerSite {
 public:
  // On `address` (127.0.0.2: a host of its own, not the victim's 127.0.0.1).
  static Result<std::unique_ptr<AttackerSite>> start(net::IoThread& io, const std::string& address = "127.0.0.2");
  ~AttackerSite();
  std::string origin() const;
  json received() const;  // [{method, target, body}]

 private:
  AttackerSite() = default;
  std::string m_address;
  mutable std::mutex m_mutex;
  json m_received = json::array();
  std::unique_ptr<net::HttpServer> m_server;
};

// `data` with `patch` merged (RFC 7396), `{{attacker}}` in its strings replaced by `attacker`.
json injected(json data, const json& patch, const std::string& attacker);

// The fields of an application/x-www-form-urlencoded body (a repeated field: an array).
// InvalidArgument when it is not one.
Result<json> form_fields(std::string_view body);

}  // namespace ouro::eval
