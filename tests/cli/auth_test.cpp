// `ouro auth` (cli/auth.cpp): keys kept in a real Secret Service on a private session bus, or in
// the data directory's file, said which every time, and found by runs.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

using testing::RawServer;
using testing::Step;

// A private session bus with a real Secret Service on it (GNOME Keyring, unlocked with a test
// password), for as long as the test needs it.
struct Keyring {
  std::string address;
  pid_t bus = -1;
  Keyring() {
    int out[2];
    if (pipe(out) != 0) return;
    bus = fork();
    if (bus == 0) {
      dup2(out[1], 1);
      close(out[0]);
      execlp("dbus-daemon", "dbus-daemon", "--session", "--nofork", "--print-address=1", (char*)nullptr);
      _exit(127);
    }
    close(out[1]);
    char buf[512];
    ssize_t n = read(out[0], buf, sizeof buf - 1);
    close(out[0]);
    if (n <= 0) return;
    address.assign(buf, static_cast<size_t>(n));
    while (!address.empty() && address.back() == '\n') address.pop_back();
    // Its keyrings in a directory of the test's own (not the user's), created unlocked.
    std::string home = temp_dir();
    std::string cmd = "printf test-password | env HOME='" + home + "' XDG_DATA_HOME='" + home + "' DBUS_SESSION_BUS_ADDRESS='" + address +
                      "' gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      address.clear();
      return;
    }
    // gnome-keyring-daemon returns once it has forked; it takes the Secret Service's name and
    // makes the login keyring a moment later. Asked before that, the bus would start a second
    // daemon without this keyring: wait until the name is owned and the login collection
    // answers (NameHasOwner first, which starts nothing).
    const std::string env = "env DBUS_SESSION_BUS_ADDRESS='" + address + "' ";
    const std::string probe =
        env + "dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "
              "string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true' && " +
        env + "dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets/collection/login "
              "org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked >/dev/null 2>&1";
    bool ready = false;
    for (int i = 0; i < 100 && !ready; ++i) {
      ready = std::system(probe.c_str()) == 0;
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!ready) address.clear();
  }
  ~Keyring() {
    if (bus > 0) {
      kill(bus, SIGTERM);
      waitpid(bus, nullptr, 0);
    }
  }
};

// Keys go to the OS keyring when a Secret Service answers, to the 0600 file when none does, and
// a run finds them there; the environment still wins.
TEST(CliAuth, KeysInTheKeyringOrTheFileAndRunsFindThem) {
  Keyring keyring;
  ASSERT_FALSE(keyring.address.empty()) << "dbus-daemon and gnome-keyring-daemon are installed by scripts/setup.sh";
  std::string dir = temp_dir() + "/data", bus = "DBUS_SESSION_BUS_ADDRESS='" + keyring.address + "'";
  Outcome set = ouro("auth set anthropic --data-dir " + dir, "sk-ant-KEYRINGKEY-123\n", bus);
  EXPECT_EQ(set.code, 0) << set.err;
  EXPECT_NE(set.err.find("in the OS keyring"), std::string::npos) << set.err;
  std::string file_text = read_file(dir + "/secrets.json");
  EXPECT_EQ(file_text.find("KEYRINGKEY"), std::string::npos) << "the key is in the keyring only";
  Outcome status = ouro("auth status --data-dir " + dir, "", bus);
  EXPECT_NE(status.out.find("anthropic: keyring"), std::string::npos) << status.out;
  // A run finds it (the request to a loopback Anthropic server carries it).
  RawServer server;
  server.push({Step::write(RawServer::error_response(401, R"({"type":"error","error":{"type":"authentication_error","message":"nope"}})"))});
  Outcome run = ouro("run 'x' --data-dir " + dir + " --provider anthropic --base-url " + server.url(), "", bus);
  ASSERT_FALSE(server.requests().empty()) << run.err;
  EXPECT_NE(server.requests()[0].find("x-api-key: sk-ant-KEYRINGKEY-123"), std::string::npos);
  // No bus: the file, mode 0600, and the run finds it there too.
  Outcome file = ouro("auth set openai --data-dir " + dir, "sk-FILEKEY-456\n", "DBUS_SESSION_BUS_ADDRESS=");
  EXPECT_EQ(file.code, 0) << file.err;
  EXPECT_NE(file.err.find("mode 0600"), std::string::npos) << file.err;
  struct stat st;
  ASSERT_EQ(stat((dir + "/secrets.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RawServer oa;
  oa.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"nope"}})"))});
  ouro("run 'x' --data-dir " + dir + " --provider " + oa.url() + "/v1 --model gpt-4o", "", "DBUS_SESSION_BUS_ADDRESS=");
  // (a base URL is its own provider name: the key set for "openai" is not sent to another endpoint)
  ASSERT_FALSE(oa.requests().empty());
  EXPECT_EQ(oa.requests()[0].find("sk-FILEKEY-456"), std::string::npos);
  RawServer ob;
  ob.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"nope"}})"))});
  ouro("run 'x' --data-dir " + dir + " --provider openai --base-url " + ob.url() + "/v1", "", "DBUS_SESSION_BUS_ADDRESS=");
  ASSERT_FALSE(ob.requests().empty());
  EXPECT_NE(ob.requests()[0].find("authorization: Bearer sk-FILEKEY-456"), std::string::npos);
  // The environment wins over what is stored.
  RawServer oc;
  oc.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"nope"}})"))});
  ouro("run 'x' --data-dir " + dir + " --provider openai --base-url " + oc.url() + "/v1", "", "DBUS_SESSION_BUS_ADDRESS= OPENAI_API_KEY=sk-ENVKEY-789");
  ASSERT_FALSE(oc.requests().empty());
  EXPECT_NE(oc.requests()[0].find("authorization: Bearer sk-ENVKEY-789"), std::string::npos);
}

}  // namespace
}  // namespace ouro::testing
