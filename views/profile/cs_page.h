#pragma once

// The CS page: the wafer placement map and the per-kernel performance table, linked by selection.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace portolan::views {

class CsKernelModel;
class WaferMap;

class CsPage : public QWidget
{
    Q_OBJECT
public:
    explicit CsPage(QWidget* parent = nullptr);
    void setResult(const ResultPtr& result);
    WaferMap* map() const { return m_map; }
    CsKernelModel* model() const { return m_model; }

private:
    WaferMap* m_map = nullptr;
    CsKernelModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace portolan::views
