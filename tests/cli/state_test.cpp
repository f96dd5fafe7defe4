// ouro's own state as a user meets it, on SQLite and on PostgreSQL. Undo and redo
// (docs/guides/undo.md): a turn of `ouro run` that wrote two memories, changed a schedule, set
// goals and was saved as a script is reverted exactly by `ouro undo` and put back by `ouro redo`;
// careful mode asks before a run leaves a schedule, and with nobody to ask it is refused. Memory
// by meaning (docs/guides/memory.md): with an embeddings model in the settings file, recall()
// finds a paraphrase; without one it ranks by words and says so.
#include "browser_env.h"
#include "embeddings_server.h"
#include "postgres_server.h"
#include "serve_process.h"

#include <gtest/gtest.h>

#include <fstream>

namespace ouro::testing {
namespace {

class CliUndo : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    dir = temp_dir();
    env = "OURO_DATA_DIR=" + dir;
    if (GetParam() == store::Engine::Postgres) env += " OURO_DATABASE='" + fresh_database(GetParam()).value() + "'";
  }
  Exited ouro(const std::string& args) { return ouro_shell(dir, args, "", env); }
  json json_of(const std::string& args) {
    Exited r = ouro(args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    return parse_json(r.out).value_or(json());
  }
  std::string texts() {
    std::string all;
    for (const auto& e : json_of("memory list --json")) all += e.value("text", "") + "\n";
    return all;
  }
  std::string dir, env;
};

TEST_P(CliUndo, UndoRevertsExactlyTheTurnAndRedoPutsItBack) {
  Exited first = ouro("run 'Plan the gym week' --mode autonomous --provider script:" +
                      script_file({{{"text", repl_reply("await addSchedule('check the gym timetable', {every: '1d'});\n"
                                                        "await remember('The gym opens at 6');\nsetFinal('planned')")}}}));
  ASSERT_EQ(first.code, 0) << first.err;
  std::string id = first.err.substr(first.err.find("ouro run --continue ") + 20, 11);
  json jobs = json_of("schedule list --json");
  ASSERT_EQ(jobs.size(), 1u);
  std::string trace = dir + "/trace.jsonl";
  Exited second = ouro("run 'Add the classes' --continue " + id + " --mode autonomous --save-script gym --trace " + trace + " --provider script:" +
                       script_file({{{"text", repl_reply("const [job] = await listSchedules();\n"
                                                         "await changeSchedule(job.id, {every: '2h'});\n"
                                                         "await remember('Yoga is on Tuesdays');\n"
                                                         "await remember('The pool closes in August');\n"
                                                         "await addGoal('Book a yoga class');\n"
                                                         "setFinal('classes noted')")}}}));
  ASSERT_EQ(second.code, 0) << second.err;
  ASSERT_NE(texts().find("Yoga is on Tuesdays"), std::string::npos);
  EXPECT_EQ(json_of("schedule list --json")[0]["timing"].value("text", ""), "2h");
  // The run heard each change as an event.
  std::ifstream lines(trace);
  std::string line, types;
  while (std::getline(lines, line))
    if (auto e = parse_json(line)) types += (*e).value("type", "") + " ";
  EXPECT_NE(types.find("memory_stored"), std::string::npos) << types;
  EXPECT_NE(types.find("scheduler_changed"), std::string::npos) << types;

  Exited undone = ouro("undo " + id + " --json");
  ASSERT_EQ(undone.code, 0) << undone.err;
  json u = parse_json(undone.out).value_or(json());
  EXPECT_EQ(u["undone"], 2) << undone.out;
  std::string kinds;
  for (const auto& c : u["changes"]) kinds += c.value("kind", "") + " ";
  EXPECT_NE(kinds.find("schedule"), std::string::npos) << kinds;
  EXPECT_NE(kinds.find("script"), std::string::npos) << kinds;
  EXPECT_NE(kinds.find("goals"), std::string::npos) << kinds;
  EXPECT_NE(u.value("note", "").find("stays sent"), std::string::npos);
  std::string after_undo = texts();
  EXPECT_EQ(after_undo.find("Yoga is on Tuesdays"), std::string::npos) << after_undo;
  EXPECT_EQ(after_undo.find("The pool closes"), std::string::npos);
  EXPECT_EQ(after_undo.find("Add the classes"), std::string::npos) << "the turn's own note goes too";
  EXPECT_NE(after_undo.find("The gym opens at 6"), std::string::npos) << "the first turn's stays";
  EXPECT_NE(after_undo.find("Plan the gym week"), std::string::npos);
  EXPECT_EQ(json_of("schedule list --json")[0]["timing"].value("text", ""), "1d");
  EXPECT_NE(ouro("script list").out.find("no scripts yet"), std::string::npos);

  Exited redone = ouro("redo");
  ASSERT_EQ(redone.code, 0) << redone.err;
  EXPECT_NE(redone.out.find("Redid turn 2 of run " + id), std::string::npos) << redone.out;
  EXPECT_NE(texts().find("Yoga is on Tuesdays"), std::string::npos);
  EXPECT_EQ(json_of("schedule list --json")[0]["timing"].value("text", ""), "2h");
  EXPECT_NE(ouro("script list").out.find("gym"), std::string::npos);
  Exited nothing = ouro("redo " + id);
  EXPECT_EQ(nothing.code, 1);
  EXPECT_NE(nothing.err.find("nothing to redo"), std::string::npos) << nothing.err;
}

TEST_P(CliUndo, CarefulModeAsksBeforeARunLeavesASchedule) {
  Exited r = ouro("run 'Check it every hour' --provider script:" +
                  script_file({{{"text", repl_reply("try { await addSchedule('check it', {every: '1h'}); setFinal('added') } "
                                                    "catch (e) { setFinal(String(e.message || e)) }")}}}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("denied by the user"), std::string::npos) << r.out;
  EXPECT_TRUE(json_of("schedule list --json").empty());
}

TEST_P(CliUndo, RecallFindsAParaphraseWithAnEmbeddingsModelAndSaysWhenItHasNone) {
  EmbeddingsServer model;
  const std::string config = dir + "/config.json";
  std::ofstream(config) << dump_json(json{{"embeddings", {{"provider", model.base_url()}, {"model", "concepts-64"}}}});
  const std::string code =
      "await remember(\"Mother's birthday is on 12 March\");\n"
      "const found = await recall('when was mom born');\n"
      "setFinal(found.length ? found[0].ranking + ': ' + found[0].text : 'nothing')";
  Exited by_meaning = ouro_shell(dir, "run 'When was mom born?' --no-remember --provider script:" + script_file({{{"text", repl_reply(code)}}}), "",
                                 env + " OURO_CONFIG=" + config);
  ASSERT_EQ(by_meaning.code, 0) << by_meaning.err;
  EXPECT_EQ(by_meaning.out, "hybrid: Mother's birthday is on 12 March\n");
  // What went to the model: the note and the query, nothing else of the run.
  bool saw_query = false;
  for (const auto& in : model.inputs()) saw_query = saw_query || in == "when was mom born";
  EXPECT_TRUE(saw_query);
  // Without the model: words only, and the terminal says why.
  Exited by_words = ouro("memory search 'when was mom born'");
  EXPECT_EQ(by_words.code, 0) << by_words.err;
  EXPECT_NE(by_words.err.find("ranked by words only (BM25): no embeddings provider is configured"), std::string::npos) << by_words.err;
  EXPECT_NE(by_words.err.find("nothing remembered shares words"), std::string::npos);
  Exited with_model = ouro_shell(dir, "memory search 'when was mom born'", "", env + " OURO_CONFIG=" + config);
  EXPECT_NE(with_model.err.find("ranked by meaning and words (hybrid)"), std::string::npos) << with_model.err;
  EXPECT_NE(with_model.out.find("Mother's birthday"), std::string::npos) << with_model.out;
}

INSTANTIATE_TEST_SUITE_P(Engines, CliUndo, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), engine_test_name);

}  // namespace
}  // namespace ouro::testing
