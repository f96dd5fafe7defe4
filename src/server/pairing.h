// Pairing ouro's Chrome extension with `ouro serve` (docs/design/extension-bridge.md, "Pairing").
// The server shows a one-time code (8 characters of Crockford's base32, from the kernel's CSPRNG,
// valid 10 minutes, single use, void after 5 wrong tries); the extension sends it with its id and
// gets a credential of its own: 256 random bits, base64url without padding. Only the credential's
// SHA-256 is stored (table `pairings`, with the name, the extension's id, when it was made and
// last used), so the database does not hold a usable secret. A credential counts only with the
// Origin of the extension it was given to (chrome-extension://<id>); the API checks that.
//
// Threads: every method may be called from any thread. authenticate() touches no disk (the
// hashes live in memory as well), so the network thread may call it while checking headers; the
// others read or write SQLite.
#pragma once

#include "base/json.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ouro::store { class Database; }

namespace ouro::server {

class Pairings {
 public:
  static constexpr double kCodeLifetimeMs = 10 * 60 * 1000;
  static constexpr int kMaxWrongTries = 5;

  struct PairingCode {
    std::string code;       // as shown: "K7Q2-9XWD"
    double expires_at = 0;  // ms since the epoch
  };
  // Who a credential belongs to.
  struct Paired {
    std::string id, extension_id;
  };

  // Creates the table if needed and loads the stored hashes. `db` must outlive this object.
  // Times are base/clock.h's (a test moves them with a ManualClock).
  static Result<std::unique_ptr<Pairings>> open(store::Database& db);
  ~Pairings();

  // The code in force, made anew when there is none (never made, used, expired, or void after
  // the wrong tries).
  PairingCode current_code();
  // Voids the code in force and makes another.
  PairingCode new_code();
  // Called with every code made after the first (a lockout, an expiry, Settings' New code), so
  // `ouro serve` can print it. Runs on the caller's thread, outside the lock.
  void set_code_listener(std::function<void(const PairingCode&)> listener);

  // POST /api/pair: {id, credential} for the right code. Unauthenticated for a wrong, used or
  // expired code; ResourceExhausted when this try used up the code's tries (a new code is made);
  // InvalidArgument for a malformed extension id or name.
  Result<json> pair(const std::string& code, const std::string& name, const std::string& extension_id);

  // The pairing a credential belongs to, or nullopt. Marks it used. No disk I/O.
  std::optional<Paired> authenticate(const std::string& credential);

  // {id, name, created, lastUsed} of one pairing; NotFound when revoked.
  Result<json> describe(const std::string& id);
  // [{id, name, origin, extensionId, created, lastUsed}], oldest first.
  Result<json> list();
  // Forgets a pairing: its credential is refused from now on. NotFound if there is none. The
  // revocation listener runs afterwards (the API closes that extension's sockets).
  Result<void> revoke(const std::string& id);
  void set_revocation_listener(std::function<void(const std::string& id)> listener);

  // True for Chromium's extension ids: 32 letters a–p.
  static bool valid_extension_id(std::string_view id);
  // base64url(SHA-256(credential)), as stored.
  static std::string hash(std::string_view credential);
  // n bytes from the kernel's CSPRNG (getrandom(2)).
  static std::string random_bytes(size_t n);

 private:
  Pairings() = default;
  PairingCode make_code_locked();
  void flush_last_used();

  store::Database* m_db = nullptr;
  std::mutex m_mutex;
  std::string m_code;  // normalized (no dash, upper case); "" when none is in force
  double m_code_expires = 0;
  int m_wrong = 0;
  bool m_first_code = true;
  struct Entry {
    std::string id, extension_id;
    double last_used = 0;
    bool dirty = false;  // last_used not yet written
  };
  std::map<std::string, Entry> m_by_hash;
  std::function<void(const PairingCode&)> m_code_listener;
  std::function<void(const std::string&)> m_revocation_listener;
};

}  // namespace ouro::server
