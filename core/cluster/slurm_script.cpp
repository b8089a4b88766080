// The sbatch script of a Portolan job. It is a plain script on purpose: the GUI shows it before
// it is submitted, and a user at a site with its own rules (an account, a QOS, modules to load,
// a container) edits it and submits the edited file.
#include "core/cluster/cluster.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace portolan::cluster {

namespace {

// Single quotes unless the word is plain; a quote inside becomes '\''.
std::string shellWord(const std::string& w)
{
    const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
        return std::isalnum(c) ||
               std::string_view("_-./=:,+@%").find(char(c)) != std::string_view::npos;
    });
    if (plain)
        return w;
    std::string out = "'";
    for (char c : w)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool allDigits(std::string_view s)
{
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::string_view> splitOn(std::string_view s, char sep)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

// Words split on blanks outside quotes; the quotes themselves removed; a '#' word ends the line.
std::vector<std::string> shellWords(std::string_view line)
{
    std::vector<std::string> words;
    std::string cur;
    bool inWord = false;
    char quote = 0;
    for (char c : line) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur.push_back(c);
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == ' ' || c == '\t') {
            if (inWord)
                words.push_back(std::move(cur));
            cur.clear();
            inWord = false;
        } else if (c == '#' && !inWord) {
            break;
        } else {
            cur.push_back(c);
            inWord = true;
        }
    }
    if (inWord)
        words.push_back(std::move(cur));
    return words;
}

} // namespace

std::string jobScript(const JobRequest& r)
{
    std::ostringstream s;
    s << "#!/bin/bash\n";
    for (const auto& c : r.comments)
        s << "# " << c << "\n";
    s << "#SBATCH --job-name=" << shellWord(r.jobName) << "\n";
    s << "#SBATCH --nodes=" << r.nodes << "\n";
    s << "#SBATCH --ntasks-per-node=" << r.tasksPerNode << "\n";
    s << "#SBATCH --cpus-per-task=" << r.cpusPerTask << "\n";
    if (!r.partition.empty())
        s << "#SBATCH --partition=" << shellWord(r.partition) << "\n";
    if (!r.timeLimit.empty())
        s << "#SBATCH --time=" << r.timeLimit << "\n";
    if (!r.output.empty())
        s << "#SBATCH --output=" << shellWord(r.output.string()) << "\n";
    if (!r.workDir.empty())
        s << "#SBATCH --chdir=" << shellWord(r.workDir.string()) << "\n";
    s << "\n"
         "# Rendezvous of the ranks: the job's first node, and a port from the job id so that\n"
         "# concurrent jobs on one node do not meet. Each task learns its rank and the world\n"
         "# from SLURM_PROCID and SLURM_NTASKS.\n"
         "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
         "export MASTER_PORT=$((20000 + SLURM_JOB_ID % 10000))\n"
         "# One compute thread per CPU given to a task.\n"
         "export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}\n"
         "\n"
         "# --label prefixes every line with the task that wrote it (Portolan reads task 0's\n"
         "# events from this job's output file); --kill-on-bad-exit ends the job when a task\n"
         "# fails.\n"
         "srun --label --kill-on-bad-exit=1";
    for (const auto& w : r.command)
        s << " " << shellWord(w);
    s << "\n";
    return s.str();
}

std::string timeLimitError(const std::string& text)
{
    std::string upper;
    for (char c : text)
        upper.push_back(char(std::toupper(static_cast<unsigned char>(c))));
    if (upper == "UNLIMITED" || upper == "INFINITE")
        return {};
    const std::string wants = "a time limit is minutes, minutes:seconds, hours:minutes:seconds, "
                              "days-hours, days-hours:minutes or days-hours:minutes:seconds";
    std::string_view rest = text;
    if (const auto dash = rest.find('-'); dash != std::string_view::npos) {
        if (!allDigits(rest.substr(0, dash)))
            return "'" + text + "': " + wants;
        rest = rest.substr(dash + 1);
    }
    const auto parts = splitOn(rest, ':');
    if (parts.size() > 3 || !std::all_of(parts.begin(), parts.end(), allDigits))
        return "'" + text + "': " + wants;
    return {};
}

std::optional<std::string> scriptOutputPattern(const std::string& scriptText)
{
    std::istringstream in(scriptText);
    std::string line;
    std::optional<std::string> found;
    while (std::getline(in, line)) {
        if (line.rfind("#SBATCH", 0) != 0)
            continue;
        // sbatch reads an #SBATCH line like a shell would its words: quotes keep spaces.
        const auto words = shellWords(line.substr(7));
        for (std::size_t i = 0; i < words.size(); ++i) {
            const std::string& w = words[i];
            if (w.rfind("--output=", 0) == 0)
                found = w.substr(9);
            else if ((w == "--output" || w == "-o") && i + 1 < words.size())
                found = words[++i];
            else if (w.rfind("-o", 0) == 0 && w.size() > 2 && w[2] != '-')
                found = w.substr(2);
        }
    }
    return found;
}

std::string expandOutputPattern(const std::string& pattern, std::int64_t jobId,
                                const std::string& jobName)
{
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%' || i + 1 == pattern.size()) {
            out.push_back(pattern[i]);
            continue;
        }
        const char c = pattern[++i];
        if (c == 'j' || c == 'A')
            out += std::to_string(jobId);
        else if (c == 'x')
            out += jobName;
        else if (c == '%')
            out.push_back('%');
        else
            out += std::string("%") + c;
    }
    return out;
}

} // namespace portolan::cluster
