#include "core/dryrun/terminal.h"

#include <array>
#include <cstdlib>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace portolan::dryrun::detail {

namespace {

// The standard size of a terminal nobody resized.
constexpr unsigned short kRows = 24;
constexpr unsigned short kColumns = 80;
// End-of-file characters queued for the child: each read of a canonical-mode terminal that
// finds one at the start of a line returns 0 bytes. More reads than this block, as a read of
// an idle terminal would (until the run's timeout).
constexpr int kEndsOfFile = 64;

int moveHigh(int fd)
{
    if (fd < 0)
        return -1;
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return high;
}

} // namespace

Terminal::Terminal()
{
    m_leader = moveHigh(::posix_openpt(O_RDWR | O_NOCTTY));
    if (m_leader < 0)
        return;
    std::array<char, 128> name{};
    if (::grantpt(m_leader) != 0 || ::unlockpt(m_leader) != 0 ||
        ::ptsname_r(m_leader, name.data(), name.size()) != 0) {
        ::close(m_leader);
        m_leader = -1;
        return;
    }
    m_follower = moveHigh(::open(name.data(), O_RDWR | O_NOCTTY));
    if (m_follower < 0)
        return;
    winsize size{};
    size.ws_row = kRows;
    size.ws_col = kColumns;
    ::ioctl(m_follower, TIOCSWINSZ, &size);
    // No echo: what the queue holds is not written back to an end nobody reads.
    termios mode{};
    if (::tcgetattr(m_follower, &mode) == 0) {
        mode.c_lflag &= ~tcflag_t(ECHO | ECHOCTL);
        ::tcsetattr(m_follower, TCSANOW, &mode);
    }
    const cc_t eof = mode.c_cc[VEOF] ? mode.c_cc[VEOF] : 4;
    for (int i = 0; i < kEndsOfFile; ++i)
        (void)!::write(m_leader, &eof, 1);
}

Terminal::~Terminal()
{
    closeFollower();
    if (m_leader >= 0)
        ::close(m_leader);
}

void Terminal::closeFollower()
{
    if (m_follower >= 0)
        ::close(m_follower);
    m_follower = -1;
}

} // namespace portolan::dryrun::detail
