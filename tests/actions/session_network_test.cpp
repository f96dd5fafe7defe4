// Cookies, storage, network and console introspection, and the persistent store.
#include "browser_env.h"

#include "store/database.h"

namespace ouro::testing {
namespace {

TEST(Cookies, ReadSetAndFilter) {
  json r = ok(R"(
    const t = await openTab('{{/cookies}}');
    const mine = await getCookies(t);
    await setCookie({ name: 'lang', value: 'fr', url: '{{/}}' });
    const lang = await getCookies(t, { name: 'lang' });
    const all = await getCookies();
    ({ mine, lang, allHasLang: all.some(c => c.name === 'lang') }))");
  bool session = false, theme = false;
  for (const auto& c : r["mine"]) {
    // HttpOnly: listed, its value kept from the model.
    if (c["name"] == "session") session = c["httpOnly"] == true && c["value"] == "[REDACTED: HttpOnly]";
    if (c["name"] == "theme") theme = c["value"] == "dark";
  }
  EXPECT_TRUE(session) << r["mine"].dump();
  EXPECT_TRUE(theme);
  ASSERT_EQ(r["lang"].size(), 1u);
  EXPECT_EQ(r["lang"][0]["value"], "fr");
  EXPECT_EQ(r["lang"][0]["domain"], "127.0.0.1");
  EXPECT_EQ(r["allHasLang"], true);
}

TEST(Storage, LocalAndSessionStorageReadAndClear) {
  json r = ok(R"(
    const t = await openTab('{{/cookies}}');
    const local = await getLocalStorage(t);
    const user = await getLocalStorage(t, 'user');
    const sess = await getSessionStorage(t);
    const cleared = await clearStorage(t, 'local');
    ({ local, user, sess, cleared, after: await getLocalStorage(t), sessAfter: await getSessionStorage(t, 'step') }))");
  EXPECT_EQ(r["local"]["cart"], "[1,2]");
  EXPECT_EQ(r["user"], "ada");
  EXPECT_EQ(r["sess"]["step"], "3");
  EXPECT_EQ(r["after"], json::object());
  EXPECT_EQ(r["sessAfter"], "3") << "clearing local leaves session storage";
  json c = ok(R"(
    const t = await openTab('{{/cookies}}');
    await clearStorage(t, 'cookies');
    (await getCookies(t)).length)");
  EXPECT_EQ(c, 0);
}

TEST(Network, RecentRequestsAndResponseBodies) {
  json r = ok(R"(
    const t = await openTab('{{/xhr}}');
    // Requests are listed as soon as they start (status 0); wait until both have finished.
    const done = rs => rs.length >= 2 && rs.every(r => r.finished);
    for (let i = 0; i < 50 && !done(await getRecentRequests(t)); i++) await sleep(50);
    const reqs = await getRecentRequests(t);
    const everything = await getRecentRequests(t, { type: 'all' });
    const post = reqs.find(q => q.method === 'POST');
    const items = (await getRecentRequests(t, { url: '*/api/items*' }))[0];
    ({ reqs, docs: everything.filter(q => q.type === 'Document').length, post, echoed: await getResponseBody(post.requestId),
       items, body: JSON.parse(await getResponseBody(items.requestId)) }))");
  EXPECT_EQ(r["reqs"].size(), 2u) << "XHR and Fetch only by default: " << r["reqs"].dump();
  EXPECT_EQ(r["docs"], 1);
  EXPECT_EQ(r["post"]["url"], site().url("/api/echo"));
  EXPECT_EQ(r["post"]["status"], 200);
  EXPECT_EQ(r["post"]["type"], "XHR");
  EXPECT_EQ(r["echoed"], "{\"hello\":\"world\"}");
  EXPECT_EQ(r["items"]["type"], "Fetch");
  EXPECT_EQ(r["body"]["items"][2]["name"], "gamma");
  std::string err = fails("await getResponseBody('no-such-id')");
  EXPECT_NE(err.find("no recent request with id 'no-such-id'"), std::string::npos) << err;
}

TEST(Network, InterceptRequestsObservesMatchingTraffic) {
  json r = ok(R"(
    const t = await openTab('{{/xhr}}');
    env.seen = [];
    const id = await interceptRequests(t, '*page=2*', req => env.seen.push(req.url + ' ' + req.status));
    await click(t, '#load');
    for (let i = 0; i < 50 && env.seen.length === 0; i++) await sleep(50);
    await interceptRequests(t, '*page=2*', null);
    ({ id, seen: env.seen, result: await getText(t, '#result') }))");
  EXPECT_TRUE(r["id"].is_string());
  ASSERT_EQ(r["seen"].size(), 1u) << r.dump();
  EXPECT_EQ(r["seen"][0], site().url("/api/items?page=2") + " 200");
  EXPECT_EQ(r["result"], "3");
}

TEST(Network, ModificationIsOffUnlessEnabled) {
  auto r = eval(R"(
    const t = await openTab('{{/xhr}}');
    await interceptRequests(t, '*page=2*', req => ({ block: true }));
    await click(t, '#load');
    for (let i = 0; i < 50 && (await getText(t, '#result')) === ''; i++) await sleep(50);
    await interceptRequests(t, '*page=2*', null);
    await getText(t, '#result'))");
  ASSERT_TRUE(r.ok) << r.error_message;
  EXPECT_EQ(r.value, "3") << "observe-only: the request went through";
  bool warned = false;
  for (const auto& l : r.logs) warned |= l.find("modifying requests is off") != std::string::npos;
  EXPECT_TRUE(warned) << "the user is told why the block did not happen";
}

TEST(Network, WhenEnabledHandlersBlockRewriteAndAnswerRequests) {
  auto opts = test_options();
  opts.limits.allow_request_modification = true;
  auto s = session::Session::start(opts);
  ASSERT_TRUE(s) << s.error().message;
  json r = ok(R"JS(
    const t = await openTab('{{/xhr}}');
    env.seen = [];
    await interceptRequests(t, '*page=2*', req => { env.seen.push(req.method + ' ' + req.url); return { respond: { status: 200, body: '{"items":[1]}', headers: { 'content-type': 'application/json' } } }; });
    await click(t, '#load');
    for (let i = 0; i < 50 && (await getText(t, '#result')) === ''; i++) await sleep(50);
    const answered = await getText(t, '#result');
    await interceptRequests(t, '*page=2*', null);
    await interceptRequests(t, '*page=2*', req => ({ block: true }));
    const blocked = await execInTab(t, "fetch('/api/items?page=2').then(() => 'went through', e => 'blocked: ' + e.name)");
    await interceptRequests(t, '*page=2*', null);
    await interceptRequests(t, '/api/items', req => ({ url: req.url.replace('page=7', 'page=9') }));
    const rewritten = await execInTab(t, "fetch('/api/items?page=7').then(r => r.json()).then(d => d.page)");
    ({ seen: env.seen, answered, blocked, rewritten }))JS", s->get());
  EXPECT_EQ(r["seen"][0], "GET " + site().url("/api/items?page=2"));
  EXPECT_EQ(r["answered"], "1") << "the page got our response";
  EXPECT_EQ(r["blocked"], "blocked: TypeError");
  EXPECT_EQ(r["rewritten"], 9);
}

TEST(Console, MessagesAndUncaughtErrors) {
  json r = ok(R"(
    const t = await openTab('{{/console}}');
    // The page's own error (thrown from a timer), then the click's: each waited for as it comes.
    for (let i = 0; i < 200 && (await getErrors(t)).length < 1; i++) await sleep(50);
    await click(t, '#err');
    for (let i = 0; i < 200 && (await getErrors(t)).length < 2; i++) await sleep(50);
    ({ log: await getConsoleLog(t), errorsOnly: await getConsoleLog(t, { level: 'error' }), errors: await getErrors(t) }))");
  std::string log = r["log"].dump();
  EXPECT_NE(log.find(R"("level":"log","text":"hello from the page 42")"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("level":"warn","text":"careful")"), std::string::npos) << log;
  for (const auto& e : r["errorsOnly"]) EXPECT_EQ(e["level"], "error");
  ASSERT_EQ(r["errors"].size(), 2u) << r["errors"].dump();
  EXPECT_NE(r["errors"][0]["message"].get<std::string>().find("TypeError"), std::string::npos);
  EXPECT_EQ(r["errors"][1]["message"], "Error: clicked error");
}

TEST(Store, PersistsAcrossRunsInSqlite) {
  json r = ok("await store('prefs', { currency: 'EUR', n: 3 }); ({ back: await retrieve('prefs'), missing: await retrieve('nope') })");
  EXPECT_EQ(r["back"]["currency"], "EUR");
  EXPECT_TRUE(r["missing"].is_null());
  // A second session on the same database sees it: the store outlives the run.
  auto opts = test_options();
  opts.db_path = shared_session().db().path();
  auto other = session::Session::start(opts);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(ok("await retrieve('prefs')", other->get())["n"], 3);
}

TEST(Utilities, SleepIsCappedAtTenSeconds) {
  json r = ok("const t0 = Date.now(); await sleep(60000); Date.now() - t0");
  EXPECT_GE(r.get<double>(), 9900);
  EXPECT_LT(r.get<double>(), 11500);
}

TEST(Utilities, LogReachesTheHostAsItHappens) {
  auto r = eval("log('first', { n: 1 }); console.warn('second'); 1");
  ASSERT_EQ(r.logs.size(), 2u);
  EXPECT_EQ(r.logs[0], "first {\"n\":1}");
  EXPECT_EQ(r.logs[1], "[warn] second");
}

}  // namespace
}  // namespace ouro::testing
