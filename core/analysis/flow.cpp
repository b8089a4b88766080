// The information-flow graph: config -> sections -> keys -> reading functions -> framework entry
// -> model, data, optimizer. Built from the index only (nothing is executed).
#include "core/analysis/flow.h"

#include "core/analysis/analysis.h"
#include "core/analysis/config_reads.h"
#include "core/analysis/facts.h"
#include "core/analysis/model_config.h"

#include <map>
#include <set>
#include <sstream>

namespace portolan::analysis {

std::string_view flowNodeKindName(FlowNodeKind k)
{
    switch (k) {
    case FlowNodeKind::ConfigFile:
        return "config-file";
    case FlowNodeKind::Section:
        return "section";
    case FlowNodeKind::Key:
        return "key";
    case FlowNodeKind::Function:
        return "function";
    case FlowNodeKind::FrameworkEntry:
        return "framework-entry";
    case FlowNodeKind::Model:
        return "model";
    case FlowNodeKind::Data:
        return "data";
    case FlowNodeKind::Optimizer:
        return "optimizer";
    }
    return "function";
}

const FlowNode* FlowGraph::find(std::string_view id) const
{
    for (const auto& n : nodes)
        if (n.id == id)
            return &n;
    return nullptr;
}

namespace {

class Builder
{
public:
    explicit Builder(const ProjectAnalysis& a) : m_a(a) {}

    FlowGraph build()
    {
        configNodes();
        argparseNodes();
        entries();
        trainerNodes();
        callerEdges();
        return std::move(m_g);
    }

private:
    std::string node(FlowNodeKind kind, const std::string& key, const std::string& label,
                     SourceLocation loc)
    {
        const std::string k = std::string(flowNodeKindName(kind)) + "|" + key;
        if (auto it = m_ids.find(k); it != m_ids.end())
            return it->second;
        std::string id = "n" + std::to_string(m_g.nodes.size());
        m_g.nodes.push_back({id, kind, label, std::move(loc)});
        m_ids[k] = id;
        return id;
    }
    void edge(const std::string& from, const std::string& to, const std::string& label = {})
    {
        if (from == to || !m_edges.insert(from + ">" + to).second)
            return;
        m_g.edges.push_back({from, to, label});
    }

    std::string functionNode(const PythonFile& f, python::FunctionId id)
    {
        const python::FunctionDef* fn = f.index.function(id);
        if (!fn)
            return node(FlowNodeKind::Function, f.path + ":<module>", f.path + " (module level)",
                        {f.path, 1, 1});
        m_functions.insert({&f, id});
        return node(FlowNodeKind::Function, f.path + ":" + fn->qualifiedName,
                    fn->qualifiedName + "()", {f.path, fn->span.line, fn->span.column});
    }

    void configNodes()
    {
        for (const auto& r : configReads(m_a)) {
            if (!r.verified)
                continue; // not provably the params file: drawing it there would mislead
            const ConfigFile* cfg =
                r.target == ConfigTarget::Params ? m_a.paramsConfig() : m_a.mainExperimentConfig();
            const std::string fn = functionNode(*r.file, r.function);
            std::string cfgPath = cfg ? cfg->path : std::string("(no config file)");
            const std::string fileId =
                node(FlowNodeKind::ConfigFile, cfgPath, cfgPath, {cfgPath, 1, 1});
            const std::string section = r.path.substr(0, r.path.find('.'));
            const ConfigKey* sk = cfg ? cfg->find(section) : nullptr;
            std::string secKey = cfgPath;
            secKey += ':';
            secKey += section;
            const std::string secId = node(FlowNodeKind::Section, secKey, section + ":",
                                           {cfgPath, sk ? sk->line : 0, sk ? sk->column : 0});
            edge(fileId, secId);
            std::string from = secId;
            if (r.path.size() > section.size()) {
                const ConfigKey* k = cfg ? cfg->find(r.path) : nullptr;
                // A key missing from the config still gets a node, at the read.
                SourceLocation loc = k ? SourceLocation{cfgPath, k->line, k->column}
                                       : SourceLocation{r.file->path, r.span.line, r.span.column};
                from = node(FlowNodeKind::Key, cfgPath + ":" + r.path,
                            r.path.substr(section.size() + 1) + (k ? "" : " (missing)"), loc);
                edge(secId, from);
            }
            edge(from, fn);
        }
    }

