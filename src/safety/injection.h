// Untrusted content, marked (docs/guides/safety.md): text returned from pages that
// looks like instructions aimed at the agent — "ignore previous instructions", role or system
// prompt impersonation, requests to visit URLs or send data, text hidden from people — is flagged
// so the model reads it as data and the user sees it. A scanner over plain text; it flags, it
// never edits what the page said.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ouro::safety {

struct InjectionFlag {
  std::string kind;     // "override" | "impersonation" | "exfiltration" | "navigation" | "hidden"
  std::string excerpt;  // the matching text, shortened (≤ 120 chars)
};

// Scans at most the first `limit` bytes; at most 5 flags, one per kind and place.
std::vector<InjectionFlag> scan_for_injection(std::string_view text, size_t limit = 200000);

// "possible prompt injection in page text (override: “ignore all previous instructions …”)"
std::string describe_flags(const std::vector<InjectionFlag>& flags);

}  // namespace ouro::safety
