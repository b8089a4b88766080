#pragma once

#include <QPlainTextEdit>

namespace portolan::views {

// A plain text edit with line numbers in a gutter on its left, the current line's number in the
// full text colour. Findings cite file:line:column, so every text view that shows a file a
// finding can point into (the code view, the params YAML) numbers its lines. A subclass may
// draw a marker in front of a line's number.
class NumberedTextEdit : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit NumberedTextEdit(QWidget* parent = nullptr);

    int lineNumberAreaWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    // Draws what belongs in front of `line`'s number (1-based) inside `box`; nothing by default.
    virtual void paintLineMarker(QPainter& painter, int line, const QRect& box);

private:
    friend class LineNumberGutter;
    void paintLineNumbers(QPaintEvent* event);
    void updateGutter(const QRect& rect, int dy);

    QWidget* m_gutter = nullptr;
};

} // namespace portolan::views
