// The PostgreSQL engine of the neutral SQL layer (store/sql.h), over libpqxx 6
// (https://libpqxx.readthedocs.io/en/6.4/). libpqxx reports failures by throwing; every throw
// stops in this file and becomes a Result error whose code says what kind of failure it was, by
// SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html), never by message text.
#include "store/sql.h"

#include <pqxx/pqxx>

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

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(std::unique_ptr<pqxx::connection> c, std::string secret) : m_conn(std::move(c)), m_secret(std::move(secret)) {}
  ~PostgresConnection() override {
    try {
      m_conn->disconnect();
    } catch (...) {  // closing a connection the server dropped already: nothing to do
    }
  }
  using Connection::exec;
  Engine engine() const override { return Engine::Postgres; }

  Result<Rows> exec(std::string_view sql, std::span<const Param> params) override {
    std::string query = to_postgres_parameters(sql);
    // Parameters go as text (the server converts them to the column's type); NULL as a null pointer.
    std::vector<std::string> texts(params.size());
    std::vector<const char*> args(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const Value& v = params[i].value;
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (auto* n = std::get_if<int64_t>(&v)) texts[i] = std::to_string(*n);
      else if (auto* d = std::get_if<double>(&v)) texts[i] = fmt::format("{}", *d);
      else texts[i] = std::get<std::string>(v);
      args[i] = texts[i].c_str();
    }
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
      return failed(e);
    }
  }

  Result<void> exec_script(std::string_view sql) override {
    try {
      pqxx::nontransaction tx(*m_conn);
      tx.exec(std::string(sql));
      return {};
    } catch (const std::exception& e) {
      return failed(e);
    }
  }

  Result<void> begin() override {
    TRY(exec("BEGIN"));
    return {};
  }

 private:
  // Built-in type oids (src/include/catalog/pg_type.dat): bool 16, int8 20, int2 21, int4 23,
  // float4 700, float8 701, numeric 1700. Others come back as text.
  static Value cell(const pqxx::field& f, uint32_t type) {
    if (f.is_null()) return std::monostate{};
    switch (type) {
      case 16: return int64_t{f.c_str()[0] == 't' ? 1 : 0};
      case 20:
      case 21:
      case 23: return static_cast<int64_t>(std::strtoll(f.c_str(), nullptr, 10));
      case 700:
      case 701:
      case 1700: return std::strtod(f.c_str(), nullptr);
      default: return std::string(f.c_str(), f.size());
    }
  }

  tl::unexpected<Error> failed(const std::exception& e) {
    if (auto* s = dynamic_cast<const pqxx::sql_error*>(&e))
      return make_error(code_of_sqlstate(s->sqlstate()), scrub("PostgreSQL: " + one_line(s->what()), m_secret));
    if (dynamic_cast<const pqxx::broken_connection*>(&e))
      return make_error(Code::Unavailable, scrub("PostgreSQL: the connection to the server was lost: " + one_line(e.what()), m_secret));
    if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) return make_error(Code::Aborted, scrub("PostgreSQL: " + one_line(e.what()), m_secret));
    return make_error(Code::Internal, scrub("PostgreSQL: " + one_line(e.what()), m_secret));
  }

  std::unique_ptr<pqxx::connection> m_conn;
  std::string m_secret;
};

}  // namespace

Result<std::unique_ptr<Connection>> postgres_connection(const std::string& url) {
  std::string secret = password_of(url);
  std::string shown = redact_database_url(url);
  std::unique_ptr<pqxx::connection> c;
  try {
    c = std::make_unique<pqxx::connection>(url);
    pqxx::nontransaction tx(*c);
    // Notices ("relation … already exists, skipping") would go to stderr; times are UTC so that
    // EXTRACT(EPOCH …) and to_timestamp agree with what SQLite computes.
    tx.exec("SET client_min_messages = warning; SET TIME ZONE 'UTC'");
  } catch (const std::exception& e) {
    return make_error(Code::Unavailable,
                      scrub(fmt::format("cannot connect to the PostgreSQL database {}: {} (check that the server runs and the URL, user and "
                                        "password are right; the password may come from PGPASSWORD or ~/.pgpass)",
                                        shown, one_line(e.what())),
                            secret));
  }
  return std::unique_ptr<Connection>(std::make_unique<PostgresConnection>(std::move(c), std::move(secret)));
}

}  // namespace ouro::store
