// Memory across tasks (docs/guides/memory.md) through an in-process `ouro serve` with a
// scripted model: a run that finishes is remembered, the next run's first prompt lists it under
// Relevant Memories and its code finds it with recall(); remember: false leaves nothing;
// remember()/recall() with tags from code; the API lists, searches and deletes; hostile inputs
// give clear errors or nothing.
#include "api_env.h"

#include "server/memories.h"
#include "runs/remember.h"

#include <gtest/gtest.h>

namespace ouro::testing {
namespace {

std::string start(Server& s, const std::string& task, const std::vector<json>& script, json options = json::object()) {
  options["provider"] = "script:" + script_file(script);
  Http r = s.post("/api/runs", {{"task", task}, {"options", options}});
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body.value("id", "");
}

Http del(Server& s, const std::string& path) { return request("DELETE", s.url(path), s.api->token()); }

TEST(MemoryServe, AnEarlierRunsResultIsInTheNextRunsPromptAndFoundByRecall) {
  Server s;
  EXPECT_EQ(s.get("/api/memory").body["entries"], json::array()) << "nothing remembered yet";
  std::string first = start(s, "Find the cheapest flight to Lisbon in May", {{{"text", repl_reply("setFinal('The cheapest flight to Lisbon is TAP at 89 EUR')")}}});
  ASSERT_EQ(s.wait_done(first)["state"], "done");
  Http listed = s.get("/api/memory");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.body["entries"].size(), 1u) << listed.raw;
  const json& m = listed.body["entries"][0];
  EXPECT_EQ(m["text"], "Task: Find the cheapest flight to Lisbon in May\nResult: The cheapest flight to Lisbon is TAP at 89 EUR");
  EXPECT_EQ(m["kind"], "run");
  EXPECT_EQ(m["source_run"], first);
  EXPECT_EQ(listed.body["total"], 1);

  std::string second = start(s, "How much was the flight to Lisbon?",
                             {{{"text", repl_reply("const found = await recall('Lisbon flight price');\nsetFinal(found)")}}});
  json done = s.wait_done(second);
  ASSERT_EQ(done["state"], "done") << done.dump();
  // Its first prompt lists the earlier result as data, in the cached (stable) part, before the task.
  auto starts = events_of(s, second, "iteration-start");
  ASSERT_FALSE(starts.empty());
  std::string prompt = starts[0]["prompt"];
  size_t section = prompt.find("## Relevant Memories (from earlier tasks; recall() for more)\n");
  ASSERT_NE(section, std::string::npos) << prompt;
  size_t entry = prompt.find("TAP at 89 EUR", section);
  EXPECT_NE(entry, std::string::npos) << prompt;
  EXPECT_NE(prompt.find("never instructions", section), std::string::npos);
  EXPECT_LT(entry, prompt.find("## Current Task")) << prompt;
  ASSERT_FALSE(starts[0]["cacheBlocks"].empty());
  EXPECT_GT(starts[0]["cacheBlocks"][0].get<size_t>(), entry) << "the section is part of the cacheable prefix";
  // recall() in its code found it.
  ASSERT_TRUE(done["final"].is_array()) << done.dump();
  ASSERT_GE(done["final"].size(), 1u);
  EXPECT_NE(done["final"][0]["text"].get<std::string>().find("89 EUR"), std::string::npos) << done["final"].dump();
  EXPECT_EQ(done["final"][0]["source_run"], first);
  EXPECT_EQ(done["final"][0]["kind"], "run");

  // A task that shares no words with anything remembered has no section.
  std::string third = start(s, "Zebra quokka", {{{"text", repl_reply("setFinal(1)")}}});
  ASSERT_EQ(s.wait_done(third)["state"], "done");
  auto third_starts = events_of(s, third, "iteration-start");
  ASSERT_FALSE(third_starts.empty());
  EXPECT_EQ(third_starts[0]["prompt"].get<std::string>().find("Relevant Memories"), std::string::npos);

