// The tab tracker from CDP messages recorded from headless Chromium driven by ouro (long header
// maps and unused fields trimmed): attach, navigate, dialogs, popups with an openerId, close and
// crash. No browser runs here; the tracker is fed the events and its decisions are checked.
#include "browser/tab_tracker.h"

#include <gtest/gtest.h>

namespace ouro::browser {
namespace {

cdp::Event event(std::string_view raw) {
  json msg = json::parse(raw);
  return cdp::Event{msg["method"], msg.value("params", json::object()), msg.value("sessionId", "")};
}

TrackerActions feed(TabTracker& t, std::initializer_list<std::string_view> raws, double now = 1.7e12) {
  TrackerActions all;
  for (auto raw : raws) all.merge(t.handle(event(raw), now));
  return all;
}

bool has_command(const TrackerActions& a, const std::string& method) {
  return std::any_of(a.commands.begin(), a.commands.end(), [&](const auto& c) { return c.method == method; });
}

// The first tab of a launched browser, then a navigation to a page that calls alert() while it
// parses (/dialog/load).
constexpr std::string_view kFirstTab =
    R"({"method":"Target.attachedToTarget","params":{"sessionId":"902FCE1EF29E7F20A75985CE9923CA03","targetInfo":{"targetId":"37EE7920DF39646E55E6CC6A6BBAE09C","type":"page","title":"","url":"about:blank","attached":true,"canAccessOpener":false,"browserContextId":"E6E11D66AE8DD7FADD033B0509EA910A"},"waitingForDebugger":false}})";
constexpr std::string_view kBrowserUi =
    R"({"method":"Target.attachedToTarget","params":{"sessionId":"1CE02F46473D3ACC1FA5EB0DAED4C57F","targetInfo":{"targetId":"3CD62609CD85C13AF75291703416440D","type":"browser_ui","title":"","url":"chrome://omnibox-popup.top-chrome/omnibox_popup_aim.html","attached":true,"canAccessOpener":false,"browserContextId":"E6E11D66AE8DD7FADD033B0509EA910A"},"waitingForDebugger":false}})";

TEST(TabTracker, AttachesConfiguresAndFollowsANavigationWithADialog) {
  TabTracker t;
  auto a = feed(t, {kFirstTab});
  ASSERT_TRUE(a.configure);
  EXPECT_EQ(*a.configure, "t1");
  EXPECT_EQ(t.active(""), "t1");
  EXPECT_EQ(t.default_context(), "E6E11D66AE8DD7FADD033B0509EA910A");
  auto tab = t.find("t1");
  ASSERT_TRUE(tab);
  EXPECT_FALSE(tab->ready) << "not listed until configured";
  // Other target types are let go.
  auto ui = feed(t, {kBrowserUi});
  EXPECT_FALSE(ui.configure);
  EXPECT_EQ(ui.release, std::vector<std::string>{"1CE02F46473D3ACC1FA5EB0DAED4C57F"}) << "run, then detached";
  EXPECT_FALSE(has_command(ui, "Target.detachFromTarget")) << "not sent beside the run: a worker detached before it runs never starts";
  EXPECT_EQ(t.all().size(), 1u);

  auto read = t.document_state("t1", "complete");
  ASSERT_EQ(read.read_title.size(), 1u);
  EXPECT_EQ(read.read_title[0].command.method, "Runtime.evaluate");
  EXPECT_EQ(read.read_title[0].command.session_id, "902FCE1EF29E7F20A75985CE9923CA03");
  EXPECT_TRUE(t.configured("t1").tabs_changed);
  EXPECT_TRUE(tab->ready);
  EXPECT_EQ(tab->status, "loaded");
  t.title_read("t1", json{{"title", "about:blank"}});
  EXPECT_EQ(tab->title_pending, 0);

  auto nav = feed(t, {
      R"({"method":"Page.frameStartedLoading","params":{"frameId":"37EE7920DF39646E55E6CC6A6BBAE09C"},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Network.requestWillBeSent","params":{"requestId":"498049CF972DB93F6F3D23C7DEE8D5DC","loaderId":"498049CF972DB93F6F3D23C7DEE8D5DC","documentURL":"http://127.0.0.1:37335/dialog/load","request":{"url":"http://127.0.0.1:37335/dialog/load","method":"GET","headers":{"Upgrade-Insecure-Requests":"1"},"mixedContentType":"none","initialPriority":"VeryHigh","referrerPolicy":"strict-origin-when-cross-origin","isSameSite":true},"timestamp":2286.05,"wallTime":1795459333.8,"initiator":{"type":"other"},"redirectHasExtraInfo":false,"type":"Document","frameId":"37EE7920DF39646E55E6CC6A6BBAE09C","hasUserGesture":false},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Network.responseReceived","params":{"requestId":"498049CF972DB93F6F3D23C7DEE8D5DC","loaderId":"498049CF972DB93F6F3D23C7DEE8D5DC","timestamp":2286.061406,"type":"Document","response":{"url":"http://127.0.0.1:37335/dialog/load","status":200,"statusText":"OK","headers":{"Content-Length":"176","Content-Type":"text/html; charset=utf-8"},"mimeType":"text/html","charset":"utf-8"},"hasExtraInfo":true,"frameId":"37EE7920DF39646E55E6CC6A6BBAE09C"},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Runtime.executionContextsCleared","params":{},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Page.frameNavigated","params":{"frame":{"id":"37EE7920DF39646E55E6CC6A6BBAE09C","loaderId":"498049CF972DB93F6F3D23C7DEE8D5DC","url":"http://127.0.0.1:37335/dialog/load","domainAndRegistry":"","securityOrigin":"http://127.0.0.1:37335","securityOriginDetails":{"isLocalhost":true},"mimeType":"text/html","adFrameStatus":{"adFrameType":"none"},"secureContextType":"SecureLocalhost","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]},"type":"Navigation"},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Runtime.executionContextCreated","params":{"context":{"id":3,"origin":"http://127.0.0.1:37335","name":"","uniqueId":"7757386155420504852.8068981689259034472","auxData":{"isDefault":true,"type":"default","frameId":"37EE7920DF39646E55E6CC6A6BBAE09C"}}},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Runtime.executionContextCreated","params":{"context":{"id":4,"origin":"http://127.0.0.1:37335","name":"__ouro","uniqueId":"4257851972362818167.8993242808681021090","auxData":{"isDefault":false,"type":"isolated","frameId":"37EE7920DF39646E55E6CC6A6BBAE09C"}}},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
  });
  EXPECT_TRUE(nav.tabs_changed);
  EXPECT_EQ(tab->url, "http://127.0.0.1:37335/dialog/load");
  EXPECT_EQ(tab->status, "loading");
  EXPECT_EQ(tab->isolated_ctx, 4);
  ASSERT_EQ(tab->log.requests().size(), 1u);
  EXPECT_EQ(tab->log.requests()[0].status, 200);

  auto dialog = feed(t, {R"({"method":"Page.javascriptDialogOpening","params":{"url":"http://127.0.0.1:37335/dialog/load","frameId":"37EE7920DF39646E55E6CC6A6BBAE09C","message":"hello from load","type":"alert","hasBrowserHandler":true,"defaultPrompt":""},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})"},
                     1.8e12);
  ASSERT_EQ(dialog.commands.size(), 1u);
  EXPECT_EQ(dialog.commands[0].method, "Page.handleJavaScriptDialog");
  EXPECT_EQ(dialog.commands[0].params, json({{"accept", false}}));
  EXPECT_EQ(dialog.commands[0].session_id, "902FCE1EF29E7F20A75985CE9923CA03");
  ASSERT_EQ(dialog.notices.size(), 1u);
  EXPECT_EQ(dialog.notices[0].kind, "dialog");
  EXPECT_EQ(dialog.notices[0].tab, "t1");
  EXPECT_EQ(dialog.notices[0].message, "alert: hello from load (dismissed)");
  EXPECT_EQ(dialog.notices[0].timestamp, 1.8e12);
  ASSERT_EQ(tab->log.console().size(), 1u);
  EXPECT_EQ(tab->log.console()[0].level, "dialog");
  EXPECT_EQ(tab->log.console()[0].text, "alert: hello from load");

  auto loaded = feed(t, {
      R"({"method":"Page.javascriptDialogClosed","params":{"frameId":"37EE7920DF39646E55E6CC6A6BBAE09C","result":false,"userInput":""},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Network.loadingFinished","params":{"requestId":"498049CF972DB93F6F3D23C7DEE8D5DC","timestamp":2286.067359,"encodedDataLength":256},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Runtime.bindingCalled","params":{"name":"__ouroNotify","payload":"{\"title\":\"Alert on load\",\"favicon\":\"http://127.0.0.1:37335/favicon.ico\"}","executionContextId":4},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Page.domContentEventFired","params":{"timestamp":2286.124671},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Page.loadEventFired","params":{"timestamp":2286.126461},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
      R"({"method":"Page.frameStoppedLoading","params":{"frameId":"37EE7920DF39646E55E6CC6A6BBAE09C"},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})",
  });
  ASSERT_TRUE(loaded.finished_request) << "request observers hear of it";
  EXPECT_EQ(loaded.finished_request->size, 256);
  EXPECT_TRUE(loaded.read_title.empty()) << "the helpers reported this document's title";
  EXPECT_EQ(tab->status, "loaded");
  EXPECT_EQ(tab->loaded_loader_id, "498049CF972DB93F6F3D23C7DEE8D5DC");
  EXPECT_EQ(tab->info().title, "Alert on load");
  EXPECT_EQ(tab->favicon, "http://127.0.0.1:37335/favicon.ico");
  EXPECT_EQ(tab->info().seen_at, 0) << "it did not say it was in view";
  // The user turns to the tab: its page says so, and the time is kept (the tab a run in the
  // user's browser is handed is the one they looked at last).
  feed(t, {R"({"method":"Runtime.bindingCalled","params":{"name":"__ouroNotify","payload":"{\"title\":\"Alert on load\",\"visible\":true}","executionContextId":4},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})"},
       1.8e12);
  EXPECT_EQ(tab->info().seen_at, 1.8e12);
  // A title change while it stays in view is not another turn to it.
  auto report = [&](const char* title, bool visible, double at) {
    std::string payload = std::string(R"({\"title\":\")") + title + R"(\",\"visible\":)" + (visible ? "true" : "false") + "}";
    feed(t, {R"({"method":"Runtime.bindingCalled","params":{"name":"__ouroNotify","payload":")" + payload +
                 R"(","executionContextId":4},"sessionId":"902FCE1EF29E7F20A75985CE9923CA03"})"},
         at);
  };
  report("(1) Alert on load", true, 1.81e12);
  EXPECT_EQ(tab->info().seen_at, 1.8e12);
  // The person turns away and back: that counts.
  report("(1) Alert on load", false, 1.82e12);
  report("(1) Alert on load", true, 1.83e12);
  EXPECT_EQ(tab->info().seen_at, 1.83e12);
  // Ouro brings it to the front itself (switchTab, or the tab in front closed): not the person's turn.
  report("(1) Alert on load", false, 1.84e12);
  t.bring_into_view(tab->context, 1.85e12);
  report("(1) Alert on load", true, 1.85e12 + 200);
  EXPECT_EQ(tab->info().seen_at, 1.83e12);
  // Later, the person's own turn to it counts again.
  report("(1) Alert on load", false, 1.86e12);
  report("(1) Alert on load", true, 1.87e12);
  EXPECT_EQ(tab->info().seen_at, 1.87e12);
}

