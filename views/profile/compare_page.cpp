#include "views/profile/compare_page.h"

#include "core/report/report.h"
#include "views/common/placeholder_table_view.h"
#include "views/profile/comparison_model.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>

namespace portolan::views {

namespace {

QString sideText(const ResultPtr& r, const QString& name)
{
    if (!r)
        return QObject::tr("(none)");
    const auto& t = r->options.training;
    // IPUs only for an IPU report: "1 IPU(s)" on a CS-2 read as a mistake.
    // The CS mode's id in words ("weight-streaming" read as a code).
    const QString devices =
        r->cs ? QString::fromStdString(r->cs->mode).replace(QLatin1Char('-'), QLatin1Char(' '))
        : r->options.ipus == 1 ? QObject::tr("1 IPU")
                               : QObject::tr("%1 IPUs").arg(r->options.ipus);
    return QObject::tr("<b>%1</b><br>%2, %3, %4, micro-batch %5%6<br>%7: peak %8 of %9")
        .arg(name.toHtmlEscaped(), QString::fromStdString(r->targetName), devices)
        .arg(QString::fromUtf8(sim::precisionName(t.precision).data()))
        .arg(t.microBatch)
        .arg(t.recompute ? QObject::tr(", recomputation") : QString(),
             r->fits ? QObject::tr("fits") : QObject::tr("does not fit"),
             bytesText(double(r->peakBytes)), bytesText(double(r->capacityBytes)));
}

} // namespace

ComparePage::ComparePage(QWidget* parent) : QWidget(parent)
{
    auto* grid = new QGridLayout(this);
    m_sideA = new QLabel(this);
    m_sideB = new QLabel(this);
    // Wrapped: two reports' descriptions side by side must not widen the window.
    m_sideA->setWordWrap(true);
    m_sideB->setWordWrap(true);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setWordWrap(true);
    m_notes = new QListWidget(this);
    m_notes->setMaximumHeight(90);
    m_model = new ComparisonModel(this);
    auto* view = new PlaceholderTableView(this);
    // Until two reports are chosen, the table says how to choose them and what it will show.
    view->setPlaceholderText(
        tr("Choose two reports to compare: Open A… and Open B… read saved reports, Use current "
           "takes the Profile's result. The table then lists each metric of A and B, their "
           "difference and the change."));
    m_view = view;
    m_view->setObjectName(QStringLiteral("comparison"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    for (int side : {0, 1}) {
        auto* open = new QPushButton(side == 0 ? tr("Open A...") : tr("Open B..."), this);
        auto* useCurrent = new QPushButton(tr("Use current"), this);
        grid->addWidget(side == 0 ? m_sideA : m_sideB, 0, side);
        auto* buttons = new QHBoxLayout;
        buttons->addWidget(open);
        buttons->addWidget(useCurrent);
        buttons->addStretch();
        grid->addLayout(buttons, 1, side);
        connect(open, &QPushButton::clicked, this, [this, side] {
            const QString f = QFileDialog::getOpenFileName(this, tr("Open report"), {},
                                                           tr("Compile reports (*.json)"));
            if (!f.isEmpty())
                openReport(side, f);
        });
        connect(useCurrent, &QPushButton::clicked, this, [this, side] {
            if (side == 0)
                setReports(m_current, m_b, tr("current"), m_nameB);
            else
                setReports(m_a, m_current, m_nameA, tr("current"));
        });
    }
    grid->addWidget(m_status, 2, 0, 1, 2);
    grid->addWidget(m_view, 3, 0, 1, 2);
    grid->addWidget(m_notes, 4, 0, 1, 2);
    grid->setRowStretch(3, 1);
    refresh();
}

void ComparePage::setCurrent(ResultPtr current)
{
    m_current = std::move(current);
    if (!m_a && !m_b) {
        m_a = m_current;
        m_nameA = tr("current");
    }
    refresh();
}

void ComparePage::setReports(ResultPtr a, ResultPtr b, const QString& nameA, const QString& nameB)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_nameA = nameA.isEmpty() ? tr("A") : nameA;
    m_nameB = nameB.isEmpty() ? tr("B") : nameB;
    refresh();
}

void ComparePage::openReport(int side, const QString& file)
{
    const quint64 id = m_tickets[side].next();
    ++m_loading;
    m_status->setText(tr("Loading %1...").arg(file));
    const std::string path = file.toStdString();
    runAsync(
        this, [path] { return report::loadReport(path); },
        [this, side, id, file](Result<sim::CompileResult> r) {
            --m_loading;
            if (!m_tickets[side].isCurrent(id))
                return;
            if (!r) {
                m_error = QString::fromStdString(r.error.toString());
                m_status->setText(m_error);
                emit loaded();
                return;
            }
            m_error.clear();
            auto result = std::make_shared<const sim::CompileResult>(std::move(*r.value));
            const QString name = QFileInfo(file).fileName();
            if (side == 0)
                setReports(result, m_b, name, m_nameB);
            else
                setReports(m_a, result, m_nameA, name);
            emit loaded();
        });
}

void ComparePage::refresh()
{
    m_sideA->setText(sideText(m_a, m_nameA));
    m_sideB->setText(sideText(m_b, m_nameB));
    m_notes->clear();
    m_notes->hide(); // an empty list under the table said nothing
    if (m_a && m_b) {
        report::Comparison c = report::compareReports(*m_a, *m_b);
        for (const auto& n : c.notes)
            m_notes->addItem(QString::fromStdString(n));
        m_notes->setVisible(m_notes->count() > 0);
        m_model->setComparison(std::move(c));
        if (m_error.isEmpty())
            m_status->setText(tr("%1 metrics compared.").arg(m_model->rowCount()));
    } else {
        m_model->setComparison({});
        if (m_error.isEmpty())
            m_status->clear(); // the table's placeholder says what to do
    }
}

} // namespace portolan::views
