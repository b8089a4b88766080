#pragma once

// The tile-map page: the heatmap, its colour scale slider and the clicked tile's details.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QLabel;
class QSlider;
class QToolButton;

namespace portolan::views {

class TileDetails;
class TileMap;

class TileMapPage : public QWidget
{
    Q_OBJECT
public:
    explicit TileMapPage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    TileMap* map() const { return m_map; }
    TileDetails* details() const { return m_details; }
    QSlider* scaleSlider() const { return m_scale; }

private:
    TileMap* m_map = nullptr;
    TileDetails* m_details = nullptr;
    QSlider* m_scale = nullptr;
    QLabel* m_scaleLabel = nullptr;
    QToolButton* m_export = nullptr;
};

} // namespace portolan::views
