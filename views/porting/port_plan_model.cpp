#include "views/porting/port_plan_model.h"

#include "core/analysis/analysis.h"

#include <QFont>
#include <algorithm>

namespace portolan::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// One line of source for the choice column: long expressions are cut, the tooltip has them whole.
QString oneLine(const std::string& text)
{
    QString s = qs(text).simplified();
    if (s.size() > 90)
        s = s.left(87) + QStringLiteral("…");
    return s;
}

} // namespace

PortPlanModel::Node* PortPlanModel::Node::add(std::unique_ptr<Node> child)
{
    child->parent = this;
    child->row = int(children.size());
    children.push_back(std::move(child));
    return children.back().get();
}

PortPlanModel::PortPlanModel(QObject* parent)
    : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{}

PortPlanModel::~PortPlanModel() = default;

void PortPlanModel::clear()
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    endResetModel();
}

void PortPlanModel::setPlan(const port::PortPlan& plan, const analysis::ProjectAnalysis* analysis,
                            const std::vector<guides::Finding>* manual)
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    build(plan, analysis, manual ? *manual : plan.manual);
    endResetModel();
}

PortPlanModel::Node* PortPlanModel::addGroup(const QString& kind, const QString& label)
{
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->label = label;
    return m_root->add(std::move(n));
}

PortPlanModel::Node* PortPlanModel::addItem(Node* parent, const QString& label,
                                            const QString& choice, const port::CodeRef& at,
                                            const QString& tooltip)
{
    auto n = std::make_unique<Node>();
    n->kind = parent->kind;
    n->label = label;
    n->choice = choice;
    n->tooltip = tooltip.isEmpty() ? qs(at.text) : tooltip;
    n->file = qs(at.file);
    n->line = at.line;
    n->column = at.column > 0 ? at.column : 1;
    return parent->add(std::move(n));
}

void PortPlanModel::build(const port::PortPlan& plan, const analysis::ProjectAnalysis* analysis,
                          const std::vector<guides::Finding>& manual)
{
    buildEntryAndModel(plan, analysis);
    buildLossAndOptimizers(plan);
    buildDataAndLoop(plan);
    buildFlagsAndLeftovers(plan, analysis, manual);
    // A group's choice column counts its items, so a collapsed tree still reads as a summary.
    for (const auto& g : m_root->children)
        g->choice = g->children.empty() ? tr("none") : QString::number(g->children.size());
}

void PortPlanModel::buildEntryAndModel(const port::PortPlan& plan,
                                       const analysis::ProjectAnalysis* analysis)
{
    // Candidates offered for the choices: the project's Python files (the entry) and its classes
    // that derive from a Module (the model class); any other value can still be typed.
    QStringList files;
    QStringList modules;
    if (analysis) {
        for (const auto& f : analysis->python) {
            files << qs(f.path);
            for (const auto& c : f.index.classes)
                if (std::any_of(c.bases.begin(), c.bases.end(), [](const std::string& b) {
                        return b.find("Module") != std::string::npos;
                    }))
                    modules << qs(c.name);
        }
        modules.removeDuplicates();
    }

    Node* entry = addGroup(QStringLiteral("entry"), tr("Training script"));
    port::CodeRef entryRef;
    entryRef.file = plan.entry;
    entryRef.line = 1;
    Node* e = addItem(entry, tr("entry"), qs(plan.entry), entryRef,
                      tr("The script whose loop is ported"));
    e->option = EntryOption;
    e->candidates = files;

    Node* model = addGroup(QStringLiteral("model"), tr("Model"));
    Node* mv = addItem(model, tr("variable"), qs(plan.modelVariable), plan.modelStatement);
    mv->option = ModelVariableOption;
    mv->candidates = QStringList{qs(plan.modelVariable)};
    // The other variables of the training script that hold a module (`d = Discriminator(...)`):
    // choosing one ports that model, with its own construction.
    if (analysis)
        for (const auto& f : analysis->python) {
            if (f.path != plan.entry)
                continue;
            for (const auto& a : f.index.assignments) {
                const QString value = qs(a.value);
                const QString callee = value.left(value.indexOf(QLatin1Char('(')))
                                           .section(QLatin1Char('.'), -1)
                                           .trimmed();
                if (!a.augmented && value.contains(QLatin1Char('(')) && modules.contains(callee) &&
                    !a.target.empty() && a.target.find(',') == std::string::npos)
                    mv->candidates << qs(a.target);
            }
        }
    mv->candidates.removeDuplicates();
    // The class follows the variable's construction, which the port copies verbatim: a class
    // typed here would reach no file, so it is shown, not offered (choose the variable instead).
    addItem(model, plan.modelFromFactory ? tr("factory") : tr("class"), qs(plan.modelClass),
            plan.modelConstruction,
            tr("%1 (defined in %2). It follows the model variable's construction: choose the "
               "variable to port another model.")
                .arg(qs(plan.modelClass), qs(plan.modelClassFile)));
    if (plan.modelConstruction.valid())
        addItem(model, tr("construction"), oneLine(plan.modelConstruction.text),
                plan.modelConstruction);
    if (!plan.modelFlags.empty()) {
        QStringList flags;
        for (const auto& f : plan.modelFlags)
            flags << qs(f);
        addItem(model, tr("flags it reads"), flags.join(QStringLiteral(", ")), plan.modelStatement);
    }
}

