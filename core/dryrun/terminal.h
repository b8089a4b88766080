// The terminal a child reads its standard input from. A script run by hand has one, and some
// ask it its size at import (`os.popen('stty size')` in progress-bar helpers copied across
// many projects); without one they fail before training. So the child's stdin is a
// pseudo-terminal of 24 rows and 80 columns that holds nothing to read: each read of it ends
// at once, as /dev/null's would. Internal to core/dryrun.
#pragma once

namespace portolan::dryrun::detail {

class Terminal
{
public:
    // Opens the pair; both ends close-on-exec and above fd 10. valid() is false when the
    // machine has no pseudo-terminals to give (the child then reads /dev/null).
    Terminal();
    ~Terminal();
    Terminal(const Terminal&) = delete;
    Terminal& operator=(const Terminal&) = delete;

    bool valid() const { return m_follower >= 0; }
    // The child's end, its fd 0; -1 when not valid. The parent closes its copy once the child
    // has it, and holds the other end while the child runs (a terminal whose other end is
    // closed reads as an I/O error): both close with the Terminal.
    int follower() const { return m_follower; }
    void closeFollower();

private:
    int m_leader = -1;
    int m_follower = -1;
};

} // namespace portolan::dryrun::detail
