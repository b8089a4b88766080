#include "views/common/status_line.h"

#include "views/common/wrap_anywhere_label.h"

#include <QMessageBox>

namespace portolan::views {

StatusLine::StatusLine(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    connect(this, &QLabel::linkActivated, this, &StatusLine::showDetail);
}

namespace {

// A word of more than 24 characters (a file name, a path) gets break points, as the label's
// word wrap never breaks a word: "Finding the model of RELEASE_2.4.0__models__…_8k.yaml..."
// set the Profile's settings pane 230 pixels wider while it was shown, and the window, asked
// for at 1024, stayed 1,254 wide.
QString breakLongWords(const QString& sentence)
{
    QStringList words = sentence.split(QLatin1Char(' '));
    for (QString& word : words)
        if (word.size() > 24)
            word = breakableName(word);
    return words.join(QLatin1Char(' '));
}

} // namespace

void StatusLine::setMessage(const QString& message)
{
    m_message = message;
    m_text = peopleText(message);
    QString html = breakLongWords(m_text.sentence).toHtmlEscaped();
    if (!m_text.detail.isEmpty())
        html += QStringLiteral(" <a href=\"detail\">%1</a>").arg(tr("Details…"));
    setText(html);
    setToolTip(m_text.detail.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>")));
}

void StatusLine::showDetail()
{
    QMessageBox box(QMessageBox::Information, tr("Details"), m_text.sentence, QMessageBox::Close,
                    this);
    box.setDetailedText(m_text.detail);
    box.exec();
}

} // namespace portolan::views
