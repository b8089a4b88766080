#pragma once

#include "views/common/people_text.h"

#include <QLabel>

namespace portolan::views {

// A status label for messages that may be diagnostics: it shows the sentence for people, with
// the whole message (position, code, a child's stderr) in its tooltip and behind a "Details"
// link, so nothing is lost and nothing raw is in the way.
class StatusLine : public QLabel
{
    Q_OBJECT
public:
    explicit StatusLine(QWidget* parent = nullptr);

    void setMessage(const QString& message);
    QString message() const { return m_message; } // as given
    QString sentence() const { return m_text.sentence; }
    QString detail() const { return m_text.detail; } // empty when the sentence is all of it

private:
    void showDetail();

    QString m_message;
    PeopleText m_text;
};

} // namespace portolan::views
