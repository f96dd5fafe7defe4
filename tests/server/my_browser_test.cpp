// Runs in the user's own browser ("My browser"): the profile's context with the user's
// logins and tabs, the tab they were on handed over, other tabs asked about, one run per tab, the
// Command Center's tab invisible, and the tabs a run worked in left open. Through the runs API
// of a real server, with a scripted model.
#include "api_env.h"

#include "browser/browser.h"
#include "browser/shared_tabs.h"
#include "injection_sites.h"
#include "persons_chromium.h"

#include <gtest/gtest.h>

namespace ouro::testing {
namespace {

// The person at the browser: signs in to the fixture site and opens their account page, with
// the Command Center open in another tab (as plain `ouro` shows it).
struct UserBrowser {
  Server s;
  std::string account, command_center;
  UserBrowser() {
    browser::Browser& b = s.base->browser();
    command_center = b.open_tab(s.api->url()).value();
    auto signed_in = b.open_tab(site().url("/cookies"));  // the site's session cookie
    EXPECT_TRUE(signed_in) << signed_in.error().message;
    account = b.open_tab(site().url("/account")).value();
    EXPECT_TRUE(b.switch_tab(account));
  }
  std::string start(const std::string& code, json options = json::object(), const std::string& task = "What does my account say?") {
    options["provider"] = "script:" + script_file({{{"text", repl_reply(code)}}});
    if (!options.contains("context")) options["context"] = "mine";
    Http created = s.post("/api/runs", {{"task", task}, {"options", options}});
    EXPECT_EQ(created.status, 201) << created.raw;
    return created.body.value("id", "");
  }
  json complete_event(const std::string& id) {
    for (const auto& e : s.get("/api/runs/" + id + "/events").body)
      if (e["type"] == "complete") return e["data"];
    return nullptr;
  }
};

TEST(MyBrowser, ARunAnswersFromTheSignedInTabWithoutSigningInAgain) {
  UserBrowser u;
  std::string id = u.start("setFinal({ active: activeTab, heading: await getText(activeTab, 'h1'), urls: tabs.map(t => t.url) })");
  json run = u.s.wait_done(id);
  ASSERT_EQ(run["state"], "done") << run.dump();
  EXPECT_EQ(run["final"]["heading"], "Signed in as Ada Lovelace");
  EXPECT_EQ(run["final"]["active"], u.account) << "the tab the user was on is the run's activeTab";
  std::string urls = run["final"]["urls"].dump();
  EXPECT_NE(urls.find("/account"), std::string::npos) << urls;
  EXPECT_EQ(urls.find(std::to_string(u.s.api->port())), std::string::npos) << "the Command Center's tab is not among the run's tabs: " << urls;
  // Its token is in no event the run left (prompts, results, the Browser State).
  std::string events = u.s.get("/api/runs/" + id + "/events").raw;
  EXPECT_EQ(events.find(u.s.api->token()), std::string::npos);
  EXPECT_EQ(events.find(std::to_string(u.s.api->port()) + "/"), std::string::npos);
  // The tab it worked in stays open, listed with the result.
  json done = u.complete_event(id);
  ASSERT_TRUE(done["tabs"].is_array()) << done.dump();
  EXPECT_EQ(done["tabs"][0]["id"], u.account);
  EXPECT_TRUE(u.s.base->browser().tab_info(u.account));
}

TEST(MyBrowser, AFollowUpWorksInTheSameTabAgain) {
  UserBrowser u;
  json options = {{"context", "mine"}, {"mode", "autonomous"},
                  {"provider", "script:" + script_file({{{"text", repl_reply("env.who = await getText(activeTab, 'h1');\nsetFinal(env.who)")}},
                                                        {{"text", repl_reply("await click(activeTab, '#balance');\n"
                                                                             "setFinal(env.who + ' / ' + await getText(activeTab, '#balance'))")}}})}};
  std::string id = u.s.post("/api/runs", {{"task", "Who am I signed in as?"}, {"options", options}}).body.value("id", "");
  EXPECT_EQ(u.s.wait_done(id)["final"], "Signed in as Ada Lovelace");
  // Between turns the tab is the user's again: they (or another run) may use it.
  EXPECT_EQ(u.s.base->browser().shared().tab_owner(u.account), "");
  EXPECT_EQ(u.s.post("/api/runs/" + id + "/messages", {{"text", "And my balance?"}}).status, 202);
  json run;
  for (int i = 0; i < 200 && (run = u.s.get("/api/runs/" + id).body)["iterations"] != 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  run = u.s.wait_done(id);
  EXPECT_EQ(run["final"], "Signed in as Ada Lovelace / Balance: 1,234.56") << run.dump();
}

TEST(MyBrowser, WithTheCommandCenterInFrontTheUsersPageIsHanded) {
  UserBrowser u;
  ASSERT_TRUE(u.s.base->browser().switch_tab(u.command_center));  // the user types the task there
  std::string id = u.start("setFinal({ active: activeTab, heading: await getText(activeTab, 'h1') })");
  json run = u.s.wait_done(id);
  EXPECT_EQ(run["final"]["active"], u.account) << run.dump();
  EXPECT_EQ(run["final"]["heading"], "Signed in as Ada Lovelace");
}

TEST(MyBrowser, TheCommandCenterTabCannotBeTouched) {
  UserBrowser u;
  std::string id = u.start("try { await getText('" + u.command_center + "', 'body'); setFinal('read it') } catch (e) { setFinal(e.message) }");
  json run = u.s.wait_done(id);
  EXPECT_NE(run["final"].get<std::string>().find("no tab '" + u.command_center + "'"), std::string::npos) << run["final"];
}

TEST(MyBrowser, ACleanSessionHasNoneOfTheUsersTabsOrLogins) {
  UserBrowser u;
  std::string id = u.start("const t = await openTab('" + site().url("/account") + "');\nsetFinal({ heading: await getText(t, 'h1'), n: tabs.length })",
                           {{"context", "clean"}}, "What does my account at " + site().url("/account") + " say?");
  json run = u.s.wait_done(id);
  EXPECT_EQ(run["final"]["heading"], "Please sign in");
  EXPECT_EQ(run["final"]["n"], 2) << "its own blank tab and the one it opened";
}

TEST(MyBrowser, ATabWorksForOneRunAtATime) {
  UserBrowser u;
  // Run A is handed the account tab and works there until the test answers its question (however
  // long run B takes to start on a loaded machine).
  std::string a = u.start("await click(activeTab, 'h1');\nawait askUser('Done?');\nsetFinal('a done')");
  auto io = net::IoThread::start();
  Watcher w(*io, u.s.ws("run=" + a));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "user-question"); }));
  // Run B wants to act on the same tab meanwhile: it is told at once who has it.
  std::string b = u.start("try { await click('" + u.account + "', 'h1'); setFinal('clicked') } catch (e) { setFinal(e.message) }");
  json rb = u.s.wait_done(b);
  EXPECT_NE(rb["final"].get<std::string>().find("tab " + u.account + " is in use by run " + a), std::string::npos) << rb["final"];
  EXPECT_EQ(u.s.post("/api/runs/" + a + "/answer", {{"id", w.last("user-question")["id"]}, {"answer", "yes"}}).status, 200);
  EXPECT_EQ(u.s.wait_done(a)["final"], "a done");
  // A has finished, but it acted on the page: until the user loads a page there themselves, the
  // tab keeps to A's rule and no other run takes it.
  std::string c = u.start("try { await click('" + u.account + "', 'h1'); setFinal('clicked') } catch (e) { setFinal(e.message) }",
                          {{"mode", "autonomous"}});
  json rc = u.s.wait_done(c);
  EXPECT_NE(rc["final"].get<std::string>().find("still keeps to the rule of run " + a), std::string::npos) << rc["final"];
  // The user loads the page again from the address bar (a navigation the browser starts): the
  // tab is free again.
  ASSERT_TRUE(u.s.base->browser().navigate(u.account, site().url("/account")));
  std::string d = u.start("await click('" + u.account + "', 'h1');\nsetFinal('clicked')", {{"mode", "autonomous"}});
  EXPECT_EQ(u.s.wait_done(d)["final"], "clicked");
}

