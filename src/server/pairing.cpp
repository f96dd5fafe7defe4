#include "server/pairing.h"
#include "base/clock.h"

#include "base/base64.h"
#include "base/random.h"
#include "base/log.h"
#include "store/database.h"
#include "store/sql.h"

#include <openssl/evp.h>
#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ouro::server {

namespace {

// Crockford's base32 (crockford.com/base32.html): no I, L, O or U, so a code read aloud or
// retyped is not mistaken.
constexpr std::string_view kAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr size_t kCodeLength = 8;
constexpr size_t kCredentialBytes = 32;
constexpr size_t kMaxName = 100;

std::string base64url(std::string_view bytes) { return base64_encode(bytes, Base64::Url); }

// What the user typed, as compared: no dashes or spaces, upper case, and Crockford's decoding
// of the look-alikes (O → 0, I and L → 1).
std::string normalize(std::string_view typed) {
  std::string out;
  for (char c : typed) {
    if (c == '-' || c == ' ') continue;
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (c == 'O') c = '0';
    if (c == 'I' || c == 'L') c = '1';
    out += c;
  }
  return out;
}

std::string shown(const std::string& code) { return code.substr(0, 4) + "-" + code.substr(4); }

bool equal_time_constant(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS pairings ("
     "  id TEXT PRIMARY KEY,"
     "  name TEXT NOT NULL,"
     "  extension_id TEXT NOT NULL,"
     "  credential_hash TEXT NOT NULL UNIQUE,"
     "  created REAL NOT NULL,"
     "  last_used REAL);",
     "CREATE TABLE IF NOT EXISTS pairings ("
     "  id TEXT PRIMARY KEY,"
     "  name TEXT NOT NULL,"
     "  extension_id TEXT NOT NULL,"
     "  credential_hash TEXT NOT NULL UNIQUE,"
     "  created DOUBLE PRECISION NOT NULL,"
     "  last_used DOUBLE PRECISION);"},
};

}  // namespace

std::string Pairings::random_bytes(size_t n) { return ::ouro::random_bytes(n); }

std::string Pairings::hash(std::string_view credential) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(credential.data(), credential.size(), digest, &length, EVP_sha256(), nullptr);
  return base64url(std::string_view(reinterpret_cast<const char*>(digest), length));
}

bool Pairings::valid_extension_id(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) { return c >= 'a' && c <= 'p'; });
}

Result<std::unique_ptr<Pairings>> Pairings::open(store::Database& db) {
  std::unique_ptr<Pairings> p(new Pairings());
  p->m_db = &db;
  TRY(db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(store::migrate(c, "pairing", kMigrations));
    auto rows = c.exec("SELECT id, extension_id, credential_hash, COALESCE(last_used, 0) FROM pairings");
    if (!rows) return make_error(rows.error().code, "cannot read the pairings: " + rows.error().message);
    for (const store::Row& row : *rows) p->m_by_hash[row.text(2)] = Entry{row.text(0), row.text(1), row.real(3), false};
    return {};
  }));
  return p;
}

Pairings::~Pairings() { flush_last_used(); }

Pairings::PairingCode Pairings::make_code_locked() {
  std::string bytes = random_bytes(kCodeLength);
  std::string code;
  // 256 is a multiple of 32: each byte modulo 32 is uniform.
  for (char b : bytes) code += kAlphabet[static_cast<unsigned char>(b) % kAlphabet.size()];
  m_code = code;
  m_code_expires = wall_ms() + kCodeLifetimeMs;
  m_wrong = 0;
  return PairingCode{shown(code), m_code_expires};
}

Pairings::PairingCode Pairings::current_code() {
  PairingCode made;
  std::function<void(const PairingCode&)> listener;
  {
    std::lock_guard lock(m_mutex);
    if (!m_code.empty() && wall_ms() < m_code_expires) return PairingCode{shown(m_code), m_code_expires};
    made = make_code_locked();
    if (!m_first_code) listener = m_code_listener;
    m_first_code = false;
  }
  if (listener) listener(made);
  return made;
}

Pairings::PairingCode Pairings::new_code() {
  PairingCode made;
  std::function<void(const PairingCode&)> listener;
  {
    std::lock_guard lock(m_mutex);
    made = make_code_locked();
    if (!m_first_code) listener = m_code_listener;
    m_first_code = false;
  }
  if (listener) listener(made);
  return made;
}

void Pairings::set_code_listener(std::function<void(const PairingCode&)> listener) {
  std::lock_guard lock(m_mutex);
  m_code_listener = std::move(listener);
}

void Pairings::set_revocation_listener(std::function<void(const std::string&)> listener) {
  std::lock_guard lock(m_mutex);
  m_revocation_listener = std::move(listener);
}

