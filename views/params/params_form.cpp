#include "views/params/params_form.h"

#include "core/params/params_document.h"
#include "core/params/validate.h"
#include "views/common/form_scroll_area.h"
#include "views/common/tab_rows.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/params/list_field.h"
#include "views/params/lr_schedule_editor.h"
#include "views/params/params_field.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QScopeGuard>
#include <QScrollArea>
#include <QVBoxLayout>

namespace portolan::views {

using params::NodeKind;

namespace {
constexpr int kMaxDepth = 12;

// A key's label goes above its field when both do not fit side by side (Model Zoo keys such as
// max_position_embeddings are half a narrow pane), so the form fits the pane's minimum.
void narrowForm(QFormLayout* form)
{
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
}

QString childPath(const QString& parent, const QString& key)
{
    return parent.isEmpty()
               ? QString::fromStdString(params::escapeKey(key.toStdString()))
               : parent + "." + QString::fromStdString(params::escapeKey(key.toStdString()));
}

// A classic Model Zoo schedule list: every item a mapping with a `scheduler` key.
bool isSchedulerList(const params::YamlTree& tree, int node)
{
    const params::YamlNode& n = tree.at(node);
    if (n.kind != NodeKind::Sequence || n.children.empty())
        return false;
    for (int item : n.children) {
        const int m = tree.deref(item);
        if (m < 0 || tree.at(m).kind != NodeKind::Mapping || tree.child(m, "scheduler") < 0)
            return false;
    }
    return true;
}

QString scalarText(const params::YamlTree& tree, int node, const char* key)
{
    const int c = tree.child(node, key);
    return c >= 0 && tree.at(c).isScalarLike() ? QString::fromStdString(tree.at(c).value)
                                               : QString();
}
} // namespace

ParamsForm::ParamsForm(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    // Sections as rows of buttons: a Model Zoo config's ten sections in a tab bar hid the last
    // ones behind scroll arrows.
    m_rows = new TabRows(m_tabs, 4, this);
    layout->addWidget(m_rows);
    layout->addWidget(m_tabs);
}

QStringList ParamsForm::pageTitles() const
{
    QStringList out;
    for (int i = 0; i < m_tabs->count(); ++i)
        out << m_tabs->tabText(i);
    return out;
}

QWidget* ParamsForm::editorFor(const QString& path) const
{
    if (auto* f = field(path))
        return f->editor();
    return m_others.value(path, nullptr);
}

void ParamsForm::rebuild(const params::ParamsDocument& doc, const params::Schema* schema)
{
    const QString currentPage =
        m_tabs->currentIndex() >= 0 ? m_tabs->tabText(m_tabs->currentIndex()) : QString();
    m_fields.clear();
    m_others.clear();
    const auto buttons = qScopeGuard([this] { m_rows->rebuild(); }); // on every way out
    while (m_tabs->count() > 0) {
        QWidget* page = m_tabs->widget(0);
        m_tabs->removeTab(0);
        page->hide();
        page->deleteLater(); // a widget of this page may be the sender of the current edit
    }
    if (!doc.isParsed()) {
        auto* label = new QLabel(tr("The YAML does not parse: %1\nFix it in the text view.")
                                     .arg(QString::fromStdString(doc.syntaxError()->toString())));
        label->setWordWrap(true);
        m_tabs->addTab(label, tr("Syntax error"));
        return;
    }
    const params::YamlTree& tree = doc.tree();
    const int root = tree.deref(tree.root);
    if (root < 0 || tree.at(root).kind != NodeKind::Mapping) {
        m_tabs->addTab(new QLabel(tr("The file is not a mapping of sections.")), tr("File"));
        return;
    }
    const params::YamlNode& r = tree.at(root);
    QFormLayout* general = nullptr;
    QWidget* generalPage = nullptr;
    for (std::size_t i = 0; i < r.keys.size() && i < r.children.size(); ++i) {
        const QString key = QString::fromStdString(tree.at(r.keys[i]).value);
        const int value = tree.deref(r.children[i]);
        const QString path = childPath({}, key);
        if (value >= 0 && tree.at(value).kind == NodeKind::Mapping) {
            // Never narrower than its fields: a narrow pane scrolled the form sideways.
            auto* scroll = new FormScrollArea;
            scroll->setWidgetResizable(true);
            auto* body = new QWidget;
            // setLayout() rather than QFormLayout(body): the same ownership, which clang's
            // analyzer sees (it reports the layout as leaked when no entry is added).
            auto* form = new QFormLayout;
            narrowForm(form);
            body->setLayout(form);
            const params::YamlNode& section = tree.at(value);
            for (std::size_t k = 0; k < section.keys.size() && k < section.children.size(); ++k)
                addEntry(form, doc, schema, section.children[k],
                         QString::fromStdString(tree.at(section.keys[k]).value),
                         childPath(path, QString::fromStdString(tree.at(section.keys[k]).value)),
                         1);
            scroll->setWidget(body);
            const int tab = m_tabs->addTab(scroll, key);
            if (schema)
                if (const auto* s = params::schemaFor(*schema, tree, value))
                    m_tabs->setTabToolTip(tab, QString::fromStdString(s->describe()));
            continue;
        }
        if (!general) { // top-level single values and lists share one page
            generalPage = new QWidget;
            general = new QFormLayout(generalPage);
            narrowForm(general);
            m_tabs->insertTab(0, generalPage, tr("General"));
        }
        addEntry(general, doc, schema, r.children[i], key, path, 1);
    }
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->tabText(i) == currentPage)
            m_tabs->setCurrentIndex(i);
}

