#include "views/porting/analysis_runner.h"

#include "core/common/resources.h"

#include <QDir>
#include <QFileSystemWatcher>
#include <algorithm>

namespace portolan::views {

namespace {

struct Outcome
{
    PortingSnapshotPtr snapshot;
    QString error;
};

Outcome build(const std::string& folder, const std::string& wantedGuide,
              const std::string& paramsOverride)
{
    // The CLI's session too: one rule for the guide, the same findings.
    workflow::SessionOptions options;
    options.guideId = wantedGuide;
    options.paramsOverride = paramsOverride;
    auto started = workflow::startPortingSession(folder, options);
    if (!started)
        return {nullptr, QString::fromStdString(started.error.message)};
    auto snap = std::make_shared<PortingSnapshot>();
    static_cast<workflow::PortingSession&>(*snap) = std::move(*started.value);
    return {snap, {}};
}

} // namespace

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<PortingSnapshotPtr>();
    m_watcher = new QFileSystemWatcher(this);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(250);
    connect(&m_debounce, &QTimer::timeout, this, &AnalysisRunner::rerun);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, &m_debounce, qOverload<>(&QTimer::start));
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, &m_debounce,
            qOverload<>(&QTimer::start));
}

void AnalysisRunner::analyse(const QString& folder, const QString& guideId,
                             const QString& paramsFile)
{
    m_folder = folder;
    m_guideId = guideId;
    m_paramsOverride = paramsFile;
    rerun();
}

void AnalysisRunner::setGuide(const QString& guideId)
{
    if (guideId == m_guideId)
        return;
    m_guideId = guideId;
    rerun();
}

void AnalysisRunner::clear()
{
    m_ticket.invalidate();
    m_folder.clear();
    m_snapshot.reset();
    m_running = false;
    m_toAdd.clear();
    m_toRemove = QStringList(m_watched.begin(), m_watched.end());
    m_watched.clear();
    m_watchedFiles = m_watchable = 0;
    applyWatchSlice();
}

void AnalysisRunner::rerun()
{
    if (m_folder.isEmpty())
        return;
    const quint64 id = m_ticket.next();
    m_running = true;
    emit started();
    const std::string folder = m_folder.toStdString();
    const std::string guide = m_guideId.toStdString();
    const std::string params = m_paramsOverride.toStdString();
    runAsync(
        this, [folder, guide, params] { return build(folder, guide, params); },
        [this, id](const Outcome& outcome) {
            if (!m_ticket.isCurrent(id))
                return;
            m_running = false;
            if (!outcome.snapshot) {
                emit failed(outcome.error);
                return;
            }
            m_snapshot = outcome.snapshot;
            watch(*m_snapshot->analysis);
            emit finished(m_snapshot);
        });
}

void AnalysisRunner::watch(const analysis::ProjectAnalysis& a)
{
    // Watch the analysed Python and YAML files and the folders that hold them (new files appear
    // there), the shallowest first, up to a limit: inotify watches are a per-user resource, and
    // QFileSystemWatcher checks each added or removed path against a list, so 80,000 paths cost
    // the GUI thread seconds. Only the difference with what is already watched is applied, in
    // slices between events.
    std::vector<const ProjectFile*> sources;
    for (const auto& f : a.scan.files)
        if (f.kind == FileKind::Python || f.kind == FileKind::Yaml)
            sources.push_back(&f);
    std::stable_sort(sources.begin(), sources.end(), [](const auto* x, const auto* y) {
        return std::count(x->path.begin(), x->path.end(), '/') <
               std::count(y->path.begin(), y->path.end(), '/');
    });
    m_watchable = int(sources.size());
    if (sources.size() > std::size_t(m_maxWatched))
        sources.resize(std::size_t(m_maxWatched));
    const QString root = QString::fromStdString(a.root.string());
    QSet<QString> wanted{root};
    for (const ProjectFile* f : sources) {
        const QString path = root + QLatin1Char('/') + QString::fromStdString(f->path);
        wanted.insert(path);
        wanted.insert(path.left(path.lastIndexOf(QLatin1Char('/'))));
    }
    m_toRemove.clear();
    m_toAdd.clear();
    for (const QString& p : std::as_const(m_watched))
        if (!wanted.contains(p))
            m_toRemove << p;
    for (const QString& p : std::as_const(wanted))
        if (!m_watched.contains(p))
            m_toAdd << p;
    m_watched = std::move(wanted);
    m_watchedFiles = int(sources.size());
    applyWatchSlice();
}

void AnalysisRunner::applyWatchSlice()
{
    // A slice costs the watcher's list check for each path: small enough to stay far below a
    // frame even when thousands of paths are watched.
    constexpr int slice = 200;
    auto take = [](QStringList& from) {
        QStringList part = from.mid(0, slice);
        from.remove(0, std::min<qsizetype>(slice, from.size()));
        return part;
    };
    if (!m_toRemove.isEmpty())
        m_watcher->removePaths(take(m_toRemove));
    else if (!m_toAdd.isEmpty())
        m_watcher->addPaths(take(m_toAdd));
    if (!m_toRemove.isEmpty() || !m_toAdd.isEmpty())
        QTimer::singleShot(0, this, &AnalysisRunner::applyWatchSlice);
}

} // namespace portolan::views
