#include "views/profile/comparison_model.h"

#include "core/common/number_format.h"
#include "views/profile/plot_theme.h"

#include <QColor>
#include <QFont>
#include <cmath>

namespace portolan::views {

QString formatMetric(double value, const std::string& unit)
{
    if (unit == "flag")
        return value != 0 ? QObject::tr("yes") : QObject::tr("no");
    // The CLI's compare prints the same text (core/common/number_format.h).
    return QString::fromStdString(format::withUnit(value, unit));
}

void ComparisonModel::setComparison(report::Comparison c)
{
    beginResetModel();
    m_comparison = std::move(c);
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_comparison.rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto& d = m_comparison.rows[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case A:
            return d.a;
        case B:
            return d.b;
        case Delta:
            return d.delta();
        case Relative:
            return d.relative();
        default:
            return QString::fromStdString(d.metric);
        }
    }
    if (role == Qt::FontRole && index.column() >= Delta && d.delta() != 0) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Metric:
        return QString::fromStdString(d.metric);
    case A:
        return formatMetric(d.a, d.unit);
    case B:
        return formatMetric(d.b, d.unit);
    case Delta:
        if (d.unit == "flag")
            return d.a == d.b ? QStringLiteral("=") : tr("changed");
        return (d.delta() > 0 ? QStringLiteral("+") : QString()) + formatMetric(d.delta(), d.unit);
    case Relative:
        return d.a != 0 ? QStringLiteral("%1%2%")
                              .arg(d.relative() > 0 ? QStringLiteral("+") : QString())
                              .arg(100 * d.relative(), 0, 'f', 1)
                        : QString();
    }
    return {};
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Metric:
        return tr("Metric");
    case A:
        return tr("A");
    case B:
        return tr("B");
    case Delta:
        return tr("B - A");
    case Relative:
        return tr("Change");
    }
    return {};
}

} // namespace portolan::views
