#pragma once

#include "views/runs/run_history.h"

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace portolan::views {

// The badge of a run on made-up inputs ("synthetic data and weights"), empty for a real one:
// one wording for the history row, the chart's title and the panel.
QString syntheticBadge(const QStringList& what);
// What one event says was made up: a dry run's warning of kind synthetic-data or
// synthetic-weights, or the built-in runtime's started event with data.train/eval.synthetic.
QStringList syntheticInputs(const QJsonObject& event);

// The runs of a project for the history list (newest first).
class RunHistoryModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Id,
        Started,
        Mode,
        Model,
        Steps,
        Loss,
        Status,
        ColumnCount
    };
    explicit RunHistoryModel(QObject* parent = nullptr);
    void setRuns(const QList<RunRecord>& runs);
    const RunRecord& runAt(int row) const { return m_runs[row]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    QList<RunRecord> m_runs;
};

} // namespace portolan::views
