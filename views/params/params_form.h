#pragma once

// The form view of a params file: one page per top-level section (plus "General" for top-level
// single values), widgets chosen by the schema, nested groups for mappings, list editors, and a
// learning-rate schedule editor. Keys the schema does not know stay editable as raw YAML.

#include "views/params/params_field.h"

#include <QMap>
#include <QTabWidget>
#include <QWidget>

namespace portolan::params {
class ParamsDocument;
struct Schema;
struct SchemaNode;
} // namespace portolan::params

class QFormLayout;

namespace portolan::views {

class ParamsField;
class TabRows;

class ParamsForm : public QWidget
{
    Q_OBJECT

public:
    explicit ParamsForm(QWidget* parent = nullptr);

    // Rebuilds every page from the document; keeps the current page when it still exists.
    void rebuild(const params::ParamsDocument& doc, const params::Schema* schema);
    // path -> reason; fields with a reason are marked, the others cleared.
    void setProblems(const QMap<QString, FieldProblem>& problems);

    QTabWidget* tabs() const { return m_tabs; }
    QStringList pageTitles() const;
    ParamsField* field(const QString& path) const { return m_fields.value(path, nullptr); }
    QWidget* editorFor(const QString& path) const; // any widget bound to a path
    int fieldCount() const { return int(m_fields.size()); }
    // Shows the page holding `path` and focuses its widget (an alias's link goes to its anchor).
    bool reveal(const QString& path);

signals:
    void edited(const QString& path, const QString& value, int hint);
    void appendRequested(const QString& listPath, const QString& value, int hint);
    void removeRequested(const QString& path);
    void revealed(const QString& path);

private:
    void addEntry(QFormLayout* form, const params::ParamsDocument& doc,
                  const params::Schema* schema, int node, const QString& key, const QString& path,
                  int depth);
    QWidget* buildValue(const params::ParamsDocument& doc, const params::Schema* schema, int node,
                        const QString& path, int depth);
    QWidget* buildMapping(const params::ParamsDocument& doc, const params::Schema* schema, int node,
                          const QString& path, int depth);
    QWidget* buildList(const params::ParamsDocument& doc, const params::Schema* schema, int node,
                       const QString& path, int depth);
    void bind(QWidget* w);

    QTabWidget* m_tabs = nullptr;
    TabRows* m_rows = nullptr;
    QMap<QString, ParamsField*> m_fields;
    QMap<QString, QWidget*> m_others;
};

} // namespace portolan::views
