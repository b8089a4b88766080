// A port's verification in the Runs tab: the port dialog records its two dry runs (original and
// port) in the port's history as they run, and the panel overlays both curves with the verdict
// above the chart, whether the port is the open project or not.
#include "core/common/number_format.h"
#include "views/profile/plot_theme.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_panel.h"

#include <QFileInfo>
#include <QItemSelection>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QTableView>

namespace portolan::views {

namespace {

bool isVerification(const RunRecord& r)
{
    return r.config.value(QStringLiteral("verification")).toBool();
}

// Which side of the verification a run is: its "side" ("original" or "port"); histories written
// before the side was recorded name it in the label.
bool isOriginalSide(const RunRecord& r)
{
    const QString side = r.config.value(QStringLiteral("side")).toString();
    if (!side.isEmpty())
        return side == QLatin1String("original");
    return r.config.value(QStringLiteral("label")).toString().startsWith(QLatin1String("original"));
}

} // namespace

LossChart::Side verificationSide(const RunRecord& r)
{
    if (!isVerification(r))
        return LossChart::Side::None;
    return isOriginalSide(r) ? LossChart::Side::Original : LossChart::Side::Port;
}

namespace {

// The port dialog ends each verification run with an info event of kind "verification" that
// says whether original and port agree (the reason is the sentence, this the fact).
bool agreed(const RunHistory& history, qint64 run)
{
    for (const QJsonObject& e : history.events(run))
        if (e.value(QStringLiteral("event")).toString() == QLatin1String("info") &&
            e.value(QStringLiteral("kind")).toString() == QLatin1String("verification"))
            return e.value(QStringLiteral("agrees")).toBool();
    return false;
}

} // namespace

bool RunPanel::followsVerificationOf(const QString& folder) const
{
    return !m_followed.folder.isEmpty() && !folder.isEmpty() &&
           QFileInfo(m_followed.folder).canonicalFilePath() ==
               QFileInfo(folder).canonicalFilePath();
}

void RunPanel::showVerification(const QString& portFolder, qint64 originalRun, qint64 portRun)
{
    m_followed = {portFolder, originalRun, portRun};
    if (followsVerificationOf(m_project)) {
        // The port is the open project: its two rows of the history, selected, draw the curves
        // (the history was not open when the port had no run yet).
        if (!m_history->isOpen() && !m_history->open(m_project))
            return;
        refreshHistory();
        QItemSelection rows;
        for (int row = 0; row < m_historyModel->rowCount(); ++row) {
            const qint64 id = m_historyModel->runAt(row).id;
            if (id == originalRun || id == portRun)
                rows.select(m_historyModel->index(row, 0),
                            m_historyModel->index(row, RunHistoryModel::ColumnCount - 1));
        }
        {
            // One overlay for the new selection, not one per row.
            const QSignalBlocker block(m_historyView->selectionModel());
            m_historyView->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
        }
        m_historyView->viewport()->update();
        overlaySelection();
        return;
    }
    // Another project is open: the chart shows the verification, unless a run of that project
    // is drawing in it.
    if (m_controller->isRunning())
        return;
    RunHistory other;
    if (!QFileInfo::exists(portFolder + QStringLiteral("/.portolan/runs.sqlite")) ||
        !other.open(portFolder))
        return;
    {
        const QSignalBlocker block(m_historyView->selectionModel());
        m_historyView->clearSelection();
    }
    m_historyView->viewport()->update();
    m_chart->clearRuns();
    QList<RunRecord> shown;
    for (const qint64 id : {originalRun, portRun}) {
        const RunRecord r = other.run(id);
        if (r.id == 0)
            continue;
        // Negative ids: the other history's numbers would clash with this project's runs.
        m_chart->setRun(-id, r.config.value(QStringLiteral("label")).toString(),
                        other.lossCurve(id), {});
        m_chart->setSide(-id,
                         id == originalRun ? LossChart::Side::Original : LossChart::Side::Port);
        if (r.status == QLatin1String("failed"))
            m_chart->markFailed(-id, r.reason);
        shown << r;
    }
    m_chart->rescale();
    showVerdict(shown, other, portFolder);
}

// Above the chart, when verification runs are shown: running, or the verdict (agreement, or the
// step where original and port part and by how much), or why a side failed.
void RunPanel::showVerdict(const QList<RunRecord>& shown, const RunHistory& history,
                           const QString& elsewhere)
{
    const RunRecord* original = nullptr;
    const RunRecord* port = nullptr;
    for (const RunRecord& r : shown)
        if (isVerification(r))
            (isOriginalSide(r) ? original : port) = &r;
    if (!original && !port) {
        m_verdict->hide();
        m_verdict->clear();
        return;
    }
    QString text;
    bool bad = false;
    const auto running = [](const RunRecord* r) {
        return r && r->status == QLatin1String("running");
    };
    if (running(original) || running(port)) {
        text = tr("Verifying: the original has run %1, the port %2…")
                   .arg(QString::fromStdString(
                       format::counted(original ? original->lastStep : 0, "step")))
                   .arg(port ? port->lastStep : 0);
    } else {
        QStringList parts;
        for (const RunRecord* r : {original, port})
            if (r && r->status == QLatin1String("failed")) {
                bad = true;
                parts << (r == original ? tr("The original's dry run failed: %1")
                                        : tr("The port's dry run failed: %1"))
                             .arg(r->reason);
            }
        const RunRecord* verdict = port && port->status != QLatin1String("failed") ? port
                                   : original && original->status != QLatin1String("failed")
                                       ? original
                                       : nullptr;
        if (verdict && verdict->status == QLatin1String("stopped"))
            parts << tr("Cancelled before a verdict.");
        else if (verdict && !verdict->reason.isEmpty())
            parts.prepend(verdict->reason);
        if (parts.isEmpty())
            parts << tr("No verdict recorded.");
        text = parts.join(QLatin1Char(' '));
        bad = bad || !verdict || !agreed(history, verdict->id);
    }
    const QString where =
        elsewhere.isEmpty()
            ? tr("Verification")
            : tr("Verification of %1 (not the open project)").arg(QFileInfo(elsewhere).fileName());
    m_verdict->setText(QStringLiteral("<b>%1</b>: %2").arg(where, text.toHtmlEscaped()));
    QPalette p = m_verdict->palette();
    p.setColor(QPalette::WindowText, bad && !running(original) && !running(port)
                                         ? alertColor(palette())
                                         : palette().color(QPalette::WindowText));
    m_verdict->setPalette(p);
    m_verdict->show();
}

QString RunPanel::verificationText() const
{
    return m_verdict->isHidden() ? QString() : m_verdict->text();
}

bool RunPanel::isProgressShown() const
{
    return !m_progress->isHidden();
}

} // namespace portolan::views
