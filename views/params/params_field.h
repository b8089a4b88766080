#pragma once

// One value of a params file as a form widget chosen by its schema type: a spin box with the
// schema's range, a scientific-notation editor for learning rates, a check box, a combo box for
// enums, a path with a browse button, or a raw YAML line for values the schema does not know.

#include <QString>
#include <QWidget>

class QLabel;

namespace portolan::params {
struct SchemaNode;
}

namespace portolan::views {

// How the edited text is meant (params::ValueHint as an int, for signals).
enum class FieldHint
{
    Auto = 0,
    String = 1,
    Raw = 2
};

// Why a value is flagged, from the schema validation: an error (the run would fail) or a
// warning (deprecated, suspicious).
struct FieldProblem
{
    QString message; // empty: no problem
    bool isError = true;
};

struct FieldSpec
{
    QString path;  // key path of the value (`optimizer.learning_rate`)
    QString value; // current value as text
    bool isNull = false;
    const params::SchemaNode* schema = nullptr; // nullptr: a key the schema does not know
};

class ParamsField : public QWidget
{
    Q_OBJECT

public:
    explicit ParamsField(const FieldSpec& spec, QWidget* parent = nullptr);

    QString path() const { return m_path; }
    QWidget* editor() const { return m_editor; }
    // "int", "float", "scientific", "bool", "enum", "path", "string", "raw", "text" (multi-line)
    QString kind() const { return m_kind; }
    // Shows why the current value is flagged, as an error or warning icon after the editor with
    // the reason as its tooltip (an empty message clears it).
    void setProblem(const FieldProblem& problem);
    QString problem() const { return m_problem; }

signals:
    void edited(const QString& path, const QString& value, int hint);

private:
    void buildInt(const FieldSpec& spec);
    void buildFloat(const FieldSpec& spec, bool scientific);
    void buildBool(const FieldSpec& spec);
    void buildEnum(const FieldSpec& spec);
    void buildLine(const FieldSpec& spec, FieldHint hint, bool browse);
    void buildText(const FieldSpec& spec, FieldHint hint);
    void emitEdited(const QString& value, FieldHint hint);

    QString m_path;
    QString m_kind;
    QString m_original;
    QString m_tooltip;
    QString m_problem;
    QWidget* m_editor = nullptr;
    QLabel* m_problemIcon = nullptr; // created on the first problem, after the editor
};

} // namespace portolan::views
