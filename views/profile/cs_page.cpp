#include "views/profile/cs_page.h"

#include "views/common/reading_columns.h"
#include "views/profile/chart_export.h"
#include "views/profile/cs_kernel_model.h"
#include "views/profile/wafer_map.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

CsPage::CsPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_map = new WaferMap(this);
    m_model = new CsKernelModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("csKernels"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false); // a cut cell on one line, not "2…" over "a…"
    // Ten columns beside the wafer at 1024 pixels: the kernel's name stays whole, the figures a
    // user compares (memory, samples/s, fits) keep their width, and the rest are hidden in order
    // of importance when they would be cut, shown again from the header's menu (issue 26: the
    // table scrolled sideways, then its cut columns read "25…").
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* columns = new ReadingColumns(m_view, CsKernelModel::Name);
    for (const int c :
         {CsKernelModel::Region, CsKernelModel::TransmissionSamples, CsKernelModel::ComputeSamples,
          CsKernelModel::Capacity, CsKernelModel::ActivePes, CsKernelModel::Utilisation})
        columns->addYielding(c, 4);
    columns->setHideRatherThanCut(true);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(makeExportButton(m_map, this));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_map);
    split->addWidget(m_view);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
    connect(m_map, &WaferMap::kernelClicked, this, [this](int k) { m_view->selectRow(k); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { m_map->setSelectedKernel(current.row()); });
}

void CsPage::setResult(const ResultPtr& result)
{
    m_map->setResult(result);
    m_model->setResult(result);
    // Without a CS report the wafer says why; an empty kernel table under it scrolled sideways
    // on its headers alone.
    m_view->setVisible(result && result->cs);
    if (result && result->cs) {
        const auto& cs = *result->cs;
        // The mode's id ("weight-streaming") starts the sentence: in words, capitalised.
        QString mode = QString::fromStdString(cs.mode).replace(QLatin1Char('-'), QLatin1Char(' '));
        if (!mode.isEmpty())
            mode[0] = mode[0].toUpper();
        m_summary->setText(
            tr("%1 (%2). %3, bottleneck %4. On wafer %5 of %6 SRAM%7.")
                .arg(mode, QString::fromStdString(cs.modeReason))
                .arg(samplesPerSecondText(cs.samplesPerSecond))
                .arg(QString::fromStdString(cs.bottleneck), bytesText(double(cs.onWaferBytes)),
                     bytesText(double(cs.sramBytes)),
                     cs.streamedBytes > 0
                         ? tr(", %1 streamed per step").arg(bytesText(double(cs.streamedBytes)))
                         : QString()));
    } else {
        m_summary->setText(
            result ? tr("An IPU report: compile for CS-2 or CS-3 to see the wafer placement.")
                   : tr("No report yet."));
    }
}

} // namespace portolan::views
