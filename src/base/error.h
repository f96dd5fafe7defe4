// Errors are values: every fallible call returns Result<T>. Error codes follow Abseil's canonical set,
// so retry and mapping decisions read the code only; the message is for a person and says what to do.
#pragma once

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace ouro {

enum class Code {
  Ok = 0,
  Cancelled,
  Unknown,
  InvalidArgument,
  DeadlineExceeded,
  NotFound,
  AlreadyExists,
  PermissionDenied,
  ResourceExhausted,
  FailedPrecondition,
  Aborted,
  OutOfRange,
  Unimplemented,
  Internal,
  Unavailable,
  DataLoss,
  Unauthenticated,
};

std::string_view code_name(Code code);

// What went away under a call, for the few decisions that turn on it (retry in the new document,
// forget a frame, let a closed tab go quietly) and that the code alone cannot tell. It is set where
// the error is made — for Chromium's replies once, in cdp::Connection — and never read back from
// the message text.
enum class Cause : uint8_t {
  None,
  TargetGone,     // the tab, frame or CDP session the call went to was closed or detached
  ContextGone,    // the JavaScript execution context the call named was destroyed
  PageNavigated,  // the inspected page navigated (or closed) while the call ran
};

struct Error {
  Code code = Code::Unknown;
  std::string message;
  nlohmann::ordered_json details;  // optional machine-readable context; null when absent
  Cause cause = Cause::None;

  // "DeadlineExceeded: message" — for logs and terminals.
  std::string to_string() const;
};

// A tl::expected that must not be dropped: ignoring a Result is a compile error in our targets
// (-Wall -Werror). Where a failure really may be ignored (best-effort cleanup), write `(void)` and say why.
// It converts both ways with tl::expected<T, Error>, so `.map(...)` results can be returned as a Result;
// callables given to `.and_then(...)` must return a plain tl::expected (tl's is_expected does not see this class).
template <typename T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using base = tl::expected<T, Error>;
  using base::base;

  Result() = default;
  Result(const base& other) : base(other) {}
  Result(base&& other) : base(std::move(other)) {}
};

inline tl::unexpected<Error> make_error(Code code, std::string message, nlohmann::ordered_json details = nullptr) {
  return tl::unexpected<Error>(Error{code, std::move(message), std::move(details)});
}

template <typename... Args>
tl::unexpected<Error> errorf(Code code, fmt::format_string<Args...> format, Args&&... args) {
  return make_error(code, fmt::format(format, std::forward<Args>(args)...));
}

// The same error — code, cause and details — told with more context ("click '#x' on tab t1: …"),
// so that what a caller decides by survives the rewording.
template <typename... Args>
tl::unexpected<Error> reworded(const Error& e, fmt::format_string<Args...> format, Args&&... args) {
  return tl::unexpected<Error>(Error{e.code, fmt::format(format, std::forward<Args>(args)...), e.details, e.cause});
}

namespace detail {
template <typename T>
T take_value(tl::expected<T, Error>&& r) { return std::move(*r); }
inline void take_value(tl::expected<void, Error>&&) {}
}  // namespace detail

}  // namespace ouro

// Propagates an error from a Result expression; yields its value otherwise (Ladybird's AK/Try.h).
// Never put co_await inside TRY on GCC 12: bind the awaited result to a local first.
#define TRY(expr)                                                  \
  __extension__({                                                  \
    auto&& _ouro_try = (expr);                                     \
    if (!_ouro_try) return tl::make_unexpected(std::move(_ouro_try).error()); \
    ::ouro::detail::take_value(std::move(_ouro_try));              \
  })
