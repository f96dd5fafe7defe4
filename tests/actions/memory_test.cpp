// remember() and recall() as the registry declares them and as they act on a database, without a
// browser (the prompt section the context builder makes of them is tested in agent/context_test).
#include "actions/impl.h"
#include "actions/registry.h"
#include "store/database.h"

#include <gtest/gtest.h>

namespace ouro::actions {
namespace {

std::unique_ptr<store::Database> open_db() {
  auto db = store::Database::open(":memory:");
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

TEST(MemoryCapabilities, AreDeclaredOnceForTheReplTheReferenceAndTheChecks) {
  for (const char* name : {"remember", "recall", "forget"}) {
    const Capability* c = find(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->where, Where::Host);
    EXPECT_EQ(c->risk, Risk::Local) << "like store(): ouro's own database, nothing on a page";
    EXPECT_EQ(c->permission, Permission::Auto);
    EXPECT_TRUE(c->impl);
  }
  auto names = host_function_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "recall"), names.end()) << "the worker binds it";
  std::string ref = reference_text();
  EXPECT_NE(ref.find("await remember(text, options?: { tags?: string[], key?: string }) → number"), std::string::npos) << ref;
  EXPECT_NE(ref.find("await recall(query, options?: { topK?: integer, tag?: string }) → Array<{ id, text, tags, key, kind, sources, score, ranking: 'hybrid'|'bm25' }>"),
            std::string::npos);
  EXPECT_NE(ref.find("await forget(idOrKey) → true"), std::string::npos) << ref;
  EXPECT_NE(reference_markdown().find("| `recall(query, options?"), std::string::npos);
}

TEST(MemoryCapabilities, ArgumentsAreCheckedFromTheDeclaration) {
  const Capability& remember = *find("remember");
  const Capability& recall = *find("recall");
  EXPECT_TRUE(check_args(remember, json::array({"a note"})));
  EXPECT_TRUE(check_args(remember, json::array({"a note", {{"tags", {"a", "b"}}}})));
  auto r = check_args(remember, json::array());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "remember(text, options?): text is missing");
  r = check_args(remember, json::array({42}));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("text must be a string"), std::string::npos) << r.error().message;
  r = check_args(remember, json::array({"x", {{"tags", "one"}}}));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("options.tags"), std::string::npos) << r.error().message;
  r = check_args(remember, json::array({"x", {{"tags", {1}}}}));
  ASSERT_FALSE(r) << "tags are strings";
  EXPECT_TRUE(check_args(recall, json::array({"lisbon", {{"topK", 3}, {"tag", "flights"}}})));
  r = check_args(recall, json::array({"x", {{"topK", 0}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "recall: options.topK must be a whole number from 1 to 50, got number 0");
  EXPECT_FALSE(check_args(recall, json::array({"x", {{"topK", 2.5}}})));
  EXPECT_FALSE(check_args(recall, json::array({"x", {{"tag", 3}}})));
}

TEST(MemoryCapabilities, RememberThenRecallWithTagsAndTheRunThatWroteIt) {
  auto db = open_db();
  auto id = impl::memory_remember(db.get(), "run rabc123", json::array({"The cheapest flight to Lisbon is 89 EUR", {{"tags", {"flights", "lisbon"}}}}));
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(impl::memory_remember(db.get(), "session 3", json::array({"Ada prefers window seats"})));
  auto found = impl::memory_recall(db.get(), json::array({"flights to Lisbon"}));
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 1u) << found->dump();
  const json& e = (*found)[0];
  EXPECT_EQ(e["id"], *id);
  EXPECT_EQ(e["text"], "The cheapest flight to Lisbon is 89 EUR");
  EXPECT_EQ(e["tags"], json({"flights", "lisbon"}));
  EXPECT_GT(e["score"].get<double>(), 0);
  EXPECT_EQ(e["source_run"], "rabc123");
  EXPECT_EQ(e["kind"], "user");
  // The one JSON shape of an entry: times in milliseconds since the epoch, as the API's.
  EXPECT_GT(e["created_at"].get<int64_t>(), int64_t(1'700'000'000'000)) << e["created_at"];
  EXPECT_EQ(e["created_at"], e["updated_at"]);
  auto by_tag = impl::memory_recall(db.get(), json::array({"seats lisbon", {{"tag", "flights"}}}));
  ASSERT_TRUE(by_tag);
  ASSERT_EQ(by_tag->size(), 1u);
  EXPECT_EQ((*by_tag)[0]["id"], *id);
  auto person = impl::memory_recall(db.get(), json::array({"window seats"}));
  ASSERT_TRUE(person);
  ASSERT_EQ(person->size(), 1u);
  EXPECT_TRUE((*person)[0]["source_run"].is_null()) << "a person's session is no run";
  auto top1 = impl::memory_recall(db.get(), json::array({"lisbon seats", {{"topK", 1}}}));
  ASSERT_TRUE(top1);
  EXPECT_EQ(top1->size(), 1u);
}

TEST(MemoryCapabilities, HostileInputsGiveClearErrorsOrNothing) {
  auto db = open_db();
  auto big = impl::memory_remember(db.get(), "", json::array({std::string(100000, 'x')}));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, Code::InvalidArgument);
  EXPECT_EQ(big.error().message.rfind("remember: the text is 100000 bytes; at most 8192", 0), 0u) << big.error().message;
  auto empty = impl::memory_remember(db.get(), "", json::array({"   \n "}));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "remember: nothing to remember (the text is empty)");
  auto tags = impl::memory_remember(db.get(), "", json::array({"x", {{"tags", std::vector<std::string>(20, "t")}}}));
  ASSERT_FALSE(tags);
  EXPECT_NE(tags.error().message.find("at most 16"), std::string::npos) << tags.error().message;
  ASSERT_TRUE(impl::memory_remember(db.get(), "", json::array({"quotes \" and NEAR(a b) * ^ : - OR"})));
  for (const std::string& q : std::vector<std::string>{"", "\"", "*", "NEAR(", "a OR", ")(", "^:-", std::string("\0\xff\xfe", 3), std::string(100000, 'q'), "🙂🙂"}) {
    auto r = impl::memory_recall(db.get(), json::array({q}));
    ASSERT_TRUE(r) << "query of " << q.size() << " bytes: " << r.error().message;
  }
  auto near = impl::memory_recall(db.get(), json::array({"NEAR quotes"}));
  ASSERT_TRUE(near);
  EXPECT_EQ(near->size(), 1u) << "operators are words like any other";
  auto none = impl::memory_recall(nullptr, json::array({"x"}));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::FailedPrecondition);
  EXPECT_FALSE(impl::memory_remember(nullptr, "", json::array({"x"})));
}

}  // namespace
}  // namespace ouro::actions
