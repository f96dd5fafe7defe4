// The planners by kind of step (choices, fields, navigation, clicks), through the sentence parser:
// the readings plans.json and sentence_test.cpp do not already pin — menu paths, several lists,
// spinners, ratings, filters, consent, toggles, pairs of fields and values, casing, log in, find,
// row actions — and what the planners do with empty, ambiguous and non-ASCII text.
#include "commands/sentence.h"
#include "plan_lines.h"

#include <gtest/gtest.h>

namespace ouro::commands {
namespace {

using testing::L;
using testing::plan_of;

bool has_note(const ParsedRequest& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// Choices.

TEST(SentenceChoices, AMenuPathIsHoveredThroughAndItsLastItemClicked) {
  auto r = parse_request("Select File > Export > PDF");
  EXPECT_EQ(plan_of("Select File > Export > PDF"), (L{"hover \"File\"", "hover \"Export\"", "click \"PDF\""}));
  EXPECT_TRUE(has_note(r, "menu path")) << to_json(r).dump();
  ASSERT_EQ(r.plan.size(), 3u);
  EXPECT_TRUE(r.plan[0].target.exact);
  EXPECT_EQ(r.plan[2].target.name, "PDF");
}

TEST(SentenceChoices, TooLongAMenuPathOrAQuotedOneIsOneValue) {
  // Nine steps are not a menu anyone walks: one value, not nine hovers.
  EXPECT_EQ(plan_of("Select a>b>c>d>e>f>g>h>i"), (L{"choose \"a>b>c>d>e>f>g>h>i\""}));
  // A quoted ">" is part of the option's text.
  EXPECT_EQ(plan_of("Select \"Size > Large\""), (L{"choose \"Size > Large\""}));
}

TEST(SentenceChoices, EachValueFromItsOwnList) {
  auto r = parse_request("Select Medium from the Size list and Blue from the Colour list");
  EXPECT_EQ(plan_of("Select Medium from the Size list and Blue from the Colour list"),
            (L{"select \"Medium\" from the Size list", "select \"Blue\" from the Colour list"}));
  EXPECT_TRUE(has_note(r, "2 choices")) << to_json(r).dump();
  EXPECT_EQ(r.intent, "choose");
  EXPECT_EQ(r.constraints["choices"], json::array({"Medium", "Blue"}));
}

TEST(SentenceChoices, SeveralValuesFromOneListAreOneSelection) {
  auto r = parse_request("Select Red and Blue from the Colours list");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Select);
  EXPECT_EQ(r.plan[0].fields, (L{"Red", "Blue"}));
  EXPECT_EQ(to_line(r.plan[0]), "select \"Red\", \"Blue\" from the Colours list");
}

TEST(SentenceChoices, AnOrdinalFromAListIsItsPosition) {
  EXPECT_EQ(plan_of("Select the third option from the dropdown"), (L{"select \"#3\" from the dropdown"}));
  // "the option X" names X.
  EXPECT_EQ(plan_of("Choose the option Large from the Size dropdown"), (L{"select \"Large\" from the Size dropdown"}));
  // Without a list: the nth control of that kind is clicked.
  auto r = parse_request("Select the second radio button");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Click);
  EXPECT_EQ(r.plan[0].target.ordinal, 2);
  EXPECT_EQ(r.plan[0].target.roles, L{"radio"});
}

TEST(SentenceChoices, AValueForASliderIsTyped) {
  auto r = parse_request("Select 40 on the slider");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "type \"40\" into the slider");
  EXPECT_TRUE(r.plan[0].or_select);
  EXPECT_EQ(r.plan[0].target.roles, L{"slider"});
}

TEST(SentenceChoices, KindWordsAroundAValueAreNotItsName) {
  EXPECT_EQ(plan_of("Choose the Blue checkbox"), (L{"choose \"Blue\""}));
  // Non-ASCII values keep their bytes and their case.
  EXPECT_EQ(plan_of("Select Crème brûlée from the Dessert list"), (L{"select \"Crème brûlée\" from the Dessert list"}));
}

TEST(SentenceChoices, TheBoxNextToSomeWordsSharesTheirRow) {
  for (const char* text : {"Tick the box next to Partner offers", "Tick the box next to \"Partner offers\""}) {
    auto r = parse_request(text);
    ASSERT_EQ(r.plan.size(), 1u) << text << ": " << to_json(r).dump();
    EXPECT_EQ(r.plan[0].verb, Verb::Check) << text;
    EXPECT_EQ(r.plan[0].target.near, "Partner offers") << text;
    EXPECT_EQ(r.plan[0].target.roles, L{"checkbox"}) << text;
  }
}

