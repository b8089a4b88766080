#pragma once
// Live loss chart (QCustomPlot): one curve per run (the live run and any overlaid history
// runs), eval points overlaid, linear or log scale, exponential smoothing, zoom and pan with the
// mouse, export as PNG, PDF or CSV. Colours come from the palette.
#include <QHash>
#include <QPointF>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPTextElement;
class QCheckBox;
class QSlider;

namespace portolan::views {

class LossChart : public QWidget
{
    Q_OBJECT

public:
    explicit LossChart(QWidget* parent = nullptr);
    ~LossChart() override;

    void setRun(qint64 id, const QString& label, const QVector<QPointF>& loss,
                const QVector<QPointF>& eval);
    void appendLoss(qint64 id, double step, double loss); // live
    void appendEval(qint64 id, double step, double loss);
    void removeRun(qint64 id);
    // A run that failed: its legend entry says so, and a run that failed before its first step
    // shows why in the chart instead of an empty legend ("run 1 / run 1 (eval)").
    // A run on made-up inputs (syntheticBadge): its legend entry and the chart's title say so.
    void markSynthetic(qint64 id, const QString& badge);
    QString title() const;
    void markFailed(qint64 id, const QString& reason);
    // The two sides of a verification keep one colour and one mark each, whatever their ids
    // and the other curves shown (issue 26: the original's and the port's colours swapped
    // between targets and between the port dialog and the Runs tab).
    enum class Side
    {
        None,
        Original,
        Port,
    };
    void setSide(qint64 id, Side side);
    QColor colourOf(qint64 id) const;
    bool isFailed(qint64 id) const { return m_series.contains(id) && m_series[id].failed; }
    QString placeholderText() const;
    // What the chart says while it has no run (lines short enough for a chart 1,024 pixels
    // wide): the Runs tab's words by default; a chart elsewhere says what fills it there.
    void setEmptyText(const QString& text);
    void clearRuns();
    // In the order the runs were started (a run's id grows with it; a run of another project's
    // history, shown as a verification, is the negative of its id there).
    QList<qint64> runIds() const;
    int pointCount(qint64 id) const;

    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    void setSmoothing(double weight); // 0 (raw) .. 0.99
    double smoothing() const { return m_smoothing; }
    void rescale();

    bool exportTo(const QString& file, QString* error = nullptr) const; // .png, .pdf or .csv
    QCustomPlot* plot() const { return m_plot; }

protected:
    void changeEvent(QEvent* event) override;

private:
    // Curves of at most this many points mark each step.
    static constexpr qsizetype kMarkedPoints = 50;
    struct Series
    {
        QString label;
        QVector<double> steps;
        QVector<double> raw;
        QVector<double> evalSteps;
        QVector<double> evalLoss;
        QCPGraph* graph = nullptr;
        QCPGraph* evalGraph = nullptr;
        double smoothed = 0; // running EMA for live appends
        bool failed = false;
        Side side = Side::None;
        QString synthetic; // the badge of a run on made-up inputs
    };
    void refreshSeries(Series& s);
    void updateTitle();
    void recolour();
    void placeLegend();
    void follow(double step, double loss);
    void exportMenu();

    QCustomPlot* m_plot;
    QCPItemText* m_placeholder = nullptr;
    QString m_emptyText;
    QCPTextElement* m_title = nullptr; // in the layout only while a shown run is synthetic
    QCheckBox* m_logBox;
    QSlider* m_smoothSlider;
    QHash<qint64, Series> m_series;
    bool m_log = false;
    bool m_following = true; // axes follow a live run until the user zooms or pans
    struct Bounds
    {
        double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
        bool valid = false;
    };
    Bounds m_liveBounds; // of the points appended live
    double m_smoothing = 0.0;
};

} // namespace portolan::views
