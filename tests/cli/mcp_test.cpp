// What `ouro mcp`'s browser_task starts from (cli/mcp.cpp, task_support): with no model the
// reason is kept for the tool's error; each task reads the settings file then (a key or a rule
// added meanwhile counts), the flags' --allow-domain and --mode hold over the file's, a task
// without `context` gets a clean browser context, and a settings file of the wrong shape is the
// task's error, naming the file.
#include "cli/mcp.h"
#include "../support/no_model_env.h"
#include "../support/scoped_temp_dir.h"

#include "mcp/server.h"
#include "runs/lifecycle.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace ouro::cli {
namespace {

using TempDir = ouro::testing::ScopedTempDir;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Flags whose settings file and data are in `dir` (the file is not there until a test writes it).
CommonFlags flags_in(const TempDir& dir) {
  CommonFlags flags;
  flags.config_path = dir.path + "/config.json";
  flags.data_dir = dir.path;
  return flags;
}

// The model flags as `ouro mcp` makes them from those: the same settings file, keys stored beside
// the data (none here), never this machine's own configuration.
llm::SettingsFlags model_flags_of(const CommonFlags& flags) {
  llm::SettingsFlags sf;
  sf.config_path = flags.config_path;
  sf.secrets_path = flags.data_dir + "/secrets.json";
  return sf;
}

TEST(McpTaskSupport, WithNoModelTheReasonIsKeptForTheToolsError) {
  ouro::testing::NoModelEnv no_model;
  TempDir dir;
  CommonFlags flags = flags_in(dir);  // no settings file: empty settings
  mcp::TaskSupport task = task_support(flags, model_flags_of(flags));
  EXPECT_FALSE(task.no_model_reason.empty());
  ASSERT_TRUE(task.setup);
  auto setup = task.setup();
  ASSERT_TRUE(setup) << setup.error().message;
  EXPECT_EQ(setup->default_context, "clean");
}

TEST(McpTaskSupport, EachTaskReadsTheSettingsFileAndTheFlagsHoldOverIt) {
  ouro::testing::NoModelEnv no_model;
  TempDir dir;
  CommonFlags flags = flags_in(dir);
  flags.allow_domains = {"flag.example"};
  flags.mode = "careful";
  mcp::TaskSupport task = task_support(flags, model_flags_of(flags));
  std::ofstream(flags.config_path) << R"({"allowed_domains": ["file.example"], "mode": "autonomous"})";
  auto setup = task.setup();
  ASSERT_TRUE(setup) << setup.error().message;
  EXPECT_EQ(setup->file.allowed_domains, (std::vector<std::string>{"file.example", "flag.example"}));
  ASSERT_TRUE(setup->file.mode);
  EXPECT_EQ(*setup->file.mode, safety::GateMode::Careful) << "--mode holds over the file's";
  ASSERT_TRUE(setup->model_flags.file);
  EXPECT_EQ((*setup->model_flags.file)["mode"], "autonomous") << "the model is resolved from the same file";

  // A rule added to the file later is read by the next task.
  std::ofstream(flags.config_path) << R"({"allowed_domains": ["later.example"]})";
  auto later = task.setup();
  ASSERT_TRUE(later) << later.error().message;
  EXPECT_EQ(later->file.allowed_domains, (std::vector<std::string>{"later.example", "flag.example"}));
}

TEST(McpTaskSupport, ASettingsFileOfTheWrongShapeIsTheTasksErrorNamingTheFile) {
  ouro::testing::NoModelEnv no_model;
  TempDir dir;
  CommonFlags flags = flags_in(dir);
  mcp::TaskSupport task = task_support(flags, model_flags_of(flags));
  std::ofstream(flags.config_path) << R"({"allowed_domains": "everything"})";
  auto setup = task.setup();
  ASSERT_FALSE(setup);
  EXPECT_TRUE(has(setup.error().message, "allowed_domains")) << setup.error().message;
  EXPECT_TRUE(has(setup.error().message, flags.config_path)) << setup.error().message;
  std::ofstream(flags.config_path) << "{not json";
  setup = task.setup();
  ASSERT_FALSE(setup);
  EXPECT_TRUE(has(setup.error().message, flags.config_path)) << setup.error().message;
}

}  // namespace
}  // namespace ouro::cli