TEST(SentenceChoices, ABoxToTickIsACheckbox) {
  auto r = parse_request("Tick the Terms box");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "check the Terms box");
  EXPECT_EQ(r.plan[0].target.roles, L{"checkbox"});
  EXPECT_EQ(r.plan[0].target.name, "Terms");
}

TEST(SentenceChoices, RatingsInWordsAndNumbers) {
  EXPECT_EQ(plan_of("Give it one star"), (L{"choose \"1 star\""}));
  EXPECT_EQ(plan_of("Rate the product 5 out of 5"), (L{"choose \"5 stars\""}));
  EXPECT_EQ(plan_of("Rate this 4/5"), (L{"choose \"4 stars\""}));
  // "give" that is not a rating is not guessed at.
  auto r = parse_request("Give me a discount");
  EXPECT_TRUE(r.plan.empty()) << to_json(r).dump();
  EXPECT_EQ(r.not_understood, L{"Give me a discount"});
}

TEST(SentenceChoices, AQuotedFilterValueKeepsItsAmpersand) {
  EXPECT_EQ(plan_of("Filter the results to \"Red & Blue\""), (L{"choose \"Red & Blue\""}));
  // Nothing to filter by is not understood, not an empty choice.
  EXPECT_EQ(plan_of("Filter"), (L{"?? Filter"}));
}

TEST(SentenceChoices, AcceptingTermsTicksTheirBoxOrClicksTheControl) {
  auto r = parse_request("Accept the terms");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Check);
  EXPECT_TRUE(r.plan[0].or_click);
  EXPECT_EQ(r.plan[0].target.roles, L{"checkbox"});
  EXPECT_EQ(r.plan[0].target.name, "terms");
  r = parse_request("Agree to the privacy policy");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Check);
  EXPECT_EQ(r.plan[0].target.name, "privacy policy");
  // "Accept" alone is the control that says so.
  EXPECT_EQ(plan_of("Accept"), (L{"click accept"}));
}

TEST(SentenceChoices, TurningThingsOnAndOff) {
  EXPECT_EQ(plan_of("Turn on dark mode"), (L{"check dark mode"}));
  EXPECT_EQ(plan_of("Turn dark mode on"), (L{"check dark mode"}));
  EXPECT_EQ(plan_of("Switch notifications off"), (L{"uncheck notifications"}));
  // On or off of nothing is not a step.
  EXPECT_EQ(plan_of("Turn on"), (L{"?? Turn on"}));
}

TEST(SentenceChoices, MovingToANameIsATab) {
  auto r = parse_request("Move to Settings");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "click Settings");
  EXPECT_EQ(r.plan[0].target.roles, L{"tab"});
}

TEST(SentenceChoices, ShowingAndHidingSections) {
  // "options" here names the control that shows them, not an option to choose.
  auto r = parse_request("Show advanced options");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Expand);
  EXPECT_EQ(r.plan[0].target.name, "advanced options");
  EXPECT_TRUE(r.plan[0].target.roles.empty());
  EXPECT_EQ(plan_of("Hide the sidebar"), (L{"collapse the sidebar"}));
  EXPECT_EQ(plan_of("Show"), (L{"expand the section"}));
  // Every section at once is no step: a target in a closed one is shown when needed.
  r = parse_request("Expand all the sections, then click Save");
  EXPECT_EQ(plan_of("Expand all the sections, then click Save"), (L{"click Save"}));
  EXPECT_TRUE(has_note(r, "closed section")) << to_json(r).dump();
}

// Fields.

TEST(SentenceFields, SetKeepsAValueWithAndInItWhole) {
  EXPECT_EQ(plan_of("Set the guests to Bob and Alice"), (L{"type \"Bob and Alice\" into the guests"}));
  EXPECT_EQ(plan_of("Set the number of guests to 4"), (L{"type \"4\" into guests"}));
}

TEST(SentenceFields, QuotesProtectTheWordToInSet) {
  auto r = parse_request("Set \"Sort by\" to \"Price: low to high\"");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].text, "Price: low to high");
  EXPECT_EQ(r.plan[0].target.name, "Sort by");
  EXPECT_TRUE(r.plan[0].target.exact);
  EXPECT_TRUE(r.plan[0].or_select);
}

