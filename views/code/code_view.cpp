#include "views/code/code_view.h"

#include "views/code/python_highlighter.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QTextBlock>
#include <QToolTip>

namespace portolan::views {

class LineNumberArea : public QWidget
{
public:
    explicit LineNumberArea(CodeView* view) : QWidget(view), m_view(view) {}
    QSize sizeHint() const override { return {m_view->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintLineNumbers(event); }

private:
    CodeView* m_view;
};

CodeView::CodeView(QWidget* parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    // What the empty tab is for, before anything is opened.
    setPlaceholderText(tr("No file open. Double-click a file in the Project tree, a finding on "
                          "the Porting tab or a node on the Flow tab to see its code here."));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(mono);
    m_gutter = new LineNumberArea(this);
    m_highlighter = new PythonHighlighter(document());
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &CodeView::updateGutter);
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

void CodeView::setSource(const QString& fileName, const QString& text)
{
    m_fileName = fileName;
    m_markers.clear();
    setPlainText(text);
    m_highlighter->setEnabled(fileName.endsWith(QLatin1String(".py")));
    rebuildSelections();
}

void CodeView::setMarkers(const QVector<CodeMarker>& markers)
{
    m_markers = markers;
    rebuildSelections();
    m_gutter->update();
}

void CodeView::goTo(int line, int column)
{
    const QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
    if (!block.isValid())
        return;
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   std::clamp(column - 1, 0, std::max(0, int(block.length()) - 1)));
    setTextCursor(c);
    centerCursor();
    rebuildSelections();
}

int CodeView::lineNumberAreaWidth() const
{
    const auto digits = static_cast<int>(QString::number(std::max(1, blockCount())).size());
    const int marker = fontMetrics().height();
    return 8 + marker + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

QColor CodeView::markerColor(Severity s) const
{
    switch (s) {
    case Severity::Error:
        return QColor(0xd3, 0x2f, 0x2f);
    case Severity::Warning:
        return QColor(0xef, 0x9a, 0x00);
    case Severity::Info:
        return QColor(0x19, 0x76, 0xd2);
    }
    return {};
}

void CodeView::rebuildSelections()
{
    QList<QTextEdit::ExtraSelection> selections;
    const QColor base = palette().color(QPalette::Base);
    auto blend = [&base](QColor c, float a) {
        return QColor::fromRgbF(c.redF() * a + base.redF() * (1 - a),
                                c.greenF() * a + base.greenF() * (1 - a),
                                c.blueF() * a + base.blueF() * (1 - a));
    };
    QTextEdit::ExtraSelection current;
    current.format.setBackground(blend(palette().color(QPalette::Highlight), 0.12F));
    current.format.setProperty(QTextFormat::FullWidthSelection, true);
    current.cursor = textCursor();
    current.cursor.clearSelection();
    selections.append(current);
    for (const CodeMarker& m : m_markers) {
        const QTextBlock block = document()->findBlockByNumber(m.line - 1);
        if (!block.isValid())
            continue;
        QTextEdit::ExtraSelection line;
        line.format.setBackground(blend(markerColor(m.severity), 0.16F));
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        line.cursor = QTextCursor(block);
        selections.append(line);
        if (m.column > 0) {
            // Underline from the column to the end of the token the finding is about.
            QTextEdit::ExtraSelection word;
            word.cursor = QTextCursor(block);
            word.cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, m.column - 1);
            word.cursor.movePosition(QTextCursor::EndOfWord, QTextCursor::KeepAnchor);
            word.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            word.format.setUnderlineColor(markerColor(m.severity));
            selections.append(word);
        }
    }
    setExtraSelections(selections);
}

void CodeView::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), cr.height()));
}

void CodeView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        m_highlighter->setPalette(palette());
        rebuildSelections();
    }
}

bool CodeView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint inViewport = viewport()->mapFromGlobal(help->globalPos());
        const int line = cursorForPosition(inViewport).blockNumber() + 1;
        QStringList messages;
        for (const CodeMarker& m : m_markers)
            if (m.line == line)
                messages << m.message;
        if (!messages.isEmpty()) {
            QToolTip::showText(help->globalPos(), messages.join(QLatin1Char('\n')), this);
            return true;
        }
        QToolTip::hideText();
    }
    return QPlainTextEdit::event(event);
}

void CodeView::updateGutter(const QRect& rect, int dy)
{
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void CodeView::paintLineNumbers(QPaintEvent* event)
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
            const int line = number + 1;
            const bool current = textCursor().blockNumber() == number;
            painter.setPen(
                palette().color(current ? QPalette::Active : QPalette::Disabled, QPalette::Text));
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(line));
            // The most severe marker of the line, as a dot left of the number.
            const CodeMarker* worst = nullptr;
            for (const CodeMarker& m : m_markers)
                if (m.line == line && (!worst || m.severity > worst->severity))
                    worst = &m;
            if (worst) {
                painter.setRenderHint(QPainter::Antialiasing);
                painter.setPen(Qt::NoPen);
                painter.setBrush(markerColor(worst->severity));
                painter.drawEllipse(QRect(3, top + 2, markerSize, markerSize));
            }
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

} // namespace portolan::views
