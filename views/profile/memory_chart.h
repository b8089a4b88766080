#pragma once

// The per-tile memory chart. Far out it draws a min/mean/max envelope, one point per pixel column
// (decimate()), so all 94,208 tiles of 64 IPUs redraw within a frame; zoomed in to fewer tiles
// than pixels it switches to bars stacked by memory category. The capacity line and the
// out-of-memory tiles are marked. Wheel zooms and drag pans the tile axis; a click on a tile emits
// tileClicked.

#include "views/profile/plot_theme.h"
#include "views/profile/tile_stats.h"

#include <qcustomplot.h>
#include <vector>

namespace portolan::views {

class MemoryChart : public QCustomPlot
{
    Q_OBJECT
public:
    // How high the memory axis reaches: the capacity (how much room is left), the fullest tile
    // (the shape of the data), or Auto: the data when it fills under a quarter of a tile, where
    // a capacity-high axis would draw it as a flat line, else the capacity.
    enum class Height
    {
        Auto,
        Capacity,
        Data
    };

    explicit MemoryChart(QWidget* parent = nullptr);
    void setHeightMode(Height height);
    Height heightMode() const { return m_height; }
    bool capacityInView() const; // false when the axis stops below the capacity line

    void setResult(ResultPtr result); // also forgets setEmptyText's sentence
    // The sentence shown without tiles, instead of the default one (noTilesText).
    void setEmptyText(const QString& text);
    // Shows tiles [first, end) only (an IPU or a stage filter); end < 0: all tiles.
    void setTileRange(int first, int end);
    // Zooms the tile axis and replots (rpImmediateRefresh also repaints the widget at once).
    void showTiles(double lo, double hi,
                   QCustomPlot::RefreshPriority refresh = QCustomPlot::rpRefreshHint);
    bool isStacked() const { return m_stacked; }
    int tileAt(int pixelX) const;
    const TileStats& stats() const { return m_stats; }

signals:
    void tileClicked(int tile);

protected:
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();    // refills the plottables for the visible range
    void syncLegend(); // the legend lists the plottables shown, only those
    void restyle();
    void clampRange(const QCPRange& range);
    void applyHeight();

    ResultPtr m_result;
    TileStats m_stats;
    int m_first = 0, m_end = 0;
    bool m_stacked = false;
    Height m_height = Height::Auto;
    bool m_rebuilding = false;
    QPoint m_pressPos;
    QCPGraph* m_max = nullptr;
    QCPGraph* m_min = nullptr;
    QCPGraph* m_mean = nullptr;
    QCPGraph* m_oom = nullptr;
    QVector<QCPBars*> m_bars;
    std::vector<bool> m_legendShown; // which plottables the legend lists now
    QCPItemStraightLine* m_capacity = nullptr;
    QCPItemText* m_empty = nullptr;
    QString m_emptyText;
};

} // namespace portolan::views
