#pragma once

// Tile-map heatmap: every tile a cell of a QImage (IPUs as blocks, tiles row-major inside), its
// colour the tile's memory on a scale from 0 to `scaleMax` of capacity; tiles over capacity in the
// alert colour. The image is rebuilt only when the data, scale or palette change; painting just
// scales it.

#include "views/profile/tile_stats.h"

#include <QImage>
#include <QStringList>
#include <QWidget>
#include <vector>

class QPainter;

namespace portolan::views {

class TileMap : public QWidget
{
    Q_OBJECT
public:
    explicit TileMap(QWidget* parent = nullptr);
    void setStats(TileStats stats);
    // What the map says while it has no tiles: why, and what would fill it.
    void setEmptyText(const QString& text)
    {
        m_emptyText = text;
        update();
    }
    QString emptyText() const { return m_emptyText; }
    bool hasTiles() const { return !m_image.isNull(); }
    // Colour scale top as a fraction of the tile capacity (1.0 = capacity).
    void setScale(double fractionOfCapacity);
    double scale() const { return m_scale; }
    int tileAt(const QPoint& pos) const;
    QPoint cellOf(int tile) const; // image cell of a tile
    const QImage& image() const { return m_image; }
    // The labels on the IPU blocks at the current size ("IPU 1 · tiles 1472–2943", "IPU 1"
    // where that does not fit, none where "IPU 1" does not either), in IPU order.
    QStringList blockLabels() const;
    QSize sizeHint() const override { return {600, 400}; }

signals:
    void tileClicked(int tile);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QString m_emptyText;
    void rebuildImage();
    QRect imageRect() const;

    TileStats m_stats;
    double m_scale = 1.0;
    int legendHeight() const;
    void paintLegend(QPainter& painter);
    void paintAxes(QPainter& painter);
    struct BlockLabel
    {
        QRectF block;
        QString text; // empty: no room for a label
    };
    std::vector<BlockLabel> blocks() const;
    int m_blockW = 1, m_blockH = 1, m_ipuCols = 1, m_ipuRows = 1;
    QImage m_image;
};

} // namespace portolan::views
