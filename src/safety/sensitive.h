// The first safety layer (docs/guides/safety.md): before click, type, fill or select acts on a
// submit control, a payment or password field, or a control labelled like
// buy/pay/send/delete/confirm/transfer/order/sign, the action asks the user (through
// host::Context's confirm hook) and waits.
#pragma once

#include "base/json.h"

#include <optional>
#include <string>

namespace ouro::safety {

// Why acting on `target` (the page helper's description of the element) is sensitive, or nullopt.
// action: "click" | "type" | "fill" | "select".
std::optional<std::string> sensitive_reason(const std::string& action, const json& target);

// No self-approval: whether `target` approves, confirms, authorises, accepts or signs something
// (its label says so; "Sign in", "Sign up" and cookie banners do not). The stem of the word that
// says it ("approv", "confirm", "authori", "accept", "sign"), for a task that says to do it.
std::optional<std::string> approval_stem(const json& target);

}  // namespace ouro::safety
