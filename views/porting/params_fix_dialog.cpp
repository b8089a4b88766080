#include "views/porting/params_fix_dialog.h"

#include "core/analysis/analysis.h"
#include "core/guides/fixes/apply_fix.h"
#include "views/porting/fix_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace portolan::views {

namespace {

enum Column
{
    FlagColumn,
    SectionColumn,
    KeyColumn,
    ValueColumn,
    UsesColumn,
    HelpColumn,
    ColumnCount
};

} // namespace

ParamsFixDialog::ParamsFixDialog(std::shared_ptr<const analysis::ProjectAnalysis> analysis,
                                 guides::ParamsPlan plan, QWidget* parent)
    : QDialog(parent), m_analysis(std::move(analysis)), m_plan(std::move(plan))
{
    setWindowTitle(
        tr("Write %1 from the command-line flags").arg(QString::fromStdString(m_plan.file)));
    auto* intro = new QLabel(tr("<b>Each flag the code reads becomes a key of %1</b>, loaded right "
                                "after the flags are parsed; "
                                "its uses then read the file. Move a key to another section or "
                                "rename it before applying. "
                                "The change is saved atomically and can be undone.")
                                 .arg(QString::fromStdString(m_plan.file).toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);

    m_table = new QTableWidget(int(m_plan.entries.size()), ColumnCount, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Flag"), tr("Section"), tr("Key"), tr("Value"), tr("Uses"), tr("Help")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    auto* header = m_table->horizontalHeader();
    for (int c = 0; c < HelpColumn; ++c)
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(HelpColumn, QHeaderView::Stretch);
    QStringList sections;
    for (const auto& s : m_plan.sections)
        sections << QString::fromStdString(s);
    m_filling = true;
    for (int row = 0; row < int(m_plan.entries.size()); ++row) {
        const auto& e = m_plan.entries[std::size_t(row)];
        auto fixed = [&](const std::string& text, int column) {
            auto* item = new QTableWidgetItem(QString::fromStdString(text));
            item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            m_table->setItem(row, column, item);
            return item;
        };
        fixed(e.option, FlagColumn)
            ->setToolTip(tr("Defined at %1:%2")
                             .arg(QString::fromStdString(e.definedAt.file))
                             .arg(e.definedAt.line));
        auto* combo = new QComboBox(m_table);
        combo->addItems(sections);
        if (!sections.contains(QString::fromStdString(e.section)))
            combo->addItem(QString::fromStdString(e.section));
        combo->setCurrentText(QString::fromStdString(e.section));
        combo->setEnabled(sections.size() > 1);
        connect(combo, &QComboBox::currentTextChanged, this, [this, row](const QString& s) {
            m_plan.entries[std::size_t(row)].section = s.toStdString();
            rebuild();
        });
        m_table->setCellWidget(row, SectionColumn, combo);
        m_table->setItem(row, KeyColumn, new QTableWidgetItem(QString::fromStdString(e.key)));
        fixed(e.value, ValueColumn);
        fixed(std::to_string(e.uses), UsesColumn);
        const auto colon = e.comment.find(": ");
        fixed(colon == std::string::npos ? std::string() : e.comment.substr(colon + 2), HelpColumn);
    }
    m_filling = false;
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (m_filling || item->column() != KeyColumn)
            return;
        m_plan.entries[std::size_t(item->row())].key = item->text().trimmed().toStdString();
        rebuild();
    });

    QString left;
    if (!m_plan.leftAlone.empty())
        left = tr("<b>Left as they are:</b> %1")
                   .arg(QString::fromStdString(guides::leftAloneSummary(m_plan)).toHtmlEscaped());
    m_left = new QLabel(left, this);
    m_left->setWordWrap(true);
    m_left->setVisible(!left.isEmpty());
    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("font-weight: bold"));

    m_diff = new QPlainTextEdit(this);
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    highlightDiff(m_diff->document(), palette());

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_diff);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    m_apply = buttons->button(QDialogButtonBox::Apply);
    connect(m_apply, &QPushButton::clicked, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(split, 1);
    layout->addWidget(m_left);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    resize(900, 640);
    rebuild();
}

void ParamsFixDialog::rebuild()
{
    m_fix.reset();
    QString problem;
    auto fix = guides::buildParamsFix(*m_analysis, m_plan);
    if (!fix) {
        problem = QString::fromStdString(fix.error.message);
    } else if (auto diff = guides::previewFix(m_analysis->root, *fix.value)) {
        m_diff->setPlainText(QString::fromStdString(*diff.value));
        m_fix = std::move(*fix.value);
    } else {
        problem = QString::fromStdString(diff.error.message);
    }
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_apply->setEnabled(m_fix.has_value());
}

QString ParamsFixDialog::diffText() const
{
    return m_diff->toPlainText();
}

QString ParamsFixDialog::problem() const
{
    return m_problem->text();
}

int ParamsFixDialog::rowOf(const QString& dest) const
{
    for (std::size_t i = 0; i < m_plan.entries.size(); ++i)
        if (QString::fromStdString(m_plan.entries[i].dest) == dest)
            return int(i);
    return -1;
}

void ParamsFixDialog::setSection(int row, const QString& section)
{
    if (auto* combo = qobject_cast<QComboBox*>(m_table->cellWidget(row, SectionColumn)))
        combo->setCurrentText(section);
}

void ParamsFixDialog::setKey(int row, const QString& key)
{
    if (QTableWidgetItem* item = m_table->item(row, KeyColumn))
        item->setText(key);
}

} // namespace portolan::views
