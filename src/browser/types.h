// The browser module's plain data: what a tab looks like, what pages leave behind (console entries,
// uncaught errors, requests), notices about things ouro did to contain a page (a dialog dismissed,
// a popup closed, a log flood cut), and how the next dialog of a tab is answered. Strings that came
// from a page are capped in size (see page_log.h).
#pragma once

#include "base/json.h"

#include <cstdint>
#include <string>

namespace ouro::browser {

// A file the browser downloads (files.cpp).
struct Download {
  std::string id;      // the browser's guid
  std::string tab_id;  // the tab whose page started it ("" when not known)
  std::string url;
  std::string name;    // the file name it has (or will have) in the folder
  std::string state;   // in_progress, completed, canceled
  int64_t size = -1;   // bytes, when known
  int64_t received = 0;
  std::string path;    // where it is, once completed into a folder of ours
  json to_json() const;
};

struct TabInfo {
  std::string id;       // "t1"
  std::string url;
  std::string title;
  std::string status;   // "loading" | "loaded" | "crashed"
  std::string favicon;  // URL, may be empty
  double seen_at = 0;   // when the user last had it in view (not shown to the model)
  json to_json() const;
};

struct ConsoleEntry {
  std::string level;  // log | info | warn | error | debug | dialog | …
  std::string text;
  std::string url;
  int line = 0;
  double timestamp = 0;  // ms since the epoch
  json to_json() const;
};

struct PageError {
  std::string message;
  std::string stack;
  std::string url;
  int line = 0, column = 0;
  double timestamp = 0;
  json to_json() const;
};

struct RequestRecord {
  std::string request_id;
  std::string url, method, type, mime_type;
  int status = 0;       // 0 until the response arrives
  int64_t size = 0;     // bytes received on the wire
  double timestamp = 0;
  bool finished = false;
  std::string error;    // loading failure, e.g. net::ERR_CONNECTION_REFUSED
  json to_json() const;
};

// Something a page did that ouro contained, for the session's event stream.
struct PageNotice {
  std::string context;  // browser context ("" = the profile's)
  std::string tab;      // the tab it happened in (for a closed popup: its opener), may be empty
  std::string kind;     // "dialog" | "popup-closed" | "log-flood"
  std::string message;  // e.g. "alert: Hello" (capped)
  std::string url;      // the page's URL (capped)
  double timestamp = 0;  // ms since the epoch
  json to_json() const;
};

// How a tab answers its next JavaScript dialog (alert, confirm, prompt, beforeunload). Without a
// policy, dialogs are dismissed at once, except beforeunload, which is accepted so that navigating
// away or closing the tab is not held up by the page.
struct DialogPolicy {
  bool accept = false;
  std::string prompt_text;  // the answer to a prompt() that is accepted
  bool once = true;         // applies to the next dialog only; else to every dialog until changed
};

}  // namespace ouro::browser
