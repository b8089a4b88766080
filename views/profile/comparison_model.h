#pragma once

// The rows of a comparison of two compile reports: metric, A, B, delta and relative change.

#include "core/report/compare.h"

#include <QAbstractTableModel>

namespace portolan::views {

class ComparisonModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Metric,
        A,
        B,
        Delta,
        Relative,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setComparison(report::Comparison c);
    const report::Comparison& comparison() const { return m_comparison; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    report::Comparison m_comparison;
};

QString formatMetric(double value, const std::string& unit);

} // namespace portolan::views
