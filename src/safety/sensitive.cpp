#include "safety/sensitive.h"

#include <algorithm>
#include <cctype>

namespace ouro::safety {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Whole-word match of any word in `words` inside `text` (already lower case).
std::optional<std::string> word_in(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    std::string word(w);
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
      bool start = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
      size_t end = at + word.size();
      bool stop = end >= text.size() || !std::isalpha(static_cast<unsigned char>(text[end]));
      if (start && stop) return word;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> sensitive_reason(const std::string& action, const json& t) {
  if (!t.is_object()) return std::nullopt;
  std::string tag = t.value("tag", ""), type = lower(t.value("type", "")), autocomplete = lower(t.value("autocomplete", ""));
  std::string names = lower(t.value("name", "") + " " + t.value("id", "") + " " + t.value("placeholder", ""));
  std::string words = lower(t.value("text", "") + " " + t.value("label", ""));
  bool in_form = t.value("inForm", false);

  if (type == "password") return "it is a password field";
  if (autocomplete.rfind("cc-", 0) == 0 || word_in(names, {"card", "cardnumber", "cc", "cvv", "cvc", "iban", "expiry", "security code"}))
    return "it is a payment field";
  if (action == "click") {
    bool submit = (tag == "input" && (type == "submit" || type == "image")) || (tag == "button" && type == "submit" && in_form);
    if (submit) return "it submits a form";
  }
  if (action == "click" || action == "select") {
    if (auto w = word_in(words, {"buy", "purchase", "pay", "send", "delete", "remove", "confirm", "transfer", "order", "checkout", "sign",
                                 "submit", "unsubscribe", "publish", "post"}))
      return "it is labelled \"" + *w + "\"";
  }
  return std::nullopt;
}

std::optional<std::string> approval_stem(const json& t) {
  if (!t.is_object()) return std::nullopt;
  std::string words = lower(t.value("text", "") + " " + t.value("label", "") + " " + t.value("value", ""));
  if (words.find("cookie") != std::string::npos) return std::nullopt;
  if (word_in(words, {"approve", "approval", "approved"})) return "approv";
  if (word_in(words, {"confirm", "confirmation", "confirmed"})) return "confirm";
  if (word_in(words, {"authorize", "authorise", "authorization", "authorisation"})) return "authori";
  if (word_in(words, {"accept"})) return "accept";
  if (word_in(words, {"countersign", "e-sign", "esign", "signature"})) return "sign";
  if (word_in(words, {"sign"}) && !word_in(words, {"sign in", "sign up", "sign out", "sign-in", "sign-up", "sign-out"})) return "sign";
  return std::nullopt;
}

}  // namespace ouro::safety
