// The HTTP and WebSocket API on 127.0.0.1, and the Command Center's files. Access needs the
// random token made at start: `Authorization: Bearer <token>` for API calls, `?token=` for the
// page and the WebSocket. A foreign Origin or an unexpected Host is refused (DNS rebinding).
// Errors map to HTTP statuses in one place, with JSON bodies.
#pragma once

#include "base/error.h"

#include <memory>
#include <string>

namespace ouro::net { class IoThread; }
namespace ouro::session { struct Runtime; }

namespace ouro::server {

class RunManager;

class ApiServer {
 public:
  // Listens on 127.0.0.1:port (0: any free port). `token`: empty makes a random one.
  static Result<std::unique_ptr<ApiServer>> start(net::IoThread& io, uint16_t port, RunManager& runs,
                                                  std::shared_ptr<session::Runtime> runtime, std::string token = {});
  ~ApiServer();
  uint16_t port() const;
  const std::string& token() const;
  // http://127.0.0.1:PORT/?token=… — what a person opens.
  std::string url() const;

 private:
  ApiServer() = default;
  struct Impl;
  std::shared_ptr<Impl> m;
};

}  // namespace ouro::server
