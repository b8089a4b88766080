#pragma once

// The Cerebras wafer placement map: the core grid with each kernel's rectangle coloured by its
// layer (kernel order); kernels that do not fit their region are outlined in the alert colour.

#include "views/profile/plot_theme.h"

#include <QStringList>
#include <QWidget>
#include <vector>

class QPainter;

namespace portolan::views {

class WaferMap : public QWidget
{
    Q_OBJECT
public:
    explicit WaferMap(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    void setSelectedKernel(int kernel);
    int kernelAt(const QPoint& pos) const;
    // What the legend under the wafer says, in order: only what is drawn ("a kernel ...",
    // "over its memory" when a kernel is, "bottleneck: NAME" when the report names one).
    QStringList legendTexts() const;
    QSize sizeHint() const override { return {500, 400}; }

signals:
    void kernelClicked(int kernel);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QRectF gridRect() const;
    int legendHeight() const;
    enum class LegendKind
    {
        Kernel,
        Over,
        Bottleneck
    };
    struct LegendItem
    {
        LegendKind kind;
        QString text;
    };
    std::vector<LegendItem> legendItems() const;
    void paintLegend(QPainter& p);
    QRectF kernelRect(const sim::CsKernel& k, const QRectF& grid) const;

    ResultPtr m_result;
    int m_selected = -1;
};

} // namespace portolan::views
