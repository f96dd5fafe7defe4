// JavaScript dialogs (alert, confirm, prompt) on hostile pages: answered at once, dismissed by
// default, so no call waits for one; handleDialog sets how a tab answers the next; each dialog is
// a notice for the session.
#include "browser_env.h"
#include "notice_log.h"

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// A session whose waits are long (30 s): a dialog that held a call up to its deadline shows as
// taking that long; one answered at once takes a small part of it, however loaded the machine.
std::unique_ptr<session::Session> long_waits() {
  return isolated_session([](session::SessionOptions& o) { o.limits.action_timeout = o.limits.exec_timeout = o.limits.load_timeout = std::chrono::seconds(30); });
}

TEST(Dialogs, AnAlertOnLoadBlocksNeitherOpenTabNorNavigateNorExec) {
  auto s = long_waits();
  json r = ok(R"(
    const t0 = Date.now();
    const t = await openTab('{{/dialog/load}}');
    const opened = Date.now() - t0;
    const after = await getText(t, '#after');
    const t1 = Date.now();
    await navigate(t, '{{/dialog/load}}');
    const navigated = Date.now() - t1;
    const t2 = Date.now();
    const sum = await execInTab(t, 'alert("from exec"); 1 + 1');
    const executed = Date.now() - t2;
    ({ opened, navigated, executed, after, sum, log: await getConsoleLog(t, { level: 'dialog' }) }))",
              s.get());
  EXPECT_LT(r["opened"].get<double>(), 10000);
  EXPECT_LT(r["navigated"].get<double>(), 10000);
  EXPECT_LT(r["executed"].get<double>(), 10000);
  EXPECT_EQ(r["after"], "After the alert");
  EXPECT_EQ(r["sum"], 2);
  ASSERT_EQ(r["log"].size(), 3u) << r["log"].dump();
  EXPECT_EQ(r["log"][0]["text"], "alert: hello from load");
  EXPECT_EQ(r["log"][0]["level"], "dialog");
  EXPECT_EQ(r["log"][2]["text"], "alert: from exec");
}

TEST(Dialogs, ClicksWhoseHandlersAlertReturnPromptlyAndThePageGoesOn) {
  auto s = long_waits();
  json r = ok(R"(
    const t = await openTab('{{/dialog/click}}');
    const timed = async (selector) => { const t0 = Date.now(); await click(t, selector); return { ms: Date.now() - t0, out: await getText(t, '#out') }; };
    ({ one: await timed('#alert'), storm: await timed('#storm'), n: (await getConsoleLog(t, { level: 'dialog', limit: 1000 })).length }))",
              s.get());
  EXPECT_LT(r["one"]["ms"].get<double>(), 10000) << "the click must not wait for its 30 s deadline";
  EXPECT_EQ(r["one"]["out"], "after alert");
  // A hundred alerts in a row end too (each is answered as it opens).
  EXPECT_LT(r["storm"]["ms"].get<double>(), 15000);
  EXPECT_EQ(r["storm"]["out"], "storm over");
  EXPECT_EQ(r["n"], 101);
}

TEST(Dialogs, ConfirmIsDismissedByDefaultAndHandleDialogAnswersTheNextOnes) {
  json r = ok(R"(
    const t = await openTab('{{/dialog/click}}');
    const out = async () => getText(t, '#out');
    await click(t, '#confirm');
    const byDefault = await out();
    await handleDialog(t, { accept: true, promptText: '42' });
    await click(t, '#prompt');
    const answered = await out();
    await click(t, '#confirm');
    const onceOnly = await out();
    await handleDialog(t, { once: false });
    await click(t, '#confirm');
    const kept1 = await out();
    await execInTab(t, "document.getElementById('out').textContent = ''");
    await click(t, '#confirm');
    const kept2 = await out();
    await handleDialog(t, { accept: false, once: false });
    await click(t, '#prompt');
    const refused = await out();
    ({ byDefault, answered, onceOnly, kept1, kept2, refused, log: (await getConsoleLog(t, { level: 'dialog' })).map(e => e.text) }))");
  EXPECT_EQ(r["byDefault"], "cancelled");
  EXPECT_EQ(r["answered"], "answer: 42");
  EXPECT_EQ(r["onceOnly"], "cancelled") << "once is the default";
  EXPECT_EQ(r["kept1"], "confirmed");
  EXPECT_EQ(r["kept2"], "confirmed");
  EXPECT_EQ(r["refused"], "answer: null");
  EXPECT_EQ(r["log"][0], "confirm: Proceed?");
  EXPECT_EQ(r["log"][1], "prompt: What is 6*7?");
}

TEST(Dialogs, HandleDialogRejectsWrongShapesWithAClearError) {
  ok("env.dt = await openTab('{{/dialog/click}}')");
  std::string err = fails("await handleDialog(env.dt, { accept: 1 })");
  EXPECT_NE(err.find("handleDialog: options.accept must be a boolean, got number 1"), std::string::npos) << err;
  err = fails("await handleDialog(env.dt, { promptText: 42 })");
  EXPECT_NE(err.find("options.promptText must be a string"), std::string::npos) << err;
  err = fails("await handleDialog(env.dt, { acept: true })");
  EXPECT_NE(err.find("handleDialog: options has no field 'acept' (known: accept, promptText, once)"), std::string::npos) << err;
  err = fails("await handleDialog(env.dt, 'yes')");
  EXPECT_NE(err.find("options"), std::string::npos) << err;
  err = fails("await handleDialog('t999', {})");
  EXPECT_NE(err.find("no tab 't999'"), std::string::npos) << err;
  // Nothing was set: the next confirm is dismissed.
  EXPECT_EQ(ok("await click(env.dt, '#confirm'); await getText(env.dt, '#out')"), "cancelled");
}

TEST(Dialogs, EachDialogIsANoticeForTheSession) {
  auto& b = shared_session().browser();
  NoticeLog notices(b);
  // A context publishes at most 20 notices a second, in windows that start at their first
  // notice: the alert storm of an earlier test can have spent the current one. A second later a
  // new window starts.
  std::this_thread::sleep_for(1100ms);
  ok("env.nt = await openTab('{{/dialog/click}}'); await click(env.nt, '#confirm')");
  auto n = notices.wait("dialog");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->message, "confirm: Proceed? (dismissed)");
  EXPECT_EQ(n->context, "");
  EXPECT_EQ(n->tab, ok("env.nt").get<std::string>());
  EXPECT_EQ(n->url, site().url("/dialog/click"));
  EXPECT_GT(n->timestamp, 1.6e12);
  auto kept = b.notices().latest("");
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back().kind, "dialog");
  EXPECT_EQ(kept.back().to_json()["message"], "confirm: Proceed? (dismissed)");
}

}  // namespace
}  // namespace ouro::testing
