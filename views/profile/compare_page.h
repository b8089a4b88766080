#pragma once

// Compare two reports side by side (for example fp32 against fp16, or 4 against 8 IPUs): each
// report's headline, and a table of the deltas from core/report/compare.h. Reports load off the
// GUI thread.

#include "views/common/job.h"
#include "views/profile/plot_theme.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QTableView;

namespace portolan::views {

class ComparisonModel;

class ComparePage : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);
    void setCurrent(ResultPtr current); // the panel's result, offered as A or B
    void setReports(ResultPtr a, ResultPtr b, const QString& nameA = {}, const QString& nameB = {});
    void openReport(int side, const QString& file); // side 0 = A, 1 = B; async
    bool isLoading() const { return m_loading > 0; }
    ComparisonModel* model() const { return m_model; }
    QString error() const { return m_error; }

signals:
    void loaded();

private:
    void refresh();

    ResultPtr m_current, m_a, m_b;
    QString m_nameA, m_nameB, m_error;
    JobTicket m_tickets[2];
    int m_loading = 0;
    QLabel* m_sideA = nullptr;
    QLabel* m_sideB = nullptr;
    QLabel* m_status = nullptr;
    QListWidget* m_notes = nullptr;
    QTableView* m_view = nullptr;
    ComparisonModel* m_model = nullptr;
};

} // namespace portolan::views
