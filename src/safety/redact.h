// Redaction of what leaves ouro for a model or the disk (prompts, events, traces): the one stage
// where secrets are masked before data is shown to someone else. Pure functions over text.
//
// URL parameters: a query or fragment value whose name looks like a secret — token, key, password,
// auth, session, secret, signature, code, … (see is_secret_param_name) — becomes "[REDACTED]",
// wherever a URL appears in the text.
#pragma once

#include "base/json.h"

#include <string>
#include <string_view>

namespace ouro::safety {

// True for parameter names that carry credentials: access_token, api_key, password, sessionid,
// auth, sig, code, … but not keyword, author, page.
bool is_secret_param_name(std::string_view name);

// Masks the values of secret-named URL parameters anywhere in text.
std::string redact_url_params(std::string_view text);

// The same, applied to every string (and object key's value) of a JSON value, in place.
void redact_json_strings(json& value);

}  // namespace ouro::safety
