#include "views/params/yaml_text_view.h"

#include "views/params/yaml_highlighter.h"

#include <QFontDatabase>
#include <QScrollBar>
#include <QTextBlock>

namespace portolan::views {

YamlTextView::YamlTextView(QWidget* parent) : NumberedTextEdit(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setUndoRedoEnabled(false);
    new YamlHighlighter(document());
    connect(this, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_settingText)
            emit userEdited();
    });
}

void YamlTextView::setYaml(const QString& text)
{
    if (text == toPlainText())
        return;
    const int position = textCursor().position();
    const int scroll = verticalScrollBar()->value();
    m_settingText = true;
    setPlainText(text);
    m_settingText = false;
    QTextCursor c = textCursor();
    c.setPosition(std::min(position, int(text.size())));
    setTextCursor(c);
    verticalScrollBar()->setValue(scroll);
}

void YamlTextView::setErrorLine(int line)
{
    QList<QTextEdit::ExtraSelection> marks;
    if (line > 0) {
        QTextEdit::ExtraSelection s;
        s.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        s.format.setUnderlineColor(Qt::red);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(document()->findBlockByNumber(line - 1));
        s.cursor.select(QTextCursor::LineUnderCursor);
        marks << s;
    }
    setExtraSelections(marks);
}

void YamlTextView::goToLine(int line, int column)
{
    const QTextBlock block = document()->findBlockByNumber(std::max(line - 1, 0));
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, std::max(column - 1, 0));
    setTextCursor(c);
    centerCursor();
    setFocus();
}

} // namespace portolan::views
