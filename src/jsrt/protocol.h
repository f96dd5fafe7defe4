// Messages between the REPL parent and its worker. A frame is a small JSON header, optionally
// followed by '\n' and a payload of raw JSON text (values go through untouched, so a 1 MB page
// text is parsed once, by whoever needs it).
//
// parent -> worker: init {functions:[…]}, eval {id, timeout_ms, memory_mb, checkpoint_ms} + code,
//                   reply {id, ok, undefined?} + value | error, state + {tabs, activeTab},
//                   event {handler} + data, restore + checkpoint (typed env JSON), interrupt
// worker -> parent: ready, began {id} (the code is about to run: a worker that dies before
//                   saying so has run none of it), call {id, fn} + args, log + text, final + value,
//                   env + checkpoint (after a successful evaluation, before its result),
//                   result {id, ok, undefined?, kind?, ms} + value | error
#pragma once

#include "base/json.h"

#include <string>
#include <string_view>

namespace ouro::jsrt {

struct Frame {
  json header;
  std::string payload;  // raw JSON text, may be empty
};

inline std::string encode_frame(const json& header, std::string_view payload = {}) {
  std::string out = dump_json(header);
  if (!payload.empty()) {
    out.push_back('\n');
    out.append(payload);
  }
  return out;
}

inline Result<Frame> decode_frame(const std::string& text) {
  auto nl = text.find('\n');
  auto header = TRY(parse_json(std::string_view(text).substr(0, nl), "REPL frame"));
  Frame f{std::move(header), nl == std::string::npos ? std::string() : text.substr(nl + 1)};
  return f;
}

}  // namespace ouro::jsrt