void ParamsForm::addEntry(QFormLayout* form, const params::ParamsDocument& doc,
                          const params::Schema* schema, int node, const QString& key,
                          const QString& path, int depth)
{
    const params::YamlTree& tree = doc.tree();
    const int parent = tree.at(node).parent;
    QWidget* w = nullptr;
    if (parent >= 0 && tree.at(parent).kind == NodeKind::Mapping &&
        tree.child(parent, key.toStdString()) != node) {
        // A duplicate key: YAML readers take the last one, so this entry is not the value the
        // path names; editing it through the path would change the other one.
        const int winner = tree.child(parent, key.toStdString());
        auto* note = new QLabel(tr("Ignored: the same key again at line %1 replaces it "
                                   "(edit this one in the text view)")
                                    .arg(winner >= 0 ? tree.at(winner).line : 0));
        note->setWordWrap(true);
        note->setStyleSheet(QStringLiteral("font-style: italic;"));
        w = note;
    } else {
        w = buildValue(doc, schema, node, path, depth);
    }
    auto* label = new QLabel(key);
    const params::SchemaNode* s = schema ? params::schemaFor(*schema, doc.tree(), node) : nullptr;
    label->setToolTip(s ? QString::fromStdString(s->describe())
                        : tr("Not described by the schema"));
    if (!s)
        label->setStyleSheet(QStringLiteral("font-style: italic;"));
    form->addRow(label, w);
}

QWidget* ParamsForm::buildValue(const params::ParamsDocument& doc, const params::Schema* schema,
                                int node, const QString& path, int depth)
{
    const params::YamlTree& tree = doc.tree();
    const params::YamlNode& raw = tree.at(node);
    const int target = tree.deref(node);
    if (raw.kind == NodeKind::Alias || target < 0 || depth > kMaxDepth) {
        // An alias is edited where its anchor is (every alias of it changes with it): the link
        // goes there.
        QString anchorPath;
        if (target >= 0)
            anchorPath =
                QString::fromStdString(params::formatKeyPath(params::pathOf(tree, target)));
        // Wrapped, and the names with break points: an anchor named like a Graphcore
        // configuration ("SWIN_LARGE_224_22K_FINETUNE_1K_FP16_POD128") on one line made the
        // form 867 pixels wide, and the window 1,121 at 1024.
        const QString alias = breakableName(QString::fromStdString(raw.aliasOf)).toHtmlEscaped();
        auto* label =
            new QLabel(anchorPath.isEmpty()
                           ? tr("*%1").arg(alias)
                           : tr("*%1, the same as <a href=\"%2\">%3</a> (line %4): edit it there")
                                 .arg(alias, anchorPath.toHtmlEscaped(),
                                      breakableName(anchorPath).toHtmlEscaped())
                                 .arg(tree.at(target).line));
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
        label->setToolTip(tr("An alias: its value is written at its anchor, and editing it "
                             "there changes every alias of that anchor"));
        connect(label, &QLabel::linkActivated, this, &ParamsForm::reveal);
        m_others.insert(path, label);
        return label;
    }
    const params::YamlNode& n = tree.at(target);
    if (n.kind == NodeKind::Mapping)
        return buildMapping(doc, schema, target, path, depth);
    if (n.kind == NodeKind::Sequence)
        return buildList(doc, schema, target, path, depth);
    FieldSpec spec;
    spec.path = path;
    spec.value = QString::fromStdString(n.value);
    spec.isNull = n.kind == NodeKind::Null;
    spec.schema = schema ? params::schemaFor(*schema, tree, target) : nullptr;
    auto* f = new ParamsField(spec);
    m_fields.insert(path, f);
    bind(f);
    return f;
}

