// What the Slurm client commands print, read into plain structs. The formats are the ones
// Portolan asks for (-o / --format with '|' separators, -h / -n without headers); scontrol's
// key=value output is read by key, so that fields added by later Slurm releases do not matter.
#include "core/cluster/cluster.h"
#include "core/common/json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

namespace portolan::cluster {

namespace {

std::string trim(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> fields(const std::string& line, char sep = '|')
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == sep) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    out.push_back(trim(cur));
    return out;
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!trim(line).empty())
            out.push_back(line);
    return out;
}

std::optional<std::int64_t> leadingInt(std::string_view s)
{
    s = s.substr(std::min(s.size(), s.find_first_not_of(" \t")));
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr == s.data())
        return std::nullopt;
    return v;
}

// "2:0" (exit code, signal).
void readExitCode(const std::string& text, JobStatus& s)
{
    const auto colon = text.find(':');
    s.exitCode = int(leadingInt(text.substr(0, colon)).value_or(0));
    if (colon != std::string::npos)
        s.signal = int(leadingInt(text.substr(colon + 1)).value_or(0));
}

} // namespace

JobState jobStateFromName(const std::string& name)
{
    std::string word;
    for (char c : name) {
        if (std::isspace(static_cast<unsigned char>(c)) || c == '+')
            break;
        word.push_back(char(std::toupper(static_cast<unsigned char>(c))));
    }
    static const std::pair<const char*, JobState> names[] = {
        {"PENDING", JobState::Pending},
        {"PD", JobState::Pending},
        {"CONFIGURING", JobState::Pending},
        {"CF", JobState::Pending},
        {"REQUEUED", JobState::Pending},
        {"RUNNING", JobState::Running},
        {"R", JobState::Running},
        {"COMPLETING", JobState::Completing},
        {"CG", JobState::Completing},
        {"COMPLETED", JobState::Completed},
        {"CD", JobState::Completed},
        {"FAILED", JobState::Failed},
        {"F", JobState::Failed},
        {"BOOT_FAIL", JobState::Failed},
        {"DEADLINE", JobState::Timeout},
        {"CANCELLED", JobState::Cancelled},
        {"CA", JobState::Cancelled},
        {"TIMEOUT", JobState::Timeout},
        {"TO", JobState::Timeout},
        {"NODE_FAIL", JobState::NodeFail},
        {"NF", JobState::NodeFail},
        {"OUT_OF_MEMORY", JobState::OutOfMemory},
        {"OOM", JobState::OutOfMemory},
        {"PREEMPTED", JobState::Preempted},
        {"PR", JobState::Preempted},
        {"SUSPENDED", JobState::Suspended},
        {"S", JobState::Suspended},
        {"STOPPED", JobState::Suspended},
    };
    for (const auto& [n, s] : names)
        if (word == n)
            return s;
    return JobState::Unknown;
}

std::string jobStateName(JobState s)
{
    switch (s) {
    case JobState::Pending:
        return "PENDING";
    case JobState::Running:
        return "RUNNING";
    case JobState::Completing:
        return "COMPLETING";
    case JobState::Completed:
        return "COMPLETED";
    case JobState::Failed:
        return "FAILED";
    case JobState::Cancelled:
        return "CANCELLED";
    case JobState::Timeout:
        return "TIMEOUT";
    case JobState::NodeFail:
        return "NODE_FAIL";
    case JobState::OutOfMemory:
        return "OUT_OF_MEMORY";
    case JobState::Preempted:
        return "PREEMPTED";
    case JobState::Suspended:
        return "SUSPENDED";
    case JobState::Unknown:
        break;
    }
    return "UNKNOWN";
}

bool isFinal(JobState s)
{
    switch (s) {
    case JobState::Completed:
    case JobState::Failed:
    case JobState::Cancelled:
    case JobState::Timeout:
    case JobState::NodeFail:
    case JobState::OutOfMemory:
    case JobState::Preempted:
        return true;
    default:
        return false;
    }
}

