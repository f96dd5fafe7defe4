// The REPL pipe's framing: a 4-byte little-endian length, then the message; messages come out
// whole and in order whatever their bytes or size, a closed or cut-off pipe is Unavailable, a
// length over the limit is DataLoss, and two writers at once never interleave.
#include "jsrt/channel.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace ouro::jsrt {
namespace {

// Two connected ends of a stream socket, as between the REPL's parent and its worker.
struct Ends {
  int near = -1, far = -1;
  Ends() {
    int fds[2] = {-1, -1};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    near = fds[0];
    far = fds[1];
  }
  void close_far() {
    if (far >= 0) ::close(far);
    far = -1;
  }
  ~Ends() {
    if (near >= 0) ::close(near);
    close_far();
  }
};

void send_raw(int fd, const std::string& bytes) {
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

std::string receive_raw(int fd, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, out.data() + got, n - got);
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

TEST(Channel, ReadingAClosedPipeIsUnavailable) {
  Ends ends;
  ends.close_far();
  Channel c(ends.near);
  auto r = c.read();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
}

TEST(Channel, AHeaderOrMessageCutShortIsUnavailable) {
  {
    Ends ends;
    send_raw(ends.far, std::string("\x05\x00", 2));
    ends.close_far();
    Channel c(ends.near);
    auto r = c.read();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::Unavailable) << "half a header";
  }
  Ends ends;
  send_raw(ends.far, std::string("\x0a\x00\x00\x00" "abc", 7));
  ends.close_far();
  Channel c(ends.near);
  auto r = c.read();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable) << "3 of 10 bytes";
}

TEST(Channel, ALengthOverTheLimitIsDataLoss) {
  Ends ends;
  Channel c(ends.near);
  send_raw(ends.far, std::string("\xff\xff\xff\xff", 4));
  auto r = c.read();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::DataLoss);
  send_raw(ends.far, std::string("\x01\x00\x00\x20", 4));  // 512 MiB and one byte
  auto just_over = c.read();
  ASSERT_FALSE(just_over);
  EXPECT_EQ(just_over.error().code, Code::DataLoss);
}

TEST(Channel, WritingWhenTheOtherEndHasGoneIsUnavailable) {
  Ends ends;
  ends.close_far();
  Channel c(ends.near);
  auto r = c.write("{\"type\":\"result\"}");  // no SIGPIPE: the test process lives to check
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
}

TEST(Channel, TheLengthGoesFirstInFourLittleEndianBytes) {
  Ends ends;
  Channel near(ends.near);
  ASSERT_TRUE(near.write(std::string(300, 'x')));
  EXPECT_EQ(receive_raw(ends.far, 4), std::string("\x2c\x01\x00\x00", 4));
  EXPECT_EQ(receive_raw(ends.far, 300), std::string(300, 'x'));
  // And a frame written by hand is read as one message.
  send_raw(ends.far, std::string("\x05\x00\x00\x00" "hello", 9));
  auto r = near.read();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "hello");
}

TEST(Channel, MessagesComeOutWholeAndInOrderWhateverTheirBytes) {
  Ends ends;
  Channel writer(ends.far), reader(ends.near);
  const std::vector<std::string> sent = {"", "{\"id\":1}", std::string("\0\xff\n\r\0", 5), "\xE2\x80\xA8 line separator", "{\"id\":2}"};
  for (const auto& m : sent) ASSERT_TRUE(writer.write(m));
  for (const auto& m : sent) {
    auto r = reader.read();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, m);
  }
}

TEST(Channel, AMessageLargerThanThePipesBufferArrivesWhole) {
  Ends ends;
  Channel writer(ends.far), reader(ends.near);
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 % 251);
  bool written = false;
  std::thread t([&] { written = writer.write(big).has_value(); });
  auto r = reader.read();
  ::shutdown(ends.near, SHUT_RDWR);  // were the read to stop early, the writer fails instead of waiting
  t.join();
  EXPECT_TRUE(written);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->size(), big.size());
  EXPECT_TRUE(*r == big);
}

TEST(Channel, TwoWritersAtOnceNeverInterleave) {
  Ends ends;
  Channel writer(ends.far), reader(ends.near);
  constexpr int kEach = 40;
  constexpr size_t kSize = 100000;
  auto write_many = [&](char letter, bool& all_ok) {
    all_ok = true;
    for (int i = 0; i < kEach; ++i) all_ok = writer.write(std::string(kSize, letter)).has_value() && all_ok;
  };
  bool a_ok = false, b_ok = false;
  std::thread writers([&] {
    std::thread a(write_many, 'a', std::ref(a_ok)), b(write_many, 'b', std::ref(b_ok));
    a.join();
    b.join();
    ::shutdown(ends.far, SHUT_WR);  // the reader then comes to the end, whatever it made of the bytes
  });
  // Read to the end: a torn frame reads as a wrong length, a mixed message or DataLoss.
  std::map<char, int> whole;
  int torn = 0;
  for (;;) {
    auto r = reader.read();
    if (!r && r.error().code == Code::Unavailable) break;
    if (r && r->size() == kSize && r->find_first_not_of(r->front()) == std::string::npos) ++whole[r->front()];
    else ++torn;
  }
  writers.join();
  EXPECT_TRUE(a_ok);
  EXPECT_TRUE(b_ok);
  EXPECT_EQ(torn, 0) << "messages mixing two writers' bytes";
  EXPECT_EQ(whole['a'], kEach);
  EXPECT_EQ(whole['b'], kEach);
}

}  // namespace
}  // namespace ouro::jsrt
