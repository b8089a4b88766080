#pragma once

#include <QString>

namespace portolan::views {

// A message in the CLI's diagnostic form ("path:line:col: error: what went wrong [code]",
// perhaps followed by more lines, a child's stderr) as a GUI shows it: the sentence for people
// in the window, the whole text on hover or behind a link (issue 26: the Profile's status
// showed raw diagnostics).
struct PeopleText
{
    QString sentence; // "What went wrong." (the first line's message, capitalised, a full stop)
    QString detail;   // the whole text when the sentence leaves something out; else empty
};

PeopleText peopleText(const QString& message);

} // namespace portolan::views
