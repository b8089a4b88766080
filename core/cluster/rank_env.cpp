// The rank of this process: torchrun's variables first (they are what the local launcher and a
// user's own launcher set), then Slurm's, so that an explicit MASTER_ADDR/MASTER_PORT in a job
// script wins over the defaults derived from the node list and the job id.
#include "core/cluster/cluster.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace portolan::cluster {

namespace {

Diagnostic envError(const std::string& variable, const std::string& message)
{
    Diagnostic d;
    d.code = "cluster.rank-environment";
    d.message = variable + ": " + message;
    d.location.file = "$" + variable;
    return d;
}

std::optional<std::int64_t> toInt(const std::string& s)
{
    std::int64_t v = 0;
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end || s.empty())
        return std::nullopt;
    return v;
}

} // namespace

std::string firstHostOf(const std::string& hostList)
{
    // The first entry ends at the first comma outside brackets.
    std::string entry;
    int depth = 0;
    for (char c : hostList) {
        if (c == '[')
            ++depth;
        else if (c == ']')
            --depth;
        else if (c == ',' && depth == 0)
            break;
        entry.push_back(c);
    }
    const auto open = entry.find('[');
    if (open == std::string::npos)
        return entry;
    const auto close = entry.find(']', open);
    std::string range =
        entry.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
    range = range.substr(0, range.find(','));
    range = range.substr(0, range.find('-')); // the first number keeps its zero padding
    const std::string suffix = close == std::string::npos ? "" : entry.substr(close + 1);
    return entry.substr(0, open) + range + suffix;
}

int rendezvousPortForJob(std::int64_t jobId)
{
    return 20000 + int(((jobId % 10000) + 10000) % 10000);
}

Result<RankEnv> rankEnvFrom(const EnvLookup& lookup)
{
    using R = Result<RankEnv>;
    RankEnv env;
    auto number = [&](const std::string& name, std::int64_t& out) -> std::optional<Diagnostic> {
        const auto text = lookup(name);
        if (!text)
            return std::nullopt;
        const auto v = toInt(*text);
        if (!v)
            return envError(name, "'" + *text + "' is not a whole number");
        out = *v;
        return std::nullopt;
    };
    std::int64_t rank = -1, world = -1, local = -1, port = -1, job = 0;
    const char* rankName = "RANK";
    const char* worldName = "WORLD_SIZE";
    if (lookup("RANK") || lookup("WORLD_SIZE")) {
        env.source = "env";
        for (auto [name, out] : {std::pair{"RANK", &rank}, std::pair{"WORLD_SIZE", &world},
                                 std::pair{"LOCAL_RANK", &local}})
            if (auto e = number(name, *out))
                return R::fail(*e);
        if (rank < 0 || world < 0)
            return R::fail(
                envError(rank < 0 ? "RANK" : "WORLD_SIZE", "set RANK and WORLD_SIZE together"));
    } else if (lookup("SLURM_PROCID") && lookup("SLURM_NTASKS")) {
        env.source = "slurm";
        rankName = "SLURM_PROCID";
        worldName = "SLURM_NTASKS";
        for (auto [name, out] :
             {std::pair{"SLURM_PROCID", &rank}, std::pair{"SLURM_NTASKS", &world},
              std::pair{"SLURM_LOCALID", &local}, std::pair{"SLURM_JOB_ID", &job}})
            if (auto e = number(name, *out))
                return R::fail(*e);
    } else {
        return R::ok(env);
    }
    if (world < 1)
        return R::fail(envError(worldName, "the world has at least one rank"));
    if (rank >= world)
        return R::fail(envError(rankName, "rank " + std::to_string(rank) +
                                              " is outside a world of " + std::to_string(world)));
    env.rank = int(rank);
    env.worldSize = int(world);
    env.localRank = local >= 0 ? int(local) : int(rank);
    env.jobId = job;
    if (auto addr = lookup("MASTER_ADDR"); addr && !addr->empty())
        env.masterAddr = *addr;
    else if (auto nodes = lookup("SLURM_JOB_NODELIST"); env.source == "slurm" && nodes)
        env.masterAddr = firstHostOf(*nodes);
    if (auto e = number("MASTER_PORT", port))
        return R::fail(*e);
    if (port < 0 && env.source == "slurm" && job > 0)
        port = rendezvousPortForJob(job);
    if (env.worldSize > 1 && port < 0)
        return R::fail(envError("MASTER_PORT", "a job of several ranks needs a rendezvous port"));
    if (port == 0 || port > 65535)
        return R::fail(envError("MASTER_PORT", std::to_string(port) + " is not a TCP port"));
    env.masterPort = port < 0 ? 0 : int(port);
    return R::ok(env);
}

Result<RankEnv> rankEnvFromProcess()
{
    return rankEnvFrom([](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
    });
}

} // namespace portolan::cluster
