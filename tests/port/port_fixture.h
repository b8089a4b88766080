#pragma once
// What the port tests share: an original written to a folder, its port planned and generated,
// the text of the port's files and items, and both dry runs of the written port. Each test file
// keeps only its fixtures and what it asserts, so a change to how a port is made and verified
// is made here once.
#include "core/analysis/analysis.h"
#include "core/common/resources.h"
#include "core/guides/guide.h"
#include "core/port/generate.h"
#include "tests/porting_gui/port_test_support.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace portfixture {

using namespace portolan;
namespace fs = std::filesystem;

// The dry runs need torch; Debian's python3-torch is what the README installs.
inline const char* const Python = "/usr/bin/python3";

inline bool torchAvailable()
{
    return porttest::pythonHasTorch(QString::fromLatin1(Python));
}

inline void writeOriginal(const fs::path& root, const std::string& text,
                          const std::string& file = "main.py")
{
    fs::create_directories(root);
    std::ofstream(root / file) << text;
}

// An original of several files, each path relative to `root`.
inline void writeOriginal(const fs::path& root, const std::map<std::string, std::string>& files)
{
    fs::create_directories(root);
    for (const auto& [path, text] : files) {
        fs::create_directories((root / path).parent_path());
        std::ofstream(root / path) << text;
    }
}

// How many times `what` occurs in `text` (overlapping ones counted).
inline int occurrences(const std::string& text, const std::string& what)
{
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

inline bool has(const std::string& text, const std::string& what)
{
    return text.find(what) != std::string::npos;
}

// The original already in `root`, analysed, planned and generated for `target`.
inline Result<port::PortResult> generateFrom(const fs::path& root, const std::string& target,
                                             const std::string& api)
{
    auto a = analysis::analyzeProject(root);
    if (!a)
        return Result<port::PortResult>::fail(a.error);
    auto plan = port::planPort(*a.value);
    if (!plan)
        return Result<port::PortResult>::fail(plan.error);
    return port::generatePort(*plan.value, target, api);
}

// `script` written as the original's main.py, then generated as above.
inline Result<port::PortResult> generate(const fs::path& root, const std::string& script,
                                         const std::string& target,
                                         const std::string& api = "runner")
{
    writeOriginal(root, script);
    return generateFrom(root, target, api);
}

// The first of `lines` that `text` lacks (or, with `present` false, has); "" when none.
inline QString firstMismatch(const std::string& text, const QStringList& lines, bool present = true)
{
    for (const auto& line : lines)
        if (has(text, line.toStdString()) != present)
            return line;
    return {};
}

// Every generated file's text, one after the other: what the rows search.
inline std::string allText(const port::PortResult& r)
{
    std::string all;
    for (const auto& g : r.files)
        all += g.text + "\n";
    return all;
}

// The manual items' messages, a line each: what a failed "full" assertion prints.
inline std::string manualText(const port::PortResult& r)
{
    std::string said;
    for (const auto& m : r.manual)
        said += m.message + "\n";
    return said;
}

// The target guide's errors on a written port (what the verification's check counts), each
// with its location in `said`.
inline int checkErrors(const fs::path& port, const std::string& target, std::string* said)
{
    const guides::GuideSet set = guides::loadGuides(resourcesDir() / "guides");
    const guides::Guide* guide = set.find(target);
    auto a = analysis::analyzeProject(port);
    if (!guide || !a)
        return -1;
    const guides::GuideResult r = guides::runGuide(*guide, *a.value);
    for (const auto& f : r.allFindings())
        if (f.severity == Severity::Error)
            *said += f.location.toString() + " " + f.message + "\n";
    return r.errors;
}

// The port written to a `port` folder beside the original's, then both dry runs for `steps`
// steps: the original's (unless `original` has it already) and the port's replay of it.
inline port::VerifyResult writeAndVerify(const fs::path& root, const port::PortResult& r,
                                         int steps = 3, const port::OriginalRun* original = nullptr)
{
    const fs::path out = root.parent_path() / "port";
    if (auto error = port::writePort(r, out)) {
        port::VerifyResult v;
        v.dryRunError = "the port could not be written: " + error->message;
        return v;
    }
    port::VerifyOptions o;
    o.python = Python;
    o.steps = steps;
    o.original = original;
    return port::verifyPort(root, out, r, o);
}

// Why a verification is not the proof the rows ask for, "" when it is: both dry runs ran, the
// port reached `steps` steps and compared them all, its losses and weights agree with the
// original's, and (unless `checkClean` is false) its guide found no error.
inline std::string verificationProblem(const port::VerifyResult& v, int steps = 3,
                                       bool checkClean = true)
{
    if (!v.originalError.empty())
        return "the original's dry run: " + v.originalError;
    if (!v.dryRunError.empty())
        return "the port's dry run: " + v.dryRunError;
    if (checkClean && v.checkErrors != 0) {
        std::string said = std::to_string(v.checkErrors) + " check errors:\n";
        for (const auto& f : v.checkFindings)
            said += f.location.toString() + " " + f.message + "\n";
        return said;
    }
    if (v.dryRunSteps != steps || v.stepsCompared != steps)
        return std::to_string(v.dryRunSteps) + " dry-run steps, " +
               std::to_string(v.stepsCompared) + " compared, of " + std::to_string(steps);
    if (!v.agrees)
        return "first divergent step " + std::to_string(v.firstDivergence) +
               ", max rel loss diff " + std::to_string(v.maxRelLossDiff) +
               ", max abs weight diff " + std::to_string(v.maxAbsWeightDiff);
    return {};
}

// Runs `script` in `dir` whole, seeded once before it, with PopTorch's stand-ins on the path;
// its standard output, or the error. `drop`, when given, is taken out of the script first (a
// generated line without which the numbers must part).
inline QString runWhole(const fs::path& dir, const std::string& script, QString* error,
                        const QString& drop = {})
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("PYTHONPATH",
               QString::fromStdString((resourcesDir() / "python" / "portolan_standins").string()));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(QString::fromStdString(dir.string()));
    p.start(Python, {"-c",
                     "import sys, torch\n"
                     "script, drop = sys.argv[1], sys.argv[2]\n"
                     "torch.manual_seed(0)\n"
                     "sys.argv = [script]\n"
                     "text = open(script).read()\n"
                     "if drop:\n"
                     "    assert drop in text, drop\n"
                     "    text = text.replace(drop, '', 1)\n"
                     "exec(compile(text, script, 'exec'), {'__name__': '__main__'})\n",
                     QString::fromStdString(script), drop});
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        *error = QString::fromUtf8(p.readAllStandardError());
    return QString::fromUtf8(p.readAllStandardOutput());
}

} // namespace portfixture