// /popup: its button opens /b with window.open; the popup attaches with the opener's target id.
constexpr std::string_view kOpener =
    R"({"method":"Target.attachedToTarget","params":{"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F","targetInfo":{"targetId":"B38AE327B1655EE071A2396F98FFD37D","type":"page","title":"","url":"about:blank","attached":true,"canAccessOpener":false,"browserContextId":"B89E42051E69EEEF71FAD7DED05D3756"},"waitingForDebugger":true}})";
constexpr std::string_view kPopup =
    R"({"method":"Target.attachedToTarget","params":{"sessionId":"2E7317491B5CF8995572DA9587B99812","targetInfo":{"targetId":"99D01C1D73FA4439EAB67ECBC5DCCB94","type":"page","title":"","url":"","attached":true,"openerId":"B38AE327B1655EE071A2396F98FFD37D","canAccessOpener":true,"openerFrameId":"B38AE327B1655EE071A2396F98FFD37D","browserContextId":"B89E42051E69EEEF71FAD7DED05D3756"},"waitingForDebugger":true}})";

// The recorded popup attach, renumbered: popup n of the opener, in a context.
std::string popup(int n, const std::string& context = "B89E42051E69EEEF71FAD7DED05D3756", const std::string& opener = "B38AE327B1655EE071A2396F98FFD37D") {
  json msg = json::parse(kPopup);
  msg["params"]["sessionId"] = "S-popup-" + context + "-" + std::to_string(n);
  msg["params"]["targetInfo"]["targetId"] = "T-popup-" + context + "-" + std::to_string(n);
  msg["params"]["targetInfo"]["openerId"] = opener;
  msg["params"]["targetInfo"]["browserContextId"] = context;
  return msg.dump();
}