TEST(SentenceFields, ValuesEachAsAField) {
  auto r = parse_request("Enter \"Ada\" as the first name, \"Lovelace\" as the last name and \"x@y.z\" as the e-mail");
  EXPECT_EQ(plan_of("Enter \"Ada\" as the first name, \"Lovelace\" as the last name and \"x@y.z\" as the e-mail"),
            (L{"type \"Ada\" into the first name", "type \"Lovelace\" into the last name", "type \"x@y.z\" into the e-mail"}));
  EXPECT_TRUE(has_note(r, "3 value/field pairs")) << to_json(r).dump();
  EXPECT_EQ(r.intent, "fill_form");
  EXPECT_EQ(r.constraints["values"], json::array({"Ada", "Lovelace", "x@y.z"}));
}

TEST(SentenceFields, FieldsNamedBeforeAColon) {
  EXPECT_EQ(plan_of("Fill in Zip code: \"69001\" and City: \"Lyon\""), (L{"type \"69001\" into Zip code", "type \"Lyon\" into City"}));
}

TEST(SentenceFields, AnUnquotedValueAfterWith) {
  EXPECT_EQ(plan_of("Fill the Email field with a@b.c"), (L{"type \"a@b.c\" into the Email field"}));
}

TEST(SentenceFields, TextInTheCaseAskedFor) {
  EXPECT_EQ(plan_of("Enter \"Hello World\" into the Name field in all lower case letters, then press Enter"),
            (L{"type \"hello world\" into the Name field", "press Enter"}));
  EXPECT_EQ(plan_of("Type \"abc\" in uppercase, then press Tab"), (L{"type \"ABC\"", "press Tab"}));
  // ASCII letters change case; other characters keep theirs and stay whole.
  auto r = parse_request("Type \"ÉCOLE Ünï\" in lower case, then press Enter");
  ASSERT_FALSE(r.plan.empty()) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].text, "École Ünï");
}

TEST(SentenceFields, ASecretHandleIsNeverAValue) {
  auto r = parse_request("Type secret(\"api-key\") in the API key box and click Save");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].secret, "api-key");
  EXPECT_TRUE(r.plan[0].text.empty());
  EXPECT_EQ(to_line(r.plan[0]), "type secret:api-key into the API key box");
  EXPECT_EQ(r.constraints["values"], json::array({json{{"secret", "api-key"}}}));
}

TEST(SentenceFields, ClearingABoxUnticksIt) {
  EXPECT_EQ(plan_of("Clear the Remember me box and click Save"), (L{"uncheck the Remember me box", "click Save"}));
  // A search or text box is emptied.
  EXPECT_EQ(plan_of("Clear the search box and click Go"), (L{"clear the search box", "click Go"}));
}

TEST(SentenceFields, FocusWithoutATargetIsTheTextField) {
  auto r = parse_request("Focus");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "focus the text field");
  EXPECT_EQ(r.plan[0].target.roles, L{"textbox"});
}

TEST(SentenceFields, UsingASearchBarToSearch) {
  EXPECT_EQ(plan_of("Use the search bar to search for shoes"), (L{"type \"shoes\" into the search bar"}));
}

// Navigation, search and reading.

TEST(SentenceNavigation, OpeningWhatIsNotAUrlIsAClick) {
  EXPECT_EQ(plan_of("Open the Settings tab"), (L{"click the Settings tab"}));
}

TEST(SentenceNavigation, ThePreviousPageIsBack) {
  EXPECT_EQ(plan_of("Go back to the previous page"), (L{"back"}));
  EXPECT_EQ(plan_of("Go to the previous page"), (L{"back"}));
  EXPECT_EQ(plan_of("Return to the previous page"), (L{"back"}));
  // "return" of something else is not navigation.
  EXPECT_EQ(plan_of("Return the book"), (L{"?? Return the book"}));
}

