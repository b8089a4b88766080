#include "views/profile/cs_kernel_model.h"

namespace portolan::views {

void CsKernelModel::setResult(ResultPtr result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int CsKernelModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_result || !m_result->cs)
        return 0;
    return int(m_result->cs->kernels.size());
}

int CsKernelModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CsKernelModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto& k = m_result->cs->kernels[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name || index.column() == Region
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Fits && !k.fits)
        return QColor(200, 20, 20);
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case SamplesPerSecond:
            return k.samplesPerSecond;
        case Memory:
            return qlonglong(k.memoryBytes);
        case Utilisation:
            return k.utilisation;
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole) // a cell cut to fit says itself whole
        return QStringLiteral("%1: %2").arg(
            headerData(index.column(), Qt::Horizontal, Qt::ToolTipRole).toString(),
            data(index, Qt::DisplayRole).toString());
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(k.name);
    case Region:
        return QStringLiteral("%1x%2 at (%3, %4)").arg(k.width).arg(k.height).arg(k.x).arg(k.y);
    case ActivePes:
        return qlonglong(k.activePes);
    case Memory:
        return bytesText(double(k.memoryBytes));
    case Capacity:
        return bytesText(double(k.capacityBytes));
    case SamplesPerSecond:
        return countText(k.samplesPerSecond);
    case ComputeSamples:
        return countText(k.computeSamplesPerSecond);
    case TransmissionSamples:
        return countText(k.transmissionSamplesPerSecond);
    case Utilisation:
        return percentText(k.utilisation);
    case Fits:
        return k.fits ? tr("yes") : tr("no");
    }
    return {};
}

QVariant CsKernelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    // Short headers, so that ten columns fit beside the wafer at 1024 pixels; the full name is
    // the tooltip.
    static const char* names[ColumnCount] = {"Kernel",   "Region",    "PEs",       "Memory",
                                             "Capacity", "Samples/s", "Compute/s", "Transmit/s",
                                             "Use",      "Fits"};
    static const char* full[ColumnCount] = {"Kernel",
                                            "Region of the wafer (width x height at x, y)",
                                            "Active PEs",
                                            "Memory the kernel holds",
                                            "Capacity of its region",
                                            "Samples/s (the lesser of compute and transmission)",
                                            "Compute samples/s",
                                            "Transmission samples/s",
                                            "Utilisation of its PEs",
                                            "Fits in its region"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(full[section]);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace portolan::views
