// One Slurm job seen from the login node: submitted with sbatch, followed with squeue while it
// is queued or running and with sacct (or scontrol, on clusters without accounting) once it has
// left the queue, cancelled with scancel; its output file read as it grows.
#include "core/cluster/cluster.h"

#include <fstream>

namespace portolan::cluster {

namespace fs = std::filesystem;

namespace {

Diagnostic slurmError(const std::string& code, const std::string& message,
                      const std::string& file = {})
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = file;
    return d;
}

} // namespace

Result<std::int64_t> submitJob(const fs::path& script, const fs::path& workDir)
{
    using R = Result<std::int64_t>;
    if (const std::string problem = slurmClientProblem(); !problem.empty())
        return R::fail(slurmError("cluster.no-slurm", problem));
    const CommandResult r = runCommand({"sbatch", "--parsable", script.string()}, 60, workDir);
    if (!r.ok())
        return R::fail(slurmError("cluster.sbatch", "sbatch refused the job: " + r.errorText(),
                                  script.string()));
    const auto id = parseSbatchOutput(r.out);
    if (!id)
        return R::fail(slurmError("cluster.sbatch",
                                  "sbatch printed no job id: " + r.out.substr(0, 200),
                                  script.string()));
    return R::ok(*id);
}

JobStatus queryJob(std::int64_t jobId)
{
    const std::string id = std::to_string(jobId);
    const CommandResult q = runCommand({"squeue", "-h", "-j", id, "-o", "%i|%T|%r|%N"}, 30);
    if (q.ok())
        if (auto s = parseSqueue(q.out, jobId))
            return *s;
    // Not in the queue any more (or squeue refused an id it has forgotten): ask accounting.
    const CommandResult a =
        runCommand({"sacct", "-n", "-P", "-j", id, "--format=JobID,State,ExitCode,NodeList"}, 30);
    if (a.ok())
        if (auto s = parseSacct(a.out, jobId); s && s->state != JobState::Unknown)
            return *s;
    const CommandResult c = runCommand({"scontrol", "show", "job", id}, 30);
    if (c.ok())
        if (auto s = parseScontrolJob(c.out))
            return *s;
    JobStatus unknown;
    unknown.reason =
        q.ok() ? std::string("the job is neither queued nor known to accounting") : q.errorText();
    return unknown;
}

std::optional<Diagnostic> cancelJob(std::int64_t jobId)
{
    const CommandResult r = runCommand({"scancel", std::to_string(jobId)}, 30);
    if (r.ok())
        return std::nullopt;
    return slurmError("cluster.scancel", "scancel " + std::to_string(jobId) + ": " + r.errorText());
}

Result<std::vector<Partition>> listPartitions()
{
    using R = Result<std::vector<Partition>>;
    if (findProgram("sinfo").empty())
        return R::fail(slurmError("cluster.no-slurm", slurmClientProblem().empty()
                                                          ? "sinfo is not on PATH"
                                                          : slurmClientProblem()));
    const CommandResult r = runCommand({"sinfo", "-h", "-o", kSinfoFormat}, 30);
    if (!r.ok())
        return R::fail(slurmError("cluster.sinfo", "sinfo: " + r.errorText()));
    return R::ok(parsePartitions(r.out));
}

std::vector<std::string> OutputFollower::poll()
{
    std::vector<std::string> lines;
    std::ifstream in(m_file, std::ios::binary);
    if (!in)
        return lines;
    in.seekg(0, std::ios::end);
    const auto size = std::uint64_t(in.tellg());
    if (size < m_offset) {
        // Truncated or replaced (a requeued job starts its file again): read it from the start.
        m_offset = 0;
        m_partial.clear();
    }
    if (size == m_offset)
        return lines;
    in.seekg(std::streamoff(m_offset));
    std::string chunk(std::size_t(size - m_offset), '\0');
    in.read(chunk.data(), std::streamsize(chunk.size()));
    chunk.resize(std::size_t(in.gcount()));
    m_offset += chunk.size();
    m_partial += chunk;
    std::size_t start = 0;
    for (std::size_t nl; (nl = m_partial.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string line = m_partial.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
    }
    m_partial.erase(0, start);
    return lines;
}

std::vector<std::string> OutputFollower::flush()
{
    auto lines = poll();
    if (!m_partial.empty())
        lines.push_back(m_partial);
    m_partial.clear();
    return lines;
}

} // namespace portolan::cluster