TEST(SentenceNavigation, SearchFormsPartsAreOfferedWhenThereAreSeveral) {
  auto r = parse_request("Search for comedy movies directed by George Lucas from year 1994");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].text, "comedy movies directed by George Lucas from year 1994");
  EXPECT_EQ(r.plan[0].fields, (L{"Genre=comedy", "Director=George Lucas", "Year=1994"}));
  EXPECT_EQ(to_line(r.plan[1]), "press Enter");
  // Quoted text is searched as it is, without parts.
  r = parse_request("Search for \"comedy movies from 1994\"");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_TRUE(r.plan[0].fields.empty());
  // One part alone is no form to fill.
  r = parse_request("Search for jazz albums");
  ASSERT_FALSE(r.plan.empty());
  EXPECT_TRUE(r.plan[0].fields.empty());
}

TEST(SentenceNavigation, SearchDropsWhereAndNeedsWhat) {
  EXPECT_EQ(plan_of("Search for shoes on this site"), (L{"type \"shoes\" into the search box", "press Enter"}));
  EXPECT_EQ(plan_of("Search"), (L{"?? Search"}));
}

TEST(SentenceNavigation, LogInWithAUserAndAPassword) {
  EXPECT_EQ(plan_of("Log in as \"ada\" with password \"pw\""),
            (L{"type \"ada\" into the username field", "type \"pw\" into the password field", "click log in"}));
  EXPECT_EQ(plan_of("Log in with username \"a\" and password \"b\""), (L{"type \"a\" into username", "type \"b\" into password", "click log in"}));
  auto r = parse_request("Log in as \"ada\" with password \"pw\"");
  ASSERT_EQ(r.plan.size(), 3u);
  EXPECT_EQ(r.plan[2].target.roles, L{"button"});
  EXPECT_EQ(r.intent, "fill_form");
  EXPECT_EQ(plan_of("Sign in"), (L{"click sign in"}));
}

// Leaving, or making an account, is its own control: never the sign-in one.
TEST(SentenceNavigation, LogOutAndSignUpClickTheirOwnControls) {
  EXPECT_EQ(plan_of("Log out"), (L{"click log out"}));
  EXPECT_EQ(plan_of("Sign out"), (L{"click sign out"}));
  EXPECT_EQ(plan_of("Sign up"), (L{"click sign up"}));
  EXPECT_EQ(plan_of("Sign off"), (L{"click sign off"}));
}

// A preposition with nothing after it is not a target or a query.
TEST(SentenceNavigation, APrepositionAloneIsNotWhatToTypeOrClick) {
  for (const char* s : {"Search for", "Go to"}) {
    auto plan = plan_of(s);
    for (const auto& line : plan) {
      EXPECT_EQ(line.find("\"for\""), std::string::npos) << s << ": " << line;
      EXPECT_NE(line, "click to") << s;
    }
  }
}

TEST(SentenceNavigation, FindingOneNamedControlWaitsForIt) {
  auto r = parse_request("Find the link \"elit\"");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Wait);
  EXPECT_EQ(r.plan[0].target.name, "elit");
  // Finding a value on the page is reading it.
  r = parse_request("Find the price of the first item");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Extract);
  EXPECT_EQ(r.intent, "extract");
  // "locate" of what is not one control is not understood.
  EXPECT_EQ(plan_of("Locate the weather"), (L{"?? Locate the weather"}));
}

TEST(SentenceNavigation, ListingIsExtracting) {
  auto r = parse_request("List the prices");
  EXPECT_EQ(plan_of("List the prices"), (L{"extract the prices"}));
  EXPECT_EQ(r.intent, "extract");
}

// Clicks.

TEST(SentenceClicks, ThePurposeOfAClickIsNotItsTarget) {
  auto r = parse_request("Click the Save button to save your changes, then press Enter");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.name, "Save");
  EXPECT_EQ(r.plan[0].target.roles, L{"button"});
  r = parse_request("Click the trash icon in order to delete it, then click OK");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "click the trash icon");
  // Inside quotes the words are the name.
  r = parse_request("Click \"Go to see the results\", then press Enter");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.name, "Go to see the results");
}

TEST(SentenceClicks, SeveralClearlyNamedTargetsAreSeveralClicks) {
  EXPECT_EQ(plan_of("Click the OK button and the Apply button"), (L{"click the OK button", "click the Apply button"}));
  // Words joined by "and" that name nothing clearly are one name.
  EXPECT_EQ(plan_of("Click Salt and Pepper"), (L{"click Salt and Pepper"}));
}

TEST(SentenceClicks, AKeyNamedWithKeyIsPressed) {
  EXPECT_EQ(plan_of("Hit the Esc key and click Done"), (L{"press Escape", "click Done"}));
}

