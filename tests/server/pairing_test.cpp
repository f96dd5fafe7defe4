// Pairing ouro's extension (server/pairing.h) and how the API takes a paired credential: codes
// are single use and expire, wrong tries void a code, only the credential's hash is stored, a
// revoked credential is refused and its sockets close, and a credential counts only from its
// own extension's Origin. No browser: the API runs on a runtime with a database only.
#include "api_env.h"
#include "base/clock.h"
#include "postgres_server.h"
#include "raw_client.h"

#include "net/io.h"
#include "server/pairing.h"
#include "session/session.h"
#include "store/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace ouro {
namespace {

using server::Pairings;

const std::string kExt = "abcdefghijklmnopabcdefghijklmnop";
const std::string kOther = "ponmlkjihgfedcbaponmlkjihgfedcba";

struct Fixture {
  std::unique_ptr<store::Database> db = *store::Database::open(":memory:");
  ManualClock clock{1e12};
  std::unique_ptr<Pairings> p = *Pairings::open(*db);
};

TEST(Pairings, CodeIsSingleUseAndCaseInsensitive) {
  Fixture f;
  auto code = f.p->current_code();
  ASSERT_EQ(code.code.size(), 9u);
  EXPECT_EQ(code.code[4], '-');
  std::string typed = code.code;
  for (char& c : typed) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto paired = f.p->pair(typed, "test", kExt);
  ASSERT_TRUE(paired) << paired.error().message;
  std::string credential = (*paired)["credential"];
  EXPECT_EQ(credential.size(), 43u);  // 32 bytes, base64url without padding
  EXPECT_EQ(credential.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), std::string::npos);
  auto again = f.p->pair(code.code, "test", kExt);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Code::Unauthenticated);
  EXPECT_NE(f.p->current_code().code, code.code);  // a new one replaces the used one
}

TEST(Pairings, CodeExpiresAfterTenMinutes) {
  Fixture f;
  auto code = f.p->current_code();
  f.clock.advance(Pairings::kCodeLifetimeMs + 1);
  auto r = f.p->pair(code.code, "test", kExt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unauthenticated);
}

TEST(Pairings, FiveWrongTriesVoidTheCode) {
  Fixture f;
  std::vector<std::string> printed;
  f.p->set_code_listener([&](const Pairings::PairingCode& c) { printed.push_back(c.code); });
  auto code = f.p->current_code();
  for (int i = 1; i < Pairings::kMaxWrongTries; ++i) {
    auto r = f.p->pair("0000-0000", "x", kExt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::Unauthenticated);
  }
  auto last = f.p->pair("0000-0000", "x", kExt);
  ASSERT_FALSE(last);
  EXPECT_EQ(last.error().code, Code::ResourceExhausted);
  ASSERT_EQ(printed.size(), 1u);  // the replacement is printed
  EXPECT_FALSE(f.p->pair(code.code, "x", kExt));  // the old code is void, even when right
  EXPECT_TRUE(f.p->pair(f.p->current_code().code, "x", kExt));
}

TEST(Pairings, StoresOnlyTheCredentialsHash) {
  Fixture f;
  auto paired = *f.p->pair(f.p->current_code().code, "test", kExt);
  std::string credential = paired["credential"];
  std::string stored = *f.db->with_connection([](sqlite3* c) -> Result<std::string> {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(c, "SELECT credential_hash FROM pairings", -1, &s, nullptr);
    std::string out = sqlite3_step(s) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "";
    sqlite3_finalize(s);
    return out;
  });
  EXPECT_EQ(stored, Pairings::hash(credential));
  EXPECT_NE(stored, credential);
  // A fresh instance on the same database knows the credential by its hash.
  auto reopened = *Pairings::open(*f.db);
  auto who = reopened->authenticate(credential);
  ASSERT_TRUE(who);
  EXPECT_EQ(who->extension_id, kExt);
  EXPECT_FALSE(reopened->authenticate(credential.substr(1) + "A"));
}

TEST(Pairings, RevokedCredentialIsRefused) {
  Fixture f;
  std::vector<std::string> revoked;
  f.p->set_revocation_listener([&](const std::string& id) { revoked.push_back(id); });
  auto paired = *f.p->pair(f.p->current_code().code, "test", kExt);
  std::string credential = paired["credential"], id = paired["id"];
  ASSERT_TRUE(f.p->authenticate(credential));
  ASSERT_TRUE(f.p->revoke(id));
  EXPECT_FALSE(f.p->authenticate(credential));
  EXPECT_EQ(revoked, std::vector<std::string>{id});
  EXPECT_EQ(f.p->revoke(id).error().code, Code::NotFound);
}

