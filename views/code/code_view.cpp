#include "views/code/code_view.h"

#include "views/code/python_highlighter.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QStyle>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolTip>

namespace portolan::views {

CodeView::CodeView(QWidget* parent) : NumberedTextEdit(parent)
{
    setReadOnly(true);
    // What the empty tab is for, before anything is opened.
    setPlaceholderText(tr("No file open. Double-click a file in the Project tree, a finding on "
                          "the Porting tab or a node on the Flow tab to see its code here."));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(mono);
    m_highlighter = new PythonHighlighter(document());
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
    viewport()->update();
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

void CodeView::changeEvent(QEvent* event)
{
    NumberedTextEdit::changeEvent(event);
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
    return NumberedTextEdit::event(event);
}

void CodeView::paintLineMarker(QPainter& painter, int line, const QRect& box)
{
    // The most severe marker of the line, as a dot left of the number.
    const CodeMarker* worst = nullptr;
    for (const CodeMarker& m : m_markers)
        if (m.line == line && (!worst || m.severity > worst->severity))
            worst = &m;
    if (!worst)
        return;
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(markerColor(worst->severity));
    painter.drawEllipse(box);
}

void CodeView::paintEvent(QPaintEvent* event)
{
    NumberedTextEdit::paintEvent(event);
    // Each finding's message at the end of its line, in its severity's colour, so a reader
    // sees what is wrong without hovering (the tooltip still has the whole text).
    if (m_markers.isEmpty())
        return;
    QPainter painter(viewport());
    QFont italic = font();
    italic.setItalic(true);
    painter.setFont(italic);
    const QFontMetrics fm(italic);
    const QPointF offset = contentOffset();
    for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
        const QRectF box = blockBoundingGeometry(block).translated(offset);
        if (box.top() > event->rect().bottom())
            break;
        if (!block.isVisible() || box.bottom() < event->rect().top())
            continue;
        QStringList messages;
        Severity worst = Severity::Info;
        for (const CodeMarker& m : m_markers)
            if (m.line == block.blockNumber() + 1) {
                messages << m.message;
                worst = std::max(worst, m.severity);
            }
        if (messages.isEmpty() || !block.layout() || block.layout()->lineCount() == 0)
            continue;
        const QTextLine last = block.layout()->lineAt(block.layout()->lineCount() - 1);
        const qreal x = box.left() + last.naturalTextWidth() + 3 * fm.averageCharWidth();
        // Ends in "…" at the pane's edge rather than cut mid-word (the tooltip has it all).
        const int room = int(viewport()->width() - x - 4);
        if (room < fm.horizontalAdvance(QStringLiteral("◀ …")))
            continue;
        painter.setPen(markerColor(worst));
        painter.drawText(QPointF(x, box.top() + last.y() + last.ascent()),
                         fm.elidedText(QStringLiteral("◀ ") + messages.join(QStringLiteral(" · ")),
                                       Qt::ElideRight, room));
    }
}

} // namespace portolan::views
