// `ouro memory list|search|rm|backfill` (cli/memory.cpp) as a user types them, each test on a data
// directory of its own whose notes a run of a scripted model left: newest first, found by words and
// by tag, deleted by id, given vectors by an embeddings model, and every mistake with its words.
#include "cli_harness.h"
#include "embeddings_server.h"

namespace ouro::testing {
namespace {

// `ouro memory ARGS` (shell text) in dir; env: more shell assignments.
Outcome ouro_memory(const std::string& dir, const std::string& args, const std::string& env = "") { return ouro_shell(dir, "memory " + args, "", env); }

// What `ouro memory ARGS --json` printed (an empty list when it printed none).
json entries(const std::string& dir, const std::string& args) {
  Outcome r = ouro_memory(dir, args + " --json");
  EXPECT_EQ(r.code, 0) << r.err;
  json j = parse_json(r.out).value_or(json::array());
  return j.is_array() ? j : json::array();
}

// A run in dir that remembers each note (its text, its tags) and answers; with --no-remember, so
// the notes are all it leaves in memory. Its id.
std::string remembering_run(const std::string& dir, const std::vector<std::pair<std::string, std::vector<std::string>>>& notes) {
  std::string code;
  for (const auto& [text, tags] : notes) code += "await remember(" + json(text).dump() + ", {tags: " + json(tags).dump() + "});\n";
  code += "setFinal('noted')";
  Outcome r = ouro_args(dir, {"run", "Keep notes", "--no-remember", "--json", "--provider", "script:" + script_file({{{"text", repl_reply(code)}}})});
  EXPECT_EQ(r.code, 0) << r.err;
  json j = parse_json(r.out).value_or(json::object());
  return j.is_object() ? j.value("runId", "") : "";
}

const std::vector<std::pair<std::string, std::vector<std::string>>> kFigurines = {
    {"The otter figurine costs 15 EUR", {"prices", "figurines"}},
    {"The walrus figurine is sold out", {"stock"}},
};


TEST(CliMemory, AnEmptyDatabaseListsNoneFindsNoneAndDeletesNone) {
  const std::string dir = temp_dir();
  Outcome list = ouro_memory(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_TRUE(list.out.empty()) << list.out;
  EXPECT_NE(list.err.find("0 memories"), std::string::npos) << list.err;
  EXPECT_EQ(entries(dir, "list"), json::array());
  Outcome search = ouro_memory(dir, "search 'otter figurine'");
  EXPECT_EQ(search.code, 0) << search.err;
  EXPECT_TRUE(search.out.empty()) << search.out;
  EXPECT_NE(search.err.find("ranked by words only (BM25): no embeddings provider is configured"), std::string::npos) << search.err;
  EXPECT_NE(search.err.find("nothing remembered shares words with that"), std::string::npos) << search.err;
  Outcome as_json = ouro_memory(dir, "search 'otter figurine' --json");
  EXPECT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(parse_json(as_json.out).value_or(json()), json::array()) << as_json.out;
  EXPECT_EQ(as_json.err.find("nothing remembered"), std::string::npos) << "the empty list says it: " << as_json.err;
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "rm 1"), 1, "ouro memory rm: no memory #1 (see ouro memory list)"));
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "backfill"), 1, "ouro memory: backfill: no embeddings provider is configured"));
}

TEST(CliMemory, AnIdThatIsNotAWholePositiveNumberIsRefusedWithExitTwo) {
  const std::string dir = temp_dir();
  const std::string rule = "ouro memory rm: the id is a whole number, as `ouro memory list` shows it (#12 → 12); got '";
  for (const std::string id : {"abc", "0", "12x", "1.5", "#12", "99999999999999999999"}) {
    EXPECT_TRUE(exits_saying(ouro_args(dir, {"memory", "rm", id}), 2, rule + id + "'"));
  }
  // A pasted page is said back by its head only.
  Outcome pasted = ouro_args(dir, {"memory", "rm", std::string(5000, '7') + "x"});
  EXPECT_EQ(pasted.code, 2);
  EXPECT_NE(pasted.err.find(rule + std::string(40, '7') + "'"), std::string::npos) << pasted.err.substr(0, 300);
  EXPECT_LT(pasted.err.size(), 1000u);
}

TEST(CliMemory, CommandLineMistakesExitTwoSayingWhatToGive) {
  const std::string dir = temp_dir();
  EXPECT_TRUE(exits_saying(ouro_memory(dir, ""), 2, "ouro memory needs one of: list, search, rm, backfill"));
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "lst"), 2, "there is no command \"lst\". Did you mean \"list\"?"));
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "search"), 2, "query is required"));
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "rm"), 2, "id is required"));
  Outcome limit = ouro_memory(dir, "list --limit 0");
  EXPECT_EQ(limit.code, 2);
  EXPECT_NE(limit.err.find("--limit: Value 0 not in range"), std::string::npos) << limit.err;
}

