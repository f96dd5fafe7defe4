// A conversation read back from the database: its turns are the task and the messages that opened
// them, each paired with the answer that ended it; guidance and a turn still going are no turns;
// its env is always an object; a run that is not there is named; run ids are fresh.
#include "runs/conversation.h"

#include "basics.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ouro::runs {
namespace {

class Conversation : public ::testing::Test {
 protected:
  void SetUp() override { db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value()); }
  void add_run(const std::string& id, const std::string& task) {
    store::Database::RunRow row;
    row.id = id;
    row.task = task;
    row.state = State::Done;
    row.created_at = row.updated_at = 1000;
    ASSERT_TRUE(db->insert_run(row));
  }
  void add_event(const std::string& id, const std::string& type, const json& data) {
    ASSERT_TRUE(db->append_event(id, ++seqs[id], type, dump_json(data), 1000));
  }
  std::unique_ptr<store::Database> db;
  std::map<std::string, int64_t> seqs;
};

TEST_F(Conversation, ARunThatIsNotThereIsNamed) {
  auto missing = load_conversation(*db, "rnosuchrun0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  EXPECT_NE(missing.error().message.find("rnosuchrun0"), std::string::npos) << missing.error().message;
  // An id as long as a client cares to send is not echoed whole.
  auto long_id = load_conversation(*db, std::string(5000, 'x'));
  ASSERT_FALSE(long_id);
  EXPECT_EQ(long_id.error().code, Code::NotFound);
  EXPECT_EQ(long_id.error().message.find(std::string(61, 'x')), std::string::npos);
}

TEST_F(Conversation, ARunWithNoEventsYetHasNoTurnAndAnEmptyEnv) {
  add_run("rfresh00001", "find the cheapest tea");
  auto c = load_conversation(*db, "rfresh00001");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->row.task, "find the cheapest tea");
  EXPECT_TRUE(c->turns.empty()) << "no answer yet: the first turn is still going";
  EXPECT_EQ(c->env, "{}");
  EXPECT_EQ(c->last_seq, 0);
}

TEST_F(Conversation, EachTurnIsTheMessageThatOpenedItAndTheAnswerThatEndedIt) {
  const std::string id = "rtalk000001";
  add_run(id, "find the cheapest tea");
  add_event(id, "iteration-start", {{"iteration", 1}});
  add_event(id, "complete", {{"final", "Sencha at 4 EUR"}});
  add_event(id, "user-message", {{"text", "and the dearest?"}, {"turn", 2}});
  add_event(id, "user-message", {{"text", "hurry up"}, {"iteration", 2}, {"guidance", true}});
  add_event(id, "complete", {{"final", {{"name", "Gyokuro"}, {"price", 30}}}});
  add_event(id, "user-message", {{"text", "list them all"}, {"turn", 3}});
  add_event(id, "complete", {{"final", {{"partial", true}, {"message", "ran out of iterations"}}}, {"partial", true}});
  add_event(id, "user-message", {{"text", "thanks, one more"}, {"turn", 4}});  // still going

  auto c = load_conversation(*db, id);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->turns.size(), 3u) << "guidance opens no turn, and a turn without its answer is not one yet";
  EXPECT_EQ(c->turns[0].task, "find the cheapest tea");
  EXPECT_EQ(c->turns[0].result, "Sencha at 4 EUR");
  EXPECT_EQ(c->turns[1].task, "and the dearest?");
  EXPECT_EQ(c->turns[1].result, R"({"name":"Gyokuro","price":30})");
  EXPECT_EQ(c->turns[2].task, "list them all");
  EXPECT_EQ(c->turns[2].result, "(stopped) ran out of iterations");
  EXPECT_EQ(c->last_seq, 8);
}

TEST_F(Conversation, ALongConversationIsReadPastItsFirstPageOfEvents) {
  const std::string id = "rlong000001";
  add_run(id, "watch the queue");
  for (int i = 1; i <= 2100; ++i) add_event(id, "iteration-end", {{"iteration", i}});
  add_event(id, "complete", {{"final", "the queue is empty"}});
  auto c = load_conversation(*db, id);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->turns.size(), 1u);
  EXPECT_EQ(c->turns[0].result, "the queue is empty");
  EXPECT_EQ(c->last_seq, 2101);
}

TEST_F(Conversation, TheEnvItsLastTurnLeftIsAlwaysAnObject) {
  for (const auto& [id, stored, want] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"renvbroken1", "{not json", "{}"},
           {"renvarray01", "[1, 2]", "{}"},
           {"renvstring1", "\"text\"", "{}"},
           {"renvobject1", R"({ "rows" : 3, "names": ["a"] })", R"({"rows":3,"names":["a"]})"},
       }) {
    add_run(id, "count the rows");
    ASSERT_TRUE(db->set_checkpoint(id, stored));
    auto c = load_conversation(*db, id);
    ASSERT_TRUE(c) << id << ": " << c.error().message;
    EXPECT_EQ(c->env, want) << stored;
  }
}

TEST(ConversationText, AnAnswerIsShownAsTextAndLongJsonIsCut) {
  EXPECT_EQ(final_text("plain words"), "plain words");
  const std::string long_words(5000, 'w');
  EXPECT_EQ(final_text(long_words), long_words) << "a string answer is shown whole";
  EXPECT_EQ(final_text(json{{"total", 3}}), R"({"total":3})");
  EXPECT_EQ(final_text(json{{"partial", true}, {"message", "cancelled"}}), "(stopped) cancelled");
  EXPECT_EQ(final_text(json{{"partial", false}, {"message", "fine"}}), R"({"partial":false,"message":"fine"})");
  json big = json::array();
  for (int i = 0; i < 1000; ++i) big.push_back("item");
  std::string shown = final_text(big);
  EXPECT_EQ(shown.size(), 2000u + std::string("…").size());
  EXPECT_EQ(shown.substr(shown.size() - 3), "…");
}

TEST(ConversationText, EachNewRunIdIsFreshAndShapedAlike) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string id = new_run_id();
    ASSERT_EQ(id.size(), 11u) << id;
    EXPECT_EQ(id[0], 'r') << id;
    for (char c : id.substr(1)) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 200u);
}

}  // namespace
}  // namespace ouro::runs
