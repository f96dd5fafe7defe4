// The planner of steps that put text into fields (commands/sentence_fields.cpp), through the
// sentence parser: changing a value, value/field pairs in the case asked for, a typing verb with
// nothing to type, and quoted text, which is the person's own and is typed as written. The
// readings sentence_parts_test.cpp and plans.json pin are not repeated.
#include "commands/sentence.h"
#include "plan_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::commands {
namespace {

using testing::L;
using testing::plan_of;

TEST(FieldPlans, ChangingAValueIsTypingItIntoThatFieldOrChoosingItInItsList) {
  auto r = parse_request("Change the quantity to 3");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "type \"3\" into the quantity");
  EXPECT_TRUE(r.plan[0].or_select) << "a list takes the value as its option";
  EXPECT_EQ(r.plan[0].target.name, "quantity");
  EXPECT_EQ(plan_of("Change the Country to \"New Zealand\""), (L{"type \"New Zealand\" into the Country"}));
}

TEST(FieldPlans, ValuesEachAsAFieldInTheCaseAskedFor) {
  auto r = parse_request("Enter \"ADA\" as the first name and \"LOVELACE\" as the last name in lower case");
  EXPECT_EQ(plan_of("Enter \"ADA\" as the first name and \"LOVELACE\" as the last name in lower case"),
            (L{"type \"ada\" into the first name", "type \"lovelace\" into the last name"}));
  EXPECT_EQ(r.constraints["values"], json::array({"ada", "lovelace"}));
}

TEST(FieldPlans, ATypingVerbWithNothingToTypeIsNotUnderstood) {
  EXPECT_EQ(plan_of("Type"), (L{"?? Type"}));
  EXPECT_EQ(plan_of("Fill in"), (L{"?? Fill in"}));
}

// The casing phrases ("in small", "in lower case", "in capitals") are read outside quotes only: a
// quoted value that contains one keeps those words and its case. Quoted text is the person's own
// (commands/sentence.h).
TEST(FieldPlans, WordsInsideAQuotedValueAreTypedAsWritten) {
  EXPECT_EQ(plan_of("Type \"Meet in small groups\" into the message box"), (L{"type \"Meet in small groups\" into the message box"}));
}

// A secret handle is read outside quotes only: quoted text that holds "secret:NAME" is typed as
// those words, never the stored secret NAME, as the command language itself reads the same line.
TEST(FieldPlans, AQuotedTextThatMentionsASecretIsText) {
  auto r = parse_request("Type \"my secret:plan\" into the Notes field");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_TRUE(r.plan[0].secret.empty()) << to_line(r.plan[0]);
  EXPECT_EQ(r.plan[0].text, "my secret:plan") << to_line(r.plan[0]);
}

// "clear … box" unticks a checkbox only when "box" is a word of its own: a text field whose name
// holds it ("mailbox", "inbox", "sandbox") is emptied.
TEST(FieldPlans, ClearingAFieldWhoseNameHoldsBoxEmptiesIt) {
  EXPECT_EQ(plan_of("Clear the mailbox name field"), (L{"clear the mailbox name field"}));
}

}  // namespace
}  // namespace ouro::commands
