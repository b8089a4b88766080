#include "views/porting/analysis_runner.h"

#include "core/common/resources.h"

#include <QDir>
#include <QFileSystemWatcher>

namespace portolan::views {

namespace {

struct Outcome
{
    PortingSnapshotPtr snapshot;
    QString error;
};

Outcome build(const std::string& folder, const std::string& wantedGuide)
{
    // The CLI's session too: one rule for the guide, the same findings.
    guides::SessionOptions options;
    options.guideId = wantedGuide;
    auto started = guides::startPortingSession(folder, options);
    if (!started)
        return {nullptr, QString::fromStdString(started.error.message)};
    auto snap = std::make_shared<PortingSnapshot>();
    static_cast<guides::PortingSession&>(*snap) = std::move(*started.value);
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

void AnalysisRunner::analyse(const QString& folder, const QString& guideId)
{
    m_folder = folder;
    m_guideId = guideId;
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
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
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
    runAsync(
        this, [folder, guide] { return build(folder, guide); },
        [this, id](Outcome outcome) {
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
    // Watch every analysed file and every folder that holds one (new files appear there).
    QStringList files;
    QStringList dirs{QString::fromStdString(a.root.string())};
    for (const auto& f : a.scan.files) {
        if (f.kind != FileKind::Python && f.kind != FileKind::Yaml)
            continue;
        const QString path = QString::fromStdString((a.root / f.path).string());
        files << path;
        dirs << QFileInfo(path).absolutePath();
    }
    dirs.removeDuplicates();
    const QStringList oldFiles = m_watcher->files();
    const QStringList oldDirs = m_watcher->directories();
    if (!oldFiles.isEmpty())
        m_watcher->removePaths(oldFiles);
    if (!oldDirs.isEmpty())
        m_watcher->removePaths(oldDirs);
    if (!files.isEmpty())
        m_watcher->addPaths(files);
    m_watcher->addPaths(dirs);
}

} // namespace portolan::views
