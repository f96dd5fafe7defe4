// The PostgreSQL engine of the neutral SQL layer (store/sql.h), over libpqxx 6
// (https://libpqxx.readthedocs.io/en/6.4/). libpqxx reports failures by throwing; every throw
// stops in this file and becomes a Result error whose code says what kind of failure it was, by
// SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html), never by message text.
#include "store/sql.h"
#include "base/steady_clock.h"

#include <pqxx/pqxx>

#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <optional>
#include <mutex>
#include <thread>

namespace ouro::store {

namespace {

Code code_of_sqlstate(const std::string& state) {
  if (state == "23505") return Code::AlreadyExists;                   // unique_violation
  if (state == "40001" || state == "40P01") return Code::Aborted;     // serialization_failure, deadlock_detected
  if (state == "28000" || state == "28P01") return Code::Unauthenticated;
  if (state == "42501") return Code::PermissionDenied;                // insufficient_privilege
  if (state.starts_with("08") || state.starts_with("57P") || state == "53300") return Code::Unavailable;  // connection, shutdown, too many connections
  if (state.starts_with("53")) return Code::ResourceExhausted;
  if (state == "57014") return Code::Cancelled;                       // query_canceled (statement_timeout)
  if (state == "OU001") return Code::FailedPrecondition;              // ouro's own: the run is another node's (store/nodes.h)
  return Code::Internal;
}

// The password in a libpq URL, to scrub from any message that might echo it.
std::string password_of(std::string_view url) {
  std::string redacted = redact_database_url(url);
  size_t at = redacted.find("***");
  if (at == std::string::npos) return {};
  // The password is what the original has where the redacted text has "***".
  size_t tail = redacted.size() - (at + 3);
  return std::string(url.substr(at, url.size() - tail - at));
}

std::string scrub(std::string message, const std::string& secret) {
  if (secret.size() < 3) return message;  // too short to find without mangling the message
  for (size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 3)) message.replace(at, secret.size(), "***");
  return message;
}

// One line of libpq's message (it ends them with newlines and may add a DETAIL line).
std::string one_line(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  for (char& c : message)
    if (c == '\n') c = ' ';
  return message;
}

// What a failure to connect says: the URL as shown, libpq's reason without the password.
tl::unexpected<Error> connect_error(const std::string& shown, const std::string& secret, const std::exception& e) {
  return make_error(Code::Unavailable,
                    scrub(fmt::format("cannot connect to the PostgreSQL database {}: {} (check that the server runs and the URL, user and "
                                      "password are right; the password may come from PGPASSWORD or ~/.pgpass)",
                                      shown, one_line(e.what())),
                          secret));
}

class PostgresConnection final : public Connection {
 public:
  using Clock = ouro::SteadyClock;
  PostgresConnection(std::string url, std::function<Result<void>(Connection&)> setup)
      : m_url(with_connect_timeout(url)), m_shown(redact_database_url(url)), m_secret(password_of(url)), m_setup(std::move(setup)) {
    m_watch = std::thread([this] { watch(); });
  }
  ~PostgresConnection() override {
    {
      std::lock_guard lock(m_watch_mutex);
      m_stopping = true;
    }
    m_watch_cv.notify_all();
    m_watch.join();
    drop();
  }
  using Connection::exec;
  Engine engine() const override { return Engine::Postgres; }

  // The first connection: its failure is the caller's (Database::open reports it as is).
  Result<void> open() { return connect(); }

  Result<Rows> exec(std::string_view sql, std::span<const Param> params) override {
    TRY(usable());
    std::string query = to_postgres_parameters(sql);
    // Parameters go as text (the server converts them to the column's type); NULL as a null pointer.
    std::vector<std::string> texts(params.size());
    std::vector<const char*> args(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const Value& v = params[i].value;
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (auto* n = std::get_if<int64_t>(&v)) texts[i] = std::to_string(*n);
      else if (auto* d = std::get_if<double>(&v)) texts[i] = fmt::format("{}", *d);
      else if (auto* b = std::get_if<Bytes>(&v)) texts[i] = hex_bytea(b->data);
      else texts[i] = std::get<std::string>(v);
      args[i] = texts[i].c_str();
    }
    Deadline deadline(*this);
    try {
      pqxx::nontransaction tx(*m_conn);
      pqxx::result r = tx.exec_params(query, pqxx::prepare::make_dynamic_params(args));
      Rows out;
      out.affected = static_cast<int64_t>(r.affected_rows());
      std::vector<uint32_t> types;
      for (pqxx::row::size_type c = 0; c < r.columns(); ++c) types.push_back(r.column_type(c));
      out.rows.reserve(r.size());
      for (const auto& row : r) {
        std::vector<Value> cells;
        cells.reserve(types.size());
        for (pqxx::row::size_type c = 0; c < row.size(); ++c) cells.push_back(cell(row[c], types[c]));
        out.rows.emplace_back(std::move(cells));
      }
      return out;
    } catch (const std::exception& e) {
      return failed(e, deadline.expired());
    }
  }

