#include "cli/terminal.h"

#include <unistd.h>

namespace ouro::cli {

EchoOff::EchoOff(int fd) : m_fd(fd) {
  if (fd < 0 || !isatty(fd) || tcgetattr(fd, &m_saved) != 0) return;
  termios quiet = m_saved;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  // Canonical mode stays: the line discipline still handles backspace and Enter.
  m_active = tcsetattr(fd, TCSANOW, &quiet) == 0;
}

EchoOff::~EchoOff() {
  if (!m_active) return;
  tcsetattr(m_fd, TCSANOW, &m_saved);
  // The Enter the user pressed was not echoed either: end the line for what follows.
  (void)!write(m_fd, "\n", 1);
}

}  // namespace ouro::cli
