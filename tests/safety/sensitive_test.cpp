// The first safety layer: which actions on which elements are asked about (safety/sensitive.h).
#include "safety/sensitive.h"

#include <gtest/gtest.h>

namespace ouro::safety {
namespace {

TEST(Sensitive, SubmitPaymentPasswordAndDangerousLabels) {
  json plain_button = {{"tag", "button"}, {"type", "submit"}, {"text", "Go"}, {"inForm", false}};
  EXPECT_FALSE(sensitive_reason("click", plain_button)) << "a button outside a form submits nothing";
  json submit = {{"tag", "button"}, {"type", "submit"}, {"text", "Next"}, {"inForm", true}};
  EXPECT_EQ(sensitive_reason("click", submit), "it submits a form");
  EXPECT_EQ(sensitive_reason("click", json{{"tag", "a"}, {"text", "Delete account"}}), "it is labelled \"delete\"");
  EXPECT_EQ(sensitive_reason("click", json{{"tag", "div"}, {"role", "button"}, {"label", "Send message"}}), "it is labelled \"send\"");
  EXPECT_FALSE(sensitive_reason("click", json{{"tag", "a"}, {"text", "Sender details"}})) << "whole words only";
  EXPECT_EQ(sensitive_reason("type", json{{"tag", "input"}, {"type", "password"}}), "it is a password field");
  EXPECT_EQ(sensitive_reason("type", json{{"tag", "input"}, {"autocomplete", "cc-number"}}), "it is a payment field");
  EXPECT_EQ(sensitive_reason("fill", json{{"tag", "input"}, {"name", "cvv"}}), "it is a payment field");
  EXPECT_FALSE(sensitive_reason("type", json{{"tag", "input"}, {"name", "search"}, {"label", "Send to"}})) << "typing a label is harmless";
}

}  // namespace
}  // namespace ouro::safety

namespace ouro::safety {
namespace {

TEST(ApprovalStem, ControlsThatApproveSayWhatTheyDo) {
  auto stem = [](const std::string& text) { return approval_stem(json{{"tag", "button"}, {"text", text}}); };
  EXPECT_EQ(stem("Approve transfer"), "approv");
  EXPECT_EQ(stem("Confirm payment"), "confirm");
  EXPECT_EQ(stem("Authorise"), "authori");
  EXPECT_EQ(stem("Accept the quote"), "accept");
  EXPECT_EQ(stem("Sign"), "sign");
  EXPECT_EQ(stem("Sign in"), std::nullopt);
  EXPECT_EQ(stem("Sign up now"), std::nullopt);
  EXPECT_EQ(stem("Accept all cookies"), std::nullopt);
  EXPECT_EQ(stem("Confirmations history"), std::nullopt) << "whole words only";
  EXPECT_EQ(stem("Send transfer"), std::nullopt);
  EXPECT_EQ(approval_stem(json("Approve")), std::nullopt) << "not a target";
}

}  // namespace
}  // namespace ouro::safety
