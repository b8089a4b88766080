// The Profile's reports: opening one (at once when small, off the GUI thread when big) and
// saving the one shown (docs/ARCHITECTURE.md, Profile); the status line's text. Apart from
// profile_panel.cpp for size.
#include "core/report/report.h"
#include "views/common/status_line.h"
#include "views/profile/profile_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>

namespace portolan::views {

QString ProfilePanel::statusText() const
{
    return m_status->sentence();
}

QString ProfilePanel::statusMessage() const
{
    return m_status->message();
}

bool ProfilePanel::openReport(const QString& file, QString* error)
{
    const QFileInfo info(file);
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        m_status->setMessage(message);
        emit reportFailed(message);
        return false;
    };
    if (!info.exists())
        return fail(tr("%1: no such file").arg(file));
    if (!info.isFile() || !info.isReadable())
        return fail(tr("%1: not a readable file").arg(file));
    const std::string path = file.toStdString();
    auto accept = [this, file](Result<sim::CompileResult>& r) {
        m_opGraph.reset();
        m_family = r.value->modelFamily
                       ? std::make_shared<const sim::ModelFamilyNotes>(*r.value->modelFamily)
                       : nullptr;
        m_compileTicket.invalidate(); // a compile still running must not overwrite the report
        m_compiledParams.clear();
        showNamedConfigs({}, {});
        m_source->setText(tr("Report %1").arg(QDir::toNativeSeparators(file)));
        m_source->setToolTip(QString());
        setResult(std::make_shared<const sim::CompileResult>(std::move(*r.value)));
        setIdle(tr("Opened %1.").arg(QFileInfo(file).fileName()));
        emit reportLoaded(file);
    };
    if (info.size() <= kSyncLoadBytes) {
        Result<sim::CompileResult> r = report::loadReport(path);
        if (!r)
            return fail(QString::fromStdString(r.error.toString()));
        m_loadTicket.invalidate();
        accept(r);
        return true;
    }
    const quint64 id = m_loadTicket.next();
    ++m_loading;
    setBusy(tr("Loading %1 (%2)...").arg(info.fileName(), bytesText(double(info.size()))));
    runAsync(
        this, [path] { return report::loadReport(path); },
        [this, id, accept](Result<sim::CompileResult> r) mutable {
            --m_loading;
            if (!m_loadTicket.isCurrent(id))
                return;
            if (!r) {
                const QString message = QString::fromStdString(r.error.toString());
                setIdle(message);
                emit reportFailed(message);
                return;
            }
            accept(r);
        });
    return true;
}

void ProfilePanel::openReportDialog()
{
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Open report"), {}, tr("Compile reports (*.json)"));
    if (file.isEmpty())
        return;
    QString error;
    if (!openReport(file, &error))
        QMessageBox::warning(this, tr("Open report"), error);
}

void ProfilePanel::saveReportAs()
{
    if (!m_result)
        return;
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Save report"), QStringLiteral("report.json"), tr("Compile reports (*.json)"));
    if (file.isEmpty())
        return;
    ResultPtr r = m_result;
    const std::string path = file.toStdString();
    ++m_loading;
    setBusy(tr("Saving %1...").arg(file));
    runAsync(
        this, [r, path] { return report::saveReport(path, *r); },
        [this, file](std::optional<Diagnostic> d) {
            --m_loading;
            setIdle(d ? QString::fromStdString(d->toString()) : tr("Saved %1.").arg(file));
        });
}

} // namespace portolan::views
