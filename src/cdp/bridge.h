// ouro's Chrome extension as a browser source (docs/design/extension-bridge.md, "The bridge
// socket"). The extension carries DevTools commands and events for the tabs of ouro's tab groups
// through chrome.debugger; ouro speaks to it over one WebSocket of JSON messages:
//   request  {"id", "method", "params"}       ouro → extension
//   reply    {"id", "result"} | {"id", "error": {"code", "message", "cdpCode"?}}
//   notice   {"method", "params"}              either way, no id
//
// BridgeLink is ouro's end of one such socket: requests with ids, deadlines and a cap on those in
// flight, replies matched by id, notifications fanned out to listeners. It does no socket I/O
// itself: the server hands it what arrives and gives it a function to send with.
//
// make_bridge_transport puts a cdp::Transport over a link for one conversation, so a
// cdp::Connection and a browser::Browser run on the extension as on Chromium's own pipe: the
// conversation's tabs appear as page targets (Target.attachedToTarget with a session id of ours
// per tab), their events come back on those sessions, child sessions (frames, workers) keep the
// ids Chrome gave them, and the few browser-wide commands a Browser sends are answered here
// (what cannot exist through an extension — another browser context, the download directory —
// fails with a message that says so).
#pragma once

#include "base/json.h"
#include "cdp/transport.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ouro::net { class IoThread; }

namespace ouro::cdp {

class BridgeLink : public std::enable_shared_from_this<BridgeLink> {
 public:
  static constexpr size_t kMaxMessageBytes = 64u << 20;
  static constexpr size_t kMaxInFlight = 1024;
  static constexpr int kProtocol = 1;

  // Queues one text message on the socket; false when it could not (closed, too far behind).
  using Send = std::function<bool(std::string)>;
  using Reply = std::function<void(Result<json>)>;
  using Listener = std::function<void(const std::string& method, const json& params)>;
  using CloseListener = std::function<void(const Error&)>;

  // `hello` is the extension's hello params (its id, version, browser, groups). `io` must outlive
  // the link, and keep running until the link is gone.
  static std::shared_ptr<BridgeLink> create(net::IoThread& io, Send send, json hello);
  // Requests still pending fail (Unavailable) on the network thread.
  ~BridgeLink();

  // Sends a request. `done` runs exactly once, on the network thread, never inline: with the
  // result; with the extension's error mapped to ouro's codes (NotInGroup and Forbidden →
  // PermissionDenied, NotAttached/TabGone/Detached → NotFound, Busy → ResourceExhausted,
  // CdpError → FailedPrecondition with cdpCode in the details); DeadlineExceeded after
  // `timeout`; ResourceExhausted at once past kMaxInFlight; Unavailable ("the extension
  // disconnected: …") when the socket goes. Any thread.
  void request(std::string method, json params, std::chrono::milliseconds timeout, Reply done);

  // What the socket delivered (network thread): replies go to their requests, notifications to
  // the listeners; a malformed message is logged and dropped.
  void on_message(const std::string& text);
  // The socket is gone: every pending request fails, the close listeners hear `why` once.
  void on_closed(const std::string& why);

  // Listeners run on the network thread and must not block. Returns an id for unlisten. A link
  // already closed calls on_close at once (posted).
  int listen(Listener on_notice, CloseListener on_close);
  // Once it returns, the listener is not called again (unless from inside it).
  void unlisten(int id);

  bool closed() const;
  json hello() const;
  // Requests awaiting a reply (tests, diagnostics).
  size_t in_flight() const;

 private:
  BridgeLink() = default;
  struct Impl;
  std::shared_ptr<Impl> m;
};

struct BridgeTarget {
  std::string conversation;  // the tab group's key at the extension (a run id)
  std::string title;         // the group's name, shown in Chrome's tab strip (≤ 60 characters)
  std::chrono::milliseconds request_timeout{120000};  // each request's deadline at the link
};

// A CDP transport for one conversation's tab group over the link. start() gives a browser-level
// session on which Target.getTargets lists the group's tabs (not yet attached),
// Target.attachToTarget attaches one, Target.createTarget opens a tab in the group (openTab) and
// Target.closeTarget closes one. Tabs the user shares into the group (tabAdded) are attached and
// announced as Target.attachedToTarget; a tab that leaves or is detached is announced as
// Target.detachedFromTarget. close() releases the conversation (its tabs stay open, the user's).
std::unique_ptr<Transport> make_bridge_transport(net::IoThread& io, std::shared_ptr<BridgeLink> link, BridgeTarget target);

// An in-process DevTools endpoint: BrowserOptions carries a URL, not an object, so a transport
// made here (the bridge's) is offered under a URL of its own, "ouro-transport:N", which
// Browser::start takes once. Any thread.
std::string offer_transport(std::unique_ptr<Transport> transport);
// The transport offered under `url`, once; nullptr when there is none (taken, or never offered).
std::unique_ptr<Transport> take_transport(const std::string& url);
inline bool is_offered_transport(const std::string& url) { return url.rfind("ouro-transport:", 0) == 0; }

}  // namespace ouro::cdp