void PortPlanModel::buildLossAndOptimizers(const port::PortPlan& plan)
{
    Node* loss = addGroup(QStringLiteral("loss"), tr("Loss"));
    if (plan.criterion.valid())
        // The variable with its construction, as the original reads ("criterion = nn.NLLLoss()").
        addItem(loss, tr("criterion"),
                plan.criterionVariable.empty()
                    ? oneLine(plan.criterion.text)
                    : qs(plan.criterionVariable) + QStringLiteral(" = ") +
                          oneLine(plan.criterion.text),
                plan.criterion);
    Node* le =
        addItem(loss, tr("expression"), oneLine(plan.lossExpression.text), plan.lossExpression);
    le->option = LossOption;
    le->candidates = QStringList{qs(plan.lossExpression.text)};
    for (const auto& h : plan.lossHelpers)
        addItem(loss, tr("helper"), qs(h), plan.lossExpression);

    Node* opts = addGroup(QStringLiteral("optimizer"), tr("Optimizers"));
    for (const auto& o : plan.optimizers) {
        QString what = qs(o.qualified);
        if (o.closure)
            what += tr(" · step(closure)");
        if (o.synthesized)
            what = tr("hand-written SGD update (lr %1)").arg(qs(o.learningRate));
        addItem(opts, qs(o.variable), what, o.construction);
    }
    Node* scheds = addGroup(QStringLiteral("scheduler"), tr("Schedulers"));
    for (const auto& s : plan.schedulers)
        addItem(scheds, qs(s.variable),
                qs(s.qualified) + (s.perBatch ? tr(" · per batch") : tr(" · per epoch")),
                s.construction);
}

void PortPlanModel::buildDataAndLoop(const port::PortPlan& plan)
{
    Node* data = addGroup(QStringLiteral("data"), tr("Data"));
    auto dataItem = [&](const QString& label, const port::DataPlan& d) {
        if (d.variable.empty())
            return;
        QString what = d.isDataLoader ? tr("DataLoader") : tr("iterable");
        if (!d.batchSize.empty())
            what += tr(" · batch_size %1").arg(qs(d.batchSize));
        Node* n = addItem(data, tr("%1: %2").arg(label, qs(d.variable)), what, d.construction);
        if (d.dataset.valid())
            addItem(n, tr("dataset"), oneLine(d.dataset.text), d.dataset);
    };
    dataItem(tr("train"), plan.train);
    dataItem(tr("evaluation"), plan.eval);

    Node* loop = addGroup(QStringLiteral("loop"), tr("Training loop"));
    if (plan.loop) {
        const auto& l = *plan.loop;
        addItem(loop, tr("batch loop"), tr("for %1 in %2").arg(qs(l.batchTarget), qs(l.iterable)),
                l.loop);
        if (l.epochLoop.valid())
            addItem(loop, tr("epoch loop"), oneLine(l.epochLoop.text), l.epochLoop);
        if (l.backward.valid())
            addItem(loop, tr("backward"),
                    l.backwardCount > 1
                        ? tr("%1 (%2 calls)").arg(oneLine(l.backward.text)).arg(l.backwardCount)
                        : oneLine(l.backward.text),
                    l.backward);
        for (const auto& s : l.steps)
            addItem(loop, tr("optimizer step"), oneLine(s.text), s);
        for (const auto& s : l.modeSwitches)
            addItem(loop, tr("mode switch"), oneLine(s.text), s);
    }
    if (plan.evaluation) {
        const auto& ev = *plan.evaluation;
        QStringList metrics;
        for (const auto& m : ev.metrics)
            metrics << qs(m);
        addItem(loop, tr("evaluation loop"),
                metrics.isEmpty() ? tr("for %1 in %2").arg(qs(ev.batchTarget), qs(ev.iterable))
                                  : tr("metrics: %1").arg(metrics.join(QStringLiteral(", "))),
                ev.loop);
    }
}

