#pragma once

// The per-kernel performance table of a CS report, as in Cerebras's compile_report.txt.

#include "views/profile/plot_theme.h"

#include <QAbstractTableModel>

namespace portolan::views {

class CsKernelModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Region,
        ActivePes,
        Memory,
        Capacity,
        SamplesPerSecond,
        ComputeSamples,
        TransmissionSamples,
        Utilisation,
        Fits,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(ResultPtr result);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    ResultPtr m_result;
};

} // namespace portolan::views
