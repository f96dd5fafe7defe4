// Text of the values CDP's Runtime domain reports (RemoteObject, ExceptionDetails), as a console
// would show them. Pages control these values: every read is type-checked and never throws.
#pragma once

#include "base/json.h"

#include <string>

namespace ouro::browser {

// A console argument or an evaluation result: its value, description or type.
std::string remote_object_text(const json& remote_object);
// "TypeError: x is not a function\n    at …" from Runtime.ExceptionDetails.
std::string exception_text(const json& details);

}  // namespace ouro::browser
