// askUser: the model's questions to the user, answered through the run's channel (the Command
// Center, the terminal, the API). A secret answer (a one-time code) becomes a handle in the
// session's secret store, typed by type()/fill() on the site it was asked for and never shown.
#include "actions/impl.h"
#include "safety/known_secrets.h"

#include "base/text.h"
#include "browser/browser.h"
#include "safety/secrets.h"
#include "safety/sites.h"

#include <atomic>

namespace ouro::actions::impl {

namespace {
constexpr size_t kMaxQuestion = 2000, kMaxChoices = 20, kMaxChoice = 200, kMaxAnswer = 10000;
}

Result<json> ask_user(Context& ctx, const json& args) {
  std::string question = arg_string(args, 0);
  if (question.find_first_not_of(" \t\n") == std::string::npos) return make_error(Code::InvalidArgument, "askUser: the question is empty");
  if (question.size() > kMaxQuestion)
    return errorf(Code::InvalidArgument, "askUser: the question is {} characters; ask in at most {}", question.size(), kMaxQuestion);
  const json options = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  json choices = json::array();
  if (auto c = options.find("choices"); c != options.end()) {
    if (c->size() > kMaxChoices) return errorf(Code::InvalidArgument, "askUser: at most {} choices, got {}", kMaxChoices, c->size());
    for (const auto& x : *c) {
      std::string s = x.get<std::string>();
      if (s.empty() || s.size() > kMaxChoice) return errorf(Code::InvalidArgument, "askUser: each choice must be 1 to {} characters", kMaxChoice);
      choices.push_back(s);
    }
  }
  bool secret = options.value("secret", false);
  // Where a secret answer may be typed: the site of the tab it is for.
  std::optional<safety::Url> site;
  if (secret) {
    std::string tab = options.contains("tabId") ? options["tabId"].get<std::string>() : ctx.active_tab();
    if (tab.empty()) return make_error(Code::InvalidArgument, "askUser: a secret answer is for a site: open the page first, or pass { tabId }");
    auto info = TRY(ctx.browser().tab_info(tab));
    auto url = safety::parse_url(info.url);
    if (!url || (url->scheme != "http" && url->scheme != "https"))
      return errorf(Code::InvalidArgument, "askUser: tab {} shows no web site ({}); a secret answer is typed into a site's page", tab,
                    clip_text(info.url, 100));
    site = *url;
  }
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->ask_user)
    return make_error(Code::FailedPrecondition, "askUser: there is no one to ask here; decide with what you have, or report back with setFinal()");
  json q = {{"question", question}, {"choices", choices}, {"secret", secret}};
  if (site) q["site"] = site->host;
  std::string answer = TRY(hooks->ask_user(q));
  if (answer.size() > kMaxAnswer) answer.resize(kMaxAnswer);
  if (!secret) return json(answer);
  static std::atomic<int> answers{0};
  std::string name = "answer-" + std::to_string(++answers);
  // The answer may be typed into the origin it was asked for: that scheme, host and port.
  safety::SiteList sites;
  sites.add_origin(*site);
  if (ctx.known_secrets()) TRY(ctx.known_secrets()->record(name, answer));
  TRY(ctx.secrets()->add_answer(name, std::move(answer), std::move(sites)));
  return json{{"__ouroSecret", name}};
}

}  // namespace ouro::actions::impl
