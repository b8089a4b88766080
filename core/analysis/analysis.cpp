#include "core/analysis/analysis.h"

#include "core/analysis/facts.h"
#include "core/common/atomic_file.h"
#include "core/python/resolve.h"

#include <atomic>
#include <mutex>
#include <thread>

namespace portolan::analysis {

struct AnalysisCache
{
    std::once_flag once;
    ProjectFacts facts;
};

ProjectAnalysis::ProjectAnalysis() : m_cache(std::make_unique<AnalysisCache>()) {}
ProjectAnalysis::~ProjectAnalysis() = default;
ProjectAnalysis::ProjectAnalysis(ProjectAnalysis&&) noexcept = default;
ProjectAnalysis& ProjectAnalysis::operator=(ProjectAnalysis&&) noexcept = default;

const ProjectFacts& ProjectAnalysis::facts() const
{
    // Computed by whichever check asks first; the others wait for it.
    std::call_once(m_cache->once, [this] { m_cache->facts = computeFacts(*this); });
    return m_cache->facts;
}

int ProjectAnalysis::indexOf(const PythonFile* file) const
{
    if (!file || python.empty() || file < python.data() || file >= python.data() + python.size())
        return -1;
    return static_cast<int>(file - python.data());
}

const PythonFile* ProjectAnalysis::findPython(std::string_view path) const
{
    for (const auto& f : python)
        if (f.path == path)
            return &f;
    return nullptr;
}

const ConfigFile* ProjectAnalysis::findConfig(std::string_view path) const
{
    for (const auto& c : configs)
        if (c.path == path)
            return &c;
    return nullptr;
}

const ConfigFile* ProjectAnalysis::paramsConfig() const
{
    const ConfigFile* c = findConfig(paramsFile.path);
    return c && c->kind != ConfigKind::DeterminedExperiment ? c : nullptr;
}

std::vector<const ConfigFile*> ProjectAnalysis::experimentConfigs() const
{
    std::vector<const ConfigFile*> out;
    for (const auto& c : configs)
        if (c.kind == ConfigKind::DeterminedExperiment)
            out.push_back(&c);
    return out;
}

const ConfigFile* ProjectAnalysis::mainExperimentConfig() const
{
    if (const ConfigFile* c = findConfig(paramsFile.path);
        c && c->kind == ConfigKind::DeterminedExperiment)
        return c;
    const auto all = experimentConfigs();
    return all.empty() ? nullptr : all.front();
}

Result<ProjectAnalysis> analyzeProject(const std::filesystem::path& root,
                                       const AnalysisOptions& options,
                                       const ProgressCallback& progress)
{
    auto scanned = scanProject(root, options.scan, [&](std::uint64_t, std::uint64_t) {
        return progress ? progress(0, 0) : true;
    });
    if (!scanned)
        return Result<ProjectAnalysis>::fail(scanned.error);

    ProjectAnalysis a;
    a.scan = std::move(*scanned.value);
    a.root = a.scan.root;
    a.cancelled = a.scan.cancelled;
    a.diagnostics = a.scan.diagnostics;
    a.paramsFile = paramsFileFor(a.root, options.paramsOverride);

    std::vector<const ProjectFile*> pyFiles;
    for (const auto& f : a.scan.files) {
        if (f.kind == FileKind::Python)
            pyFiles.push_back(&f);
        else if (f.kind == FileKind::Yaml) {
            auto text = readFile(a.root / f.path);
            if (!text) {
                a.diagnostics.push_back(text.error);
                continue;
            }
            ConfigFile cfg = readConfig(*text.value, f.path);
            if (cfg.parseError)
                a.diagnostics.push_back(*cfg.parseError);
            a.configs.push_back(std::move(cfg));
        }
    }

    // A params file given from outside the project is read like the project's own configs.
    if (!a.paramsFile.empty() && !a.findConfig(a.paramsFile.path)) {
        if (auto text = readFile(a.paramsFile.absolute(a.root))) {
            ConfigFile cfg = readConfig(*text.value, a.paramsFile.path);
            if (cfg.parseError)
                a.diagnostics.push_back(*cfg.parseError);
            a.configs.push_back(std::move(cfg));
        } else {
            a.diagnostics.push_back(text.error);
        }
    }

    // Indexing is independent per file: two workers on the machine's two cores. Results go to
    // fixed slots so the order stays the walk's order.
    a.python.resize(pyFiles.size());
    std::vector<std::optional<Diagnostic>> readErrors(pyFiles.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stop{a.cancelled};
    auto indexOne = [&](std::size_t i) {
        PythonFile& out = a.python[i];
        out.path = pyFiles[i]->path;
        auto text = readFile(a.root / out.path);
        if (!text) {
            readErrors[i] = text.error;
        } else {
            out.text = std::move(*text.value);
            out.index = python::indexSource(out.text, out.path);
        }
        ++done;
    };
    auto work = [&] {
        for (std::size_t i = next++; i < pyFiles.size() && !stop; i = next++)
            indexOne(i);
    };
    const unsigned workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned w = 1; w < workers && pyFiles.size() > 8; ++w)
        threads.emplace_back(work);
    // The calling thread works too, and is the only one that reports progress.
    for (std::size_t i = next++; i < pyFiles.size() && !stop; i = next++) {
        indexOne(i);
        if (progress && !progress(done, pyFiles.size()))
            stop = true;
    }
    for (auto& t : threads)
        t.join();
    if (stop)
        a.cancelled = true;

    std::vector<PythonFile> kept;
    kept.reserve(a.python.size());
    for (std::size_t i = 0; i < a.python.size(); ++i) {
        if (readErrors[i]) {
            a.diagnostics.push_back(*readErrors[i]);
            continue;
        }
        if (a.python[i].path.empty())
            continue; // not reached before a cancel
        for (const auto& d : a.python[i].index.syntaxErrors)
            a.diagnostics.push_back(d);
        kept.push_back(std::move(a.python[i]));
    }
    a.python = std::move(kept);
    a.contracts = options.contracts ? options.contracts : defaultContracts();
    for (const auto& d : a.contracts->diagnostics)
        a.diagnostics.push_back(d);
    std::vector<const python::PyIndex*> indexes;
    indexes.reserve(a.python.size());
    for (const auto& f : a.python)
        indexes.push_back(&f.index);
    a.resolver = std::make_shared<const python::Resolver>(std::move(indexes));
    a.flavour = detectFlavour(a);
    if (progress)
        progress(pyFiles.size(), pyFiles.size());
    return Result<ProjectAnalysis>::ok(std::move(a));
}

} // namespace portolan::analysis