TEST(CliMemory, TheNotesARunLeftAreListedNewestFirstWithTheirTagsAndRun) {
  const std::string dir = temp_dir(), run = remembering_run(dir, kFigurines);
  ASSERT_FALSE(run.empty());
  Outcome list = ouro_memory(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.err.find("2 memories\n"), std::string::npos) << list.err;
  const std::string entry = "#\\d+ · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · user · run " + run;
  EXPECT_TRUE(std::regex_match(list.out, std::regex(entry + " \\[stock\\]\n  The walrus figurine is sold out\n" + entry +
                                                    " \\[prices, figurines\\]\n  The otter figurine costs 15 EUR\n")))
      << "the later note first: " << list.out;

  json all = entries(dir, "list");
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(all[0]["text"], "The walrus figurine is sold out");
  EXPECT_EQ(all[1]["text"], "The otter figurine costs 15 EUR");
  EXPECT_EQ(all[1]["tags"], json::array({"prices", "figurines"}));
  for (const auto& e : all) {
    EXPECT_TRUE(e["id"].is_number_integer()) << e.dump();
    EXPECT_EQ(e["kind"], "user");
    EXPECT_EQ(e["source_run"], run);
    EXPECT_TRUE(e["key"].is_null());
    EXPECT_GT(e.value("created_at", int64_t{0}), int64_t{1'000'000'000'000}) << "milliseconds since the epoch";
    EXPECT_LE(e.value("created_at", int64_t{0}), e.value("updated_at", int64_t{0}));
    EXPECT_FALSE(e.contains("score")) << "a list is not ranked";
  }
  Outcome one = ouro_memory(dir, "list --limit 1");
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.err.find("2 memories (the 1 most recent below)"), std::string::npos) << one.err;
  EXPECT_NE(one.out.find("walrus"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("otter"), std::string::npos) << one.out;
}

TEST(CliMemory, SearchFindsNotesByTheirWordsAndTagsBestFirstWithAScore) {
  const std::string dir = temp_dir(), run = remembering_run(dir, kFigurines);
  ASSERT_FALSE(run.empty());
  Outcome otter = ouro_memory(dir, "search otter");
  EXPECT_EQ(otter.code, 0) << otter.err;
  EXPECT_NE(otter.err.find("ranked by words only (BM25): "), std::string::npos) << otter.err;
  EXPECT_NE(otter.out.find(" · user · run " + run + " · score "), std::string::npos) << otter.out;
  EXPECT_NE(otter.out.find("[prices, figurines]\n  The otter figurine costs 15 EUR\n"), std::string::npos) << otter.out;
  EXPECT_EQ(otter.out.find("walrus"), std::string::npos) << otter.out;

  json both = entries(dir, "search figurine");
  ASSERT_EQ(both.size(), 2u) << both.dump();
  for (const auto& e : both) {
    EXPECT_GT(e.value("score", 0.0), 0.0) << e.dump();
    EXPECT_TRUE(e["similarity"].is_null()) << "no embeddings model: " << e.dump();
  }
  EXPECT_GE(both[0].value("score", 0.0), both[1].value("score", 0.0)) << "best first";
  EXPECT_EQ(entries(dir, "search figurine --limit 1").size(), 1u);
  json stock = entries(dir, "search figurine --tag stock");
  ASSERT_EQ(stock.size(), 1u) << stock.dump();
  EXPECT_EQ(stock[0]["text"], "The walrus figurine is sold out");
  Outcome untagged = ouro_memory(dir, "search figurine --tag nosuchtag");
  EXPECT_EQ(untagged.code, 0) << untagged.err;
  EXPECT_TRUE(untagged.out.empty()) << untagged.out;
  EXPECT_NE(untagged.err.find("nothing remembered shares words with that"), std::string::npos) << untagged.err;
}

TEST(CliMemory, ForgettingAMemoryDeletesItAndASecondTimeFindsNone) {
  const std::string dir = temp_dir();
  ASSERT_FALSE(remembering_run(dir, kFigurines).empty());
  const std::string id = std::to_string(entry_with(entries(dir, "list"), "text", "The otter figurine costs 15 EUR").value("id", int64_t{0}));
  Outcome rm = ouro_memory(dir, "rm " + id);
  EXPECT_EQ(rm.code, 0) << rm.err;
  EXPECT_TRUE(rm.out.empty()) << rm.out;
  EXPECT_NE(rm.err.find("memory #" + id + " is forgotten\n"), std::string::npos) << rm.err;
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "rm " + id), 1, "ouro memory rm: no memory #" + id + " (see ouro memory list)"));
  json left = entries(dir, "list");
  ASSERT_EQ(left.size(), 1u) << left.dump();
  EXPECT_EQ(left[0]["text"], "The walrus figurine is sold out");
  EXPECT_NE(ouro_memory(dir, "list").err.find("1 memory\n"), std::string::npos);
  EXPECT_TRUE(entries(dir, "search otter").empty());
}

