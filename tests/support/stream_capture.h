// What a call printed to a standard stream (std::cout, std::cerr): the stream writes into a buffer
// of the test's for the capture's scope. Header-only, for unit tests that link only their module.
#pragma once

#include <ostream>
#include <sstream>
#include <string>

namespace ouro::testing {

class StreamCapture {
 public:
  explicit StreamCapture(std::ostream& stream) : m_stream(stream), m_old(stream.rdbuf(m_text.rdbuf())) {}
  ~StreamCapture() { m_stream.rdbuf(m_old); }
  StreamCapture(const StreamCapture&) = delete;
  StreamCapture& operator=(const StreamCapture&) = delete;
  std::string text() const { return m_text.str(); }

 private:
  std::ostringstream m_text;
  std::ostream& m_stream;
  std::streambuf* m_old;
};

}  // namespace ouro::testing
