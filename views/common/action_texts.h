#pragma once
// Words of actions that several tabs offer. One action has one name everywhere: the Porting
// tab's "verify this step" button and the Profile's "no model" button both lead to the Runs
// tab's dry run (MainWindow wires both signals to the same slot), so they read the same.

#include <QCoreApplication>
#include <QString>

namespace portolan::views {

inline QString dryRunActionText()
{
    return QCoreApplication::translate("portolan::views", "Dry-Run the Project in the Runs Tab");
}

inline QString dryRunActionToolTip()
{
    return QCoreApplication::translate(
        "portolan::views", "Opens the Runs tab on a dry run of the project's own code: a few "
                           "steps on the CPU, which also capture its model for the Profile");
}

} // namespace portolan::views