    // Unported scripts: the command line is their config. A flag's uses are those of the
    // namespace parse_args() returned, whatever its name (`opt.lr`, `args.lr`, a parameter that
    // receives it; facts' cliUses): a script naming it `opt` drew its parser alone, with no edge.
    void argparseNodes()
    {
        std::map<int, std::string> parsers; // file index -> its "command line" node
        for (std::size_t i = 0; i < m_a.python.size(); ++i) {
            const PythonFile& f = m_a.python[i];
            const python::Call* parser = nullptr;
            for (const auto& c : f.index.calls)
                if (c.resolved == "argparse.ArgumentParser")
                    parser = &c;
            if (parser)
                parsers[int(i)] = node(FlowNodeKind::ConfigFile, f.path + ":argparse",
                                       "command line (" + f.path + ")",
                                       {f.path, parser->nameSpan.line, parser->nameSpan.column});
        }
        if (parsers.empty())
            return;
        for (const auto& u : m_a.facts().cliUses) {
            if (u.file < 0 || std::size_t(u.file) >= m_a.python.size())
                continue;
            // The parser of the use's own file, else the project's only one (a function in
            // another module handed the namespace).
            const auto own = parsers.find(u.file);
            if (own == parsers.end() && parsers.size() != 1)
                continue;
            const std::string& fileId =
                own != parsers.end() ? own->second : parsers.begin()->second;
            const PythonFile& f = m_a.python[std::size_t(u.file)];
            const std::string key = node(FlowNodeKind::Key, f.path + ":args." + u.dest,
                                         "--" + u.dest, {f.path, u.span.line, u.span.column});
            edge(fileId, key);
            edge(key, functionNode(f, u.function));
        }
    }

    void addTarget(FlowNodeKind kind, const std::string& entry, const PythonFile& f,
                   const std::string& name, const python::Span& at, const std::string& label)
    {
        SourceLocation loc{f.path, at.line, at.column};
        // Point model nodes at the class definition when the project has it.
        for (const auto& pf : m_a.python)
            if (const auto* cls = pf.index.findClass(name)) {
                loc = {pf.path, cls->span.line, cls->span.column};
                break;
            }
        const std::string id = node(kind, name + "@" + loc.toString(), name, loc);
        edge(entry, id, label);
    }

    void entries()
    {
        for (const auto& f : m_a.python) {
            for (const auto& c : f.index.calls) {
                const std::string& res = c.resolved;
                const bool zooRun = (c.callee == "run" || res.ends_with(".run")) &&
                                    c.keyword("model_fn") && c.keyword("train_data_fn");
                const bool estimator = res.ends_with("CerebrasEstimator") && c.keyword("model_fn");
                const bool popTraining = res == "poptorch.trainingModel";
                const bool popInference = res == "poptorch.inferenceModel";
                if (!zooRun && !estimator && !popTraining && !popInference)
                    continue;
                const std::string entry =
                    node(FlowNodeKind::FrameworkEntry, f.path + ":" + std::to_string(c.span.line),
                         c.callee + "(...)", {f.path, c.nameSpan.line, c.nameSpan.column});
                m_entries.push_back({entry, &f, c.function});
                for (const auto& arg : c.arguments) {
                    if (arg.keyword == "model_fn" ||
                        (arg.keyword.empty() && (popTraining || popInference) &&
                         &arg == &c.arguments.front()))
                        addTarget(FlowNodeKind::Model, entry, f, arg.text, arg.valueSpan, "model");
                    else if (arg.keyword == "train_data_fn" || arg.keyword == "eval_data_fn")
                        addTarget(FlowNodeKind::Data, entry, f, arg.text, arg.valueSpan,
                                  arg.keyword);
                    else if (arg.keyword == "optimizer")
                        addTarget(FlowNodeKind::Optimizer, entry, f, arg.text, arg.valueSpan,
                                  "optimizer");
                    m_passed[arg.text] = entry;
                }
                if (zooRun) {
                    // The Model Zoo runner builds the optimizer from the optimizer: section.
                    if (const ConfigFile* cfg = m_a.paramsConfig())
                        if (const ConfigKey* k = cfg->find("optimizer")) {
                            const std::string id = node(FlowNodeKind::Optimizer, "zoo-optimizer",
                                                        "optimizer (built by the runner)",
                                                        {cfg->path, k->line, k->column});
                            edge(entry, id, "optimizer");
                        }
                }
            }
            // Determined: the Trial class is the entry.
            for (const auto& cls : f.index.classes) {
                bool trial = false;
                for (const auto& b : cls.bases)
                    trial = trial || b.ends_with("PyTorchTrial");
                if (!trial)
                    continue;
                const std::string entry =
                    node(FlowNodeKind::FrameworkEntry, f.path + ":" + cls.name,
                         "class " + cls.name + "(PyTorchTrial)",
                         {f.path, cls.span.line, cls.span.column});
                for (std::size_t i = 0; i < f.index.functions.size(); ++i)
                    if (f.index.functions[i].className == cls.name)
                        edge(functionNode(f, static_cast<int>(i)), entry);
                for (const auto& c : f.index.calls) {
                    const std::string last = c.callee.substr(c.callee.rfind('.') + 1);
                    const python::FunctionDef* fn = f.index.function(c.function);
                    if (!fn || fn->className != cls.name)
                        continue;
                    const std::string arg = c.arguments.empty() ? "" : c.arguments.front().text;
                    const std::string shortArg = arg.substr(0, arg.find('('));
                    if (last == "wrap_model")
                        addTarget(FlowNodeKind::Model, entry, f, shortArg, c.nameSpan,
                                  "wrap_model");
                    else if (last == "wrap_optimizer")
                        addTarget(FlowNodeKind::Optimizer, entry, f, shortArg, c.nameSpan,
                                  "wrap_optimizer");
                    else if (fn->name == "build_training_data_loader" ||
                             fn->name == "build_validation_data_loader")
                        if (c.resolved.ends_with("DataLoader"))
                            addTarget(FlowNodeKind::Data, entry, f, fn->name, c.nameSpan, fn->name);
                }
            }
        }
    }

