#include "views/common/wrap_anywhere_label.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QPainter>
#include <QStyle>
#include <QTextLayout>
#include <QTextOption>
#include <cmath>

namespace portolan::views {

WrapAnywhereLabel::WrapAnywhereLabel(const QString& text, QWidget* parent) : QLabel(text, parent)
{
    setTextFormat(Qt::PlainText);
    // Wide when there is room, as narrow as a few characters when there is not.
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    auto* copy = new QAction(tr("Copy"), this);
    connect(copy, &QAction::triggered, this,
            [this] { QGuiApplication::clipboard()->setText(this->text()); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

QString breakableName(const QString& name)
{
    QString out;
    out.reserve(name.size() + name.size() / 4);
    int run = 0;
    for (const QChar c : name) {
        out += c;
        ++run;
        if (c == QLatin1Char('_') || c == QLatin1Char('/') || c == QLatin1Char('.') ||
            c == QLatin1Char('-') || run >= 16) {
            out += QChar(0x200B);
            run = 0;
        }
    }
    return out;
}

int WrapAnywhereLabel::horizontalMargins() const
{
    const QMargins m = contentsMargins();
    return m.left() + m.right() + 2 * margin();
}

int WrapAnywhereLabel::verticalMargins() const
{
    const QMargins m = contentsMargins();
    return m.top() + m.bottom() + 2 * margin();
}

int WrapAnywhereLabel::layOut(QTextLayout& layout, int width) const
{
    // QTextLayout breaks lines at U+2028, not at '\n'.
    QString text = this->text();
    text.replace(QLatin1Char('\n'), QChar::LineSeparator);
    layout.setText(text);
    layout.setFont(font());
    QTextOption option(alignment() & Qt::AlignHorizontal_Mask);
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    const qreal leading = fontMetrics().leading();
    qreal y = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(std::max(1, width));
        y += leading;
        line.setPosition(QPointF(0, y));
        y += line.height();
    }
    layout.endLayout();
    return int(std::ceil(y));
}

int WrapAnywhereLabel::heightForWidth(int width) const
{
    QTextLayout layout;
    return layOut(layout, width - horizontalMargins()) + verticalMargins();
}

QSize WrapAnywhereLabel::sizeHint() const
{
    // As wide as the longest line, up to about 60 characters: beyond that, wrapping reads better
    // than a column that pushes its neighbours.
    const QFontMetrics fm = fontMetrics();
    int widest = 0;
    for (const QString& line : text().split(QLatin1Char('\n')))
        widest = std::max(widest, fm.horizontalAdvance(line));
    const int width = std::min(widest, fm.averageCharWidth() * 60) + horizontalMargins();
    return {width, heightForWidth(width)};
}

QSize WrapAnywhereLabel::minimumSizeHint() const
{
    const int width = fontMetrics().averageCharWidth() * 8 + horizontalMargins();
    return {width, fontMetrics().height() + verticalMargins()};
}

void WrapAnywhereLabel::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    QTextLayout layout;
    layOut(layout, room.width());
    painter.setPen(
        palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, foregroundRole()));
    layout.draw(&painter, room.topLeft());
}

} // namespace portolan::views
