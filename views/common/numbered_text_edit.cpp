#include "views/common/numbered_text_edit.h"

#include <QPainter>
#include <QTextBlock>

namespace portolan::views {

class LineNumberGutter : public QWidget
{
public:
    explicit LineNumberGutter(NumberedTextEdit* view) : QWidget(view), m_view(view) {}
    QSize sizeHint() const override { return {m_view->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintLineNumbers(event); }

private:
    NumberedTextEdit* m_view;
};

NumberedTextEdit::NumberedTextEdit(QWidget* parent) : QPlainTextEdit(parent)
{
    m_gutter = new LineNumberGutter(this);
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &NumberedTextEdit::updateGutter);
    // The current line's number is drawn stronger: repaint when the cursor moves.
    connect(this, &QPlainTextEdit::cursorPositionChanged, m_gutter, qOverload<>(&QWidget::update));
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

int NumberedTextEdit::lineNumberAreaWidth() const
{
    const auto digits = static_cast<int>(QString::number(std::max(1, blockCount())).size());
    const int marker = fontMetrics().height();
    return 8 + marker + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void NumberedTextEdit::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), cr.height()));
}

void NumberedTextEdit::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    // A subclass sets its monospace font after this constructor: the gutter follows the font.
    if (event->type() == QEvent::FontChange)
        setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

void NumberedTextEdit::paintLineMarker(QPainter&, int, const QRect&) {}

void NumberedTextEdit::updateGutter(const QRect& rect, int dy)
{
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void NumberedTextEdit::paintLineNumbers(QPaintEvent* event)
{
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    const int markerSize = fontMetrics().height() - 4;
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            const bool current = textCursor().blockNumber() == number;
            painter.setPen(
                palette().color(current ? QPalette::Active : QPalette::Disabled, QPalette::Text));
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(number + 1));
            painter.save();
            paintLineMarker(painter, number + 1, QRect(3, top + 2, markerSize, markerSize));
            painter.restore();
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

} // namespace portolan::views
