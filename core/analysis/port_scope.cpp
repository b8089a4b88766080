#include "core/analysis/port_scope.h"

#include "core/analysis/facts_builder.h"

#include <array>
#include <map>
#include <vector>

namespace portolan::analysis {

namespace {

std::vector<std::string_view> components(std::string_view path)
{
    std::vector<std::string_view> out;
    while (!path.empty()) {
        const auto slash = path.find('/');
        out.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos)
            break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

constexpr std::array<std::string_view, 3> TestFolders{"tests", "test", "testing"};
constexpr std::array<std::string_view, 6> VendoredFolders{
    "third_party", "third-party", "thirdparty", "vendor", "vendored", "_vendor"};

} // namespace

std::string outsidePortReason(std::string_view path)
{
    const auto parts = components(path);
    if (parts.empty())
        return {};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        for (const auto folder : TestFolders)
            if (parts[i] == folder)
                return "test code (" + std::string(folder) + "/)";
        for (const auto folder : VendoredFolders)
            if (parts[i] == folder)
                return "vendored code (" + std::string(folder) + "/)";
    }
    const std::string_view name = parts.back();
    if (name.starts_with("test_") && name.ends_with(".py"))
        return "test code (test_*.py)";
    if (name.ends_with("_test.py"))
        return "test code (*_test.py)";
    if (name == "conftest.py")
        return "test code (conftest.py)";
    return {};
}

std::vector<std::string> describeOutsidePort(const std::vector<std::string>& paths)
{
    std::map<std::string, std::vector<std::string>> byReason;
    for (const auto& p : paths)
        if (std::string why = outsidePortReason(p); !why.empty())
            byReason[why].push_back(p);
    std::vector<std::string> out;
    for (const auto& [why, files] : byReason) {
        std::string line = why + ": " + std::to_string(files.size()) +
                           (files.size() == 1 ? " file (" : " files (");
        for (std::size_t i = 0; i < files.size() && i < 3; ++i)
            line += (i ? ", " : "") + files[i];
        line += files.size() > 3 ? ", …)" : ")";
        out.push_back(std::move(line));
    }
    return out;
}

} // namespace portolan::analysis

// --- the training path (needs the analysis) ---------------------------------------------------

namespace portolan::analysis {

std::string outsidePortReason(const ProjectAnalysis& a, std::string_view path)
{
    if (std::string why = outsidePortReason(path); !why.empty())
        return why;
    if (!a.resolver || !a.contracts)
        return {};
    const auto& off = a.facts().offTrainingPath;
    const auto it = off.find(std::string(path));
    return it == off.end() ? std::string() : it->second;
}

std::vector<std::string> describeOutsidePort(const ProjectAnalysis& a)
{
    std::vector<std::string> paths;
    for (const auto& f : a.python)
        paths.push_back(f.path);
    std::vector<std::string> out = describeOutsidePort(paths);
    if (!a.resolver || !a.contracts)
        return out;
    for (const auto& [path, why] : a.facts().offTrainingPath)
        out.push_back(path + ": " + why);
    return out;
}

} // namespace portolan::analysis

