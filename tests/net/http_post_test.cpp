// One HTTP POST through libcurl (net/http_post.h) against real servers on 127.0.0.1: the body and
// headers as sent, an answer of any status given back rather than made an error, redirects not
// followed, the answer's size bound (refused, or cut when asked to), a refused connection as
// Unavailable naming the address, a server that never answers ending at the deadline or at the
// caller's abort, and schemes other than http and https refused.
#include "net/http_post.h"
#include "net/http_server.h"
#include "net/io.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ouro::net {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A TCP socket on 127.0.0.1 that is bound (so no one else takes its port) and, when asked to
// listen, never accepts: the kernel completes the handshake and nobody ever reads or answers.
class SilentPort {
 public:
  explicit SilentPort(bool listening) {
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) ADD_FAILURE() << "cannot bind on 127.0.0.1";
    if (listening && ::listen(m_fd, 8) != 0) ADD_FAILURE() << "cannot listen";
    socklen_t len = sizeof a;
    ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
    m_port = ntohs(a.sin_port);
  }
  ~SilentPort() { ::close(m_fd); }
  uint16_t port() const { return m_port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/hook"; }

 private:
  int m_fd = -1;
  uint16_t m_port = 0;
};

// An HTTP server that keeps the last request it was sent and answers by path:
// /status/N answers N, /redirect answers 302 to /target, /bytes?n=N answers N bytes, else 200 "ok".
struct Site {
  std::unique_ptr<IoThread> io = IoThread::start();
  std::unique_ptr<HttpServer> server;
  std::mutex mutex;
  HttpRequest last;
  std::atomic<int> requests{0}, target_hits{0};

  Site() {
    auto s = HttpServer::start(*io, {}, [this](const HttpRequest& r) {
      ++requests;
      {
        std::lock_guard lock(mutex);
        last = r;
      }
      HttpResponse res;
      res.content_type = "application/octet-stream";
      if (r.path.rfind("/status/", 0) == 0) {
        res.status = std::atoi(r.path.c_str() + 8);
        res.body = "status body " + r.path.substr(8);
      } else if (r.path == "/redirect") {
        res.status = 302;
        res.headers.emplace_back("Location", "/target");
        res.body = "moved";
      } else if (r.path == "/target") {
        ++target_hits;
        res.body = "followed";
      } else if (r.path == "/bytes") {
        const size_t n = std::strtoull(r.param("n").value_or("0").c_str(), nullptr, 10);
        res.body.resize(n);
        for (size_t i = 0; i < n; ++i) res.body[i] = static_cast<char>(i % 251);  // NUL bytes included
      } else {
        res.body = "ok";
      }
      return res;
    });
    if (!s) throw std::runtime_error(s.error().message);
    server = std::move(*s);
  }
  ~Site() {
    server.reset();
    io.reset();
  }
  std::string url(const std::string& path) const { return server->url(path); }
  HttpRequest last_request() {
    std::lock_guard lock(mutex);
    return last;
  }
};

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i % 251);
  return s;
}

// --- What is sent and what comes back ---------------------------------------------------------------

TEST(HttpPost, SendsTheBodyByteForByteWithJsonContentTypeAndTheCallersHeaders) {
  Site site;
  PostOptions o;
  o.headers = {"Authorization: Bearer t0ken", "X-Ouro-Event: run.finished"};
  o.user_agent = "ouro-test/1";
  const std::string body = std::string("{\"a\":\"\xc3\xa9\"}\0tail after a NUL", 27);
  auto r = post(site.url("/hook?x=1"), body, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
  const HttpRequest got = site.last_request();
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.target, "/hook?x=1");
  EXPECT_EQ(got.body, body) << "every byte, past the NUL";
  EXPECT_EQ(got.header("content-type"), "application/json");
  EXPECT_EQ(got.header("authorization"), "Bearer t0ken");
  EXPECT_EQ(got.header("x-ouro-event"), "run.finished");
  EXPECT_EQ(got.header("user-agent"), "ouro-test/1");
}

TEST(HttpPost, TheCallersContentTypeReplacesJson) {
  Site site;
  PostOptions o;
  o.headers = {"content-type: text/plain; charset=utf-8"};
  auto r = post(site.url("/hook"), "plain words", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(site.last_request().header("content-type"), "text/plain; charset=utf-8") << "one type, not two joined";
}

TEST(HttpPost, AnEmptyBodyIsSentAsAnEmptyPost) {
  Site site;
  auto r = post(site.url("/empty"), "", {});
  ASSERT_TRUE(r) << r.error().message;
  const HttpRequest got = site.last_request();
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.body, "");
  EXPECT_EQ(got.header("content-length"), "0");
}

