#include "store/sql.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <cstdlib>

namespace ouro::store {

std::string_view engine_name(Engine engine) { return engine == Engine::Postgres ? "PostgreSQL" : "SQLite"; }

Param text_or_null(std::string_view v) { return v.empty() ? Param(nullptr) : Param(v); }

bool Row::is_null(size_t i) const { return i >= m_cells.size() || std::holds_alternative<std::monostate>(m_cells[i]); }

std::string Row::text(size_t i) const {
  if (i >= m_cells.size()) return {};
  const Value& v = m_cells[i];
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* n = std::get_if<int64_t>(&v)) return std::to_string(*n);
  if (auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  if (auto* b = std::get_if<Bytes>(&v)) return b->data;
  return {};
}

std::string Row::bytes(size_t i) const {
  if (i < m_cells.size())
    if (auto* b = std::get_if<Bytes>(&m_cells[i])) return b->data;
  return text(i);
}

int64_t Row::int64(size_t i) const {
  if (i >= m_cells.size()) return 0;
  const Value& v = m_cells[i];
  if (auto* n = std::get_if<int64_t>(&v)) return *n;
  if (auto* d = std::get_if<double>(&v)) {
    // Out of int64's range a conversion is undefined ([conv.fpint]): the nearest end instead.
    constexpr double kTop = 9223372036854775808.0;  // 2^63
    if (std::isnan(*d)) return 0;
    if (*d >= kTop) return std::numeric_limits<int64_t>::max();
    if (*d < -kTop) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(*d);
  }
  if (auto* s = std::get_if<std::string>(&v)) {
    int64_t out = 0;
    std::from_chars(s->data(), s->data() + s->size(), out);
    return out;
  }
  return 0;
}

double Row::real(size_t i) const {
  if (i >= m_cells.size()) return 0;
  const Value& v = m_cells[i];
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* n = std::get_if<int64_t>(&v)) return static_cast<double>(*n);
  if (auto* s = std::get_if<std::string>(&v)) return std::strtod(s->c_str(), nullptr);
  return 0;
}

std::optional<double> Row::real_or_null(size_t i) const {
  if (is_null(i)) return std::nullopt;
  return real(i);
}

std::string with_connect_timeout(const std::string& url) {
  if (url.find("connect_timeout=") != std::string::npos) return url;
  // libpq takes an empty query ("…/db?") and a trailing '&', but not an empty parameter.
  const char* glue = url.find('?') == std::string::npos ? "?" : url.ends_with('?') || url.ends_with('&') ? "" : "&";
  return url + glue + "connect_timeout=2";
}

Result<void> Connection::commit() {
  TRY(exec("COMMIT"));
  return {};
}

Result<void> Connection::rollback() {
  TRY(exec("ROLLBACK"));
  return {};
}

std::string to_postgres_parameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  size_t i = 0;
  // Copies a quoted run ('…' or "…", the quote doubled inside) whole.
  auto copy_quoted = [&](char q) {
    out += sql[i++];
    while (i < sql.size()) {
      char c = sql[i++];
      out += c;
      if (c == q) {
        if (i < sql.size() && sql[i] == q) out += sql[i++];
        else return;
      }
    }
  };
  while (i < sql.size()) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      copy_quoted(c);
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      size_t end = sql.find('\n', i);
      end = end == std::string_view::npos ? sql.size() : end;
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      out += '$';
      ++i;
      while (i < sql.size() && sql[i] >= '0' && sql[i] <= '9') out += sql[i++];
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

bool is_postgres_url(std::string_view target) { return target.starts_with("postgresql://") || target.starts_with("postgres://"); }

std::string redact_database_url(std::string_view url) {
  std::string out(url);
  size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  size_t start = scheme + 3;
  // libpq reads the userinfo up to the first '@' or '/' (a '?' or '#' in a password is the
  // password's), so the userinfo here ends at the last '@' before the first '/': never less than
  // what libpq sends as the password.
  size_t end = out.find('/', start);
  if (end == std::string::npos) end = out.size();
  size_t at = out.rfind('@', end);
  if (at != std::string::npos && at >= start) {
    size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // password=… among the query parameters.
  for (size_t q = out.find('?'); q != std::string::npos && q < out.size();) {
    size_t key = q + 1;
    if (out.compare(key, 9, "password=") == 0) {
      size_t value = key + 9;
      size_t next = out.find('&', value);
      out.replace(value, (next == std::string::npos ? out.size() : next) - value, "***");
    }
    q = out.find('&', key);
  }
  return out;
}

namespace {

Result<void> ensure_migrations_table(Connection& c) {
  if (c.migrated().contains(std::string_view("schema_migrations"))) return {};
  // Under the migrations' lock too: two nodes creating the table at once would collide in
  // PostgreSQL's catalog even with IF NOT EXISTS.
  TRY(c.transaction([&]() -> Result<void> {
    if (c.engine() == Engine::Postgres) TRY(c.exec("SELECT pg_advisory_xact_lock(hashtext('ouro.schema_migrations'))"));
    return c.exec_script(c.engine() == Engine::Postgres
                        ? "CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, version BIGINT NOT NULL, "
                          "applied_at DOUBLE PRECISION NOT NULL DEFAULT EXTRACT(EPOCH FROM now()), PRIMARY KEY (module, version))"
                        : "CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, version INTEGER NOT NULL, "
                          "applied_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0), PRIMARY KEY (module, version))");
  }));
  c.migrated().insert("schema_migrations");
  return {};
}

}  // namespace

Result<int> schema_version(Connection& c, std::string_view module) {
  TRY(ensure_migrations_table(c));
  Rows r = TRY(c.exec("SELECT COALESCE(MAX(version), 0) FROM schema_migrations WHERE module = ?1", {module}));
  return r.empty() ? 0 : r[0].integer(0);
}

Result<void> migrate(Connection& c, std::string_view module, std::span<const Migration> migrations) {
  if (c.migrated().contains(module)) return {};
  TRY(ensure_migrations_table(c));
  auto applied = c.transaction([&]() -> Result<void> {
    // Nodes starting together: one migrates, the others wait here and then find nothing to do.
    // The lock is released at the transaction's end.
    if (c.engine() == Engine::Postgres) TRY(c.exec("SELECT pg_advisory_xact_lock(hashtext('ouro.schema_migrations'))"));
    Rows r = TRY(c.exec("SELECT COALESCE(MAX(version), 0) FROM schema_migrations WHERE module = ?1", {module}));
    int have = r.empty() ? 0 : r[0].integer(0);
    for (const Migration& m : migrations) {
      if (m.version <= have) continue;
      std::string_view sql = c.engine() == Engine::Postgres ? m.postgres : m.sqlite;
      if (!sql.empty()) {
        if (auto done = c.exec_script(sql); !done)
          return make_error(done.error().code, fmt::format("cannot migrate {}'s tables to version {} on {}: {}", module, m.version,
                                                           engine_name(c.engine()), done.error().message));
      }
      if (m.apply) {
        if (auto done = m.apply(c); !done)
          return make_error(done.error().code, fmt::format("cannot migrate {}'s tables to version {} on {}: {}", module, m.version,
                                                           engine_name(c.engine()), done.error().message));
      }
      TRY(c.exec("INSERT INTO schema_migrations (module, version) VALUES (?1, ?2)", {module, m.version}));
    }
    return {};
  });
  if (!applied) return applied;
  c.migrated().emplace(module);
  return {};
}

}  // namespace ouro::store
