#pragma once

#include "core/port/plan.h"

#include <QAbstractItemModel>
#include <QStringList>
#include <memory>
#include <vector>

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::views {

// The port plan (core/port/plan.h) as a tree: one group per part of the training (model, loss,
// optimizers, schedulers, data, loop, evaluation, flags, device moves, leftovers, manual items),
// each item with its place in the original. Items whose choice the core plan lets the user make
// (PortOptions: the entry, the model variable and class, the loss expression) are editable in the
// choice column; an edit emits choiceEdited and the owner plans again.
class PortPlanModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        ItemColumn,
        ChoiceColumn,
        LocationColumn,
        ColumnCount
    };
    enum Role
    {
        FileRole = Qt::UserRole + 1, // QString, relative to the project root ("" when none)
        LineRole,                    // int, 1-based
        ColumnRole,                  // int, 1-based
        OptionRole,                  // int (Option): which choice the item sets
        CandidatesRole,              // QStringList: the values offered for the choice
        KindRole,                    // QString: "model", "loss", "optimizer", ... (group id)
    };
    // The PortOptions field an item edits.
    enum Option
    {
        NoOption,
        EntryOption,
        ModelVariableOption,
        LossOption
    };
    Q_ENUM(Option)

    explicit PortPlanModel(QObject* parent = nullptr);
    ~PortPlanModel() override;

    // `analysis` (optional) gives the flags' files and the candidates offered for each choice.
    // `manual` (optional) is what the port for the dialog's target leaves by hand: a target may
    // generate an item the plan alone could not place (a plateau decay on PopTorch), so the
    // group shows the port's items, as the Manual items tab and the status do; without a port,
    // the plan's.
    void setPlan(const port::PortPlan& plan, const analysis::ProjectAnalysis* analysis = nullptr,
                 const std::vector<guides::Finding>* manual = nullptr);
    void clear();
    // The group row of a kind ("model", "loss", ...), an invalid index when the plan has none.
    QModelIndex groupIndex(const QString& kind) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    // The user changed a choice (the plan is not changed here: the owner plans again with it).
    void choiceEdited(portolan::views::PortPlanModel::Option option, const QString& value);

private:
    struct Node
    {
        QString label;
        QString choice;
        QString tooltip;
        QString kind;
        QString file;
        int line = 0;
        int column = 0;
        Option option = NoOption;
        QStringList candidates;
        Node* parent = nullptr;
        std::vector<std::unique_ptr<Node>> children;
        int row = 0;
        Node* add(std::unique_ptr<Node> child);
    };
    Node* nodeOf(const QModelIndex& index) const;
    void build(const port::PortPlan& plan, const analysis::ProjectAnalysis* analysis,
               const std::vector<guides::Finding>& manual);
    // build() by group, in the order the groups are shown.
    void buildEntryAndModel(const port::PortPlan& plan, const analysis::ProjectAnalysis* analysis);
    void buildLossAndOptimizers(const port::PortPlan& plan);
    void buildDataAndLoop(const port::PortPlan& plan);
    void buildFlagsAndLeftovers(const port::PortPlan& plan,
                                const analysis::ProjectAnalysis* analysis,
                                const std::vector<guides::Finding>& manual);
    Node* addGroup(const QString& kind, const QString& label);
    static Node* addItem(Node* parent, const QString& label, const QString& choice,
                         const port::CodeRef& at, const QString& tooltip = {});

    std::unique_ptr<Node> m_root;
};

} // namespace portolan::views
