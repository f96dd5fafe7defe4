// A run's life, the parts decided before a browser or a model is used: which model a run would
// use (the run's options over Settings over the face's flags), what state a turn's result gives,
// which usage a resume starts from, and a start — refused without its parts, without a model or
// a saved script, and otherwise asking its face for the session its spec says.
#include "runs/lifecycle.h"

#include "actions/registry.h"
#include "basics.h"
#include "no_model_env.h"
#include "runs/sites.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ouro::runs {
namespace {

// No provider, model or key from this machine (no_model_env.h).
class CleanEnvironment : public ::testing::Test {
 protected:
  // Flags with an empty settings file (none is read) and no stored key.
  static llm::SettingsFlags flags(const std::string& provider = "") {
    llm::SettingsFlags f;
    if (!provider.empty()) f.provider = provider;
    f.file = json::object();
    f.secrets_path = testing::temp_dir() + "/secrets.json";
    return f;
  }

 private:
  testing::NoModelEnv m_no_model;
};

using ResolveModel = CleanEnvironment;

// A spec with these options, typed as every face's request is (runs/spec.h).
RunSpec typed(json options) { return parse_options(std::move(options)).value(); }

TEST_F(ResolveModel, AWrongParameterIsRefusedNamingWhereItCameFrom) {
  // The run's: refused when its spec is made, so no spec carries one.
  auto hot = parse_options({{"temperature", 5}});
  ASSERT_FALSE(hot);
  EXPECT_EQ(hot.error().code, Code::InvalidArgument);
  EXPECT_NE(hot.error().message.find("options.temperature"), std::string::npos) << hot.error().message;
  // Settings': when the model is resolved.
  auto none = resolve_model(typed(json::object()), flags("script:face.jsonl"), {{"max_tokens", 0}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::InvalidArgument);
  EXPECT_NE(none.error().message.find("settings.max_tokens"), std::string::npos) << none.error().message;
}

TEST_F(ResolveModel, TheRunsOptionsComeBeforeSettingsAndSettingsBeforeTheFace) {
  const json settings = {{"provider", "script:settings.jsonl"}};
  auto run = resolve_model(typed({{"provider", "script:run.jsonl"}}), flags("script:face.jsonl"), settings);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->spec.kind, "script");
  EXPECT_EQ(run->spec.script_path, "run.jsonl");
  EXPECT_EQ(run->source, "the run's options");

  auto stored = resolve_model(typed({{"provider", ""}}), flags("script:face.jsonl"), settings);
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->spec.script_path, "settings.jsonl") << "an empty name chooses nothing";
  EXPECT_EQ(stored->source, "Settings");

  // No options, and Settings that are not an object: the face's flag decides.
  auto face = resolve_model(typed(json()), flags("script:face.jsonl"), json::array({"script:other.jsonl"}));
  ASSERT_TRUE(face) << face.error().message;
  EXPECT_EQ(face->spec.script_path, "face.jsonl");
  EXPECT_EQ(face->source, "--provider");
}

TEST_F(ResolveModel, ModelParametersAreTheRunsOverSettings) {
  auto s = resolve_model(typed({{"temperature", 0.2}, {"thinking", "off"}, {"max_tokens", nullptr}}), flags("script:face.jsonl"),
                         {{"max_tokens", 1000}, {"temperature", 0.5}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->params.max_tokens.value_or(-1), 1000) << "a null option leaves Settings' value";
  EXPECT_DOUBLE_EQ(s->params.temperature.value_or(-1), 0.2);
  EXPECT_EQ(s->params.thinking.value_or(-1), 0);

  // Nothing in the options nor in Settings: the face's (here none), so the model table's.
  auto plain = resolve_model(typed(json::object()), flags("script:face.jsonl"), json::object());
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_FALSE(plain->params.max_tokens);
  EXPECT_FALSE(plain->params.temperature);
  EXPECT_FALSE(plain->params.thinking);
  // The face's flags, under Settings and the run's.
  llm::SettingsFlags flagged = flags("script:face.jsonl");
  flagged.max_tokens = 2000;
  flagged.temperature = 1.0;
  auto under = resolve_model(typed({{"max_tokens", 3000}}), flagged, {{"temperature", 0.7}});
  ASSERT_TRUE(under) << under.error().message;
  EXPECT_EQ(under->params.max_tokens.value_or(-1), 3000) << "the run's over the face's";
  EXPECT_DOUBLE_EQ(under->params.temperature.value_or(-1), 0.7) << "Settings' over the face's";
}

TEST_F(ResolveModel, NoModelAnywhereIsAFailedPrecondition) {
  auto none = resolve_model(typed(json::object()), flags(), json::object());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::FailedPrecondition);
}

