// One tab's history of console messages, uncaught errors and requests, built from CDP events
// (Runtime.consoleAPICalled, Log.entryAdded, Runtime.exceptionThrown, Network.*). A page controls
// all of it, so everything is bounded: every string is capped, each list has a count limit, and the
// three together have a byte budget (the oldest entry goes first). No I/O, no locking: the owner
// (the tab tracker, under the browser's mutex) serialises access.
#pragma once

#include "browser/types.h"

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::browser {

struct LogLimits {
  size_t console = 1000, errors = 500, requests = 1000;  // entries
  size_t text = 4000;      // console text, error message and stack, dialog message
  size_t url = 2000;       // URLs (a data: URL can be megabytes)
  size_t word = 100;       // methods, types, MIME types, levels, ids, error names
  size_t budget = 2 << 20;  // bytes across console, errors and requests
  // Console entries kept per second; beyond it the rest of that second is dropped (0: no limit).
  size_t console_per_second = 1000;
};

// Counts events in one-second windows.
struct RateWindow {
  double start = 0;
  size_t count = 0;
  // Counts one event at now_ms; true while its second holds at most max events.
  bool allow(double now_ms, size_t max);
};

class PageLog {
 public:
  explicit PageLog(LogLimits limits = {}) : m_limits(limits) {}

  struct Outcome {
    bool handled = false;                   // the event was one of ours
    std::optional<RequestRecord> finished;  // a request that just finished (for observers)
    bool flood_started = false;             // console entries began to be dropped (once per flood)
    size_t dropped = 0;                     // console entries dropped since the flood began
  };
  // Records what the event says; events of other domains are not handled. now_ms stamps entries;
  // it also drives the per-second console limit.
  Outcome on_event(std::string_view method, const json& params, double now_ms);
  // An entry ouro writes itself (a dialog the page opened), capped like the rest.
  void add_console(ConsoleEntry entry);

  const std::deque<ConsoleEntry>& console() const { return m_console; }
  const std::deque<PageError>& errors() const { return m_errors; }
  const std::deque<RequestRecord>& requests() const { return m_requests; }
  bool has_request(const std::string& request_id) const;
  // Bytes the entries hold (strings plus a fixed overhead per entry).
  size_t bytes() const { return m_bytes; }
  const LogLimits& limits() const { return m_limits; }

 private:
  void on_console_api(const json& p, double now_ms, Outcome& out);
  void on_log_entry(const json& p, double now_ms, Outcome& out);
  void on_exception(const json& p, double now_ms);
  void on_network(std::string_view method, const json& p, double now_ms, Outcome& out);
  // The per-second console limit: true when this entry may be kept.
  bool console_allowed(double now_ms, Outcome& out);
  void push_console(ConsoleEntry e);
  RequestRecord* find_request(const std::string& id);
  // Keeps counts and the byte budget, dropping the oldest entries of any list.
  void enforce();

  LogLimits m_limits;
  std::deque<ConsoleEntry> m_console;
  std::deque<PageError> m_errors;
  std::deque<RequestRecord> m_requests;
  size_t m_bytes = 0;
  RateWindow m_console_rate;
  bool m_flooding = false;
  double m_last_drop = 0;
  size_t m_dropped = 0;  // console entries dropped in the current flood
};

}  // namespace ouro::browser
