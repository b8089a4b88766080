#pragma once

// The learning-rate schedule of a Model Zoo config: a list of schedules run one after the
// other (`- scheduler: Linear, initial_learning_rate, end_learning_rate, total_iters`), shown
// as one row each, with the rate at the boundaries in scientific notation.

#include <QWidget>
#include <vector>

class QTableWidget;

namespace portolan::views {

struct LrPhase
{
    QString scheduler;
    QString initial;  // initial_learning_rate (or learning_rate for Constant)
    QString end;      // end_learning_rate
    QString steps;    // total_iters, or steps in older configs
    QString stepsKey; // which of the two the file uses
    QString rateKey;  // initial_learning_rate or learning_rate
};

class LrScheduleEditor : public QWidget
{
    Q_OBJECT

public:
    enum Column
    {
        SchedulerColumn,
        InitialColumn,
        EndColumn,
        StepsColumn,
        ColumnCount
    };

    LrScheduleEditor(const QString& path, std::vector<LrPhase> phases,
                     const QStringList& schedulerNames, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    // Total steps over all phases, shown under the table.
    long long totalSteps() const;

signals:
    void edited(const QString& path, const QString& value, int hint);
    void appendRequested(const QString& listPath, const QString& value, int hint);
    void removeRequested(const QString& path);

private:
    QString m_path;
    std::vector<LrPhase> m_phases;
    QTableWidget* m_table = nullptr;
};

} // namespace portolan::views
