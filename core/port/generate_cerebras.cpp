// Cerebras: the Model Zoo Trainer (R2.3 on, the default: a model that returns its loss, a typed
// ModelConfig, a data processor, registration and the trainer YAML) or the runner of the seeds
// (--api runner: a PyTorchBaseModel wrapper, data functions taking params, the classic
// params.yaml, run.py calling run(...)). The cstorch generation is written in the Trainer's
// model layout and reported partial (its own loop is not generated).
#include "core/port/cerebras_schedule.h"
#include "core/port/generate_internal.h"

#include <algorithm>
#include <filesystem>

namespace portolan::port::detail {

namespace {

std::string lastPart(const std::string& dotted)
{
    const auto dot = dotted.rfind('.');
    return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

std::string snake(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (std::isupper(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != '_')
                out += '_';
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        }
    }
    return out;
}

// The optimizer's class and its keyword values as YAML, from the construction's arguments.
struct OptimizerYaml
{
    std::string name;
    std::vector<std::pair<std::string, std::string>> values;
    std::vector<std::string> dropped;
};

OptimizerYaml optimizerYaml(const PortPlan& plan, const SourceFile& src,
                            const std::map<std::string, Hyper>& hp)
{
    OptimizerYaml y;
    if (plan.optimizers.empty())
        return y;
    const auto& o = plan.optimizers.front();
    y.name = lastPart(o.qualified);
    auto valueOf = [&](std::string text) -> std::string {
        while (!text.empty() && text.front() == ' ')
            text.erase(0, 1);
        const std::string prefix = plan.argsName + ".";
        if (!plan.argsName.empty() && text.starts_with(prefix)) {
            const auto it = hp.find(text.substr(prefix.size()));
            return it == hp.end() ? std::string() : it->second.value;
        }
        if (text.find_first_not_of("0123456789.-+eE") == std::string::npos && !text.empty()) {
            // YAML 1.1 reads 1e-3 and 1.0e5 as strings: give the mantissa a dot and the
            // exponent its sign.
            auto e = text.find_first_of("eE");
            if (e != std::string::npos && text.find('.') == std::string::npos) {
                text = text.substr(0, e) + ".0" + text.substr(e);
                e += 2;
            }
            if (e != std::string::npos && e + 1 < text.size() &&
                std::isdigit(static_cast<unsigned char>(text[e + 1])))
                text.insert(e + 1, "+");
            return text;
        }
        if (text.front() == '(' && text.back() == ')')
            return "[" + text.substr(1, text.size() - 2) + "]";
        return {};
    };
    if (o.synthesized) {
        const std::string v = valueOf(o.learningRate);
        if (!v.empty())
            y.values.emplace_back("lr", v);
        else
            y.dropped.push_back("lr=" + o.learningRate);
        return y;
    }
    const TSNode call = src.nodeAt(o.construction.start, o.construction.end);
    const TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
    if (ts_node_is_null(args))
        return y;
    int positional = 0;
    const uint32_t count = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; ++i) {
        const TSNode a = ts_node_named_child(args, i);
        std::string key, text;
        if (std::string_view(ts_node_type(a)) == "keyword_argument") {
            key = src.text(ts_node_child_by_field_name(a, "name", 4));
            text = src.text(ts_node_child_by_field_name(a, "value", 5));
        } else {
            if (positional++ == 0)
                continue; // the parameters
            key = positional == 2 ? "lr" : "";
            text = src.text(a);
        }
        const std::string v = key.empty() ? std::string() : valueOf(text);
        if (v.empty() || v == "null")
            y.dropped.push_back(src.text(a));
        else
            y.values.emplace_back(key, v);
    }
    // Cerebras' Adam and AdamW default eps to 1e-6; torch's to 1e-8. The port keeps torch's.
    // torch's AdamW decays by 0.01 unless told; Cerebras' by nothing.
    auto has = [&](const std::string& key) {
        return std::any_of(y.values.begin(), y.values.end(),
                           [&](const auto& kv) { return kv.first == key; });
    };
    if ((y.name == "Adam" || y.name == "AdamW") && !has("eps"))
        y.values.emplace_back("eps", "1.0e-8");
    if (y.name == "AdamW" && !has("weight_decay"))
        y.values.emplace_back("weight_decay", "1.0e-2");
    return y;
}

// The runner's params.yaml names (Model Zoo's PyTorchBaseModel._configure_optimizer reads
// weight_decay_rate, beta1/beta2, use_nesterov; its AdamW skips the bias correction unless
// correct_bias is set, which torch's AdamW always applies).
std::vector<std::pair<std::string, std::string>> runnerOptimizerKeys(const OptimizerYaml& opt)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : opt.values) {
        if (k == "lr")
            out.emplace_back("learning_rate", v);
        else if (k == "weight_decay")
            out.emplace_back("weight_decay_rate", v);
        else if (k == "nesterov")
            out.emplace_back("use_nesterov", v);
        else if (k == "betas" && v.front() == '[' && v.find(',') != std::string::npos) {
            auto trim = [](std::string t) {
                t.erase(0, t.find_first_not_of(' '));
                t.erase(t.find_last_not_of(' ') + 1);
                return t;
            };
            const auto comma = v.find(',');
            out.emplace_back("beta1", trim(v.substr(1, comma - 1)));
            out.emplace_back("beta2", trim(v.substr(comma + 1, v.size() - comma - 2)));
        } else
            out.emplace_back(k, v);
    }
    if (opt.name == "AdamW")
        out.emplace_back("correct_bias", "true");
    return out;
}

