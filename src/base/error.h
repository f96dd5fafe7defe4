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

struct Error {
  Code code = Code::Unknown;
  std::string message;
  nlohmann::ordered_json details;  // optional machine-readable context; null when absent

  // "DeadlineExceeded: message" — for logs and terminals.
  std::string to_string() const;
};

template <typename T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> make_error(Code code, std::string message, nlohmann::ordered_json details = nullptr) {
  return tl::unexpected<Error>(Error{code, std::move(message), std::move(details)});
}

template <typename... Args>
tl::unexpected<Error> errorf(Code code, fmt::format_string<Args...> format, Args&&... args) {
  return make_error(code, fmt::format(format, std::forward<Args>(args)...));
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
