#pragma once

#include "core/guides/finding.h"

#include <QAbstractTableModel>
#include <vector>

namespace portolan::views {

// The findings of one step (or of a whole guide): severity, location, message, check id.
class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, LocationColumn, MessageColumn, CheckColumn, ColumnCount };
    enum Role {
        FileRole = Qt::UserRole + 1, // QString, relative to the project root
        LineRole,                    // int, 1-based
        ColumnRole,                  // int, 1-based
        HasFixRole,                  // bool
        HintRole,                    // QString
    };

    explicit FindingsModel(QObject* parent = nullptr);

    void setFindings(std::vector<guides::Finding> findings);
    const guides::Finding* findingAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<guides::Finding> m_findings;
};

} // namespace portolan::views