TEST(MyBrowser, AFinishedConversationsTabGoesUnlessThePersonTookItUp) {
  UserBrowser u;
  browser::Browser& b = u.s.base->browser();
  const size_t before = b.tabs("").size();
  // A conversation with a start URL, ended as the Command Center's "New conversation" ends it.
  auto converse = [&](const std::string& path) {
    json options = {{"context", "mine"}, {"provider", "script:" + script_file({{{"text", repl_reply("setFinal(activeTab)")}}})}};
    Http created = u.s.post("/api/runs", {{"task", "Which tab?"}, {"urls", {site().url(path)}}, {"options", options}});
    EXPECT_EQ(created.status, 201) << created.raw;
    std::string id = created.body.value("id", "");
    json run = u.s.wait_done(id);
    EXPECT_EQ(run["state"], "done") << run.dump();
    std::string tab = run["final"].is_string() ? run["final"].get<std::string>() : "";
    EXPECT_TRUE(b.tab_info(tab)) << "the tab stays while the conversation may go on";
    return std::pair{id, tab};
  };
  auto end = [&](const std::string& id) {
    Http ended = u.s.post("/api/runs/" + id + "/end", json::object());
    EXPECT_EQ(ended.status, 200) << ended.raw;
    // Its session is gone once the run manager no longer lists its tabs.
    EXPECT_TRUE(eventually([&] { return u.s.get("/api/runs/" + id + "/tabs").status == 404; }, std::chrono::seconds(20)));
  };
  for (int i = 0; i < 3; ++i) {
    auto [id, tab] = converse("/b");
    end(id);
    EXPECT_FALSE(b.tab_info(tab)) << "conversation " << i << " left its tab open";
    auto closed = events_of(u.s, id, "tabs-closed");
    ASSERT_EQ(closed.size(), 1u);
    EXPECT_EQ(closed[0]["tabs"], json::array({tab}));
  }
  EXPECT_EQ(b.tabs("").size(), before) << "tabs do not pile up";
  // The person loaded a page of their own in the conversation's tab: it is theirs and stays.
  auto [id, tab] = converse("/b");
  ASSERT_TRUE(b.navigate(tab, site().url("/form")));
  end(id);
  EXPECT_TRUE(b.tab_info(tab));
  EXPECT_TRUE(events_of(u.s, id, "tabs-closed").empty());
  // The tabs that were open before, the one it was handed among them, stay.
  EXPECT_TRUE(b.tab_info(u.account));
  // A turn at work is not ended; a conversation no longer open ends at once.
  std::string busy = u.start("await sleep(3000);\nsetFinal('slow')");
  EXPECT_TRUE(eventually([&] { return u.s.get("/api/runs/" + busy).body.value("state", "") == "running"; }, std::chrono::seconds(10)));
  Http refused = u.s.post("/api/runs/" + busy + "/end", json::object());
  EXPECT_EQ(refused.status, 409) << refused.raw;
  EXPECT_NE(refused.raw.find("cancel it"), std::string::npos) << refused.raw;
  EXPECT_EQ(u.s.wait_done(busy)["final"], "slow");
  EXPECT_EQ(u.s.post("/api/runs/" + id + "/end", json::object()).status, 200);
  EXPECT_EQ(u.s.post("/api/runs/nosuchrun/end", json::object()).status, 404);
}

