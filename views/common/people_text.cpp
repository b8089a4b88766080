#include "views/common/people_text.h"

#include <QRegularExpression>

namespace portolan::views {

PeopleText peopleText(const QString& message)
{
    const QString whole = message.trimmed();
    QString sentence = whole.section(QLatin1Char('\n'), 0, 0).trimmed();
    // The position before the severity (a path may hold ": ", so the severity word anchors it),
    // and the stable code at the end, are for tools and bug reports, not for reading.
    static const QRegularExpression prefix(QStringLiteral("^.*?: (error|warning|info): "));
    static const QRegularExpression code(QStringLiteral("\\s*\\[[A-Za-z0-9._-]+\\]$"));
    sentence.remove(prefix).remove(code);
    if (!sentence.isEmpty())
        sentence[0] = sentence[0].toUpper();
    if (!sentence.isEmpty() && !sentence.endsWith(QLatin1Char('.')) &&
        !sentence.endsWith(QLatin1Char('?')))
        sentence += QLatin1Char('.');
    PeopleText out;
    out.sentence = sentence;
    // Detail only when the sentence dropped something (a position, a code, more lines).
    QString bare = whole;
    if (!bare.isEmpty())
        bare[0] = bare[0].toUpper();
    if (bare != sentence && bare + QLatin1Char('.') != sentence)
        out.detail = whole;
    return out;
}

} // namespace portolan::views