TEST(TabTracker, APopupIsATabWithItsOpenerAndTakesTheFocusUntilClosed) {
  TabTracker t;
  feed(t, {kOpener});
  auto a = feed(t, {kPopup});
  ASSERT_TRUE(a.configure);
  EXPECT_EQ(*a.configure, "t2");
  EXPECT_EQ(t.find("t2")->opener, "B38AE327B1655EE071A2396F98FFD37D");
  EXPECT_EQ(t.active(""), "t2") << "a popup takes the focus";
  feed(t, {R"({"method":"Page.frameNavigated","params":{"frame":{"id":"99D01C1D73FA4439EAB67ECBC5DCCB94","loaderId":"756F6F678DD6B416C484CEB50A0AF207","url":"http://127.0.0.1:43723/b","securityOrigin":"http://127.0.0.1:43723","mimeType":"text/html"},"type":"Navigation"},"sessionId":"2E7317491B5CF8995572DA9587B99812"})",
           R"({"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"99D01C1D73FA4439EAB67ECBC5DCCB94","type":"page","title":"127.0.0.1:43723/b","url":"http://127.0.0.1:43723/b","attached":true,"openerId":"B38AE327B1655EE071A2396F98FFD37D","canAccessOpener":true,"openerFrameId":"B38AE327B1655EE071A2396F98FFD37D","browserContextId":"B89E42051E69EEEF71FAD7DED05D3756"}}})"});
  EXPECT_EQ(t.find("t2")->url, "http://127.0.0.1:43723/b");

  auto closed = feed(t, {R"({"method":"Target.detachedFromTarget","params":{"sessionId":"2E7317491B5CF8995572DA9587B99812","targetId":"99D01C1D73FA4439EAB67ECBC5DCCB94"}})",
                         R"({"method":"Target.targetDestroyed","params":{"targetId":"99D01C1D73FA4439EAB67ECBC5DCCB94"}})"});
  EXPECT_TRUE(closed.tabs_changed);
  ASSERT_EQ(closed.fail_sessions.size(), 1u);
  EXPECT_EQ(closed.fail_sessions[0].first, "2E7317491B5CF8995572DA9587B99812");
  EXPECT_EQ(closed.fail_sessions[0].second.message, "tab t2 was closed");
  EXPECT_FALSE(t.find("t2"));
  EXPECT_EQ(t.active(""), "t1") << "the opener takes the focus back";
  // Events of the closed tab's session are ignored.
  auto late = feed(t, {R"({"method":"Page.loadEventFired","params":{"timestamp":2301.2},"sessionId":"2E7317491B5CF8995572DA9587B99812"})"});
  EXPECT_FALSE(late.tabs_changed);
}

