// A loopback site for self-healing replays: one newsletter form in variants of the
// same page — ids and classes renamed, elements reordered, wrappers added, labels reworded, the
// form moved to another landmark, the old id given to a decoy, the target gone — with a decoy of
// similar name beside every target (a partner e-mail field, a partner-offers button, a marketing
// box, a partner plan). The page logs what was done to which element into #log (kept by every
// variant): "email=…", "terms=true", "plan=Pro", "subscribe", and "DECOY:<what>" for a decoy.
#pragma once

#include "net/http_server.h"
#include "net/io.h"

#include <memory>
#include <string>

namespace ouro::testing {

class HealSite {
 public:
  HealSite();
  // http://127.0.0.1:<port>/v/<variant>; variants: orig, renamed, reordered, wrapped, reworded,
  // moved, decoy-id, gone.
  std::string url(const std::string& variant) const;

 private:
  std::unique_ptr<net::IoThread> m_io;
  std::unique_ptr<net::HttpServer> m_server;
};

// The page of a variant (the bench serves it too).
std::string heal_page(const std::string& variant);

}  // namespace ouro::testing
