#include "views/project/project_overview.h"

#include "core/analysis/analysis.h"
#include "core/analysis/port_scope.h"
#include "core/common/number_format.h"
#include "views/common/diagnostics_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

namespace portolan::views {

ProjectOverview::ProjectOverview(QWidget* parent) : QWidget(parent)
{
    m_title = new QLabel(this);
    QFont f = m_title->font();
    f.setPointSizeF(f.pointSizeF() * 1.4);
    f.setBold(true);
    m_title->setFont(f);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_skipped = new QLabel(this);
    m_skipped->setWordWrap(true);
    m_skipped->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_skipped->setObjectName(QStringLiteral("skippedSummary"));
    m_notPort = new QLabel(this);
    m_notPort->setWordWrap(true);
    m_notPort->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notPort->setObjectName(QStringLiteral("notPortSummary"));
    m_watchNote = new QLabel(this);
    m_watchNote->setWordWrap(true);
    m_watchNote->setObjectName(QStringLiteral("watchNote"));

    m_flavour = new QLabel(this);
    m_flavour->setWordWrap(true);
    m_flavour->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new DiagnosticsModel(this);
    m_table = new QTableView(this);
    setUpDiagnosticsTable(m_table, m_model);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    layout->addWidget(m_skipped);
    layout->addWidget(m_watchNote);
    layout->addWidget(m_flavour);
    layout->addWidget(m_notPort);
    m_diagnosticsHeading = new QLabel(this);
    m_diagnosticsHeading->setObjectName(QStringLiteral("diagnosticsHeading"));
    layout->addWidget(m_diagnosticsHeading);
    layout->addWidget(m_table, 1);
    layout->addStretch(0); // takes the room when the empty table is hidden
    connect(m_model, &QAbstractItemModel::modelReset, this, &ProjectOverview::updateHeadings);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ProjectOverview::updateHeadings);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ProjectOverview::updateHeadings);
    clear();
}

// The heading says how many diagnostics there are, so an empty table reads as "none" and not as
// "not checked yet"; notes without text are hidden so that they leave no gaps between the lines.
void ProjectOverview::updateHeadings()
{
    const int n = m_model->rowCount();
    // An empty table under "none" read as "nothing wrong" while the Porting tab listed errors:
    // say what this table holds and where the checks' findings are, and drop the empty table.
    m_diagnosticsHeading->setWordWrap(true);
    m_diagnosticsHeading->setText(
        n == 0 ? tr("Diagnostics: none. Every file Portolan reads was read and parsed; the "
                    "porting checks' findings are listed in the Porting tab.")
               : tr("Diagnostics (%1)").arg(QLocale().toString(n)));
    m_table->setVisible(n > 0);
    for (QLabel* note : {m_skipped, m_watchNote, m_flavour, m_notPort})
        note->setVisible(!note->text().isEmpty());
}

void ProjectOverview::clear()
{
    m_title->setText(tr("No project open"));
    m_summary->setText(tr("Open a project folder with File > Open Project…, drop a folder on this "
                          "window, or pick one from File > Open Recent."));
    m_flavour->clear();
    m_skipped->clear();
    m_notPort->clear();
    m_watchNote->clear();
    m_model->setDiagnostics({});
}

void ProjectOverview::showWatched(int watched, int watchable)
{
    m_watchNote->setText(
        watchable > watched
            ? tr("Only the %1 shallowest of %2 Python and YAML files are watched for changes; "
                 "reopen the project to see edits made elsewhere to the others.")
                  .arg(QLocale().toString(watched), QLocale().toString(watchable))
            : QString());
    updateHeadings();
}

void ProjectOverview::showAnalysis(const analysis::ProjectAnalysis& a)
{
    QString flavour =
        tr("Detected: <b>%1</b>").arg(QString::fromStdString(a.flavour.summary()).toHtmlEscaped());
    if (a.flavour.apiGeneration != analysis::ApiGeneration::None)
        flavour += QStringLiteral(" · ") +
                   QString::fromStdString(
                       std::string(analysis::apiGenerationName(a.flavour.apiGeneration)))
                       .toHtmlEscaped();
    m_flavour->setText(flavour);
    // The checks treat these as notes at most; say which and why, so that a quiet test folder
    // does not read as checked.
    QStringList notPort;
    for (const std::string& line : analysis::describeOutsidePort(a))
        notPort << QString::fromStdString(line).toHtmlEscaped();
    m_notPort->setText(notPort.isEmpty()
                           ? QString()
                           : tr("<b>Not checked as the port</b> (findings there are notes at "
                                "most)<br>• %1")
                                 .arg(notPort.join(QStringLiteral("<br>• "))));
    m_model->setDiagnostics(a.diagnostics);
}

void ProjectOverview::showLoading(const QString& folder)
{
    m_title->setText(folder);
    m_summary->setText(tr("Reading the project…"));
    m_flavour->clear();
    m_skipped->clear();
    m_notPort->clear();
    m_watchNote->clear();
    m_model->setDiagnostics({});
}

void ProjectOverview::showScan(const ProjectScan& scan)
{
    m_title->setText(QString::fromStdString(scan.root.filename().string()));
    QStringList kinds;
    for (FileKind k :
         {FileKind::Python, FileKind::Yaml, FileKind::Json, FileKind::Text, FileKind::Other})
        if (const auto n = scan.countOf(k))
            kinds << QStringLiteral("%1 %2").arg(n).arg(QString::fromUtf8(fileKindName(k).data()));
    QString text =
        tr("<b>%1</b><br>%2 found")
            .arg(QString::fromStdString(scan.root.string()).toHtmlEscaped(),
                 QString::fromStdString(format::counted(long(scan.files.size()), "file")));
    if (!kinds.isEmpty())
        text += QStringLiteral(" (") + kinds.join(QStringLiteral(", ")) + QStringLiteral(")");
    text += tr(", %n skipped", nullptr, int(scan.skipped.size()));
    m_summary->setText(text);
    // What was left out, said in the window rather than only in the diagnostics table below
    // (which a project of 100,000 files can fill).
    QStringList skipped;
    for (const std::string& line : describeSkipped(scan))
        skipped << QString::fromStdString(line).toHtmlEscaped();
    m_skipped->setText(
        skipped.isEmpty()
            ? QString()
            : tr("<b>Skipped</b><br>• %1").arg(skipped.join(QStringLiteral("<br>• "))));
    m_model->setBaseFolder(QString::fromStdString(scan.root.string()));
    m_model->setDiagnostics(scan.diagnostics);
}

} // namespace portolan::views