void PortPlanModel::buildFlagsAndLeftovers(const port::PortPlan& plan,
                                           const analysis::ProjectAnalysis* analysis,
                                           const std::vector<guides::Finding>& manual)
{
    Node* flags = addGroup(QStringLiteral("flags"), tr("Flags"));
    for (const auto& f : plan.flags) {
        port::CodeRef at;
        if (analysis && f.file >= 0 && std::size_t(f.file) < analysis->python.size()) {
            at.file = analysis->python[std::size_t(f.file)].path;
            at.line = f.span.line;
            at.column = f.span.column;
        }
        addItem(flags, qs(f.dest),
                f.defaultText.empty() ? tr("(no default)")
                                      : tr("default %1").arg(qs(f.defaultText)),
                at, qs(f.help));
    }

    Node* moves = addGroup(QStringLiteral("device-move"), tr("Device moves dropped"));
    for (const auto& m : plan.deviceMoves)
        addItem(moves, qs(m.name), oneLine(m.at.text), m.at, qs(m.note));
    Node* left = addGroup(QStringLiteral("leftover"), tr("Left over"));
    for (const auto& m : plan.leftovers)
        addItem(left, qs(m.name.empty() ? m.kind : m.name), qs(m.note.empty() ? m.at.text : m.note),
                m.at);
    Node* manualGroup = addGroup(QStringLiteral("manual"), tr("Manual items"));
    for (const auto& f : manual) {
        port::CodeRef at;
        at.file = f.location.file;
        at.line = f.location.line;
        at.column = f.location.column;
        addItem(manualGroup, tr("port.manual"), qs(f.message), at, qs(f.hint));
    }
}

QModelIndex PortPlanModel::groupIndex(const QString& kind) const
{
    for (const auto& g : m_root->children)
        if (g->kind == kind)
            return createIndex(g->row, 0, g.get());
    return {};
}

PortPlanModel::Node* PortPlanModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex PortPlanModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0 ||
        (parent.isValid() && parent.column() != 0))
        return {};
    const Node* p = nodeOf(parent);
    if (std::size_t(row) >= p->children.size())
        return {};
    return createIndex(row, column, p->children[std::size_t(row)].get());
}

QModelIndex PortPlanModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Node* p = nodeOf(child)->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row, 0, const_cast<Node*>(p));
}

int PortPlanModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int PortPlanModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant PortPlanModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Node* n = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        if (index.column() == ItemColumn)
            return n->label;
        if (index.column() == ChoiceColumn)
            return n->choice;
        if (n->file.isEmpty())
            return QString();
        return n->line > 0 ? QStringLiteral("%1:%2").arg(n->file).arg(n->line) : n->file;
    case Qt::ToolTipRole:
        if (n->option != NoOption && index.column() == ChoiceColumn)
            return tr("%1\n\nDouble-click to choose another.").arg(n->tooltip);
        return n->tooltip.isEmpty() ? QVariant() : QVariant(n->tooltip);
    case Qt::FontRole:
        if (!n->parent || n->parent == m_root.get()) {
            QFont f;
            f.setBold(true);
            return f;
        }
        // The choices the user can change are underlined, like links: they invite a double-click.
        if (n->option != NoOption && index.column() == ChoiceColumn) {
            QFont f;
            f.setUnderline(true);
            return f;
        }
        return {};
    case FileRole:
        return n->file;
    case LineRole:
        return n->line;
    case ColumnRole:
        return n->column;
    case OptionRole:
        return int(n->option);
    case CandidatesRole:
        return n->candidates;
    case KindRole:
        return n->kind;
    default:
        return {};
    }
}

bool PortPlanModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole || index.column() != ChoiceColumn)
        return false;
    Node* n = nodeOf(index);
    if (n->option == NoOption)
        return false;
    const QString v = value.toString().trimmed();
    if (v.isEmpty() || v == n->choice)
        return false;
    n->choice = v;
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    emit choiceEdited(n->option, v);
    return true;
}

Qt::ItemFlags PortPlanModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == ChoiceColumn && nodeOf(index)->option != NoOption)
        f |= Qt::ItemIsEditable;
    if (nodeOf(index)->children.empty())
        f |= Qt::ItemNeverHasChildren;
    return f;
}

QVariant PortPlanModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ItemColumn:
        return tr("Part");
    case ChoiceColumn:
        return tr("Choice");
    case LocationColumn:
        return tr("In the original");
    default:
        return {};
    }
}

} // namespace portolan::views