    // The Model Zoo Trainer (R2.3 on) reads its YAML itself: trainer.init.model's keys become
    // fields of the model's config class, which builds the model; trainer.init.optimizer and
    // trainer.fit's dataloaders go to the Trainer too.
    // Only the params file the project uses, as the other config nodes: a folder of Model Zoo
    // configs drew every one of its 178 Trainer files (5,258 nodes, minutes of Graphviz layout).
    void trainerNodes()
    {
        const ConfigFile* chosen = m_a.paramsConfig();
        for (const auto& cfg : m_a.configs) {
            if (cfg.kind != ConfigKind::TrainerParams || (chosen && &cfg != chosen))
                continue;
            const ConfigKey* trainer = cfg.find("trainer");
            const std::string fileId =
                node(FlowNodeKind::ConfigFile, cfg.path, cfg.path, {cfg.path, 1, 1});
            const std::string entry = node(
                FlowNodeKind::FrameworkEntry, cfg.path + ":trainer", "Trainer (trainer.init / fit)",
                {cfg.path, trainer ? trainer->line : 1, trainer ? trainer->column : 1});
            const ConfigKey* model = cfg.find("trainer.init.model");
            const ConfigKey* name = cfg.find("trainer.init.model.name");
            if (model) {
                const std::string secId =
                    node(FlowNodeKind::Section, cfg.path + ":trainer.init.model",
                         "trainer.init.model:", {cfg.path, model->line, model->column});
                edge(fileId, secId);
                const ModelConfigClasses configs =
                    name ? modelConfigClasses(m_a, name->value) : ModelConfigClasses{};
                const auto [mf, mc] = modelClassFor(m_a, configs);
                std::string modelId;
                if (mf >= 0) {
                    const auto& pf = m_a.python[static_cast<std::size_t>(mf)];
                    const auto& cls = pf.index.classes[static_cast<std::size_t>(mc)];
                    modelId = node(FlowNodeKind::Model, cls.name + "@" + pf.path, cls.name,
                                   {pf.path, cls.span.line, cls.span.column});
                    edge(entry, modelId, "model");
                }
                for (const ConfigKey* k : cfg.children("trainer.init.model")) {
                    const std::string key = k->path.substr(k->path.rfind('.') + 1);
                    const std::string keyId = node(FlowNodeKind::Key, cfg.path + ":" + k->path, key,
                                                   {cfg.path, k->line, k->column});
                    edge(secId, keyId);
                    const ConfigField* field = configs.field(key);
                    if (!field) {
                        edge(keyId, entry);
                        continue;
                    }
                    const auto& ff = m_a.python[static_cast<std::size_t>(field->file)];
                    const std::string fieldId =
                        node(FlowNodeKind::Function, ff.path + ":" + field->className + "." + key,
                             field->className + "." + key,
                             {ff.path, field->span.line, field->span.column});
                    edge(keyId, fieldId);
                    edge(fieldId, modelId.empty() ? entry : modelId);
                }
                edge(secId, entry);
            }
            if (const ConfigKey* opt = cfg.find("trainer.init.optimizer")) {
                const std::string id =
                    node(FlowNodeKind::Optimizer, cfg.path + ":optimizer",
                         "optimizer (built by the Trainer)", {cfg.path, opt->line, opt->column});
                edge(entry, id, "optimizer");
            }
            for (const char* loader :
                 {"trainer.fit.train_dataloader", "trainer.fit.val_dataloader"})
                if (const ConfigKey* k = cfg.find(loader)) {
                    const std::string label = std::string(loader).substr(12);
                    const std::string id = node(FlowNodeKind::Data, cfg.path + ":" + loader, label,
                                                {cfg.path, k->line, k->column});
                    edge(entry, id, label);
                }
        }
    }