Result<json> Pairings::pair(const std::string& typed, const std::string& name, const std::string& extension_id) {
  if (!valid_extension_id(extension_id))
    return make_error(Code::InvalidArgument, "extensionId must be a Chromium extension id (32 letters a to p)");
  if (name.size() > kMaxName) return errorf(Code::InvalidArgument, "name is longer than {} bytes", kMaxName);
  std::string given = normalize(typed);
  std::function<void(const PairingCode&)> listener;
  std::optional<PairingCode> replacement;
  {
    std::lock_guard lock(m_mutex);
    bool live = !m_code.empty() && wall_ms() < m_code_expires;
    if (!live || !equal_time_constant(given, m_code)) {
      if (!live) return make_error(Code::Unauthenticated, "there is no pairing code in force; ouro serve prints a new one, and Settings in the Command Center shows it");
      if (++m_wrong < kMaxWrongTries)
        return errorf(Code::Unauthenticated, "that pairing code is wrong or used; {} tries left (ouro serve printed the code; Settings shows it)",
                      kMaxWrongTries - m_wrong);
      // The tries are used up: this code is void. A new one is printed, so a person pairing
      // goes on, while someone guessing starts again from scratch with five tries.
      replacement = make_code_locked();
      listener = m_code_listener;
    } else {
      m_code.clear();  // single use
    }
  }
  if (replacement) {
    if (listener) listener(*replacement);
    return make_error(Code::ResourceExhausted, "too many wrong pairing codes: that code is void; use the new one ouro serve printed (also in Settings)");
  }
  std::string credential = base64url(random_bytes(kCredentialBytes));
  std::string digest = hash(credential);
  double now = wall_ms();
  std::string clean_name = name.empty() ? "Chrome extension" : name;
  auto id = TRY(m_db->with_sql([&](store::Connection& c) -> Result<std::string> {
    auto max = c.exec("SELECT COALESCE(MAX(CAST(SUBSTR(id, 2) AS BIGINT)), 0) + 1 FROM pairings");
    if (!max) return make_error(Code::Unavailable, "cannot store the pairing: " + max.error().message);
    std::string next = "p" + std::to_string(max->empty() ? 1 : (*max)[0].int64(0));
    auto ins = c.exec("INSERT INTO pairings (id, name, extension_id, credential_hash, created, last_used) VALUES (?1, ?2, ?3, ?4, ?5, NULL)",
                      {next, clean_name, extension_id, digest, now});
    if (!ins) return make_error(Code::Unavailable, "cannot store the pairing: " + ins.error().message);
    return next;
  }));
  {
    std::lock_guard lock(m_mutex);
    m_by_hash[digest] = Entry{id, extension_id, 0, false};
  }
  spdlog::info("pairing: paired {} ({}) as {}", clean_name.substr(0, 60), extension_id, id);
  return json{{"id", id}, {"credential", credential}};
}

std::optional<Pairings::Paired> Pairings::authenticate(const std::string& credential) {
  if (credential.size() < 32 || credential.size() > 128) return std::nullopt;
  std::string digest = hash(credential);
  std::lock_guard lock(m_mutex);
  auto it = m_by_hash.find(digest);
  if (it == m_by_hash.end()) return std::nullopt;
  it->second.last_used = wall_ms();
  it->second.dirty = true;
  return Paired{it->second.id, it->second.extension_id};
}

void Pairings::flush_last_used() {
  std::vector<std::pair<std::string, double>> dirty;
  {
    std::lock_guard lock(m_mutex);
    for (auto& [h, e] : m_by_hash)
      if (e.dirty) {
        dirty.emplace_back(e.id, e.last_used);
        e.dirty = false;
      }
  }
  if (dirty.empty()) return;
  auto written = m_db->with_sql([&](store::Connection& c) -> Result<void> {
    for (auto& [id, at] : dirty) TRY(c.exec("UPDATE pairings SET last_used = ?1 WHERE id = ?2", {at, id}));
    return {};
  });
  // Only a timestamp for Settings is lost.
  if (!written) spdlog::debug("pairing: cannot record when pairings were last used: {}", written.error().message);
}

Result<json> Pairings::list() {
  flush_last_used();
  return m_db->with_sql([&](store::Connection& c) -> Result<json> {
    auto rows = c.exec("SELECT id, name, extension_id, created, last_used FROM pairings ORDER BY created");
    if (!rows) return make_error(rows.error().code, "cannot read the pairings: " + rows.error().message);
    json out = json::array();
    for (const store::Row& row : *rows) {
      std::string ext = row.text(2);
      json last = row.is_null(4) ? json(nullptr) : json(row.real(4));
      out.push_back({{"id", row.text(0)}, {"name", row.text(1)}, {"extensionId", ext}, {"origin", "chrome-extension://" + ext},
                     {"created", row.real(3)}, {"lastUsed", last}});
    }
    return out;
  });
}

Result<json> Pairings::describe(const std::string& id) {
  auto all = TRY(list());
  for (const auto& p : all)
    if (p["id"] == id) return json{{"id", p["id"]}, {"name", p["name"]}, {"created", p["created"]}, {"lastUsed", p["lastUsed"]}};
  return errorf(Code::NotFound, "no pairing '{}'", id.substr(0, 40));
}

Result<void> Pairings::revoke(const std::string& id) {
  int changed = TRY(m_db->with_sql([&](store::Connection& c) -> Result<int> {
    auto r = c.exec("DELETE FROM pairings WHERE id = ?1", {id});
    if (!r) return make_error(Code::Unavailable, "cannot revoke the pairing: " + r.error().message);
    return static_cast<int>(r->affected);
  }));
  std::function<void(const std::string&)> listener;
  {
    std::lock_guard lock(m_mutex);
    std::erase_if(m_by_hash, [&](const auto& kv) { return kv.second.id == id; });
    listener = m_revocation_listener;
  }
  if (changed == 0) return errorf(Code::NotFound, "no pairing '{}' (GET /api/pairings lists them)", id.substr(0, 40));
  spdlog::info("pairing: revoked {}", id);
  if (listener) listener(id);
  return {};
}

}  // namespace ouro::server