// On PostgreSQL the pairings are kept and read back the same: a new Pairings over the database
// (another node, or a restart) accepts the credential, and a revocation removes it.
TEST(Pairings, KeptInPostgresLikeInSqlite) {
  if (auto why = testing::engine_unavailable(store::Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
  auto url = testing::fresh_database(store::Engine::Postgres);
  ASSERT_TRUE(url) << url.error().message;
  auto db = store::Database::open(*url);
  ASSERT_TRUE(db) << db.error().message;
  ManualClock clock{1e12};
  auto p = Pairings::open(**db);
  ASSERT_TRUE(p) << p.error().message;
  auto paired = (*p)->pair((*p)->current_code().code, "test", kExt);
  ASSERT_TRUE(paired) << paired.error().message;
  std::string credential = (*paired)["credential"], id = (*paired)["id"];
  EXPECT_EQ(id, "p1");
  ASSERT_TRUE((*p)->authenticate(credential));
  auto listed = (*p)->list();  // writes the last use, then reads
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0]["lastUsed"], 1e12);
  auto other = Pairings::open(**db);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_TRUE((*other)->authenticate(credential));
  ASSERT_TRUE((*p)->revoke(id));
  EXPECT_EQ((*p)->revoke(id).error().code, Code::NotFound);
}

TEST(Pairings, RefusesMalformedExtensionIds) {
  Fixture f;
  EXPECT_EQ(f.p->pair(f.p->current_code().code, "x", "not-an-id").error().code, Code::InvalidArgument);
  EXPECT_EQ(f.p->pair(f.p->current_code().code, "x", std::string(32, 'z')).error().code, Code::InvalidArgument);
}

// The API on a runtime without a browser.
struct ApiFixture {
  std::shared_ptr<session::Runtime> runtime = [] {
    auto r = std::make_shared<session::Runtime>();
    r->io = net::IoThread::start();
    r->db = *store::Database::open(":memory:");
    return r;
  }();
  server::RunManager runs{runtime, server::RunManager::Config{}};
  std::unique_ptr<server::ApiServer> api = [this] {
    server::ApiServer::Options o;
    o.version = "test";
    return std::move(*server::ApiServer::start(*runtime->io, runs, runtime, o));
  }();
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(api->port()) + path; }
  std::string origin(const std::string& id = kExt) const { return "Origin: chrome-extension://" + id; }
  // Pairs as the extension with id `ext` would; returns {id, credential}.
  json pair(const std::string& ext = kExt) {
    auto code = testing::request("GET", url("/api/pair/code"), api->token());
    auto r = testing::request("POST", url("/api/pair"), "", dump_json(json{{"code", code.body["code"]}, {"name", "t"}, {"extensionId", ext}}),
                              {origin(ext)});
    EXPECT_EQ(r.status, 201) << r.raw;
    return r.body;
  }
};

TEST(PairingApi, HelloNeedsNoToken) {
  ApiFixture f;
  auto r = testing::request("GET", f.url("/api/hello"), "", "", {f.origin()});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["service"], "ouro");
  EXPECT_EQ(r.body["version"], "test");
  EXPECT_EQ(r.body["pairing"], true);
  EXPECT_EQ(r.raw.find(f.api->token()), std::string::npos);
}

TEST(PairingApi, CredentialCountsOnlyFromItsExtension) {
  ApiFixture f;
  json p = f.pair();
  std::string credential = p["credential"];
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {f.origin()}).status, 200);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {f.origin(kOther)}).status, 403);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {"Origin: http://127.0.0.1:" + std::to_string(f.api->port())}).status, 403);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {"Origin: https://evil.example"}).status, 403);
  // The page token is not taken from an extension's origin either.
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), f.api->token(), "", {f.origin()}).status, 403);
  auto self = testing::request("GET", f.url("/api/pair/self"), credential, "", {f.origin()});
  EXPECT_EQ(self.status, 200);
  EXPECT_EQ(self.body["id"], p["id"]);
  // An extension cannot read the code nor manage pairings.
  EXPECT_EQ(testing::request("GET", f.url("/api/pair/code"), credential, "", {f.origin()}).status, 403);
  EXPECT_EQ(testing::request("GET", f.url("/api/pairings"), credential, "", {f.origin()}).status, 403);
}

