#include "views/common/diagnostics_model.h"

#include "views/common/reading_columns.h"

#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QIcon>
#include <QStyle>
#include <QTableView>

namespace portolan::views {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    beginResetModel();
    m_items = std::move(diagnostics);
    endResetModel();
}

void DiagnosticsModel::setBaseFolder(const QString& folder)
{
    beginResetModel();
    m_base = folder;
    endResetModel();
}

void setUpDiagnosticsTable(QTableView* table, DiagnosticsModel* model)
{
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    QHeaderView* header = table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The message is what people read: the code gives way first, then the location (keeping
    // its file name and line); the whole diagnostic is in each row's tooltip.
    auto* columns = new ReadingColumns(table, DiagnosticsModel::MessageColumn);
    columns->addYielding(DiagnosticsModel::CodeColumn, 6);
    columns->addYielding(DiagnosticsModel::LocationColumn, 22, Qt::ElideLeft);
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Diagnostic& d = m_items[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return QString::fromUtf8(severityName(d.severity).data());
        case LocationColumn: {
            SourceLocation shown = d.location;
            const QString file = QString::fromStdString(shown.file);
            if (!m_base.isEmpty() && QDir::isAbsolutePath(file)) {
                const QString rel = QDir(m_base).relativeFilePath(file);
                if (!rel.startsWith(QLatin1String("..")))
                    shown.file = rel.toStdString();
            }
            return QString::fromStdString(shown.toString());
        }
        case MessageColumn:
            return QString::fromStdString(d.message);
        case CodeColumn:
            return QString::fromStdString(d.code);
        }
        return {};
    case Qt::ToolTipRole:
        return QString::fromStdString(d.toString());
    case Qt::DecorationRole:
        if (index.column() == SeverityColumn) {
            const auto icon = d.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                              : d.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                : QStyle::SP_MessageBoxInformation;
            return QApplication::style()->standardIcon(icon);
        }
        return {};
    case FileRole:
        return QString::fromStdString(d.location.file);
    case LineRole:
        return d.location.line;
    case ColumnRole:
        return d.location.column;
    case SeverityRole:
        return static_cast<int>(d.severity);
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case LocationColumn:
        return tr("Location");
    case MessageColumn:
        return tr("Message");
    case CodeColumn:
        return tr("Code");
    }
    return {};
}

} // namespace portolan::views