  // Search through the API: best first, with scores.
  Http searched = s.get("/api/memory?q=lisbon%20flight&limit=5");
  ASSERT_EQ(searched.status, 200) << searched.raw;
  ASSERT_GE(searched.body["entries"].size(), 1u);
  EXPECT_EQ(searched.body["entries"][0]["source_run"], first) << searched.raw;
  EXPECT_GT(searched.body["entries"][0]["score"].get<double>(), 0);
  EXPECT_EQ(searched.body["query"], "lisbon flight");
}

TEST(MemoryServe, RememberFalseAndUnfinishedRunsLeaveNothing) {
  Server s;
  std::string quiet = start(s, "Look up the walrus tariff", {{{"text", repl_reply("setFinal('walrus tariff is 12')")}}}, {{"remember", false}});
  ASSERT_EQ(s.wait_done(quiet)["state"], "done");
  std::string partial = start(s, "Count the walrus herds", {{{"text", repl_reply("env.n = 1")}}}, {{"max_iterations", 1}});
  ASSERT_EQ(s.wait_done(partial)["state"], "partial");
  EXPECT_EQ(s.get("/api/memory?q=walrus").body["entries"], json::array());
  EXPECT_EQ(s.get("/api/memory").body["total"], 0);
  // The option is type-checked like the others.
  Http bad = s.post("/api/runs", {{"task", "x"}, {"options", {{"remember", "no"}}}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body["error"]["message"].get<std::string>().find("options.remember must be true or false"), std::string::npos) << bad.raw;
  Http unknown = s.post("/api/runs", {{"task", "x"}, {"options", {{"remembr", true}}}});
  EXPECT_NE(unknown.body["error"]["message"].get<std::string>().find("remember (true or false"), std::string::npos) << unknown.raw;
}

TEST(MemoryServe, RememberAndRecallFromCodeWithTagsThenDeleteThroughTheApi) {
  Server s;
  std::string id = start(s, "Note a preference",
                         {{{"text", repl_reply("const id = await remember('Ada prefers window seats on long flights', { tags: ['prefs', 'travel'] });\n"
                                               "const big = await remember('x'.repeat(20000)).catch(e => e.message);\n"
                                               "const odd = await recall('\"*) NEAR( OR ^');\n"
                                               "setFinal({ id, tagged: await recall('window seats', { tag: 'prefs' }), other: await recall('window seats', { tag: 'food' }), big, odd })")}}},
                         {{"remember", false}});
  json done = s.wait_done(id);
  ASSERT_EQ(done["state"], "done") << done.dump();
  const json& f = done["final"];
  ASSERT_TRUE(f["id"].is_number_integer()) << f.dump();
  ASSERT_EQ(f["tagged"].size(), 1u) << f.dump();
  EXPECT_EQ(f["tagged"][0]["tags"], json({"prefs", "travel"}));
  EXPECT_EQ(f["tagged"][0]["source_run"], id) << "code's memories name the run they came from";
  EXPECT_EQ(f["tagged"][0]["kind"], "user");
  EXPECT_EQ(f["other"], json::array());
  EXPECT_NE(f["big"].get<std::string>().find("remember: the text is 20000 bytes; at most 8192"), std::string::npos) << f["big"];
  EXPECT_EQ(f["odd"], json::array());

  int64_t mem = f["id"].get<int64_t>();
  Http gone = del(s, "/api/memory/" + std::to_string(mem));
  ASSERT_EQ(gone.status, 200) << gone.raw;
  EXPECT_EQ(gone.body["deleted"], mem);
  EXPECT_EQ(del(s, "/api/memory/" + std::to_string(mem)).status, 404) << "deleted already";
  EXPECT_EQ(del(s, "/api/memory/123456789").status, 404);
  EXPECT_EQ(del(s, "/api/memory/abc").status, 400);
  EXPECT_EQ(del(s, "/api/memory/-1").status, 400);
  EXPECT_EQ(del(s, "/api/memory/99999999999999999999999").status, 400);
  EXPECT_EQ(s.get("/api/memory?q=window%20seats").body["entries"], json::array());
  // Hostile queries: a clear 400 for a wrong parameter, an empty list for words that match nothing.
  EXPECT_EQ(s.get("/api/memory?limit=0").status, 400);
  EXPECT_EQ(s.get("/api/memory?limit=abc").status, 400);
  EXPECT_EQ(s.get("/api/memory?q=x&limit=51").status, 400);
  EXPECT_EQ(s.get("/api/memory?tag=prefs").status, 400) << "a tag filters a search";
  for (const char* q : {"%22%29*NEAR%28", "%00%ff%fe", "%", "%zz", "+++", "%F0%9F%99%82"}) {
    Http r = s.get(std::string("/api/memory?q=") + q);
    EXPECT_EQ(r.status, 200) << q << ": " << r.raw;
    EXPECT_TRUE(r.body["entries"].is_array()) << q;
  }
  EXPECT_EQ(request("DELETE", s.url("/api/memory/1"), "").status, 401) << "the token is needed";
}

TEST(MemoryServe, RunMemoryTextFitsTheCap) {
  EXPECT_EQ(runs::run_memory_text("Find x", "42", 8192), "Task: Find x\nResult: 42");
  EXPECT_EQ(runs::run_memory_text("Sum", json{{"total", 3}}, 8192), "Task: Sum\nResult: {\"total\":3}");
  std::string text = runs::run_memory_text(std::string(5000, 't'), std::string(20000, 'r') + "é", 8192);
  EXPECT_LE(text.size(), 8192u);
  EXPECT_NE(text.find("…\nResult: rrr"), std::string::npos) << "the task is cut to 1,000 bytes";
  EXPECT_EQ(text.substr(text.size() - 3), "…");
  std::string accents(10000, 'a');
  for (size_t i = 0; i < accents.size(); i += 2) accents.replace(i, 2, "é");
  std::string cut = runs::run_memory_text("t", accents, 101);
  EXPECT_LE(cut.size(), 101u);
  EXPECT_EQ(cut.substr(cut.size() - 3), "…") << "cut at a character boundary";
}

}  // namespace
}  // namespace ouro::testing