TEST(SentenceClicks, DoubleClickInASentence) {
  auto r = parse_request("Double-click the report file, then press Delete");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::DoubleClick);
  EXPECT_EQ(to_line(r.plan[1]), "press Delete");
}

TEST(SentenceClicks, AddingAnItemToAListIsItsButtonInItsCard) {
  auto r = parse_request("Save Blue Mug to my wishlist");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.near, "Blue Mug");
  EXPECT_EQ(r.plan[0].target.name, "save to wishlist");
  // "it" is no item: the control's name is the verb and what follows.
  r = parse_request("Add it to the cart");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_TRUE(r.plan[0].target.near.empty());
  EXPECT_EQ(r.plan[0].target.name, "add to cart");
}

TEST(SentenceClicks, RowActionsActInTheRowNamed) {
  auto r = parse_request("Delete the row for Carol");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Click);
  EXPECT_EQ(r.plan[0].target.name, "delete");
  EXPECT_EQ(r.plan[0].target.near, "Carol");
  r = parse_request("Edit \"Invoice 7\"");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.near, "Invoice 7");
  // "it" names no row.
  r = parse_request("Delete it");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_TRUE(r.plan[0].target.near.empty());
  EXPECT_EQ(r.plan[0].target.name, "delete");
}

TEST(SentenceClicks, AVerbThatNamesItsControl) {
  EXPECT_EQ(plan_of("Save it now"), (L{"click save"}));
  EXPECT_EQ(plan_of("Confirm the order"), (L{"click the order"}));
  EXPECT_EQ(plan_of("Confirm"), (L{"submit"}));
}

TEST(SentenceClicks, ClosingIsTheCloseControlInItsPlace) {
  auto r = parse_request("Close the dialog");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.name, "close");
  EXPECT_EQ(r.plan[0].target.within, "dialog");
  r = parse_request("Dismiss the popup");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.within, "dialog");
  r = parse_request("Close the cookie banner");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.name, "close");
  EXPECT_TRUE(r.plan[0].target.within.empty());
}

TEST(SentenceClicks, ByMeansOfSelecting) {
  EXPECT_EQ(plan_of("Choose the size by selecting Large from the Size list"), (L{"select \"Large\" from the Size list"}));
}

}  // namespace
// One clause that reads as a command still has what the planners read taken out of it: the
// purpose, the means, the casing, the kind of box; a command-language line reads as itself.
TEST(SentenceAsCommand, APurposeMeansOrCasingIsReadOutOfAOneClauseSentence) {
  EXPECT_EQ(plan_of("Click the Save button to save your changes"), (L{"click the Save button"}));
  EXPECT_EQ(plan_of("Submit the form by pressing Enter"), (L{"press Enter"}));
  EXPECT_EQ(plan_of("Enter \"Hello World\" into the Name field in all lower case letters"), (L{"type \"hello world\" into the Name field"}));
  EXPECT_EQ(plan_of("Clear the Remember me box"), (L{"uncheck the Remember me box"}));
  EXPECT_TRUE(parse_request("Expand all the sections").plan.empty()) << "a closed section is opened when a target is in it";
  for (const char* line : {"click Save", "click \"Save\"", "click e12", "type \"x\" into #name", "press Enter", "navigate https://example.com",
                           "select \"Red\" from the Colour list", "check the Terms box", "clear the search box", "wait 2s", "click [data-id=3]",
                           "type secret:pw into the password field", "click the 2nd result"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c) << line;
    EXPECT_EQ(plan_of(line), (L{to_line(*c)})) << line;
  }
  EXPECT_EQ(plan_of("click Next three times"), (L{"click Next", "click Next", "click Next"}));
  // A page's tool is a kind of target only the command language makes: kept.
  auto tool = parse_request("type \"ink\" into the page's search_products tool");
  auto literal = parse_command("type \"ink\" into the page's search_products tool");
  ASSERT_TRUE(literal);
  ASSERT_EQ(tool.plan.size(), 1u);
  EXPECT_EQ(to_json(tool.plan[0]), to_json(*literal)) << "the command as the command language reads it";
  auto use = parse_request("use the page's search_products tool with \"ink\"");
  ASSERT_EQ(use.plan.size(), 1u);
  EXPECT_EQ(use.plan[0].verb, Verb::UseTool) << to_line(use.plan[0]);
}

}  // namespace ouro::commands