// Chromium sends no Origin on an extension's GET requests: the credential counts without one
// when it comes in the Authorization header (which a web page cannot send cross-origin without a
// preflight), never when it comes in a URL (which any page can make a browser load).
TEST(PairingApi, WithoutAnOriginTheCredentialCountsOnlyInTheAuthorizationHeader) {
  ApiFixture f;
  json p = f.pair();
  std::string credential = p["credential"];
  auto runs = testing::request("GET", f.url("/api/runs"), credential);
  EXPECT_EQ(runs.status, 200) << runs.raw;
  auto self = testing::request("GET", f.url("/api/pair/self"), credential);
  EXPECT_EQ(self.status, 200) << self.raw;
  EXPECT_EQ(self.body["id"], p["id"]);
  // In the URL: refused without its extension's Origin, taken with it.
  auto page = testing::request("GET", f.url("/?token=" + credential), "");
  EXPECT_EQ(page.status, 403) << page.raw;
  EXPECT_NE(page.raw.find("accepted only from the extension it was paired with"), std::string::npos) << page.raw;
  testing::RawClient bare(f.api->port());
  EXPECT_EQ(bare.upgrade("/api/events?run=all&token=" + credential, "").status, 403);
  testing::RawClient from_extension(f.api->port());
  EXPECT_EQ(from_extension.upgrade("/api/events?run=all&token=" + credential, f.origin() + "\r\n").status, 101);
  // A foreign Origin is refused whichever way the credential comes, and the paired one is taken.
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {"Origin: https://evil.example"}).status, 403);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {f.origin(kOther)}).status, 403);
  testing::RawClient foreign(f.api->port());
  EXPECT_EQ(foreign.upgrade("/api/events?run=all&token=" + credential, "Origin: https://evil.example\r\n").status, 403);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {f.origin()}).status, 200);
  // A Bearer value that is no credential at all is still nobody's.
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential + "x").status, 401);
  // The bridge takes its credential in a subprotocol, not the header: it still needs the Origin.
  testing::RawClient bridge(f.api->port());
  EXPECT_NE(bridge.upgrade("/api/bridge", "Sec-WebSocket-Protocol: ouro-bridge.1, ouro-credential." + credential + "\r\n").status, 101);
}

TEST(PairingApi, PairRefusesAForeignOriginOrAnotherExtensionsId) {
  ApiFixture f;
  auto code = testing::request("GET", f.url("/api/pair/code"), f.api->token()).body["code"];
  json body = {{"code", code}, {"name", "t"}, {"extensionId", kExt}};
  EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body), {"Origin: https://evil.example"}).status, 403);
  EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body)).status, 403);
  EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body), {f.origin(kOther)}).status, 403);
  EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body), {f.origin()}).status, 201);
}

TEST(PairingApi, WrongCodesAreLimited) {
  ApiFixture f;
  json body = {{"code", "0000-0000"}, {"name", "t"}, {"extensionId", kExt}};
  for (int i = 1; i < Pairings::kMaxWrongTries; ++i)
    EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body), {f.origin()}).status, 401);
  EXPECT_EQ(testing::request("POST", f.url("/api/pair"), "", dump_json(body), {f.origin()}).status, 429);
}

TEST(PairingApi, RevokingClosesItsSocketsAndRefusesItsCredential) {
  ApiFixture f;
  json p = f.pair();
  std::string credential = p["credential"];
  auto list = testing::request("GET", f.url("/api/pairings"), f.api->token());
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.body.size(), 1u);
  EXPECT_EQ(list.body[0]["origin"], "chrome-extension://" + kExt);
  EXPECT_EQ(list.raw.find(credential), std::string::npos);
  testing::RawClient events(f.api->port());
  auto up = events.upgrade("/api/events?run=all&token=" + credential, "Origin: chrome-extension://" + kExt + "\r\n");
  ASSERT_EQ(up.status, 101);
  EXPECT_EQ(testing::request("DELETE", f.url("/api/pairings/" + p["id"].get<std::string>()), f.api->token()).status, 200);
  auto closing = events.read_message(std::chrono::seconds(5));
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->opcode, 8);
  EXPECT_EQ(closing->close_code(), 4001);
  EXPECT_EQ(testing::request("GET", f.url("/api/runs"), credential, "", {f.origin()}).status, 401);
  EXPECT_EQ(testing::request("GET", f.url("/api/pair/self"), credential, "", {f.origin()}).status, 401);
}

}  // namespace
}  // namespace ouro
