#include "views/params/list_field.h"

#include "views/params/params_field.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

ListField::ListField(const QString& path, const QStringList& items, QWidget* parent)
    : QWidget(parent), m_path(path)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_list = new QListWidget(this);
    m_list->setObjectName(path);
    for (const QString& item : items) {
        auto* row = new QListWidgetItem(item, m_list);
        row->setFlags(row->flags() | Qt::ItemIsEditable);
    }
    m_list->setMaximumHeight(
        static_cast<int>(std::min<qsizetype>(24 * std::max<qsizetype>(items.size(), 2) + 8, 160)));
    layout->addWidget(m_list, 1);
    connect(m_list, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        emit edited(m_path + "[" + QString::number(m_list->row(item)) + "]", item->text(),
                    int(FieldHint::Auto));
    });
    auto* buttons = new QVBoxLayout;
    auto* add = new QToolButton(this);
    add->setText(QStringLiteral("+"));
    add->setToolTip(tr("Append an item (a copy of the last one)"));
    connect(add, &QToolButton::clicked, this, [this] {
        const QString last =
            m_list->count() ? m_list->item(m_list->count() - 1)->text() : QStringLiteral("0");
        emit appendRequested(m_path, last, int(FieldHint::Auto));
    });
    auto* remove = new QToolButton(this);
    remove->setText(QStringLiteral("−"));
    remove->setToolTip(tr("Remove the selected item"));
    connect(remove, &QToolButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row >= 0)
            emit removeRequested(m_path + "[" + QString::number(row) + "]");
    });
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    layout->addLayout(buttons);
}

} // namespace portolan::views