namespace portolan::analysis::detail {

namespace {

// A training step in code the project runs itself: autograd's backward (loss.backward(),
// torch.autograd.backward) and Keras' fit and train_on_batch.
constexpr std::array<std::string_view, 4> TrainingSteps{"backward", "fit", "fit_generator",
                                                        "train_on_batch"};

} // namespace

// A file run as a program: it has a `__main__` guard, parses the command line at module level,
// or is module-level code only (no definitions). A module nothing imports that only defines
// things (loaded by name through a registry, or unused) is not one, whatever it calls at
// module level (a logger, a decorator).
bool FactsBuilder::isScript(int file) const
{
    const auto& index = idx(file);
    bool moduleCode = false, parsesArgs = false;
    for (const auto& c : index.calls)
        if (c.function == ModuleLevel && !c.callee.empty()) {
            moduleCode = true;
            parsesArgs = parsesArgs || c.callee.ends_with("parse_args") ||
                         c.callee.ends_with("parse_known_args");
        }
    if (!moduleCode)
        return false;
    if (parsesArgs || (index.functions.empty() && index.classes.empty()))
        return true;
    // `if __name__ == "__main__":` at the start of a line.
    const std::string& text = m_a.python[std::size_t(file)].text;
    for (std::size_t at = text.find("__main__"); at != std::string::npos;
         at = text.find("__main__", at + 8)) {
        const std::size_t line = text.rfind('\n', at) + 1; // npos + 1 == 0: the first line
        const std::string_view head = std::string_view(text).substr(line, at - line);
        if (head.starts_with("if ") && head.find("__name__") != std::string_view::npos)
            return true;
    }
    return false;
}

bool FactsBuilder::trains(const std::set<std::pair<int, int>>& code) const
{
    for (const auto& [file, fn] : code)
        for (const auto& c : idx(file).calls) {
            if (c.function != fn || c.callee.empty())
                continue;
            const std::string_view last =
                std::string_view(c.callee).substr(c.callee.rfind('.') + 1);
            for (const auto step : TrainingSteps)
                if (last == step)
                    return true;
        }
    // A hand-over to a vendor that trains what it receives (a runner, trainingModel, a Trainer).
    for (const auto& vc : m_out.vendorCalls)
        if (vc.api && (!vc.api->roles.empty() || vc.api->trains) && !vc.api->inferenceOnly &&
            code.count({vc.file, idx(vc.file).calls[std::size_t(vc.call)].function}))
            return true;
    return false;
}

void FactsBuilder::trainingPath()
{
    const int n = int(m_a.python.size());
    // A file another project file imports is a module, not an entry point (tests importing a
    // training script to call its functions do not make it one).
    std::vector<bool> imported(std::size_t(n), false);
    for (int f = 0; f < n; ++f) {
        if (!outsidePortReason(m_a.python[std::size_t(f)].path).empty())
            continue;
        for (const auto& imp : idx(f).imports) {
            int target = m_r.moduleFile(f, imp.module);
            if (!imp.name.empty()) {
                const bool dots = imp.module.find_first_not_of('.') == std::string::npos;
                if (const int sub = m_r.moduleFile(f, imp.module + (dots ? "" : ".") + imp.name);
                    sub >= 0)
                    target = sub;
            }
            if (target >= 0 && target != f)
                imported[std::size_t(target)] = true;
        }
    }
    // What the vendor runs on the project's behalf trains when the vendor does (a trial class,
    // a function handed to a runner), not when it only runs the model (inferenceModel).
    std::set<std::pair<int, int>> training;
    for (const auto& e : m_out.entries)
        if (e.classContract ||
            (e.vendorCall >= 0 && m_out.vendorCalls[std::size_t(e.vendorCall)].api &&
             !m_out.vendorCalls[std::size_t(e.vendorCall)].api->inferenceOnly)) {
            training = m_out.reachable;
            break;
        }
    std::vector<std::pair<int, std::set<std::pair<int, int>>>> others;
    for (int f = 0; f < n; ++f) {
        if (imported[std::size_t(f)] || !outsidePortReason(m_a.python[std::size_t(f)].path).empty())
            continue;
        if (!isScript(f))
            continue;
        auto code = closure({}, {{f, ModuleLevel}});
        if (trains(code))
            training.insert(code.begin(), code.end());
        else
            others.emplace_back(f, std::move(code));
    }
    // Only when some entry point visibly trains: otherwise there is no training path to be off.
    if (training.empty())
        return;
    std::set<int> trainingFiles;
    for (const auto& [f, fn] : training)
        trainingFiles.insert(f);
    for (const auto& [script, code] : others) {
        if (trainingFiles.count(script))
            continue;
        const std::string& path = m_a.python[std::size_t(script)].path;
        m_out.offTrainingPath[path] = "a script that never trains (nothing reachable from " + path +
                                      " calls backward() or fit() or hands a model to a trainer)";
        for (const auto& [f, fn] : code) {
            const std::string& used = m_a.python[std::size_t(f)].path;
            if (!trainingFiles.count(f) && outsidePortReason(used).empty())
                m_out.offTrainingPath.emplace(used, "used only by scripts that never train (" +
                                                        path + ")");
        }
    }
}

} // namespace portolan::analysis::detail