    // Functions that read config but are not passed to the entry themselves are linked to their
    // callers, up to two levels, so that the path to the entry stays visible.
    void callerEdges()
    {
        for (int round = 0; round < 2; ++round) {
            const auto functions = m_functions;
            for (const auto& [file, id] : functions) {
                const python::FunctionDef* fn = file->index.function(id);
                if (!fn)
                    continue;
                const std::string me = functionNode(*file, id);
                const std::string target = fn->className.empty() ? fn->name : fn->className;
                if (auto it = m_passed.find(target); it != m_passed.end()) {
                    edge(me, it->second);
                    continue;
                }
                for (const auto& e : m_entries)
                    if (e.file == file && e.function == id)
                        edge(me, e.id);
                for (const auto& pf : m_a.python)
                    for (const auto& c : pf.index.calls) {
                        const std::string last = c.callee.substr(c.callee.rfind('.') + 1);
                        if (last == fn->name && c.function != id && !fn->name.starts_with("__"))
                            edge(me, functionNode(pf, c.function), "called by");
                    }
            }
        }
    }

    struct Entry
    {
        std::string id;
        const PythonFile* file;
        python::FunctionId function;
    };

    const ProjectAnalysis& m_a;
    FlowGraph m_g;
    std::map<std::string, std::string> m_ids;
    std::set<std::string> m_edges;
    std::set<std::pair<const PythonFile*, python::FunctionId>> m_functions;
    std::map<std::string, std::string> m_passed; // argument text -> entry node
    std::vector<Entry> m_entries;
};

std::string escape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

} // namespace

FlowGraph buildFlowGraph(const ProjectAnalysis& analysis)
{
    return Builder(analysis).build();
}

std::string toDot(const FlowGraph& g, const std::string& title)
{
    std::ostringstream out;
    out << "digraph flow {\n"
        << "  graph [rankdir=LR, fontname=\"Helvetica\", label=\"" << escape(title)
        << "\", labelloc=t];\n"
        << "  node [fontname=\"Helvetica\", fontsize=10];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
    for (const auto& n : g.nodes) {
        const char* shape = "box";
        const char* fill = "#ffffff";
        switch (n.kind) {
        case FlowNodeKind::ConfigFile:
            shape = "note";
            fill = "#fff4d6";
            break;
        case FlowNodeKind::Section:
            shape = "folder";
            fill = "#fff4d6";
            break;
        case FlowNodeKind::Key:
            shape = "ellipse";
            fill = "#fffbe8";
            break;
        case FlowNodeKind::Function:
            shape = "box";
            fill = "#e8f0ff";
            break;
        case FlowNodeKind::FrameworkEntry:
            shape = "doubleoctagon";
            fill = "#ffe0e0";
            break;
        case FlowNodeKind::Model:
            shape = "component";
            fill = "#e4f7e4";
            break;
        case FlowNodeKind::Data:
            shape = "cylinder";
            fill = "#e4f7e4";
            break;
        case FlowNodeKind::Optimizer:
            shape = "hexagon";
            fill = "#e4f7e4";
            break;
        }
        const std::string where = n.location.toString();
        out << "  " << n.id << " [label=\"" << escape(n.label) << "\\n"
            << escape(where) << "\", shape=" << shape << ", style=filled, fillcolor=\"" << fill
            << "\", URL=\"" << escape(where) << "\", tooltip=\""
            << escape(std::string(flowNodeKindName(n.kind)) + " " + where) << "\"];\n";
    }
    for (const auto& e : g.edges) {
        out << "  " << e.from << " -> " << e.to;
        if (!e.label.empty())
            out << " [label=\"" << escape(e.label) << "\"]";
        out << ";\n";
    }
    out << "}\n";
    return out.str();
}

} // namespace portolan::analysis
