#pragma once

// The tile-map page: the heatmap, its colour scale slider and the clicked tile's details.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QLabel;
class QSlider;
class QToolButton;

namespace portolan::views {

class DryRunNotice;
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
    // No report because only a dry run can tell the model: say so, with the button that runs it
    // (hidden again by the next report).
    void showNeedsDryRun();
    DryRunNotice* dryRunNotice() const { return m_needsDryRun; }

signals:
    void dryRunRequested();

private:
    TileMap* m_map = nullptr;
    TileDetails* m_details = nullptr;
    QSlider* m_scale = nullptr;
    QLabel* m_scaleLabel = nullptr;
    QToolButton* m_export = nullptr;
    DryRunNotice* m_needsDryRun = nullptr;
    bool m_hasResult = false;
};

} // namespace portolan::views
