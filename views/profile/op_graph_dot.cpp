#include "views/profile/op_graph_dot.h"

#include "views/profile/plot_theme.h"

#include <QHash>
#include <QSet>
#include <QStringList>

namespace portolan::views {

namespace {

QString modulePrefix(const std::string& path, int depth)
{
    if (depth <= 0)
        return {};
    const QStringList parts =
        QString::fromStdString(path).split(QLatin1Char('.'), Qt::SkipEmptyParts);
    return parts.mid(0, depth).join(QLatin1Char('.'));
}

QString quoted(QString s)
{
    s.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    s.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + s + QLatin1Char('"');
}

OpGraphDot build(const sim::CompileResult& r, int depth, bool byPlacement, const QPalette& p)
{
    OpGraphDot out;
    out.depthUsed = depth;
    const auto& ops = r.graph.ops;
    QHash<QString, int> groupIndex;
    QStringList labels;
    std::vector<int> groupStage, groupCount;
    out.groupOfOp.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        QString key;
        if (depth > 0) {
            key = modulePrefix(ops[i].modulePath, depth);
            if (key.isEmpty())
                key = QString::fromStdString(ops[i].name);
        } else {
            key = QString::fromStdString(ops[i].name);
        }
        // Groups never straddle stages, so a group keeps one colour.
        const int stage = i < r.opStage.size() ? r.opStage[i] : 0;
        key += QStringLiteral("@%1").arg(stage);
        auto it = groupIndex.find(key);
        if (it == groupIndex.end()) {
            it = groupIndex.insert(key, int(labels.size()));
            labels << (depth > 0 && !modulePrefix(ops[i].modulePath, depth).isEmpty()
                           ? modulePrefix(ops[i].modulePath, depth)
                           : QString::fromStdString(ops[i].name) + QStringLiteral("\\n") +
                                 QString::fromStdString(ops[i].kind));
            groupStage.push_back(stage);
            groupCount.push_back(0);
        }
        out.groupOfOp[i] = *it;
        ++groupCount[std::size_t(*it)];
    }
    int stages = 1;
    for (int s : groupStage)
        stages = std::max(stages, s + 1);
    const QColor text = p.color(QPalette::WindowText);
    QByteArray dot = "digraph ops {\n  rankdir=TB;\n  bgcolor=\"transparent\";\n";
    // Node text is black in light and dark palettes alike: it sits on the stage colour's fill.
    dot += "  node [shape=box, style=\"rounded,filled\", fontname=\"sans\", fontsize=10, "
           "fontcolor=\"black\"];\n";
    dot += "  edge [color=\"" + text.name().toLatin1() + "\"];\n";
    for (int g = 0; g < int(labels.size()); ++g) {
        const QColor c = seriesColor(groupStage[std::size_t(g)], stages, p)
                             .lighter(isDarkPalette(p) ? 100 : 150);
        QString label = labels[g];
        if (groupCount[std::size_t(g)] > 1)
            label += QStringLiteral("\\n%1 ops").arg(groupCount[std::size_t(g)]);
        label += (byPlacement ? (r.targetKind == "cs" ? QStringLiteral("\\nkernel %1")
                                                      : QStringLiteral("\\nIPU %1"))
                              : QStringLiteral("\\nstage %1"))
                     .arg(groupStage[std::size_t(g)]);
        dot += QStringLiteral("  n%1 [label=%2, fillcolor=\"%3\"];\n")
                   .arg(g)
                   .arg(quoted(label).replace(QStringLiteral("\\\\n"), QStringLiteral("\\n")),
                        c.name())
                   .toUtf8();
    }
    QSet<qint64> edges;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        std::vector<int> inputs = ops[i].inputOps;
        if (inputs.empty() && i > 0)
            inputs.push_back(int(i) - 1);
        for (int from : inputs) {
            if (from < 0 || from >= int(ops.size()))
                continue;
            const int a = out.groupOfOp[std::size_t(from)], b = out.groupOfOp[i];
            if (a == b || edges.contains(qint64(a) << 32 | b))
                continue;
            edges.insert(qint64(a) << 32 | b);
            dot += QStringLiteral("  n%1 -> n%2;\n").arg(a).arg(b).toUtf8();
        }
    }
    dot += "}\n";
    out.dot = dot;
    out.nodes = int(labels.size());
    return out;
}

} // namespace

OpGraphDot opGraphDot(const sim::CompileResult& r, const OpGraphDotOptions& o, const QPalette& p)
{
    int depth = std::max(0, o.moduleDepth);
    OpGraphDot out = build(r, depth, o.byPlacement, p);
    if (out.nodes <= o.maxNodes)
        return out;
    // Too many nodes to read (and Graphviz takes seconds beyond a few hundred): collapse to
    // shallower module prefixes, keeping the deepest one that fits; a 48-block GPT shows one
    // node per block.
    if (depth == 0) {
        for (const auto& op : r.graph.ops)
            depth = std::max(depth,
                             int(std::count(op.modulePath.begin(), op.modulePath.end(), '.')) + 1);
        ++depth; // the loop below starts at the deepest prefix
    }
    while (out.nodes > o.maxNodes && depth > 1) {
        --depth;
        out = build(r, depth, o.byPlacement, p);
    }
    return out;
}

} // namespace portolan::views