TEST(TabTracker, PopupsBeyondTheCapAreClosedReportedAndDoNotTakeTheFocus) {
  TabTracker t;
  feed(t, {kOpener});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(feed(t, {popup(i)}).configure) << i;
  EXPECT_EQ(t.active(""), "t21");
  // The opener asks for the window first; the popup attaches without a URL.
  feed(t, {R"({"method":"Page.windowOpen","params":{"url":"http://127.0.0.1:44317/b?popup=0","windowName":"_blank","windowFeatures":["menubar","toolbar","status","scrollbars","resizable"],"userGesture":true},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})"});
  auto over = feed(t, {popup(20)}, 1.9e12);
  EXPECT_FALSE(over.configure);
  ASSERT_EQ(over.commands.size(), 2u);
  EXPECT_EQ(over.commands[0].method, "Runtime.runIfWaitingForDebugger") << "its opener waits until it runs";
  EXPECT_EQ(over.commands[0].session_id, "S-popup-B89E42051E69EEEF71FAD7DED05D3756-20");
  EXPECT_EQ(over.commands[1].method, "Target.closeTarget");
  EXPECT_EQ(over.commands[1].params["targetId"], "T-popup-B89E42051E69EEEF71FAD7DED05D3756-20");
  ASSERT_EQ(over.notices.size(), 1u);
  EXPECT_EQ(over.notices[0].kind, "popup-closed");
  EXPECT_EQ(over.notices[0].tab, "t1") << "named after its opener";
  EXPECT_EQ(over.notices[0].url, "http://127.0.0.1:44317/b?popup=0");
  EXPECT_EQ(over.notices[0].context, "");
  EXPECT_EQ(t.active(""), "t21");
  EXPECT_EQ(t.all().size(), 21u);
  // Tabs ouro opens itself (no opener) are not popups.
  auto own = feed(t, {R"({"method":"Target.attachedToTarget","params":{"sessionId":"S-own","targetInfo":{"targetId":"T-own","type":"page","title":"","url":"about:blank","attached":true,"canAccessOpener":false,"browserContextId":"B89E42051E69EEEF71FAD7DED05D3756"},"waitingForDebugger":true}})"});
  EXPECT_TRUE(own.configure);
  // Another context has a cap of its own.
  EXPECT_TRUE(feed(t, {popup(0, "OTHER-CONTEXT", "T-own")}).configure);
  // A popup closing makes room for one more.
  feed(t, {R"({"method":"Target.targetDestroyed","params":{"targetId":"T-popup-B89E42051E69EEEF71FAD7DED05D3756-3"}})"});
  EXPECT_TRUE(feed(t, {popup(21)}).configure);
  EXPECT_FALSE(feed(t, {popup(22)}).configure);
}

TEST(TabTracker, ACrashFailsTheTabsCommandsOnce) {
  TabTracker t;
  feed(t, {kOpener});
  auto crash = feed(t, {R"({"method":"Inspector.targetCrashed","params":{},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
                        R"({"method":"Target.targetCrashed","params":{"targetId":"B38AE327B1655EE071A2396F98FFD37D","status":"crashed","errorCode":5}})"});
  ASSERT_EQ(crash.fail_sessions.size(), 1u);
  EXPECT_EQ(crash.fail_sessions[0].second.message, "tab t1 crashed (the renderer crashed); close it and open a new one");
  EXPECT_EQ(crash.fail_sessions[0].second.code, Code::Unavailable);
  EXPECT_EQ(t.find("t1")->info().status, "crashed");
  auto gone = feed(t, {R"({"method":"Target.detachedFromTarget","params":{"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F","targetId":"B38AE327B1655EE071A2396F98FFD37D"}})"});
  EXPECT_TRUE(gone.tabs_changed);
  EXPECT_TRUE(t.all().empty());
  EXPECT_EQ(t.active(""), "");
}

TEST(TabTracker, DialogPoliciesAnswerTheNextDialogOrAllOfThem) {
  TabTracker t;
  feed(t, {kOpener});
  auto dialog = [&](const std::string& type, const std::string& message) {
    json msg = {{"method", "Page.javascriptDialogOpening"},
                {"params", {{"url", "http://127.0.0.1:43723/dialog/click"}, {"frameId", "B38AE327B1655EE071A2396F98FFD37D"}, {"message", message},
                            {"type", type}, {"hasBrowserHandler", true}, {"defaultPrompt", "no idea"}}},
                {"sessionId", "C8BBBDA50CDDC6BB309481D8F10C6A5F"}};
    auto a = feed(t, {msg.dump()});
    return a.commands.at(0).params;
  };
  t.find("t1")->dialog_policy = DialogPolicy{true, "42", true};
  EXPECT_EQ(dialog("prompt", "What is 6*7?"), json({{"accept", true}, {"promptText", "42"}}));
  EXPECT_EQ(dialog("confirm", "Proceed?"), json({{"accept", false}})) << "once: the next one is dismissed";
  EXPECT_EQ(dialog("beforeunload", ""), json({{"accept", true}})) << "leaving is not up to the page";
  t.find("t1")->dialog_policy = DialogPolicy{true, "", false};
  EXPECT_EQ(dialog("confirm", "Proceed?"), json({{"accept", true}}));
  EXPECT_EQ(dialog("confirm", "Again?"), json({{"accept", true}}));
  // A long message is capped in the log.
  dialog("alert", std::string(100000, 'm'));
  EXPECT_LE(t.find("t1")->log.console().back().text.size(), 4100u);
}

TEST(TabTracker, MalformedEventsChangeNothingAndThrowNothing) {
  TabTracker t;
  feed(t, {kOpener});
  for (std::string_view raw : {
           R"({"method":"Target.attachedToTarget","params":{"sessionId":7,"targetInfo":"page"}})",
           R"({"method":"Target.attachedToTarget","params":{"sessionId":"S9","targetInfo":{"targetId":["x"],"type":"page"}}})",
           R"({"method":"Target.attachedToTarget","params":null})",
           R"({"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"B38AE327B1655EE071A2396F98FFD37D","url":{"a":1}}}})",
           R"({"method":"Target.detachedFromTarget","params":{"sessionId":null}})",
           R"({"method":"Target.targetCrashed","params":{"targetId":12}})",
           R"({"method":"Page.frameNavigated","params":{"frame":"nope"},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Page.frameNavigated","params":{},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Page.navigatedWithinDocument","params":{"frameId":"B38AE327B1655EE071A2396F98FFD37D","url":5},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Runtime.executionContextCreated","params":{"context":{"id":"4","name":"__ouro","auxData":[]}},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Runtime.bindingCalled","params":{"name":"__ouroNotify","payload":"{not json"},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Runtime.bindingCalled","params":{"name":"__ouroNotify","payload":"{\"title\":[1]}"},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Page.javascriptDialogOpening","params":{"type":1,"message":{}},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
           R"({"method":"Runtime.consoleAPICalled","params":{"args":[{"value":{"deep":[1,2]}},7,"s",null]},"sessionId":"C8BBBDA50CDDC6BB309481D8F10C6A5F"})",
       }) {
    EXPECT_NO_THROW(t.handle(event(raw), 1.7e12)) << raw;
  }
  EXPECT_EQ(t.all().size(), 1u);
  auto tab = t.find("t1");
  EXPECT_EQ(tab->url, "about:blank");
  EXPECT_EQ(tab->isolated_ctx, 0);
  ASSERT_EQ(tab->log.console().size(), 2u);
  EXPECT_EQ(tab->log.console()[0].text, "alert: ") << "a dialog of unknown shape is still answered and logged";
  EXPECT_EQ(tab->log.console()[1].text, "{\"deep\":[1,2]} 7 s null");
}

}  // namespace
}  // namespace ouro::browser