// Whether the original's optimizer decays its parameters (a literal weight decay that is not 0).
bool decays(const std::vector<std::pair<std::string, std::string>>& keys)
{
    for (const auto& [k, v] : keys)
        if (k == "weight_decay_rate")
            return v.find_first_not_of("0.eE+-") != std::string::npos;
    return false;
}

} // namespace

Result<PortResult> generateCerebras(const PortPlan& plan, const std::string& api,
                                    const std::map<std::string, std::string>& values)
{
    PortResult out;
    Slicer slicer(plan);
    if (!plan.loop) {
        Diagnostic d;
        d.code = "port.no-loop";
        d.message = "nothing to port: no training loop";
        return Result<PortResult>::fail(d);
    }
    const bool runner = api == "runner";
    // The runner's model and data code sit in the entry's folder (`neural_style/model.py`), so
    // the entry's imports of its sibling modules (`import utils`) resolve as they did for the
    // original; run.py and configs/ stay at the top (run.py puts that folder on the path). (The
    // Trainer's registry names its modules from the top: its files stay there.)
    std::string at =
        runner ? std::filesystem::path(plan.entry).parent_path().generic_string() : std::string();
    if (!at.empty())
        at += "/";
    const auto& lp = *plan.loop;
    const auto& src = slicer.source();
    auto hp = hyperparameters(plan, values);
    const auto opt = optimizerYaml(plan, src, hp);
    const auto runnerKeys = runnerOptimizerKeys(opt);
    std::string name = snake(plan.root.filename().string());
    if (name.empty())
        name = "ported_model";
    const std::string cls = "PortedModel";
    const std::string ind = "    ", ind2 = "        ";

    // Where each flag lives: the Trainer reads model fields from the config object; the runner
    // reads params[section][key] (the params-from-argparse fix's sections).
    auto section = [&](const std::string& dest) -> std::pair<std::string, std::string> {
        if (plan.paramsCerebras)
            if (const auto* e = plan.paramsCerebras->entry(dest))
                return {e->section, e->key};
        return {"model", dest};
    };
    std::set<std::string> modelFields, dataFields;
    RenderRules initRules;
    initRules.argsName = plan.argsName;
    initRules.deviceNames = plan.deviceNames;
    for (const auto& d : plan.deviceNames)
        initRules.rename[d] = "torch.device(\"cpu\")";
    RenderRules fwdRules = initRules;
    RenderRules dataRules = initRules;
    if (runner) {
        initRules.flag = [&](const std::string& dest) {
            const auto [s, k] = section(dest);
            return "params[\"" + s + "\"][\"" + k + "\"]";
        };
        fwdRules.flag = [&](const std::string& dest) {
            const auto [s, k] = section(dest);
            return "self.params[\"" + s + "\"][\"" + k + "\"]";
        };
        // A flag whose section params.yaml does not write (runconfig's num_epochs, read by a
        // loop of values) keeps the original's default, as the model's constructor reads it.
        dataRules.flag = [&](const std::string& dest) {
            const auto [s, k] = section(dest);
            const auto it = hp.find(dest);
            if (s != "runconfig" || it == hp.end())
                return "params[\"" + s + "\"][\"" + k + "\"]";
            const std::string& y = it->second.value;
            const std::string value = y == "null"    ? "None"
                                      : y == "true"  ? "True"
                                      : y == "false" ? "False"
                                                     : y;
            return "params.get(\"" + s + "\", {}).get(\"" + k + "\", " + value + ")";
        };
    } else {
        initRules.flag = [&](const std::string& dest) {
            modelFields.insert(dest);
            return "config." + dest;
        };
        fwdRules.flag = [&](const std::string& dest) {
            modelFields.insert(dest);
            return "self.config." + dest;
        };
        dataRules.flag = [&](const std::string& dest) {
            dataFields.insert(dest);
            return "self.config." + dest;
        };
    }

    StepCode sc = stepCode(plan, slicer, false);
    std::vector<const Stmt*> moduleStmts = sc.init.module;
    addUntraced(plan, sc, out);
    for (const auto& [k, v] : sc.rename)
        fwdRules.rename[k] = v;
    bindSelfAttributes(fwdRules, sc);

    // The model that returns its loss.
    std::string model;
    if (runner) {
        model += "class " + cls + "(PyTorchBaseModel):\n";
        model += ind + "def __init__(self, params, device=None):\n";
        model += ind2 + "self.params = params\n";
    } else {
        model += "class " + cls + "(torch.nn.Module):\n";
        model += ind + "def __init__(self, config: " + cls + "Config):\n";
        model += ind2 + "if isinstance(config, dict):\n" + ind2 + "    config = " + cls +
                 "Config(**config)\n";
        model += ind2 + "super().__init__()\n" + ind2 + "self.config = config\n";
    }
    // A class or function that takes the flags namespace whole (`ViT(args)`): the model hands
    // it the namespace rebuilt from the params (every flag under its own name), as the
    // original's argparse gave it.
    const std::string initText = renderLocal(slicer, sc.init.local, initRules, ind2);
    // Does rendered code read the flags namespace whole (not only `args.x`)?
    auto usesWhole = [&](const std::string& text) {
        const auto& a = plan.argsName;
        const auto isId = [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        };
        for (auto at = a.empty() ? std::string::npos : text.find(a); at != std::string::npos;
             at = text.find(a, at + 1)) {
            const std::size_t end = at + a.size();
            if (!(at > 0 && isId(text[at - 1])) &&
                !(end < text.size() && (isId(text[end]) || text[end] == '.')))
                return true;
        }
        return false;
    };
    // The namespace rebuilt from the params, every flag under its own name; a flag the params
    // file leaves out (a device or dry-run switch) keeps the original's default. `data`: read
    // in a data function (the runner's params, the Trainer's data processor config).
    auto namespaceBlock = [&](const std::string& indent, bool data) {
        std::string t = indent + plan.argsName + " = types.SimpleNamespace(\n";
        std::set<std::string> seen;
        for (const auto& f : plan.flags) {
            if (!seen.insert(f.dest).second)
                continue;
            const std::string y = hp.count(f.dest) ? hp[f.dest].value : "null";
            const std::string value = y == "null"    ? "None"
                                      : y == "true"  ? "True"
                                      : y == "false" ? "False"
                                                     : y;
            std::string read;
            if (runner) {
                const auto [s, k] = section(f.dest);
                read = "params.get(\"" + s + "\", {}).get(\"" + k + "\", " + value + ")";
            } else {
                (data ? dataFields : modelFields).insert(f.dest);
                read = (data ? "self.config." : "config.") + f.dest;
            }
            t += indent + "    " + f.dest + "=" + read + ",\n";
        }
        return t + indent + ")\n";
    };
    const bool namespaceUsed = usesWhole(initText);
    bool dataNamespace = false;
    if (namespaceUsed)
        model += namespaceBlock(ind2, false);
    model += initText;
    model +=
        ind2 + "self.model = " + (plan.modelBinding.empty() ? "None" : plan.modelBinding) + "\n";
    for (const auto& a : sc.attributes)
        model += ind2 + "self." + a + " = " + a + "\n";
    if (runner)
        model += ind2 + "super().__init__(params=params, model=self.model, device=device)\n";
    model += "\n";
    if (runner && decays(runnerKeys))
        // The runner leaves biases and normalization layers out of the weight decay; torch's
        // optimizers, given model.parameters(), decay them all.
        model += ind + "def trainable_named_parameters(self):\n" + ind2 +
                 "# Every parameter decays, as in the original (no layer left out).\n" + ind2 +
                 "return [], list(self.model.named_parameters())\n\n";
    const std::string method = runner ? "__call__" : "forward";
    model += ind + "def " + method + "(self, batch):\n";
    model += ind2 + lp.batchTarget + " = batch\n";
    const std::string loss = lossName(plan);
    model += renderLocal(slicer, sc.forward, fwdRules, ind2);
    if (!lp.lossName.empty() && loss != lp.lossName)
        model += ind2 + "loss = " + lp.lossName + "\n";
    model += ind2 + "return " + loss + "\n";
    if (!sc.between.empty())
        out.manual.push_back(manualFinding(
            "code between backward() and the optimizer step (" +
                src.text(sc.between.front()->start, sc.between.front()->end) +
                "): the Cerebras loop runs backward and the step itself",
            CodeRef{plan.entry, sc.between.front()->line, sc.between.front()->column, 0, 0, ""},
            runner ? "optimizer.max_gradient_norm in params.yaml"
                   : "trainer.init.precision.max_gradient_norm in params.yaml"));
    if (plan.optimizers.size() > 1)
        out.manual.push_back(manualFinding("a second optimizer (" + plan.optimizers[1].variable +
                                               "): the Cerebras loop trains one optimizer",
                                           plan.optimizers[1].construction,
                                           "train the other model separately"));
    for (const auto& o : plan.optimizers)
        if (o.closure)
            out.manual.push_back(manualFinding("optimizer step with a closure (" + o.qualified +
                                                   "): the Cerebras loop runs none",
                                               o.construction));
    // The Cerebras schedulers count steps and name values (StepLR(optimizer,
    // initial_learning_rate, step_size, gamma), resources/contracts/cerebras-cstorch.yaml): a
    // torch scheduler stepped once per epoch is converted when the steps of an epoch are known.
    std::string rate;
    for (const auto& [k, v] : opt.values)
        if (k == "lr")
            rate = v;
    const CerebrasSchedule schedule = cerebrasSchedule(plan, src, hp, rate);
    out.manual.insert(out.manual.end(), schedule.manual.begin(), schedule.manual.end());
    out.notes.insert(out.notes.end(), schedule.notes.begin(), schedule.notes.end());

    // The data.
    bool usesLoopValues = false;
    std::vector<const Stmt*> dataStmts;
    auto dataFunction = [&](const DataPlan& data, const DataPlan& fallback, bool train,
                            const std::string& indent) {
        std::string t;
        DataCode dc = dataCode(plan, slicer, data, dataRules, indent);
        if (!dc.ok && !train)
            dc = dataCode(plan, slicer, fallback, dataRules, indent);
        // A loop that builds its own batches (no DataLoader): the loader gives one value of
        // the loop per step, and the model's step builds the batch from it as the loop's body
        // did (the same draws in the same order).
        bool values = false;
        if (!dc.ok && !plan.train.isDataLoader && (train || !plan.eval.isDataLoader)) {
            dc = loopValuesCode(plan, slicer, dataRules, indent);
            values = dc.ok;
            if (values && !train) {
                // The original has no validation data: ten of its training steps stand in.
                dc.dataset.insert(dc.dataset.size() - 1, ", limit=10");
            }
            usesLoopValues = usesLoopValues || values;
        }
        if (!dc.ok) {
            if (train && !plan.train.isDataLoader && !lp.batchTarget.empty())
                out.manual.push_back(nonLoaderManual(plan));
            t += todo(indent, "build the DataLoader: the original's batches come from `" +
                                  lp.iterable + "`");
            t += indent + "raise NotImplementedError(\"TODO(portolan): the data\")\n";
            return t;
        }
        moduleStmts.insert(moduleStmts.end(), dc.module.begin(), dc.module.end());
        dataStmts.insert(dataStmts.end(), dc.module.begin(), dc.module.end());
        // A data helper handed the flags namespace whole (`get_data(opts)`) gets it rebuilt
        // from the params, as the model's constructor does.
        if (usesWhole(dc.statements) || usesWhole(dc.dataset)) {
            t += namespaceBlock(indent, true);
            dataNamespace = true;
        }
        t += dc.statements;
        t += indent + "return torch.utils.data.DataLoader(\n" + indent + "    " + dc.dataset +
             ",\n" + indent + "    batch_size=" +
             (values   ? std::string("1")
              : runner ? std::string("params[\"") + (train ? "train_input" : "eval_input") +
                             "\"][\"batch_size\"]"
                       : std::string("self.config.batch_size"));
        for (const auto& [k, v] : dc.keywords)
            if (k != "drop_last")
                t += ",\n" + indent + "    " + k + "=" + v;
        t += ",\n" + indent + "    drop_last=True)\n";
        return t;
    };
    std::string data;
    if (runner) {
        data += "def get_train_dataloader(params):\n" +
                dataFunction(plan.train, plan.train, true, ind) + "\n\n";
        data +=
            "def get_eval_dataloader(params):\n" + dataFunction(plan.eval, plan.train, false, ind);
    } else {
        const std::string trainBody = dataFunction(plan.train, plan.train, true, ind2);
        const std::string evalBody = dataFunction(plan.eval, plan.train, false, ind2);
        auto processor = [&](const std::string& n, const std::string& body) {
            std::string t = "class " + n + "Config(DataConfig):\n";
            t += ind + "data_processor: Literal[\"" + n + "\"]\n\n";
            t += ind + "batch_size: int = ...\n";
            for (const auto& d : dataFields)
                if (hp.count(d))
                    t += ind + d + ": " + hp[d].type + " = " +
                         (hp[d].value == "null"    ? "None"
                          : hp[d].value == "true"  ? "True"
                          : hp[d].value == "false" ? "False"
                                                   : hp[d].value) +
                         "\n";
            t += "\n\nclass " + n + ":\n";
            t += ind + "def __init__(self, config: " + n + "Config):\n";
            t += ind2 + "if isinstance(config, dict):\n" + ind2 + "    config = " + n +
                 "Config(**config)\n";
            t += ind2 + "self.config = config\n\n";
            t += ind + "def create_dataloader(self):\n" + body;
            return t;
        };
        data += processor("PortedDataProcessor", trainBody) + "\n\n" +
                processor("PortedEvalDataProcessor", evalBody);
    }

    std::sort(moduleStmts.begin(), moduleStmts.end(),
              [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
    moduleStmts.erase(std::unique(moduleStmts.begin(), moduleStmts.end()), moduleStmts.end());
    RenderRules moduleRules;
    moduleRules.deviceNames = plan.deviceNames;
    std::string module = slicer.moduleText(moduleStmts, moduleRules);
    const std::string futures = splitFutures(module);
    // data.py runs only what its data code needs: a module-level statement that draws random
    // numbers (a target drawn once) must run once, in model.py, as the original ran it once.
    std::sort(dataStmts.begin(), dataStmts.end(),
              [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
    dataStmts.erase(std::unique(dataStmts.begin(), dataStmts.end()), dataStmts.end());
    std::string dataModule = slicer.moduleText(dataStmts, moduleRules);
    splitFutures(dataModule);
    if (namespaceUsed || dataNamespace) {
        module = "import types\n" + module;
        dataModule = "import types\n" + dataModule;
    }
    // A definition whose every reading of the name is of its own parameter (`def f(args)`,
    // `def loss_function(self, *args)`) does not read the flags.
    for (const Stmt* s : moduleStmts)
        if (!plan.argsName.empty() && s->uses.count(plan.argsName) &&
            !takesNamespace(src, *s, plan.argsName))
            out.manual.push_back(manualFinding(
                (s->name.empty() ? std::string("a module-level statement") : s->name) +
                    " reads the command-line flags at module level",
                CodeRef{plan.entry, s->line, s->column, 0, 0, ""},
                "pass the values it needs as parameters"));

    // model.py
    std::string modelPy =
        "\"\"\"Cerebras " + std::string(runner ? "Model Zoo runner" : "Model Zoo Trainer") +
        " model generated by Portolan from " + plan.entry + ".\n\nThe network is the original's; " +
        cls + " computes the loss and returns it.\n\"\"\"\n" + futures;
    std::string config;
    if (runner) {
        modelPy += "import torch\n" + module +
                   "\nfrom modelzoo.common.pytorch.PyTorchBaseModel import PyTorchBaseModel\n\n\n" +
                   model;
    } else {
        config += "class " + cls + "Config(ModelConfig):\n";
        config += ind + "name: Literal[\"" + name + "\"]\n    \"\"\"Name of the model.\"\"\"\n";
        for (const auto& d : modelFields) {
            if (!hp.count(d))
                continue;
            const auto& h = hp[d];
            const std::string v = h.value == "null"    ? "None"
                                  : h.value == "true"  ? "True"
                                  : h.value == "false" ? "False"
                                                       : h.value;
            config += "\n" + ind + d + ": " + h.type + " = " + v + "\n";
            if (!h.comment.empty())
                config += ind + "\"\"\"" + h.comment + "\"\"\"\n";
        }
        modelPy +=
            "from typing import Any, Literal, Optional\n\nimport torch\n" + module +
            "\nfrom cerebras.modelzoo.config import ModelConfig\n"
            "from cerebras.modelzoo.registry import registry\n\n\n" +
            config + "\n\n" + model + "\n\nregistry.register_model(name=\"" + name +
            "\", path=\"model." + cls +
            "\",\n                        data_processor_paths=(\"data.PortedDataProcessor\", "
            "\"data.PortedEvalDataProcessor\"))\n";
    }
    out.files.push_back(GeneratedFile{at + "model.py", plan.entry, modelPy});

    // data.py
    std::string dataPy = "\"\"\"The data of the port, generated by Portolan from " + plan.entry +
                         ".\"\"\"\n" + futures;
    const std::string itertools = usesLoopValues ? "import itertools\n\n" : "";
    const std::string helpers = usesLoopValues ? loopValuesHelpers() : "";
    dataPy += runner ? itertools + "import torch\n" + dataModule + helpers + "\n\n" + data + "\n"
                     : itertools + "from typing import Any, Literal, Optional\n\nimport torch\n" +
                           dataModule + "\nfrom cerebras.modelzoo.config import DataConfig\n" +
                           helpers + "\n\n" + data + "\n";
    out.files.push_back(GeneratedFile{at + "data.py", plan.entry, dataPy});

    // params.yaml
    for (const auto& d : opt.dropped)
        out.notes.push_back("optimizer argument `" + d +
                            "` is not a literal: set it in params.yaml");
    std::string bs = "32";
    {
        const std::string b = plan.train.batchSize;
        const std::string prefix = plan.argsName + ".";
        if (!plan.argsName.empty() && b.starts_with(prefix) && hp.count(b.substr(prefix.size())))
            bs = hp[b.substr(prefix.size())].value;
        else if (!b.empty() && b.find_first_not_of("0123456789") == std::string::npos)
            bs = b;
    }
    std::string yaml = "# Generated by Portolan from " + plan.entry + ".\n";
    if (runner) {
        std::map<std::string, std::vector<std::string>> sections;
        for (const auto& f : plan.flags) {
            const auto [s, k] = section(f.dest);
            if (hp.count(f.dest) && !(s == "train_input" && k == "batch_size"))
                sections[s].push_back(k + ": " + hp[f.dest].value);
        }
        yaml += "train_input:\n  batch_size: " + bs + "\n";
        for (const auto& l : sections["train_input"])
            yaml += "  " + l + "\n";
        yaml += "eval_input:\n  batch_size: " + bs + "\n";
        for (const auto& l : sections["eval_input"])
            if (!l.starts_with("batch_size:"))
                yaml += "  " + l + "\n";
        yaml += "model:\n  name: \"" + name + "\"\n";
        for (const auto& l : sections["model"])
            yaml += "  " + l + "\n";
        yaml += "optimizer:\n  optimizer_type: \"" + (opt.name.empty() ? "SGD" : opt.name) + "\"\n";
        for (const auto& [k, v] : runnerKeys)
            yaml += "  " + k + ":" +
                    (k == "learning_rate" && !schedule.runnerLearningRate.empty()
                         ? "\n" + schedule.runnerLearningRate
                         : " " + v + "\n");
        // A flag the optimizer's call already gave its key is not written twice.
        for (const auto& l : sections["optimizer"]) {
            const std::string key = l.substr(0, l.find(':'));
            const bool written = key == "learning_rate" ||
                                 std::any_of(runnerKeys.begin(), runnerKeys.end(),
                                             [&](const auto& kv) { return kv.first == key; }) ||
                                 std::any_of(opt.values.begin(), opt.values.end(),
                                             [&](const auto& kv) { return kv.first == key; });
            if (!written)
                yaml += "  " + l + "\n";
        }
        // The original's seed flag is the run's seed (the runner seeds before building the
        // model, as the original did with its flag).
        std::string seed = "1";
        for (const auto& l : sections["runconfig"])
            if (l.starts_with("seed: "))
                seed = l.substr(6);
        yaml += "runconfig:\n  max_steps: 100\n  log_steps: 10\n  checkpoint_steps: 100\n"
                "  seed: " +
                seed + "\n  model_dir: \"./model_dir\"\n";
    } else {
        yaml += "trainer:\n  init:\n    backend:\n      backend_type: CPU\n"
                "    model_dir: ./model_dir\n    seed: 1\n    model:\n      name: " +
                name + "\n";
        for (const auto& d : modelFields)
            if (hp.count(d))
                yaml += "      " + d + ": " + hp[d].value + "\n";
        yaml += "    optimizer:\n      " + (opt.name.empty() ? "SGD" : opt.name) + ":\n";
        if (opt.values.empty())
            yaml += "        lr: 0.01\n";
        for (const auto& [k, v] : opt.values)
            yaml += "        " + k + ": " + v + "\n";
        yaml += schedule.trainerYaml;
        yaml += "    loop:\n      max_steps: 100\n      eval_frequency: 100\n"
                "    checkpoint:\n      steps: 100\n    logging:\n      log_steps: 10\n";
        yaml += "  fit:\n    train_dataloader:\n      data_processor: PortedDataProcessor\n"
                "      batch_size: " +
                bs + "\n";
        for (const auto& d : dataFields)
            if (hp.count(d))
                yaml += "      " + d + ": " + hp[d].value + "\n";
        yaml += "    val_dataloader:\n      data_processor: PortedEvalDataProcessor\n"
                "      batch_size: " +
                bs + "\n";
        for (const auto& d : dataFields)
            if (hp.count(d))
                yaml += "      " + d + ": " + hp[d].value + "\n";
    }
    out.files.push_back(GeneratedFile{"configs/params.yaml", "", yaml});

    // run.py
    std::string run;
    if (runner)
        run = "\"\"\"python run.py CPU --mode train --params configs/params.yaml\"\"\"\n" +
              (at.empty() ? std::string()
                          : "import os\nimport sys\n\n# The model and data code sit in " + at +
                                " next to the modules they import.\nsys.path.insert(0, "
                                "os.path.join(os.path.dirname(os.path.abspath(__file__)), \"" +
                                at.substr(0, at.size() - 1) + "\"))\n\n") +
              "from modelzoo.common.pytorch.run_utils import run\n\n"
              "from data import get_eval_dataloader, get_train_dataloader\nfrom model import " +
              cls + "\n\n\ndef main():\n    run(" + cls +
              ", get_train_dataloader, get_eval_dataloader)\n\n\nif __name__ == \"__main__\":\n"
              "    main()\n";
    else
        run = "\"\"\"python run.py CPU --params configs/params.yaml --mode train, or `cszoo fit "
              "configs/params.yaml`.\"\"\"\n\nif __name__ == \"__main__\":\n"
              "    import model  # noqa: F401 - registers the model\n"
              "    from cerebras.modelzoo.common.run_utils import run\n\n    run()\n";
    out.files.push_back(GeneratedFile{"run.py", "", run});
    if (api == "cstorch")
        out.manual.push_back(manualFinding(
            "the cstorch generation (R1.9-2.2) is written in the Trainer's model layout: its own "
            "training loop (cstorch.compile, cstorch.trace) is not generated",
            CodeRef{plan.entry, lp.loop.line, lp.loop.column, 0, 0, ""},
            "use --api trainer, or write the cstorch loop"));
    copyOtherFiles(plan, out, {at + "model.py", at + "data.py", "run.py"});
    // An original model.py / data.py (not the entry) stays verbatim, and the generated code is
    // appended to it: its own definitions come first, so imports of them keep working.
    for (auto& g : out.files) {
        const auto* original = plan.source(g.path);
        if (!original || g.path == plan.entry || g.from != plan.entry ||
            (g.path != at + "model.py" && g.path != at + "data.py"))
            continue;
        std::string gen = g.text;
        std::string kept;
        std::size_t at = 0;
        while (at < gen.size()) {
            auto e = gen.find('\n', at);
            if (e == std::string::npos)
                e = gen.size();
            const std::string line = gen.substr(at, e - at);
            if (!line.starts_with("from __future__"))
                kept += line + "\n";
            at = e + 1;
        }
        g.text = original->text() + "\n\n# " + std::string(70, '-') +
                 "\n# Generated by Portolan below: the original " + g.path +
                 " above is unchanged.\n" + kept;
        g.from = g.path + " + " + plan.entry;
    }
    for (const auto& [path, s] : plan.sources)
        if (path == "run.py" && path != plan.entry) {
            out.manual.push_back(manualFinding(
                "the original's run.py collides with the generated run.py; it is kept as "
                "original_run.py",
                CodeRef{path, 1, 0, 0, 0, ""}));
            out.files.push_back(GeneratedFile{"original_run.py", path, s->text()});
        }
    out.entry = runner ? "run.py" : "configs/params.yaml";
    return Result<PortResult>::ok(std::move(out));
}

} // namespace portolan::port::detail
