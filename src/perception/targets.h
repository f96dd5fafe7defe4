// What identifies an action's target, recorded in runs and used by replays to find the target
// again when its selector no longer names it. The page side is browser/page/heal.js;
// this is the host side the capabilities (actions/) call before and after they act.
#pragma once

#include "host/context.h"
#include "base/error.h"

#include <chrono>
#include <string>

namespace ouro::perception {

// True when the run wants its actions' targets recorded (an on_record hook is installed).
bool recording(const host::Context& ctx);

// Tells the run what identifies an action's target: details as heal.js's identify() gave them
// (in the call that resolved the element), or, when null, asked of the page for the selector.
void record_target(host::Context& ctx, const std::string& tab, const std::string& action, const std::string& selector, const json& details);

// In a replay: the selector an action should use. The given one while it still names the
// recorded target (same kind of element, not one the recording saw beside it); else the one
// healing found from the recorded details — above the confidence threshold and clear of the
// runner-up — told as a `heal` event; else an error that names the step, what it looked for and
// the best candidates with their scores. Outside replays, or without a record for this selector,
// the selector as given, at no cost.
Result<std::string> replay_target(host::Context& ctx, const std::string& tab, const std::string& action, const std::string& selector,
                                  std::chrono::milliseconds timeout);

// "button \"Subscribe\" (label …, in main \"…\", under \"…\")": recorded details as words.
std::string describe_details(const json& details);

}  // namespace ouro::perception