  Result<void> exec_script(std::string_view sql) override {
    TRY(usable());
    Deadline deadline(*this);
    try {
      pqxx::nontransaction tx(*m_conn);
      tx.exec(std::string(sql));
      return {};
    } catch (const std::exception& e) {
      return failed(e, deadline.expired());
    }
  }

  Result<void> begin() override {
    TRY(exec("BEGIN"));
    m_in_transaction = true;
    return {};
  }
  Result<void> commit() override {
    auto done = exec("COMMIT");
    m_in_transaction = false;
    if (!done) return tl::unexpected<Error>(done.error());
    return {};
  }
  Result<void> rollback() override {
    m_in_transaction = false;
    if (m_lost_in_transaction) {  // the server rolled it back when the connection went
      m_lost_in_transaction = false;
      return {};
    }
    auto done = exec("ROLLBACK");
    if (!done) return tl::unexpected<Error>(done.error());
    return {};
  }

 private:
  // The watch thread shuts a statement's socket down at its deadline; a statement that ends first
  // takes its deadline back. Only the socket is shut, never closed: libpq still owns the descriptor.
  class Deadline {
   public:
    explicit Deadline(PostgresConnection& c) : m_c(c) {
      std::lock_guard lock(c.m_watch_mutex);
      c.m_deadline = Clock::now() + kPostgresStatementDeadline;
      c.m_socket = c.m_conn ? c.m_conn->sock() : -1;
      c.m_expired = false;
      c.m_watch_cv.notify_all();
    }
    ~Deadline() {
      std::lock_guard lock(m_c.m_watch_mutex);
      m_c.m_deadline.reset();
      m_c.m_socket = -1;
    }
    bool expired() {
      std::lock_guard lock(m_c.m_watch_mutex);
      return m_c.m_expired;
    }

   private:
    PostgresConnection& m_c;
  };

  void watch() {
    std::unique_lock lock(m_watch_mutex);
    while (!m_stopping) {
      if (!m_deadline) {
        m_watch_cv.wait(lock);
        continue;
      }
      auto due = *m_deadline;
      if (wait_once_until(m_watch_cv, lock, due) && m_deadline == due && m_socket >= 0) {
        ::shutdown(m_socket, SHUT_RDWR);
        m_expired = true;
        m_deadline.reset();
      }
    }
  }

  // A connection to run a statement on: the one there is, or a new one when the backoff allows.
  Result<void> usable() {
    if (m_lost_in_transaction)
      return errorf(Code::Unavailable,
                    "PostgreSQL: the connection to {} was lost inside a transaction, which the server rolled back; roll back and try again",
                    m_shown);
    if (m_conn) return {};
    auto now = Clock::now();
    if (now < m_next_try)
      return errorf(Code::Unavailable, "PostgreSQL: the database {} cannot be reached ({}); connecting again in {} ms", m_shown, m_last_failure,
                    std::chrono::duration_cast<std::chrono::milliseconds>(m_next_try - now).count());
    if (auto c = connect(); !c) {
      m_backoff = m_backoff.count() == 0 ? std::chrono::milliseconds(100) : std::min(m_backoff * 2, kPostgresReconnectMax);
      m_next_try = Clock::now() + m_backoff;
      m_last_failure = c.error().message;
      return tl::unexpected<Error>(c.error());
    }
    return {};
  }

  Result<void> connect() {
    drop();
    try {
      auto c = std::make_unique<pqxx::connection>(m_url);
      pqxx::nontransaction tx(*c);
      // Notices ("relation … already exists, skipping") would go to stderr; times are UTC so that
      // EXTRACT(EPOCH …) and to_timestamp agree with what SQLite computes.
      tx.exec("SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET bytea_output = 'hex'");
      tx.commit();
      m_conn = std::move(c);
    } catch (const std::exception& e) {
      return connect_error(m_shown, m_secret, e);
    }
    if (m_setup) {
      if (auto set = m_setup(*this); !set) {
        drop();
        return make_error(Code::Unavailable, fmt::format("PostgreSQL: cannot prepare the connection to {}: {}", m_shown, set.error().message));
      }
    }
    m_backoff = std::chrono::milliseconds(0);
    m_next_try = {};
    return {};
  }

