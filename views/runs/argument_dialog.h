#pragma once
// Asks for the command-line arguments a project's entry point requires and has no default for
// (a dry run's `dryrun.required-argument` failure lists them, with argparse's help, type and
// choices). The answers become `--flag value` words for the entry.
#include <QDialog>
#include <QJsonArray>
#include <QList>
#include <QStringList>

class QFormLayout;
class QWidget;

namespace portolan::views {

class ArgumentDialog : public QDialog
{
    Q_OBJECT

public:
    // `arguments`: the failed event's "arguments" array ({flag, dest, help, type, choices,
    // positional}).
    ArgumentDialog(const QString& entry, const QJsonArray& arguments, QWidget* parent = nullptr);

    // The words to add after `--`, in the order of the arguments (empty answers are left out).
    QStringList words() const;
    // For tests: set the answer of the i-th argument.
    void setAnswer(int index, const QString& value);

private:
    struct Field
    {
        QString flag;
        bool positional = false;
        QWidget* editor = nullptr;
    };
    QList<Field> m_fields;
};

} // namespace portolan::views
