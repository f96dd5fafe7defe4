// Permission levels from the registry, overridden per session: auto runs, ask goes through the
// run's confirmation channel, deny is an error the model sees.
#include "actions/host.h"
#include "actions/registry.h"
#include "browser_env.h"

namespace ouro::testing {
namespace {

std::unique_ptr<session::Session> isolated() {
  auto o = test_options();
  o.isolated = true;
  auto s = session::Session::attach(shared_session().runtime(), o);
  if (!s) throw std::runtime_error(s.error().message);
  return std::move(*s);
}

TEST(Permissions, AskDenyAndAutoFromTheRegistry) {
  EXPECT_EQ(actions::find("setCookie")->permission, actions::Permission::Ask);
  EXPECT_EQ(actions::find("getText")->permission, actions::Permission::Auto);
  EXPECT_NE(actions::reference_text().find("[asks the user first]"), std::string::npos);

  auto s = isolated();
  ASSERT_TRUE(s->open_urls({site().url("/")}));
  const std::string set = with_urls("await setCookie({ name: 'a', value: '1', url: '{{/}}' })");
  // Nobody installed a confirmer: a person drives this REPL and is the one who would be asked.
  EXPECT_TRUE(ok(set, s.get()));

  std::vector<json> asked;
  auto hooks = std::make_shared<actions::Context::Hooks>();
  hooks->confirm = [&](const json& req) {
    asked.push_back(req);
    return false;
  };
  s->host().context().set_hooks(hooks);
  std::string err = fails(set, s.get());
  EXPECT_NE(err.find("setCookie was denied by the user"), std::string::npos) << err;
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["action"], "setCookie");
  EXPECT_TRUE(ok("await getCookies()", s.get()).is_array()) << "reads stay automatic";

  s->host().context().permission_overrides["getCookies"] = static_cast<int>(actions::Permission::Deny);
  err = fails("await getCookies()", s.get());
  EXPECT_NE(err.find("getCookies: not permitted in this run"), std::string::npos) << err;
  EXPECT_EQ(asked.size(), 1u) << "deny does not ask";
}

}  // namespace
}  // namespace ouro::testing