std::optional<std::int64_t> parseSbatchOutput(const std::string& text)
{
    for (const auto& line : lines(text)) {
        const std::string t = trim(line);
        const std::string plain = "Submitted batch job ";
        if (t.rfind(plain, 0) == 0)
            return leadingInt(t.substr(plain.size()));
        // --parsable: "ID" or "ID;CLUSTER", alone on its line.
        const std::string id = t.substr(0, t.find(';'));
        if (!id.empty() &&
            std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            return leadingInt(id);
    }
    return std::nullopt;
}

std::optional<JobStatus> parseSqueue(const std::string& text, std::int64_t jobId)
{
    for (const auto& line : lines(text)) {
        const auto f = fields(line);
        if (f.size() < 2 || leadingInt(f[0]) != jobId)
            continue;
        JobStatus s;
        s.stateText = f[1];
        s.state = jobStateFromName(f[1]);
        if (f.size() > 2)
            s.reason = f[2];
        if (f.size() > 3)
            s.nodes = f[3];
        return s;
    }
    return std::nullopt;
}

std::optional<JobStatus> parseSacct(const std::string& text, std::int64_t jobId)
{
    const std::string id = std::to_string(jobId);
    for (const auto& line : lines(text)) {
        const auto f = fields(line);
        // Steps are "ID.batch", "ID.0", "ID.extern"; the job's own line is the bare id.
        if (f.size() < 2 || f[0] != id)
            continue;
        JobStatus s;
        s.stateText = f[1];
        s.state = jobStateFromName(f[1]);
        if (f.size() > 2)
            readExitCode(f[2], s);
        if (f.size() > 3)
            s.nodes = f[3];
        return s;
    }
    return std::nullopt;
}

std::optional<JobStatus> parseScontrolJob(const std::string& text)
{
    JobStatus s;
    bool found = false;
    std::istringstream in(text);
    std::string word;
    while (in >> word) {
        const auto eq = word.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = word.substr(0, eq);
        const std::string value = word.substr(eq + 1);
        if (key == "JobState") {
            s.stateText = value;
            s.state = jobStateFromName(value);
            found = true;
        } else if (key == "Reason") {
            s.reason = value;
        } else if (key == "ExitCode") {
            readExitCode(value, s);
        } else if (key == "NodeList" && value != "(null)") {
            s.nodes = value;
        } else if (key == "StdOut") {
            s.stdoutPath = value;
        }
    }
    return found ? std::optional<JobStatus>(s) : std::nullopt;
}

std::vector<Partition> parsePartitions(const std::string& text)
{
    std::vector<Partition> out;
    for (const auto& line : lines(text)) {
        const auto f = fields(line);
        if (f.empty() || f[0].empty())
            continue;
        std::string name = f[0];
        const bool isDefault = name.back() == '*';
        if (isDefault)
            name.pop_back();
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const Partition& p) { return p.name == name; });
        if (it == out.end()) {
            out.push_back(Partition{});
            it = out.end() - 1;
            it->name = name;
        }
        it->isDefault = it->isDefault || isDefault;
        if (f.size() > 1)
            it->up = f[1] == "up";
        if (f.size() > 2)
            it->timeLimit = f[2];
        const int count = f.size() > 3 ? int(leadingInt(f[3]).value_or(0)) : 0;
        it->nodes += count;
        if (f.size() > 4 && (f[4].rfind("idle", 0) == 0 || f[4].rfind("mix", 0) == 0))
            it->idleNodes += count;
        if (f.size() > 5) {
            if (it->cpusPerNode.empty())
                it->cpusPerNode = f[5];
            else if (it->cpusPerNode != f[5] && it->cpusPerNode.back() != '+')
                it->cpusPerNode += "+";
        }
    }
    return out;
}

OutputLine splitTaskLabel(const std::string& line)
{
    // "0: text", "12: text"; srun pads the label with spaces when tasks reach two digits.
    std::size_t i = line.find_first_not_of(' ');
    const std::size_t digits = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
        ++i;
    if (i == digits || i >= line.size() || line[i] != ':' || i - digits > 6)
        return {-1, line};
    const int task =
        int(leadingInt(std::string_view(line).substr(digits, i - digits)).value_or(-1));
    std::size_t text = i + 1;
    if (text < line.size() && line[text] == ' ')
        ++text;
    return {task, line.substr(text)};
}

std::vector<OutputLine> TaskLineJoiner::push(const std::string& rawLine)
{
    OutputLine line = splitTaskLabel(rawLine);
    auto it = std::find_if(m_pending.begin(), m_pending.end(),
                           [&](const auto& p) { return p.first == line.task; });
    if (it == m_pending.end()) {
        if (line.text.empty() || line.text.front() != '{' || nlohmann::json::accept(line.text))
            return {line};
        m_pending.emplace_back(line.task, line.text);
        return {};
    }
    it->second += line.text;
    // A runaway piece (not JSON after all) is let go rather than held for ever.
    if (nlohmann::json::accept(it->second) || it->second.size() > (1u << 20)) {
        OutputLine whole{it->first, std::move(it->second)};
        m_pending.erase(it);
        return {whole};
    }
    return {};
}

std::vector<OutputLine> TaskLineJoiner::flush()
{
    std::vector<OutputLine> out;
    for (auto& [task, text] : m_pending)
        out.push_back({task, std::move(text)});
    m_pending.clear();
    return out;
}

} // namespace portolan::cluster
