#include "core/graph/torch_child.h"

#include "core/graph/graph_json.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace portolan::graph {

namespace fs = std::filesystem;

namespace {

fs::path runningExecutable()
{
    std::error_code ec;
    return fs::read_symlink("/proc/self/exe", ec);
}

bool isExecutable(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::vector<fs::path> candidates()
{
    std::vector<fs::path> out;
    if (const char* env = std::getenv("PORTOLAN_TORCH"); env && *env)
        out.emplace_back(env);
    const fs::path exe = runningExecutable();
    if (!exe.empty()) {
        const fs::path here = exe.parent_path();
        out.push_back(here / kTorchChildName);
        // Build tree: app/cli/portolan-cli, app/gui/portolan, app/torch/portolan-torch. Tests
        // and benchmarks live in tests/<suite>/ of the same build tree.
        out.push_back(here.parent_path() / "torch" / kTorchChildName);
        out.push_back(here.parent_path().parent_path() / "app" / "torch" / kTorchChildName);
    }
    if (const char* path = std::getenv("PATH"))
        for (std::string_view rest = path; !rest.empty();) {
            const auto colon = rest.find(':');
            const std::string_view dir = rest.substr(0, colon);
            if (!dir.empty())
                out.push_back(fs::path(dir) / kTorchChildName);
            if (colon == std::string_view::npos)
                break;
            rest.remove_prefix(colon + 1);
        }
    return out;
}

std::vector<char*> argv(const fs::path& exe, const std::vector<std::string>& args,
                        std::string& exeText)
{
    exeText = exe.string();
    std::vector<char*> v;
    v.push_back(exeText.data());
    for (const auto& a : args)
        v.push_back(const_cast<char*>(a.c_str()));
    v.push_back(nullptr);
    return v;
}

Diagnostic notFound()
{
    return {Severity::Error,
            "torch.child-missing",
            std::string("cannot find ") + kTorchChildName +
                ", the program that runs LibTorch for Portolan; looked in " +
                torchChildSearchText() + " (set PORTOLAN_TORCH to its path)",
            {}};
}

} // namespace

fs::path torchChildPath()
{
    for (const auto& c : candidates())
        if (isExecutable(c))
            return fs::weakly_canonical(c);
    return {};
}

std::string torchChildSearchText()
{
    std::string s = "$PORTOLAN_TORCH, ";
    const fs::path exe = runningExecutable();
    if (!exe.empty())
        s += exe.parent_path().string() + ", " +
             (exe.parent_path().parent_path() / "torch").string() + ", ";
    return s + "and PATH";
}

Result<OpGraph> runTorchChild(const std::vector<std::string>& args)
{
    const fs::path exe = torchChildPath();
    if (exe.empty())
        return Result<OpGraph>::fail(notFound());
    int out[2];
    if (::pipe(out) != 0)
        return Result<OpGraph>::fail({Severity::Error,
                                      "torch.child-start",
                                      std::string("cannot make a pipe: ") + std::strerror(errno),
                                      {exe.string()}});
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    std::string exeText;
    auto v = argv(exe, args, exeText);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, exeText.c_str(), &actions, nullptr, v.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) {
        ::close(out[0]);
        return Result<OpGraph>::fail({Severity::Error,
                                      "torch.child-start",
                                      std::string("cannot start: ") + std::strerror(rc),
                                      {exe.string()}});
    }
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n > 0)
            text.append(buf, std::size_t(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    auto r = parseGraphDocument(text, exe.string());
    if (r || r.error.code != "graph.document")
        return r; // a graph, or the child's own diagnostic
    std::string how;
    if (WIFSIGNALED(status))
        how = std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        how = "ended with exit code " + std::to_string(WEXITSTATUS(status));
    if (!how.empty())
        r.error = {Severity::Error,
                   "torch.child-failed",
                   std::string(kTorchChildName) + " " + how + " before writing the op graph",
                   {exe.string()}};
    return r;
}

Diagnostic execTorchChild(const std::vector<std::string>& args)
{
    const fs::path exe = torchChildPath();
    if (exe.empty())
        return notFound();
    std::string exeText;
    auto v = argv(exe, args, exeText);
    ::execv(exeText.c_str(), v.data());
    return {Severity::Error,
            "torch.child-start",
            std::string("cannot start: ") + std::strerror(errno),
            {exe.string()}};
}

} // namespace portolan::graph