// A Qt Test macro, so the skip returns from the test function that uses it.
#define PORT_SKIP_WITHOUT_TORCH()                                                                  \
    do {                                                                                           \
        if (!portfixture::torchAvailable())                                                        \
            QSKIP("/usr/bin/python3 with torch is needed for the dry runs");                       \
    } while (false)

// The row's verification must be the proof (see verificationProblem).
#define PORT_VERIFY_PROOF(...)                                                                     \
    do {                                                                                           \
        const std::string problem_ = portfixture::verificationProblem(__VA_ARGS__);                \
        QVERIFY2(problem_.empty(), problem_.c_str());                                              \
    } while (false)

// The port's text has every line of `lines` (PORT_VERIFY_ABSENT: none of them).
#define PORT_VERIFY_CONTAINS(text, lines)                                                          \
    do {                                                                                           \
        const QString missing_ = portfixture::firstMismatch(text, lines);                          \
        QVERIFY2(missing_.isEmpty(), qPrintable(missing_ + "\n---\n" + (text).c_str()));           \
    } while (false)
#define PORT_VERIFY_ABSENT(text, lines)                                                            \
    do {                                                                                           \
        const QString found_ = portfixture::firstMismatch(text, lines, false);                     \
        QVERIFY2(found_.isEmpty(), qPrintable(found_ + "\n---\n" + (text).c_str()));               \
    } while (false)
