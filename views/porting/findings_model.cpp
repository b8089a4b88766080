#include "views/porting/findings_model.h"

#include <QApplication>
#include <QStyle>

namespace portolan::views {

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setFindings(std::vector<guides::Finding> findings)
{
    beginResetModel();
    m_findings = std::move(findings);
    endResetModel();
}

const guides::Finding* FindingsModel::findingAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_findings.size() ? &m_findings[std::size_t(row)]
                                                            : nullptr;
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const guides::Finding& f = m_findings[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return QString::fromUtf8(severityName(f.severity).data());
        case LocationColumn:
            return QString::fromStdString(f.location.toString());
        case MessageColumn:
            return QString::fromStdString(f.message) +
                   (f.fix ? tr("  [fix available]") : QString());
        case CheckColumn: {
            // The guide's prefix is the same on every row (the chosen workflow): the column
            // shows the check's own name so that the finding keeps the width; the tooltip has
            // the full id.
            const auto dot = f.checkId.find('.');
            return QString::fromStdString(dot == std::string::npos ? f.checkId
                                                                   : f.checkId.substr(dot + 1));
        }
        }
        return {};
    case Qt::ToolTipRole:
        // The columns that give way to the finding (elided) keep their whole text here.
        if (index.column() == CheckColumn)
            return QString::fromStdString(f.checkId);
        if (index.column() == LocationColumn)
            return QString::fromStdString(f.location.toString());
        return QString::fromStdString(f.message +
                                      (f.hint.empty() ? "" : "\n\nHow to fix: " + f.hint));
    case Qt::DecorationRole:
        if (index.column() == SeverityColumn) {
            const auto icon = f.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                              : f.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                : QStyle::SP_MessageBoxInformation;
            return QApplication::style()->standardIcon(icon);
        }
        return {};
    case FileRole:
        return QString::fromStdString(f.location.file);
    case LineRole:
        return f.location.line;
    case ColumnRole:
        return f.location.column;
    case HasFixRole:
        return f.fix.has_value();
    case HintRole:
        return QString::fromStdString(f.hint);
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case LocationColumn:
        return tr("Location");
    case MessageColumn:
        return tr("Finding");
    case CheckColumn:
        return tr("Check");
    }
    return {};
}

} // namespace portolan::views