  void drop() {
    if (!m_conn) return;
    try {
      m_conn->disconnect();
    } catch (...) {  // closing a connection the server dropped already: nothing to do
    }
    m_conn.reset();
  }

  // bytea's hex format: "\\x" and two hex digits per byte.
  static std::string hex_bytea(std::string_view data) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "\\x";
    out.reserve(2 + data.size() * 2);
    for (unsigned char c : data) {
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
    return out;
  }
  static Bytes from_hex_bytea(std::string_view text) {
    Bytes out;
    if (text.size() < 2 || text.substr(0, 2) != "\\x") return out;
    auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    for (size_t i = 2; i + 1 < text.size(); i += 2) out.data += static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1]));
    return out;
  }

  // Built-in type oids (src/include/catalog/pg_type.dat): bool 16, bytea 17, int8 20, int2 21,
  // int4 23, float4 700, float8 701, numeric 1700. Others come back as text.
  static Value cell(const pqxx::field& f, uint32_t type) {
    if (f.is_null()) return std::monostate{};
    switch (type) {
      case 16: return int64_t{f.c_str()[0] == 't' ? 1 : 0};
      case 17: return from_hex_bytea(std::string_view(f.c_str(), f.size()));
      case 20:
      case 21:
      case 23: return static_cast<int64_t>(std::strtoll(f.c_str(), nullptr, 10));
      case 700:
      case 701:
      case 1700: return std::strtod(f.c_str(), nullptr);
      default: return std::string(f.c_str(), f.size());
    }
  }

  // The connection is given up (opened again by the next statement) when it was lost, when the
  // server is shutting it down (SQLSTATE class 08 and 57P01–57P03), or at the deadline.
  void lost() {
    {  // the watch thread must not shut a descriptor number that closing frees for reuse
      std::lock_guard lock(m_watch_mutex);
      m_deadline.reset();
      m_socket = -1;
    }
    drop();
    if (m_in_transaction) m_lost_in_transaction = true;
    m_in_transaction = false;
  }

  tl::unexpected<Error> failed(const std::exception& e, bool deadline) {
    if (deadline) {
      lost();
      return make_error(Code::Unavailable, fmt::format("PostgreSQL: {} did not answer within {} ms (the server may be stopped or overloaded); "
                                                       "the connection is opened again by the next statement",
                                                       m_shown, kPostgresStatementDeadline.count()));
    }
    if (auto* s = dynamic_cast<const pqxx::sql_error*>(&e)) {
      const std::string& state = s->sqlstate();
      if (state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03") lost();
      return make_error(code_of_sqlstate(state), scrub("PostgreSQL: " + one_line(s->what()), m_secret));
    }
    if (dynamic_cast<const pqxx::broken_connection*>(&e)) {
      lost();
      return make_error(Code::Unavailable, scrub("PostgreSQL: the connection to the server was lost: " + one_line(e.what()), m_secret));
    }
    if (dynamic_cast<const pqxx::in_doubt_error*>(&e)) {
      lost();
      return make_error(Code::Unavailable, scrub("PostgreSQL: the connection was lost while committing: " + one_line(e.what()), m_secret));
    }
    if (m_conn && !m_conn->is_open()) lost();
    if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) return make_error(Code::Aborted, scrub("PostgreSQL: " + one_line(e.what()), m_secret));
    return make_error(Code::Internal, scrub("PostgreSQL: " + one_line(e.what()), m_secret));
  }

  const std::string m_url, m_shown, m_secret;
  const std::function<Result<void>(Connection&)> m_setup;
  std::unique_ptr<pqxx::connection> m_conn;
  bool m_in_transaction = false, m_lost_in_transaction = false;
  std::chrono::milliseconds m_backoff{0};
  Clock::time_point m_next_try{};
  std::string m_last_failure;
  // The deadline of the statement under way, for the watch thread.
  std::mutex m_watch_mutex;
  std::condition_variable m_watch_cv;
  std::optional<Clock::time_point> m_deadline;
  int m_socket = -1;
  bool m_expired = false, m_stopping = false;
  std::thread m_watch;
};

}  // namespace

Result<std::unique_ptr<Connection>> postgres_connection(const std::string& url, std::function<Result<void>(Connection&)> setup) {
  auto c = std::make_unique<PostgresConnection>(url, std::move(setup));
  TRY(c->open());
  return std::unique_ptr<Connection>(std::move(c));
}

}  // namespace ouro::store