TEST(MyBrowser, ActingOnAnotherOfTheUsersTabsIsAskedAbout) {
  UserBrowser u;
  std::string other = u.s.base->browser().open_tab(site().url("/list")).value();
  ASSERT_TRUE(u.s.base->browser().switch_tab(u.account));
  std::string id = u.start("const mine = await openTab('" + site().url("/b") + "');\n"
                           "try { await click('" + other + "', 'li'); setFinal('clicked') } catch (e) { setFinal(e.message) }");
  auto io = net::IoThread::start();
  Watcher w(*io, u.s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "confirmation-req"); }));
  json req = w.last("confirmation-req");
  EXPECT_EQ(req["details"]["action"], "use-tab") << req.dump();
  EXPECT_EQ(req["details"]["tab"], other);
  EXPECT_EQ(u.s.post("/api/runs/" + id + "/confirm", {{"id", req["id"]}, {"approved", false}}).status, 200);
  json run = u.s.wait_done(id);
  EXPECT_NE(run["final"].get<std::string>().find("did not let this run act on their tab " + other), std::string::npos) << run["final"];
  // The tab it opened stays open, listed with its result next to the one it was handed.
  json tabs = u.complete_event(id)["tabs"];
  ASSERT_EQ(tabs.size(), 2u) << tabs.dump();
  EXPECT_EQ(tabs[0]["id"], u.account);
  EXPECT_NE(tabs[1]["url"].get<std::string>().find("/b"), std::string::npos);
  EXPECT_TRUE(u.s.base->browser().tab_info(tabs[1]["id"].get<std::string>()));
}