TEST(HttpPost, AnAnswerOfAnyStatusIsAnAnswerNotAnError) {
  Site site;
  for (int status : {201, 400, 401, 404, 429, 500, 503}) {
    auto r = post(site.url("/status/" + std::to_string(status)), "{}", {});
    ASSERT_TRUE(r) << status << ": " << r.error().message;
    EXPECT_EQ(r->status, status);
    EXPECT_EQ(r->body, "status body " + std::to_string(status)) << "the caller reads why";
  }
}

TEST(HttpPost, ARedirectIsGivenBackNotFollowed) {
  Site site;
  auto r = post(site.url("/redirect"), "{\"secret\":1}", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 302);
  EXPECT_EQ(r->body, "moved");
  EXPECT_EQ(site.target_hits.load(), 0) << "the body went to one address only";
}

// --- The answer's size ----------------------------------------------------------------------------

TEST(HttpPost, AnAnswerUpToTheBoundComesBackWholeAndOneByteMoreIsRefused) {
  Site site;
  PostOptions o;
  o.max_answer_bytes = 1000;
  auto at = post(site.url("/bytes?n=1000"), "{}", o);
  ASSERT_TRUE(at) << at.error().message;
  EXPECT_EQ(at->body, pattern(1000));
  auto over = post(site.url("/bytes?n=1001"), "{}", o);
  ASSERT_FALSE(over) << "an answer over the bound was taken";
  EXPECT_EQ(over.error().code, Code::ResourceExhausted);
  EXPECT_TRUE(contains(over.error().message, "1000 bytes")) << over.error().message;
}

TEST(HttpPost, TheDefaultBoundIsOneMebibyte) {
  Site site;
  auto at = post(site.url("/bytes?n=" + std::to_string(1u << 20)), "{}", {});
  ASSERT_TRUE(at) << at.error().message;
  EXPECT_EQ(at->body.size(), 1u << 20);
  auto over = post(site.url("/bytes?n=" + std::to_string(3u << 20)), "{}", {});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, Code::ResourceExhausted);
}

TEST(HttpPost, TruncatingKeepsTheHeadOfALongAnswer) {
  Site site;
  PostOptions o;
  o.max_answer_bytes = 1000;
  o.truncate = true;
  auto r = post(site.url("/bytes?n=" + std::to_string(200000)), "{}", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, pattern(1000)) << "the first bytes, exactly the bound";
}

// --- Failures -------------------------------------------------------------------------------------

TEST(HttpPost, ARefusedConnectionIsUnavailableNamingTheAddress) {
  SilentPort closed(/*listening=*/false);  // bound, not listening: connections are refused
  PostOptions o;
  o.timeout = 5000ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = post(closed.url(), "{}", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_TRUE(contains(r.error().message, "127.0.0.1")) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, std::to_string(closed.port()))) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s) << "a refusal is known at once, not at the deadline";
}

TEST(HttpPost, AServerThatNeverAnswersEndsAtTheDeadline) {
  SilentPort silent(/*listening=*/true);
  PostOptions o;
  o.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = post(silent.url(), "{\"event\":\"x\"}", o);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::DeadlineExceeded) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "300 ms")) << r.error().message;
  EXPECT_GE(took, 250ms) << "it gave up before its deadline";
  EXPECT_LT(took, 10s) << "it waited far past its deadline";
}

TEST(HttpPost, AbortEndsTheWaitLongBeforeTheDeadline) {
  SilentPort silent(/*listening=*/true);
  std::atomic<int> asked{0};
  PostOptions o;
  o.timeout = 60000ms;
  o.abort = [&] {
    ++asked;
    return true;
  };
  const auto start = std::chrono::steady_clock::now();
  auto r = post(silent.url(), "{}", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::DeadlineExceeded) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "stopped waiting")) << "an abort is not reported as the 60 s deadline: " << r.error().message;
  EXPECT_GT(asked.load(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << "the abort was not heard";
}

TEST(HttpPost, AnAbortThatNeverFiresLetsTheAnswerThrough) {
  Site site;
  PostOptions o;
  o.abort = [] { return false; };
  auto r = post(site.url("/bytes?n=5000"), "{}", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, pattern(5000));
}

TEST(HttpPost, OnlyHttpAndHttpsAreSpoken) {
  SilentPort silent(/*listening=*/true);
  for (const std::string& url : {std::string("file:///etc/hostname"), "ftp://127.0.0.1:" + std::to_string(silent.port()) + "/x",
                                 "gopher://127.0.0.1:" + std::to_string(silent.port()) + "/"}) {
    PostOptions o;
    o.timeout = 2000ms;
    auto r = post(url, "{}", o);
    ASSERT_FALSE(r) << url << " was fetched";
    EXPECT_EQ(r.error().code, Code::Unavailable) << url << ": " << r.error().message;
  }
}

}  // namespace
}  // namespace ouro::net