TEST(TurnState, WhatATurnEndedWithGivesItsRowsState) {
  agent::RunResult r;
  EXPECT_EQ(turn_state(r, ""), State::Done);
  r.partial = true;
  EXPECT_EQ(turn_state(r, ""), State::Partial);
  r.error = "the model failed";
  EXPECT_EQ(turn_state(r, ""), State::Failed);
  r.cancelled = true;
  EXPECT_EQ(turn_state(r, ""), State::Cancelled) << "a cancel is said as one, whatever error it left";
  EXPECT_EQ(turn_state(r, "disk full"), State::Failed) << "events that could not be stored fail the turn";
  EXPECT_EQ(turn_state(agent::RunResult{}, "disk full"), State::Failed);
}

TEST(UsageForResume, OnlyTheFinishedTurnsRecordsAreKept) {
  for (const char* nothing : {"", "not json", "[]", R"({"turns": "many"})", R"({"input_tokens": 5})", R"({"turns": []})",
                              R"({"turns": [{"state": "interrupted"}, {"state": "interrupted"}]})"})
    EXPECT_EQ(usage_for_resume(nothing), "") << nothing;
  EXPECT_EQ(usage_for_resume(R"({"input_tokens": 10, "turns": [{"state": "done"}, {"state": "interrupted"}, {"state": "interrupted"}]})"),
            R"({"turns":[{"state":"done"}]})")
      << "the tokens are summed again from the checkpoint";
  EXPECT_EQ(usage_for_resume(R"({"turns": [{"state": "interrupted"}, {"state": "done"}]})"), R"({"turns":[{"state":"interrupted"},{"state":"done"}]})")
      << "an earlier turn cut short and resumed stays in the record";
}

// A model the face brings (MCP sampling): never asked here.
class FaceModel : public llm::Provider {
 public:
  Result<llm::Response> complete(const llm::Request&, const std::function<void(const llm::Delta&)>&, const llm::CancelToken&) override {
    return make_error(Code::Unimplemented, "not asked in these tests");
  }
  std::string name() const override { return "face"; }
};

// What the face's source of browsers was asked for; it has no browser to give.
struct Asked {
  int calls = 0;
  bool isolated = false, shared = false, gated = false;
  std::string owner, env;
  std::vector<std::string> trusted;
  std::string mode;                        // the gate's ("careful", "autonomous")
  std::vector<std::string> named;          // the sites the gate was given
  std::map<std::string, int> permissions;  // capability -> actions::Permission
};

class LifecycleStart : public CleanEnvironment {
 protected:
  void SetUp() override {
    CleanEnvironment::SetUp();
    db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value());
  }
  runs::Setup setup(const std::string& id) {
    runs::Setup s;
    s.db = db.get();
    s.log = std::make_shared<EventLog>(*db, id, 0);
    s.model_flags = flags();
    s.source = [this](session::SessionOptions so) -> Result<std::unique_ptr<session::Session>> {
      ++asked.calls;
      asked.isolated = so.isolated;
      asked.shared = so.shared;
      asked.gated = so.gate != nullptr;
      asked.owner = so.owner;
      asked.env = so.repl.initial_env;
      asked.trusted = so.trusted_sites;
      asked.mode = so.gate ? std::string(safety::gate_mode_name(so.gate->mode())) : std::string();
      asked.named = so.gate ? so.gate->named_patterns() : std::vector<std::string>{};
      asked.permissions = so.permissions;
      return make_error(Code::Unavailable, "no browser in a unit test");
    };
    return s;
  }
  static RunSpec spec(const std::string& task, json options = json::object()) { return make_spec(task, {}, std::move(options)).value(); }
  std::unique_ptr<store::Database> db;
  Asked asked;
};

TEST_F(LifecycleStart, ARunWithoutItsPartsDoesNotStart) {
  auto started = Lifecycle::start(spec("read the list"), runs::Setup{}, Origin{}, "rnoparts001");
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Code::Internal);
}

TEST_F(LifecycleStart, AReplayOfAScriptThatIsNotSavedFailsBeforeABrowserOpens) {
  auto started = Lifecycle::start(spec("replay the prices", {{"script", {{"name", "prices"}}}}), setup("rreplay0001"), Origin{}, "rreplay0001");
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Code::NotFound);
  EXPECT_EQ(asked.calls, 0);
}

