#pragma once

// Summary and insights: fits or not, memory used of capacity, the top tiles (or kernels), a
// histogram of tile memory and the advice list; activating a remedy emits remedyActivated.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace portolan::views {

class SummaryPage : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryPage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    // No report because the project's model could not be built: why, in place of the report,
    // and a button for the dry run when only a dry run can tell the model.
    void showNoModel(const QString& why, bool offerDryRun);
    QString headline() const;
    QString figures() const; // the lines under the headline
    QCustomPlot* histogram() const { return m_histogram; }
    QTableWidget* adviceTable() const { return m_advice; }

signals:
    void remedyActivated(const QString& id);
    void tileActivated(int tile);
    void findConfigurationRequested(); // from the empty advice's link
    void dryRunRequested();            // from the button of showNoModel

protected:
    void changeEvent(QEvent* event) override;

private:
    void showTilePane(bool shown);
    void showReportParts(bool shown); // the advice and the tiles: a report's parts
    void fillHistogram();

    ResultPtr m_result;
    QLabel* m_headline = nullptr;
    QLabel* m_figures = nullptr;
    QPushButton* m_dryRun = nullptr;
    QLabel* m_adviceTitle = nullptr;
    QWidget* m_tilePane = nullptr; // fullest tiles and histogram: IPU reports only
    QTableWidget* m_topTiles = nullptr;
    QTableWidget* m_advice = nullptr;
    QLabel* m_adviceEmpty = nullptr;
    QCustomPlot* m_histogram = nullptr;
};

} // namespace portolan::views
