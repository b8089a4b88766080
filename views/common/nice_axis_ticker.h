#pragma once

// A QCustomPlot ticker at round values with the core formatter's labels (issue 26): "0 MiB |
// 5 MiB | 10 MiB" instead of ticks at a fifth of the maximum (4.9 / 9.9 / 14.9 MiB), and whole
// numbers on a step axis. It follows zoom and pan, unlike a QCPAxisTickerText filled once.

#include "core/common/number_format.h"

#include <qcustomplot.h>

namespace portolan::views {

class NiceAxisTicker : public QCPAxisTicker
{
public:
    explicit NiceAxisTicker(format::Axis axis, int target = 5);

    // Shared pointer as QCPAxis::setTicker takes it.
    static QSharedPointer<NiceAxisTicker> make(format::Axis axis, int target = 5);

protected:
    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision,
                  QVector<double>& ticks, QVector<double>* subTicks,
                  QVector<QString>* tickLabels) override;

private:
    format::Axis m_axis;
    int m_target;
};

} // namespace portolan::views
