// The terminal as ouro's commands use it for input a person types: without echo for a secret.
#pragma once

#include <termios.h>

namespace ouro::cli {

// Turns the terminal's echo off on fd for its lifetime (a key, a password, a secret answer) and
// restores it, ending the line the user could not see. Nothing when fd is not a terminal.
class EchoOff {
 public:
  explicit EchoOff(int fd);
  ~EchoOff();
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;
  bool active() const { return m_active; }

 private:
  int m_fd;
  bool m_active = false;
  termios m_saved{};
};

}  // namespace ouro::cli
