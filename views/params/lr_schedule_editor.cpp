#include "views/params/lr_schedule_editor.h"

#include "views/params/params_field.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

LrScheduleEditor::LrScheduleEditor(const QString& path, std::vector<LrPhase> phases,
                                   const QStringList& schedulerNames, QWidget* parent)
    : QWidget(parent), m_path(path), m_phases(std::move(phases))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget(int(m_phases.size()), ColumnCount, this);
    m_table->setObjectName(path);
    m_table->setHorizontalHeaderLabels(
        {tr("Scheduler"), tr("Initial rate"), tr("End rate"), tr("Steps")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    for (int row = 0; row < int(m_phases.size()); ++row) {
        const LrPhase& p = m_phases[std::size_t(row)];
        auto* combo = new QComboBox(m_table);
        combo->addItems(schedulerNames);
        if (combo->findText(p.scheduler, Qt::MatchFixedString) < 0)
            combo->insertItem(0, p.scheduler);
        combo->setCurrentIndex(combo->findText(p.scheduler, Qt::MatchFixedString));
        const QString base = path + "[" + QString::number(row) + "].";
        connect(combo, &QComboBox::activated, this, [this, combo, base](int i) {
            emit edited(base + "scheduler", combo->itemText(i), int(FieldHint::String));
        });
        m_table->setCellWidget(row, SchedulerColumn, combo);
        m_table->setItem(row, InitialColumn, new QTableWidgetItem(p.initial));
        m_table->setItem(row, EndColumn, new QTableWidgetItem(p.end));
        m_table->setItem(row, StepsColumn, new QTableWidgetItem(p.steps));
    }
    m_table->setMaximumHeight(28 * (int(m_phases.size()) + 1) + 8);
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        const LrPhase& p = m_phases[std::size_t(item->row())];
        const QString base = m_path + "[" + QString::number(item->row()) + "].";
        QString key;
        switch (item->column()) {
        case InitialColumn:
            key = p.rateKey;
            break;
        case EndColumn:
            key = QStringLiteral("end_learning_rate");
            break;
        case StepsColumn:
            key = p.stepsKey;
            break;
        default:
            return;
        }
        emit edited(base + key, item->text(), int(FieldHint::Auto));
    });
    layout->addWidget(m_table);

    auto* bar = new QHBoxLayout;
    auto* add = new QToolButton(this);
    add->setText(tr("Add phase"));
    connect(add, &QToolButton::clicked, this, [this] {
        // A constant phase at the last end rate: the usual tail of a schedule.
        QString rate = m_phases.empty() ? QStringLiteral("1.0e-4") : m_phases.back().end;
        if (rate.isEmpty())
            rate = m_phases.back().initial;
        emit appendRequested(
            m_path, "{scheduler: Constant, learning_rate: " + rate + ", total_iters: 1000}",
            int(FieldHint::Raw));
    });
    auto* remove = new QToolButton(this);
    remove->setText(tr("Remove phase"));
    connect(remove, &QToolButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            emit removeRequested(m_path + "[" + QString::number(m_table->currentRow()) + "]");
    });
    bar->addWidget(add);
    bar->addWidget(remove);
    bar->addStretch();
    bar->addWidget(new QLabel(tr("%1 steps in all").arg(totalSteps()), this));
    layout->addLayout(bar);
}

long long LrScheduleEditor::totalSteps() const
{
    long long total = 0;
    for (const auto& p : m_phases)
        total += p.steps.toLongLong();
    return total;
}

} // namespace portolan::views
