#pragma once

#include "core/common/diagnostic.h"

#include <QAbstractTableModel>

class QTableView;
#include <vector>

namespace portolan::views {

// A flat list of diagnostics (or findings): severity, location, message, code.
class DiagnosticsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        SeverityColumn,
        LocationColumn,
        MessageColumn,
        CodeColumn,
        ColumnCount
    };
    enum Role
    {
        FileRole = Qt::UserRole + 1, // QString
        LineRole,                    // int, 1-based, 0 when unknown
        ColumnRole,                  // int, 1-based, 0 when unknown
        SeverityRole,                // int (portolan::Severity)
    };

    explicit DiagnosticsModel(QObject* parent = nullptr);

    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    // Locations under this folder are shown relative to it ("configs/params.yaml:5:3"); the
    // full path stays in the tooltip and FileRole.
    void setBaseFolder(const QString& folder);
    const Diagnostic& diagnosticAt(int row) const { return m_items.at(std::size_t(row)); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_items;
    QString m_base;
};

// The one look of a diagnostics table: severity, location and code sized to their contents,
// the message taking the rest, whole rows selected.
void setUpDiagnosticsTable(QTableView* table, DiagnosticsModel* model);

} // namespace portolan::views