TEST(CliMemory, BackfillGivesVectorsWithAnEmbeddingsModelAndSaysWhyItCannotWithout) {
  const std::string dir = temp_dir();
  ASSERT_FALSE(remembering_run(dir, kFigurines).empty());
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "backfill"), 1, "ouro memory: backfill: no embeddings provider is configured"));

  EmbeddingsServer model;
  const std::string config = dir + "/config.json", with = "OURO_CONFIG=" + config;
  std::ofstream(config) << dump_json(json{{"embeddings", {{"provider", model.base_url()}, {"model", "concepts-64"}}}});
  model.fail_with(503);
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "backfill", with), 1, "answered HTTP 503"));
  model.fail_with(0);
  Outcome filled = ouro_memory(dir, "backfill", with);
  EXPECT_EQ(filled.code, 0) << filled.err;
  EXPECT_NE(filled.err.find("2 memories got vectors from "), std::string::npos) << filled.err;
  EXPECT_NE(filled.err.find("concepts-64"), std::string::npos) << filled.err;
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "backfill", with), 0, "0 memories got vectors from "));
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "search figurine", with), 0, "ranked by meaning and words (hybrid): vector similarity ("));

  // Settings that name no usable model: said, by backfill and by search.
  const std::string wrong = dir + "/wrong.json";
  std::ofstream(wrong) << dump_json(json{{"embeddings", "yes"}});
  Outcome refused = ouro_memory(dir, "backfill", "OURO_CONFIG=" + wrong);
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("ouro memory: backfill: the embeddings settings are wrong: \"embeddings\" in the settings file is"), std::string::npos)
      << refused.err;
  EXPECT_TRUE(exits_saying(ouro_memory(dir, "search figurine", "OURO_CONFIG=" + wrong), 0, "ranked by words only (BM25): the embeddings settings are wrong"));
}

TEST(CliMemory, OddTextsAndTagsComeBackIntactAndOddQueriesNeverBreakTheSearch) {
  const std::string dir = temp_dir();
  const std::string odd = "Grüße aus Köln: \"Dom\" & 'Rhein' <b>\nzweite Zeile ✓ 日本語 $(echo no) `echo no`";
  const std::string tag = "say \"hi\", ünï";
  std::string long_text;
  for (int i = 0; i < 1000; ++i) long_text += (i ? " word" : "word") + std::to_string(i);
  ASSERT_FALSE(remembering_run(dir, {{odd, {tag}}, {long_text, {"long"}}}).empty());

  json all = entries(dir, "list");
  ASSERT_EQ(all.size(), 2u) << all.dump().substr(0, 500);
  EXPECT_EQ(entry_with(all, "text", odd)["tags"], json::array({tag})) << all.dump().substr(0, 500);
  EXPECT_FALSE(entry_with(all, "text", long_text).is_null()) << "the long note whole";
  // The terminal shows each note on one line, a long one cut.
  Outcome list = ouro_memory(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("  Grüße aus Köln: \"Dom\" & 'Rhein' <b> zweite Zeile ✓ 日本語"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("[say \"hi\", ünï]"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find(long_text), std::string::npos);
  EXPECT_LT(list.out.size(), 1500u) << list.out;

  Outcome found = ouro_args(dir, {"memory", "search", "Köln", "--tag", tag, "--json"});
  EXPECT_EQ(found.code, 0) << found.err;
  json hits = parse_json(found.out).value_or(json::array());
  ASSERT_EQ(hits.size(), 1u) << found.out;
  EXPECT_EQ(hits[0]["text"], odd);
  for (const std::string query : {"\"unbalanced * NEAR( OR AND", "***", "'; DROP TABLE memories; --", "\xff\xfe not UTF-8 \xc3", "tags:say",
                                  "\"\"\"\"", "word1 NOT word2"}) {
    Outcome r = ouro_args(dir, {"memory", "search", query});
    EXPECT_EQ(r.code, 0) << query << ": " << r.err;
  }
  Outcome huge = ouro_args(dir, {"memory", "search", std::string(10000, 'q') + " Köln"});
  EXPECT_EQ(huge.code, 0) << huge.err.substr(0, 300);
  EXPECT_NE(huge.out.find("Grüße aus Köln"), std::string::npos) << "its words still count: " << huge.out;
  EXPECT_EQ(entries(dir, "list").size(), 2u) << "no query changed what is kept";
}

}  // namespace
}  // namespace ouro::testing