QWidget* ParamsForm::buildMapping(const params::ParamsDocument& doc, const params::Schema* schema,
                                  int node, const QString& path, int depth)
{
    const params::YamlTree& tree = doc.tree();
    const params::YamlNode& n = tree.at(node);
    auto* group = new QGroupBox;
    group->setObjectName(path);
    auto* form = new QFormLayout; // setLayout(): see rebuild()
    narrowForm(form);
    group->setLayout(form);
    for (std::size_t k = 0; k < n.keys.size() && k < n.children.size(); ++k) {
        const QString key = QString::fromStdString(tree.at(n.keys[k]).value);
        addEntry(form, doc, schema, n.children[k], key, childPath(path, key), depth + 1);
    }
    m_others.insert(path, group);
    return group;
}

QWidget* ParamsForm::buildList(const params::ParamsDocument& doc, const params::Schema* schema,
                               int node, const QString& path, int depth)
{
    const params::YamlTree& tree = doc.tree();
    const params::YamlNode& n = tree.at(node);
    if (isSchedulerList(tree, node)) {
        std::vector<LrPhase> phases;
        for (int item : n.children) {
            const int m = tree.deref(item);
            LrPhase p;
            p.scheduler = scalarText(tree, m, "scheduler");
            p.rateKey =
                tree.child(m, "initial_learning_rate") >= 0 || tree.child(m, "learning_rate") < 0
                    ? QStringLiteral("initial_learning_rate")
                    : QStringLiteral("learning_rate");
            p.initial = scalarText(tree, m, p.rateKey.toUtf8().constData());
            p.end = scalarText(tree, m, "end_learning_rate");
            p.stepsKey = tree.child(m, "steps") >= 0 && tree.child(m, "total_iters") < 0
                             ? QStringLiteral("steps")
                             : QStringLiteral("total_iters");
            p.steps = scalarText(tree, m, p.stepsKey.toUtf8().constData());
            phases.push_back(p);
        }
        QStringList names;
        const params::SchemaNode* s =
            schema ? params::schemaFor(*schema, tree,
                                       tree.child(tree.deref(n.children[0]), "scheduler"))
                   : nullptr;
        if (s)
            for (const auto& v : s->target().values)
                names << QString::fromStdString(v);
        auto* editor = new LrScheduleEditor(path, std::move(phases), names);
        connect(editor, &LrScheduleEditor::edited, this, &ParamsForm::edited);
        connect(editor, &LrScheduleEditor::appendRequested, this, &ParamsForm::appendRequested);
        connect(editor, &LrScheduleEditor::removeRequested, this, &ParamsForm::removeRequested);
        m_others.insert(path, editor);
        return editor;
    }
    const bool allScalars = std::all_of(n.children.begin(), n.children.end(),
                                        [&](int c) { return tree.at(c).isScalarLike(); });
    if (allScalars) {
        QStringList items;
        for (int c : n.children)
            items << QString::fromStdString(tree.at(c).value);
        auto* list = new ListField(path, items);
        connect(list, &ListField::edited, this, &ParamsForm::edited);
        connect(list, &ListField::appendRequested, this, &ParamsForm::appendRequested);
        connect(list, &ListField::removeRequested, this, &ParamsForm::removeRequested);
        m_others.insert(path, list);
        return list;
    }
    // A list of mappings or lists: one nested group per item.
    auto* group = new QGroupBox;
    group->setObjectName(path);
    auto* form = new QFormLayout; // setLayout(): see rebuild()
    narrowForm(form);
    group->setLayout(form);
    for (std::size_t i = 0; i < n.children.size(); ++i)
        addEntry(form, doc, schema, n.children[i], QStringLiteral("[%1]").arg(i),
                 path + QStringLiteral("[%1]").arg(i), depth + 1);
    m_others.insert(path, group);
    return group;
}

bool ParamsForm::reveal(const QString& path)
{
    // The value itself, or the nearest enclosing group that has a widget.
    QString p = path;
    QWidget* w = editorFor(p);
    while (!w && p.contains('.')) {
        p.truncate(p.lastIndexOf('.'));
        w = editorFor(p);
    }
    if (!w)
        return false;
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->isAncestorOf(w)) {
            m_tabs->setCurrentIndex(i);
            if (auto* scroll = qobject_cast<QScrollArea*>(m_tabs->widget(i)))
                scroll->ensureWidgetVisible(w);
            break;
        }
    }
    w->setFocus(Qt::OtherFocusReason);
    emit revealed(p);
    return true;
}

void ParamsForm::bind(QWidget* w)
{
    if (auto* f = qobject_cast<ParamsField*>(w))
        connect(f, &ParamsField::edited, this, &ParamsForm::edited);
}

void ParamsForm::setProblems(const QMap<QString, FieldProblem>& problems)
{
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        it.value()->setProblem(problems.value(it.key()));
}

} // namespace portolan::views
