#include "core/common/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace portolan {

namespace {

Diagnostic ioError(const std::filesystem::path& path, const std::string& what)
{
    Diagnostic d;
    d.code = "io.error";
    d.message = what + ": " + std::strerror(errno);
    d.location.file = path.string();
    return d;
}

} // namespace

std::optional<Diagnostic> writeFileAtomically(const std::filesystem::path& path,
                                              std::string_view bytes)
{
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    std::string tmpl = (dir / ("." + path.filename().string() + ".portolan-XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        return ioError(path, "cannot create a temporary file next to it");

    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) == 0)
        ::fchmod(fd, st.st_mode & 07777);
    else
        ::fchmod(fd, 0644);

    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            auto err = ioError(path, "cannot write the temporary file");
            ::close(fd);
            ::unlink(tmpl.c_str());
            return err;
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        auto err = ioError(path, "cannot flush the temporary file");
        ::unlink(tmpl.c_str());
        return err;
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        auto err = ioError(path, "cannot replace the file");
        ::unlink(tmpl.c_str());
        return err;
    }
    // Make the rename itself durable.
    const int dirfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dirfd >= 0) {
        ::fsync(dirfd);
        ::close(dirfd);
    }
    return std::nullopt;
}

Result<std::string> readFile(const std::filesystem::path& path, std::size_t spareCapacity)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Result<std::string>::fail(ioError(path, "cannot open"));
    // A regular file is read in one go into a buffer of its size: streaming a 100 MB report
    // through a growing string stream costs several copies and their page faults.
    std::error_code ec;
    const auto size = std::filesystem::is_regular_file(path, ec)
                          ? std::filesystem::file_size(path, ec)
                          : std::uintmax_t(0);
    if (!ec && size > 0) {
        std::string text;
        text.reserve(std::size_t(size) + spareCapacity);
        text.resize(std::size_t(size));
        in.read(text.data(), std::streamsize(size));
        if (in.gcount() == std::streamsize(size) && in.peek() == std::char_traits<char>::eof())
            return Result<std::string>::ok(std::move(text));
        // The file changed size while being read: start again the slow, exact way.
        in.clear();
        in.seekg(0);
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        return Result<std::string>::fail(ioError(path, "cannot read"));
    return Result<std::string>::ok(std::move(ss).str());
}

} // namespace portolan
