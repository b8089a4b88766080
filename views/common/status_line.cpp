#include "views/common/status_line.h"

#include <QMessageBox>

namespace portolan::views {

StatusLine::StatusLine(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    connect(this, &QLabel::linkActivated, this, &StatusLine::showDetail);
}

void StatusLine::setMessage(const QString& message)
{
    m_message = message;
    m_text = peopleText(message);
    QString html = m_text.sentence.toHtmlEscaped();
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
