#include "views/porting/port_verify_panel.h"

#include "core/common/number_format.h"
#include "core/port/verify_outcome.h"
#include "views/runs/loss_chart.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPalette>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

namespace portolan::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

enum ItemRole
{
    FileRole = Qt::UserRole,
    LineRole
};

} // namespace

PortVerifyPanel::PortVerifyPanel(QWidget* parent) : QWidget(parent)
{
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_chart = new LossChart(this);
    m_chart->setMinimumHeight(180);
    m_chart->setEmptyText(tr("Nothing compared yet:\nVerify runs the original\nand the port"));
    m_checks = new QListWidget(this);
    m_checks->setMaximumHeight(110);
    m_steps = new QSpinBox(this);
    m_steps->setRange(1, 50);
    m_steps->setValue(3);
    m_steps->setToolTip(tr("Steps replayed from the original into the port and compared"));
    m_verifyButton = new QPushButton(tr("Verify"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setToolTip(tr("Stop the verification's dry runs"));
    m_cancelButton->setEnabled(false);

    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Steps compared:"), this));
    row->addWidget(m_steps);
    row->addStretch(1);
    row->addWidget(m_verifyButton);
    row->addWidget(m_cancelButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_checks);

    connect(m_verifyButton, &QPushButton::clicked, this, &PortVerifyPanel::verifyRequested);
    connect(m_cancelButton, &QPushButton::clicked, this, &PortVerifyPanel::cancelRequested);
    connect(m_checks, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const QString file = item->data(FileRole).toString();
        if (!file.isEmpty())
            emit findingActivated(file, item->data(LineRole).toInt());
    });
}

int PortVerifyPanel::steps() const
{
    return m_steps->value();
}

void PortVerifyPanel::setSteps(int steps)
{
    m_steps->setValue(steps);
}

QString PortVerifyPanel::summaryText() const
{
    return m_summary->text();
}

void PortVerifyPanel::showMessage(const QString& html)
{
    m_summary->setText(html);
    m_chart->setEmptyText(tr("Nothing compared yet:\nVerify runs the original\nand the port"));
    m_chart->clearRuns();
    m_checks->clear();
}

void PortVerifyPanel::showResult(const port::VerifyResult& v, bool fullPort)
{
    QStringList lines;
    lines << tr("<b>%1</b> port · %2 · %3")
                 .arg(fullPort ? tr("Full") : tr("Partial"))
                 .arg(QString::fromStdString(format::counted(v.checkErrors, "check error")))
                 .arg(QString::fromStdString(format::counted(v.dryRunSteps, "dry-run step")));
    if (!v.dryRunError.empty())
        lines << tr("Port's dry run: %1").arg(qs(v.dryRunError).toHtmlEscaped());
    if (!v.originalError.empty()) {
        lines << tr("Original's dry run: %1").arg(qs(v.originalError).toHtmlEscaped());
        // The dry run's message names the command line; here the arguments have their field.
        if (v.originalError.find("[dryrun.required-argument]") != std::string::npos)
            lines << tr("<b>The original needs arguments</b>: give them in “Original's "
                        "arguments” below (before writing the port: they become its defaults), "
                        "then Verify.");
    }
    // The verdict, its claim in bold: the same sentence the Runs tab shows above the chart,
    // without the dry runs' messages, which are on the lines above.
    const QString verdict = verdictText(v, false).toHtmlEscaped();
    const int colon = verdict.indexOf(QLatin1Char(':'));
    lines << (colon > 0 ? QStringLiteral("<b>%1</b>%2").arg(verdict.left(colon), verdict.mid(colon))
                        : verdict);
    m_summary->setText(lines.join(QStringLiteral("<br>")));

    // Two labelled series over the compared steps.
    auto points = [](const std::vector<double>& losses) {
        QVector<QPointF> out;
        for (std::size_t i = 0; i < losses.size(); ++i)
            out.append(QPointF(double(i + 1), losses[i]));
        return out;
    };
    m_chart->setEmptyText(tr("No step was compared:\nthe verdict above says why"));
    m_chart->clearRuns();
    if (!v.originalLosses.empty()) {
        m_chart->setRun(1, tr("original"), points(v.originalLosses), {});
        m_chart->setSide(1, LossChart::Side::Original);
    }
    if (!v.portLosses.empty()) {
        m_chart->setRun(2, tr("port"), points(v.portLosses), {});
        m_chart->setSide(2, LossChart::Side::Port);
    }
    m_chart->rescale();

    m_checks->clear();
    for (const auto& f : v.checkFindings) {
        auto* item = new QListWidgetItem(qs(f.toString()), m_checks);
        item->setData(FileRole, qs(f.location.file));
        item->setData(LineRole, f.location.line);
        if (!f.hint.empty())
            item->setToolTip(qs(f.hint));
    }
    if (v.checkFindings.empty())
        m_checks->addItem(v.checkErrors == 0 ? tr("check: no errors") : tr("check: not run"));
    // The original's own errors in a file the port copies unchanged: shown, greyed, not
    // counted.
    for (const auto& f : v.inheritedFindings) {
        auto* item = new QListWidgetItem(
            tr("%1 (the original has it too: not counted)").arg(qs(f.toString())), m_checks);
        item->setData(FileRole, qs(f.location.file));
        item->setData(LineRole, f.location.line);
        item->setForeground(m_checks->palette().brush(QPalette::Disabled, QPalette::Text));
    }
}

QString PortVerifyPanel::verdictText(const port::VerifyResult& v, bool namingErrors)
{
    // One rule with the CLI's status line and the JSON's `verified` (verify_outcome.h): the
    // port is shown to train like the original only when that says nothing is missing, so a
    // run whose losses agree but whose check failed, or which compared fewer steps than asked,
    // never reads as proven here.
    const std::string why = port::notProvenBecause(v, namingErrors);
    if (why.empty())
        return tr("The port trains like the original: %1 compared, largest relative loss "
                  "difference %2, largest weight difference %3.")
            .arg(QString::fromStdString(format::counted(v.stepsCompared, "step")))
            .arg(v.maxRelLossDiff, 0, 'g', 3)
            .arg(v.maxAbsWeightDiff, 0, 'g', 3);
    if (v.firstDivergence > 0) {
        // The step where they part, with both losses: more than the core's sentence, which
        // has no room for the two values.
        const auto i = std::size_t(v.firstDivergence - 1);
        const double a = i < v.originalLosses.size() ? v.originalLosses[i] : 0;
        const double b = i < v.portLosses.size() ? v.portLosses[i] : 0;
        return tr("The port parts from the original at step %1: loss %2 against %3 (relative "
                  "difference %4).")
            .arg(v.firstDivergence)
            .arg(a, 0, 'g', 6)
            .arg(b, 0, 'g', 6)
            .arg(a != 0 ? std::abs(b - a) / std::abs(a) : std::abs(b - a), 0, 'g', 3);
    }
    return tr("Not shown to train like the original: %1.").arg(qs(why));
}

void PortVerifyPanel::beginLive(const QString& originalLabel, const QString& portLabel)
{
    m_chart->clearRuns();
    m_chart->setRun(1, originalLabel, {}, {});
    m_chart->setRun(2, portLabel, {}, {});
}

void PortVerifyPanel::appendLive(int side, int step, double loss)
{
    m_chart->appendLoss(side == 0 ? 1 : 2, double(step), loss);
}

} // namespace portolan::views
