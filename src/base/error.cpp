#include "base/error.h"

namespace ouro {

std::string_view code_name(Code code) {
  switch (code) {
    case Code::Ok: return "Ok";
    case Code::Cancelled: return "Cancelled";
    case Code::Unknown: return "Unknown";
    case Code::InvalidArgument: return "InvalidArgument";
    case Code::DeadlineExceeded: return "DeadlineExceeded";
    case Code::NotFound: return "NotFound";
    case Code::AlreadyExists: return "AlreadyExists";
    case Code::PermissionDenied: return "PermissionDenied";
    case Code::ResourceExhausted: return "ResourceExhausted";
    case Code::FailedPrecondition: return "FailedPrecondition";
    case Code::Aborted: return "Aborted";
    case Code::OutOfRange: return "OutOfRange";
    case Code::Unimplemented: return "Unimplemented";
    case Code::Internal: return "Internal";
    case Code::Unavailable: return "Unavailable";
    case Code::DataLoss: return "DataLoss";
    case Code::Unauthenticated: return "Unauthenticated";
  }
  return "Unknown";
}

std::string Error::to_string() const { return fmt::format("{}: {}", code_name(code), message); }

}  // namespace ouro
