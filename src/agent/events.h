// The run's event stream (docs/reference/events.md): every step is a typed event — iteration-start,
// stream-token, code-generated, code-result, sub-llm-start, sub-llm-complete, page-changes, log,
// error, env-update, complete. The terminal, traces (and later the Command Center and the API)
// all read this one stream.
#pragma once

#include "base/json.h"

#include <functional>
#include <string>

namespace ouro::agent {

struct Event {
  uint64_t seq = 0;   // 1, 2, … within the run
  std::string type;
  json data;
  double ts = 0;      // ms since the epoch
  json to_json() const { return {{"seq", seq}, {"type", type}, {"ts", ts}, {"data", data}}; }
};

// Called for every event, in order, from the run's threads (serialised by the run).
using EventSink = std::function<void(const Event&)>;

}  // namespace ouro::agent