TEST_F(LifecycleStart, WithNoModelConfiguredOnlyAModelTheFaceBringsStandsIn) {
  auto refused = Lifecycle::start(spec("read the list"), setup("rnomodel001"), Origin{}, "rnomodel001");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_EQ(get_str(refused.error().details, "kind"), "no-model") << "a face tells the person to configure a model";
  EXPECT_EQ(asked.calls, 0) << "no browser is asked for before a model is found";

  runs::Setup brought = setup("rnomodel002");
  brought.client_model = std::make_unique<FaceModel>();
  auto started = Lifecycle::start(spec("read the list"), std::move(brought), Origin{}, "rnomodel002");
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Code::Unavailable) << "on to the browser: " << started.error().message;
  EXPECT_EQ(asked.calls, 1);
}

TEST_F(LifecycleStart, ACommandsRunNeedsNoModelAndAsksForTheSessionItsSpecSays) {
  ASSERT_TRUE(set_remembered_sites(*db, {"shop.example.com"}));
  Origin continued;
  continued.continued = true;
  continued.env = R"({"n":1})";
  auto started = Lifecycle::start(spec("$ open https://shop.example.com", {{"context", "clean"}}), setup("rcommands01"), continued, "rcommands01");
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, Code::Unavailable) << "the source's answer: " << started.error().message;
  ASSERT_EQ(asked.calls, 1);
  EXPECT_TRUE(asked.isolated);
  EXPECT_FALSE(asked.shared);
  EXPECT_TRUE(asked.gated) << "every run's session has the egress gate";
  EXPECT_EQ(asked.owner, "run rcommands01");
  EXPECT_EQ(asked.env, R"({"n":1})") << "a continued run starts from the env its last turn left";
  EXPECT_EQ(asked.trusted, (std::vector<std::string>{"shop.example.com"})) << "the sites allowed always";

  // No context in the spec: the face's default.
  runs::Setup mine = setup("rcommands02");
  mine.default_context = "mine";
  ASSERT_FALSE(Lifecycle::start(spec("$ open https://shop.example.com"), std::move(mine), Origin{}, "rcommands02"));
  ASSERT_EQ(asked.calls, 2);
  EXPECT_TRUE(asked.shared);
  EXPECT_FALSE(asked.isolated);
}

// The gate and the permissions come from the spec's typed options over the settings file's.
TEST_F(LifecycleStart, TheRunsSafetyOptionsGoOverTheSettingsFiles) {
  const int deny = static_cast<int>(actions::Permission::Deny), ask = static_cast<int>(actions::Permission::Ask);
  auto with_file = [&](const std::string& id) {
    runs::Setup s = setup(id);
    s.file.mode = safety::GateMode::Autonomous;
    s.file.allowed_domains = {"files.example.net"};
    s.file.permissions = {{"getCookies", "deny"}, {"setCookie", "ask"}};
    return s;
  };
  const RunSpec mine = spec("$ open https://shop.example.com",
                            {{"mode", "careful"}, {"allowed_domains", json::array({"docs.example.org"})}, {"permissions", {{"setCookie", "deny"}}}});
  ASSERT_FALSE(Lifecycle::start(mine, with_file("rsafety0001"), Origin{}, "rsafety0001"));
  ASSERT_EQ(asked.calls, 1);
  EXPECT_EQ(asked.mode, "careful") << "the run's mode over the file's";
  auto names = [&](const std::string& site) {
    return std::any_of(asked.named.begin(), asked.named.end(), [&](const std::string& p) { return p.find(site) != std::string::npos; });
  };
  EXPECT_TRUE(names("docs.example.org")) << "the run's allowed domains";
  EXPECT_TRUE(names("files.example.net")) << "and the file's";
  EXPECT_EQ(asked.permissions["setCookie"], deny) << "the run's permission over the file's";
  EXPECT_EQ(asked.permissions["getCookies"], deny) << "the file's where the run names none";

  // No safety options: the settings file's alone.
  ASSERT_FALSE(Lifecycle::start(spec("$ open https://shop.example.com"), with_file("rsafety0002"), Origin{}, "rsafety0002"));
  ASSERT_EQ(asked.calls, 2);
  EXPECT_EQ(asked.mode, "autonomous") << "the file's mode";
  EXPECT_FALSE(names("docs.example.org"));
  EXPECT_EQ(asked.permissions["setCookie"], ask);
}

}  // namespace
}  // namespace ouro::runs