TEST(MyBrowser, TheTabsARunHoldsAreUnderItsGateAndTheUsersOthersAreNot) {
  Server s;
  InjectionSites sites;
  browser::Browser& b = s.base->browser();
  std::string own = b.open_tab(sites.victim("/")).value();  // the user's, left alone by the run
  std::string handed = b.open_tab(sites.victim("/")).value();
  ASSERT_TRUE(b.switch_tab(handed));
  std::string code = "const out = [];\n"
                     "out.push(await execInTab(activeTab, \"fetch('" + sites.collector("/by-fetch") + "').then(() => 'sent', e => 'blocked')\"));\n"
                     "try { await navigate(activeTab, '" + sites.collector("/by-navigate") + "'); out.push('went') } catch (e) { out.push('refused') }\n"
                     "setFinal(out)";
  Http created = s.post("/api/runs", {{"task", "Summarise this page"},
                                      {"options", {{"context", "mine"}, {"mode", "autonomous"},
                                                   {"provider", "script:" + script_file({{{"text", repl_reply(code)}}})}}}});
  json run = s.wait_done(created.body.value("id", ""));
  EXPECT_EQ(run["final"], json::array({"blocked", "refused"})) << run.dump();
  // The user's own browsing in a tab the run does not hold is not the run's: it goes out.
  auto mine = b.eval_page(own, "fetch('" + sites.collector("/by-the-user") + "').then(() => 'sent', e => 'blocked')");
  ASSERT_TRUE(mine) << mine.error().message;
  EXPECT_EQ(*mine, "sent");
  auto got = sites.collected();
  ASSERT_EQ(got.size(), 1u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find("/by-the-user"), std::string::npos);
  // The run acted there (its code ran in the page): after it ended, the page — and whatever the
  // code left running in it — still keeps to the run's rule, and the completion says so.
  auto still = b.eval_page(handed, "fetch('" + sites.collector("/after-the-run") + "').then(() => 'sent', e => 'blocked')");
  EXPECT_EQ(still.value_or(json()), "blocked");
  // Once the user loads a page there from the address bar, their browsing there is theirs again.
  ASSERT_TRUE(b.navigate(handed, sites.victim("/")));
  auto after = b.eval_page(handed, "fetch('" + sites.collector("/after-the-reload") + "').then(() => 'sent', e => 'blocked')");
  EXPECT_EQ(after.value_or(json()), "sent");
  got = sites.collected();
  for (const auto& line : got) EXPECT_EQ(line.find("/after-the-run"), std::string::npos) << line;
}

TEST(MyBrowser, AlwaysForASiteIsRememberedListedAndRevocable) {
  UserBrowser u;
  browser::Browser& b = u.s.base->browser();
  std::string list = b.open_tab(site().url("/list")).value(), other = b.open_tab(site().url("/b")).value();
  ASSERT_TRUE(b.switch_tab(u.account));
  std::string id = u.start("await click('" + list + "', 'li');\nsetFinal('clicked')");
  auto io = net::IoThread::start();
  Watcher w(*io, u.s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "confirmation-req"); }));
  json req = w.last("confirmation-req");
  std::string origin = site().url("/");
  std::string site_key = origin.substr(7, origin.size() - 8);  // 127.0.0.1:PORT
  EXPECT_EQ(req["details"]["site"], site_key);
  EXPECT_EQ(u.s.post("/api/runs/" + id + "/confirm", {{"id", req["id"]}, {"approved", true}, {"remember", true}}).status, 200);
  EXPECT_EQ(u.s.wait_done(id)["final"], "clicked");
  EXPECT_EQ(u.s.get("/api/settings").body["allowed_sites"], json::array({site_key}));
  // Another run, another of the user's tabs on that site: not asked again.
  std::string again = u.start("await click('" + other + "', 'h1');\nsetFinal('clicked too')");
  EXPECT_EQ(u.s.wait_done(again)["final"], "clicked too");
  for (const auto& e : u.s.get("/api/runs/" + again + "/events").body) EXPECT_NE(e["type"], "confirmation-req") << e.dump();
  // Revoked in Settings: gone from the list (the next run asks again).
  Http revoked = request("PUT", u.s.url("/api/settings"), u.s.api->token(), json{{"allowed_sites", json::array()}}.dump());
  EXPECT_EQ(revoked.status, 200) << revoked.raw;
  EXPECT_EQ(u.s.get("/api/settings").body["allowed_sites"], json::array());
  EXPECT_EQ(request("PUT", u.s.url("/api/settings"), u.s.api->token(), json{{"allowed_sites", {"not a site!"}}}.dump()).status, 400);
}

TEST(MyBrowser, TheContextOptionIsChecked) {
  Server s;
  Http bad = s.post("/api/runs", {{"task", "x"}, {"options", {{"context", "theirs"}}}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.raw.find("options.context must be 'mine'"), std::string::npos) << bad.raw;
  EXPECT_EQ(s.get("/api/settings").body["default_context"], "clean") << "a throwaway profile is not the user's";
  EXPECT_EQ(s.get("/api/settings").body["pool"], false) << "no pool: the Command Center does not ask GET /api/pool";
}

}  // namespace
}  // namespace ouro::testing
