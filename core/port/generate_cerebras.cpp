// Cerebras: the Model Zoo Trainer (R2.3 on, the default: a model that returns its loss, a typed
// ModelConfig, a data processor, registration and the trainer YAML) or the runner of the seeds
// (--api runner: a PyTorchBaseModel wrapper, data functions taking params, the classic
// params.yaml, run.py calling run(...)). The cstorch generation is written in the Trainer's
// model layout and reported partial (its own loop is not generated).
#include "core/port/carry_reset.h"
#include "core/port/factory.h"
#include "core/port/generate_cerebras_internal.h"
#include "core/port/gradient_clip.h"
#include "core/port/loss_scaling.h"
#include "core/port/run_value_resolver.h"
#include "core/port/step_cleanup.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>

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

OptimizerYaml optimizerYaml(const PortPlan& plan, const SourceFile& src,
                            const std::map<std::string, Hyper>& hp)
{
    OptimizerYaml y;
    if (plan.optimizers.empty())
        return y;
    const auto& o = plan.optimizers.front();
    y.name = lastPart(o.qualified);
    std::function<std::string(std::string)> valueOf = [&](std::string text) -> std::string {
        while (!text.empty() && (text.front() == ' ' || text.front() == '\n'))
            text.erase(0, 1);
        while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
            text.pop_back();
        if (text.empty())
            return {};
        // A flag (`args.lr`, `args["lr"]`): its value; an expression of one: none.
        if (const std::string dest = plan.flagDest(text); !dest.empty()) {
            const auto it = hp.find(dest);
            return it == hp.end() ? std::string() : it->second.value;
        }
        if (!plan.argsName.empty() && text.starts_with(plan.argsName + "."))
            return {};
        // A parameter of the trainer class's constructor that builds the optimizer: its value.
        if (const std::string v = constructorValueText(plan, text, o.construction.start);
            !v.empty())
            return valueOf(v);
        // A parameter of the factory that builds the optimizer, given the same value by
        // every call (`build(args.lr)`): that value.
        if (const std::string passed = argumentPassed(src, text, o.construction.start);
            !passed.empty() && passed != text) {
            // A module constant assigned once, below the function but before the call runs
            // (`PACE = 0.01`, then `train(EPOCHS, PACE)` in the main guard): its value.
            const std::string once =
                assignments(src, passed).size() == 1
                    ? constantNumber(src, passed, std::uint32_t(src.text().size()))
                    : std::string();
            const std::string v = valueOf(passed);
            return v.empty() && !once.empty() ? valueOf(once) : v;
        }
        // A parameter of the function that builds the optimizer, the loop's or one above it,
        // that its callers give under their name, as a flag, or leave at its default
        // (LoopPlan::callerArguments, outerArguments): that name, flag or default.
        if (plan.loop) {
            const Stmt* in = nullptr;
            for (const Stmt* s : src.chainAt(o.construction.start, o.construction.end))
                if (s->type == "function_definition")
                    in = s;
            const auto* aliases = !in ? nullptr
                                  : in->name == plan.loop->function
                                      ? &plan.loop->callerArguments
                                      : (plan.loop->outerArguments.count(in->name)
                                             ? &plan.loop->outerArguments.at(in->name)
                                             : nullptr);
            if (aliases && aliases->count(text))
                return valueOf(aliases->at(text));
        }
        // An entry of the function's `**kwargs`, spread from one dict by every call.
        if (const std::string v = spreadEntry(src, text, o.construction.start); !v.empty())
            return valueOf(v);
        // A field of a settings object (`lr=settings.rate`, `Settings(rate=args.lr)`).
        if (const std::string v = settingValue(src, text, o.construction.start); !v.empty())
            return valueOf(v);
        // An entry of a configuration dict (`lr=knobs["rate"]`, or a name bound to one): its
        // value as written.
        std::optional<DictEntry> entry = dictEntryOf(src, text, o.construction.start, &plan);
        if (const TSNode v = assignedValue(src, text, o.construction.start);
            !entry && !ts_node_is_null(v))
            entry = dictEntryOf(src, src.text(v), ts_node_start_byte(v), &plan);
        if (entry)
            return entry->text.empty() ? std::string() : valueOf(entry->text);
        // A name bound to a flag before the optimizer is built (`lr = args.lr`, then
        // `Adam(..., lr=lr)`): the flag's value.
        if (!plan.argsName.empty())
            if (const TSNode v = assignedValue(src, text, o.construction.start);
                !ts_node_is_null(v)) {
                const std::string bound = src.text(v);
                if (bound.starts_with(plan.argsName + ".") &&
                    bound.find_first_of("()[] +-*/,") == std::string::npos)
                    return valueOf(bound);
            }
        // A name holding a number (`learning_rate = 0.001` at the top of a script).
        if (const std::string n = constantNumber(src, text, o.construction.start); !n.empty())
            text = n;
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
        // A tuple of values (`betas=(opt.b1, opt.b2)`): each element as a value.
        if ((text.front() == '(' && text.back() == ')') ||
            (text.front() == '[' && text.back() == ']')) {
            std::string list;
            std::stringstream in(text.substr(1, text.size() - 2));
            for (std::string e; std::getline(in, e, ',');) {
                const std::string v = valueOf(e);
                if (v.empty() || v == "null")
                    return {};
                list += (list.empty() ? "" : ", ") + v;
            }
            return "[" + list + "]";
        }
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
    bool rateGiven = false;
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
        rateGiven =
            rateGiven || key == "lr" || std::string_view(ts_node_type(a)) != "keyword_argument";
        const std::string v = key.empty() ? std::string() : valueOf(text);
        if (v.empty() || v == "null")
            y.dropped.push_back(src.text(a));
        else
            y.values.emplace_back(key, v);
    }
    auto has = [&](const std::string& key) {
        return std::any_of(y.values.begin(), y.values.end(),
                           [&](const auto& kv) { return kv.first == key; });
    };
    // What the call leaves at torch's defaults, where the runner's differ (torch.optim's
    // documented defaults): a rate, which the runner needs written (SGD has none before torch
    // 2.2), and eps, which the runner defaults to 1e-6 for every optimizer.
    struct TorchDefaults
    {
        const char* rate;
        const char* eps; // "": the optimizer takes none
    };
    static const std::map<std::string, TorchDefaults> torchDefaults = {
        {"Adam", {"1.0e-3", "1.0e-8"}},    {"AdamW", {"1.0e-3", "1.0e-8"}},
        {"RAdam", {"1.0e-3", "1.0e-8"}},   {"Adamax", {"2.0e-3", "1.0e-8"}},
        {"NAdam", {"2.0e-3", "1.0e-8"}},   {"Adagrad", {"1.0e-2", "1.0e-10"}},
        {"RMSprop", {"1.0e-2", "1.0e-8"}}, {"Adadelta", {"1.0", ""}},
        {"Rprop", {"1.0e-2", ""}},         {"ASGD", {"1.0e-2", ""}}};
    if (const auto it = torchDefaults.find(y.name); it != torchDefaults.end()) {
        if (!rateGiven)
            y.values.emplace_back("lr", it->second.rate);
        if (*it->second.eps && !has("eps"))
            y.values.emplace_back("eps", it->second.eps);
    }
    // torch's AdamW decays by 0.01 unless told; Cerebras' by nothing.
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

std::string pythonLiteral(const std::string& y)
{
    return y == "null" ? "None" : y == "true" ? "True" : y == "false" ? "False" : y;
}

CerebrasGen::CerebrasGen(const PortPlan& plan, const std::string& api,
                         const std::map<std::string, std::string>& values)
    : m_plan(plan), m_values(values), m_slicer(plan), m_src(m_slicer.source()),
      m_runner(api == "runner"), m_api(api), m_hp(hyperparameters(plan, values)),
      m_opt(optimizerYaml(plan, m_src, m_hp)), m_runnerKeys(runnerOptimizerKeys(m_opt)),
      m_name(snake(plan.root.filename().string()))
{
    // The runner's model and data code sit in the entry's folder (`neural_style/model.py`), so
    // the entry's imports of its sibling modules (`import utils`) resolve as they did for the
    // original; run.py and configs/ stay at the top (run.py puts that folder on the path). (The
    // Trainer's registry names its modules from the top: its files stay there.)
    if (m_runner)
        m_at = std::filesystem::path(plan.entry).parent_path().generic_string();
    if (!m_at.empty())
        m_at += "/";
    if (m_name.empty())
        m_name = "ported_model";
    // A package of the original named like a generated module (`model/`, imported as
    // `from model.net import Net`) would be shadowed by it: the generated module takes another
    // name.
    for (auto* module : {&m_modelModule, &m_dataModule})
        for (const auto& [path, source] : plan.sources)
            if (path.starts_with(*module + "/") || path.starts_with(m_at + *module + "/")) {
                *module = "ported_" + *module;
                break;
            }

    // Where each flag lives: the Trainer reads model fields from the config object; the runner
    // reads params[section][key].
    m_initRules.argsName = plan.argsName;
    m_initRules.deviceNames = plan.deviceNames;
    for (const auto& d : plan.deviceNames)
        m_initRules.rename[d] = "torch.device(\"cpu\")";
    m_slicer.aliasCallerArguments(m_initRules);
    m_fwdRules = m_initRules;
    m_dataRules = m_initRules;
    if (m_runner) {
        // A flag whose section params.yaml does not write (runconfig's num_epochs, read by a
        // loop of values; runconfig's ngpu, read by the model's construction) keeps the
        // original's default: the one rule of the model's and the data's code.
        const auto read = [this](const std::string& dest, const std::string& params) {
            const auto [s, k] = section(dest);
            const auto it = m_hp.find(dest);
            if (s != "runconfig" || it == m_hp.end())
                return params + "[\"" + s + "\"][\"" + k + "\"]";
            return params + ".get(\"" + s + "\", {}).get(\"" + k + "\", " +
                   pythonLiteral(it->second.value) + ")";
        };
        m_initRules.flag = [read](const std::string& dest) {
            return read(dest, "params");
        };
        m_fwdRules.flag = [read](const std::string& dest) {
            return read(dest, "self.params");
        };
        m_dataRules.flag = [read](const std::string& dest) {
            return read(dest, "params");
        };
    } else {
        m_initRules.flag = [this](const std::string& dest) {
            m_modelFields.insert(dest);
            return "config." + dest;
        };
        m_fwdRules.flag = [this](const std::string& dest) {
            m_modelFields.insert(dest);
            return "self.config." + dest;
        };
        m_dataRules.flag = [this](const std::string& dest) {
            m_dataFields.insert(dest);
            return "self.config." + dest;
        };
    }

    m_step = stepCode(plan, m_slicer, false);
    m_moduleStmts = m_step.init.module;
    addUntraced(plan, m_step, out);
    for (const auto& [k, v] : m_step.rename)
        m_fwdRules.rename[k] = v;
    bindSelfAttributes(m_fwdRules, m_step);
}

std::pair<std::string, std::string> CerebrasGen::section(const std::string& dest) const
{
    if (m_plan.paramsCerebras)
        if (const auto* e = m_plan.paramsCerebras->entry(dest))
            return {e->section, e->key};
    return {"model", dest};
}

bool CerebrasGen::usesWhole(const std::string& text) const
{
    const auto& a = m_plan.argsName;
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
}

std::string CerebrasGen::namespaceBlock(const std::string& indent, bool data)
{
    // A flag the params file leaves out (a device or dry-run switch) keeps the original's default.
    std::string t = indent + m_plan.argsName + " = types.SimpleNamespace(\n";
    std::set<std::string> seen;
    for (const auto& f : m_plan.flags) {
        if (!seen.insert(f.dest).second)
            continue;
        const auto it = m_hp.find(f.dest);
        const std::string value = pythonLiteral(it != m_hp.end() ? it->second.value : "null");
        std::string read;
        if (m_runner) {
            const auto [s, k] = section(f.dest);
            read = "params.get(\"" + s + "\", {}).get(\"" + k + "\", " + value + ")";
        } else {
            (data ? m_dataFields : m_modelFields).insert(f.dest);
            read = (data ? "self.config." : "config.") + f.dest;
        }
        t += indent + "    " + f.dest + "=" + read + ",\n";
    }
    return t + indent + ")\n";
}

std::string CerebrasGen::modelClass()
{
    const auto& lp = *m_plan.loop;
    const std::string ind = "    ", ind2 = "        ";
    std::string model;
    if (m_runner) {
        model += "class " + m_cls + "(PyTorchBaseModel):\n";
        model += ind + "def __init__(self, params, device=None):\n";
        model += ind2 + "self.params = params\n";
    } else {
        model += "class " + m_cls + "(torch.nn.Module):\n";
        model += ind + "def __init__(self, config: " + m_cls + "Config):\n";
        model += ind2 + "if isinstance(config, dict):\n" + ind2 + "    config = " + m_cls +
                 "Config(**config)\n";
        model += ind2 + "super().__init__()\n" + ind2 + "self.config = config\n";
    }
    // A class or function that takes the flags namespace whole (`ViT(args)`): the model hands
    // it the namespace rebuilt from the params (every flag under its own name), as the
    // original's argparse gave it.
    const std::string initText =
        renderGuardingSeeds(m_plan, m_slicer, m_values, m_step.init.local, m_initRules, ind2);
    m_namespaceUsed = usesWhole(initText);
    model += moduleGlobalsBlock(ind2);
    if (m_namespaceUsed)
        model += namespaceBlock(ind2, false);
    model += initText;
    model += ind2 + "self.model = " + (m_plan.modelBinding.empty() ? "None" : m_plan.modelBinding) +
             "\n";
    for (const auto& a : m_step.attributes)
        model += ind2 + "self." + a + " = " + a + "\n";
    if (m_runner)
        model += ind2 + "super().__init__(params=params, model=self.model, device=device)\n";
    model += "\n";
    if (m_runner && decays(m_runnerKeys))
        // The runner leaves biases and normalization layers out of the weight decay; torch's
        // optimizers, given model.parameters(), decay them all.
        model += ind + "def trainable_named_parameters(self):\n" + ind2 +
                 "# Every parameter decays, as in the original (no layer left out).\n" + ind2 +
                 "return [], list(self.model.named_parameters())\n\n";
    const std::string method = m_runner ? "__call__" : "forward";
    const std::size_t methodAt = model.size();
    model += ind + "def " + method + "(self, batch):\n";
    if (!lp.batchTarget.empty()) // a `while` loop binds no batch: its item says so
        model += ind2 + lp.batchTarget + " = batch\n";
    model += cerebrasEpochReset(m_plan, m_slicer, m_step, m_runner, ind2);
    const std::string loss = lossName(m_plan);
    model += renderLocal(m_slicer, m_step.forward, m_fwdRules, ind2);
    if (!lp.lossName.empty() && loss != lp.lossName)
        model += ind2 + "loss = " + lp.lossName + "\n";
    model += ind2 + "return " + loss + "\n";
    model = model.substr(0, methodAt) + dropDeadAliases(model.substr(methodAt));
    // Several models trained in turn: the one item of severalModelsLeft says it, and the code
    // between a backward and a step is the other models' training.
    const bool inTurn = lp.sequence.size() > 0;
    for (auto& n : dropUntakenBetween(m_plan, m_src, m_step.between))
        out.notes.push_back(std::move(n));
    if (!m_step.between.empty() && !inTurn && !placeClip())
        out.manual.push_back(manualFinding(
            "code between backward() and the optimizer step (" +
                m_src.text(m_step.between.front()->start, m_step.between.front()->end) +
                "): the Cerebras loop runs backward and the step itself",
            CodeRef{m_plan.entry, m_step.between.front()->line, m_step.between.front()->column, 0,
                    0, ""},
            m_runner ? "optimizer.max_gradient_norm in params.yaml"
                     : "trainer.init.precision.max_gradient_norm in params.yaml"));
    if (m_plan.optimizers.size() > 1 && !inTurn)
        out.manual.push_back(manualFinding("a second optimizer (" + m_plan.optimizers[1].variable +
                                               "): the Cerebras loop trains one optimizer",
                                           m_plan.optimizers[1].construction,
                                           "train the other model separately"));
    for (const auto& o : m_plan.optimizers)
        if (o.closure)
            out.manual.push_back(manualFinding(
                "optimizer step with a closure (" + o.qualified +
                    "): the Cerebras runner and Trainer step the optimizer once per batch "
                    "without a closure, and cerebras.pytorch.optim has no LBFGS",
                o.construction,
                "choose one of cerebras.pytorch.optim's optimizers (SGD, Adam, "
                "AdamW, Lamb, ...) in params.yaml"));
    // The Cerebras schedulers count steps and name values (StepLR(optimizer,
    // initial_learning_rate, step_size, gamma), resources/contracts/cerebras-cstorch.yaml): a
    // torch scheduler stepped once per epoch is converted when the steps of an epoch are known.
    std::string rate;
    for (const auto& [k, v] : m_opt.values)
        if (k == "lr")
            rate = v;
    m_schedule = cerebrasSchedule(m_plan, m_src, m_hp, rate);
    out.manual.insert(out.manual.end(), m_schedule.manual.begin(), m_schedule.manual.end());
    out.notes.insert(out.notes.end(), m_schedule.notes.begin(), m_schedule.notes.end());
    return model;
}

std::string CerebrasGen::dataFunction(const DataPlan& data, const DataPlan& fallback, bool train,
                                      const std::string& indent)
{
    const auto& lp = *m_plan.loop;
    std::string t;
    DataCode dc = detail::dataCode(m_plan, m_slicer, data, m_dataRules, indent);
    if (!dc.ok && !train)
        dc = detail::dataCode(m_plan, m_slicer, fallback, m_dataRules, indent);
    // A loop that builds its own batches (no DataLoader): the loader gives one value of the loop
    // per step, and the model's step builds the batch from it as the loop's body did (the same
    // draws in the same order).
    bool values = false;
    if (!dc.ok && !m_plan.train.isDataLoader && (train || !m_plan.eval.isDataLoader)) {
        dc = loopValuesCode(m_plan, m_slicer, m_dataRules, indent);
        values = dc.ok;
        if (values && !train) {
            // The original has no validation data: ten of its training steps stand in.
            dc.dataset.insert(dc.dataset.size() - 1, ", limit=10");
        }
        m_usesLoopValues = m_usesLoopValues || values;
    }
    if (!dc.ok) {
        if (train && !m_plan.train.isDataLoader && !lp.batchTarget.empty())
            out.manual.push_back(nonLoaderManual(m_plan));
        t += todo(indent,
                  "build the DataLoader: the original's batches come from `" + lp.iterable + "`");
        t += indent + "raise NotImplementedError(\"TODO(portolan): the data\")\n";
        return t;
    }
    // A class or function only the data code needs that reads the globals this data function
    // sets (a dataset reading sizes the `__main__` block set) stays in data.py, where they are.
    for (const Stmt* s : dc.module) {
        const bool readsDataGlobal =
            std::any_of(dc.globals.begin(), dc.globals.end(),
                        [&](const std::string& n) { return !s->name.empty() && s->uses.count(n); });
        if (!readsDataGlobal || std::find(m_step.init.module.begin(), m_step.init.module.end(),
                                          s) != m_step.init.module.end())
            m_moduleStmts.push_back(s);
    }
    m_dataStmts.insert(m_dataStmts.end(), dc.module.begin(), dc.module.end());
    // A data helper handed the flags namespace whole (`get_data(opts)`) gets it rebuilt from the
    // params, as the model's constructor does.
    if (usesWhole(dc.statements) || usesWhole(dc.dataset)) {
        t += namespaceBlock(indent, true);
        m_dataNamespace = true;
    }
    t += globalDeclaration(dc.globals, indent) + dc.statements;
    t += indent + "return torch.utils.data.DataLoader(\n" + indent + "    " + dc.dataset + ",\n" +
         indent + "    batch_size=" +
         (values     ? std::string("1")
          : m_runner ? std::string("params[\"") + (train ? "train_input" : "eval_input") +
                           "\"][\"batch_size\"]"
                     : std::string("self.config.batch_size"));
    for (const auto& [k, v] : dc.keywords)
        if (k != "drop_last")
            t += ",\n" + indent + "    " + k + "=" + v;
    t += ",\n" + indent + "    drop_last=True)\n";
    return t;
}

std::string CerebrasGen::trainerProcessor(const std::string& n, const std::string& body)
{
    const std::string ind = "    ", ind2 = "        ";
    std::string t = "class " + n + "Config(DataConfig):\n";
    t += ind + "data_processor: Literal[\"" + n + "\"]\n\n";
    t += ind + "batch_size: int = ...\n";
    for (const auto& d : m_dataFields)
        if (const auto it = m_hp.find(d); it != m_hp.end())
            t += ind + d + ": " + it->second.type + " = " + pythonLiteral(it->second.value) + "\n";
    t += "\n\nclass " + n + ":\n";
    t += ind + "def __init__(self, config: " + n + "Config):\n";
    t +=
        ind2 + "if isinstance(config, dict):\n" + ind2 + "    config = " + n + "Config(**config)\n";
    t += ind2 + "self.config = config\n\n";
    t += ind + "def create_dataloader(self):\n" + body;
    return t;
}

std::string CerebrasGen::dataCode()
{
    const std::string ind = "    ", ind2 = "        ";
    // The train function first: its manual items and module statements come first.
    if (m_runner) {
        const std::string trainBody = dataFunction(m_plan.train, m_plan.train, true, ind);
        const std::string evalBody = dataFunction(m_plan.eval, m_plan.train, false, ind);
        return "def get_train_dataloader(params):\n" + trainBody + "\n\n" +
               "def get_eval_dataloader(params):\n" + evalBody;
    }
    const std::string trainBody = dataFunction(m_plan.train, m_plan.train, true, ind2);
    const std::string evalBody = dataFunction(m_plan.eval, m_plan.train, false, ind2);
    return trainerProcessor("PortedDataProcessor", trainBody) + "\n\n" +
           trainerProcessor("PortedEvalDataProcessor", evalBody);
}

Result<PortResult> generateCerebras(const PortPlan& plan, const std::string& api,
                                    const std::map<std::string, std::string>& values)
{
    if (!plan.loop) {
        Diagnostic d;
        d.code = "port.no-loop";
        d.message = "nothing to port: no training loop";
        return Result<PortResult>::fail(d);
    }
    CerebrasGen gen(plan, api, values);
    const std::string model = gen.modelClass();
    const std::string data = gen.dataCode();
    gen.writeFiles(model, data);
    if (api != "runner") // the runner's form is in its params file (runnerYaml)
        noteScalingDropped(plan, "cerebras-" + api, gen.out);
    return Result<PortResult>::ok(std::move(gen.out));
}

// Gradient clipping between backward() and the step: the Cerebras loop clips where the params
// file says (the contract's key), with the limit the original gives as a number or a flag.
bool CerebrasGen::placeClip()
{
    const auto clip = gradientClip(m_plan, m_slicer, m_step);
    if (!clip)
        return false;
    const auto form = clipForm(m_runner ? "cerebras-modelzoo" : "cerebras-trainer", clip->kind);
    if (!form || form->config.empty())
        return false;
    std::string value;
    const std::string prefix = m_plan.argsName + ".";
    if (clip->limit.find_first_not_of("0123456789.eE+-") == std::string::npos)
        value = clip->limit;
    else if (!m_plan.argsName.empty() && clip->limit.starts_with(prefix) &&
             m_hp.count(clip->limit.substr(prefix.size())))
        value = m_hp.at(clip->limit.substr(prefix.size())).value;
    const auto dot = form->config.rfind('.');
    const std::string sectionPath = dot == std::string::npos ? "" : form->config.substr(0, dot);
    // The two places the generated params file has (the runner's optimizer section, the
    // Trainer's precision callback).
    if (value.empty() || value == "null" ||
        (sectionPath != "optimizer" && sectionPath != "trainer.init.precision"))
        return false;
    m_clip = {sectionPath, form->config.substr(dot + 1), value};
    out.notes.push_back("the gradient clipping of " + m_plan.entry + ":" +
                        std::to_string(clip->at->line) + " (" +
                        m_src.text(clip->at->start, clip->at->end) + ") is " + form->config + ": " +
                        value + " in configs/params.yaml");
    return true;
}

// The original's classes and functions that read, as module globals, values it computed from
// its flags (`img_shape = (opt.channels, ...)`) or the flags namespace itself (`opt.latent_dim`
// in Generator.__init__): the model's constructor sets those globals before it builds anything,
// from the params, as Determined's trial does (the one rule of the targets that rebuild the
// flags from a config). model.py declares them at module level (writeFiles).
std::string CerebrasGen::moduleGlobalsBlock(const std::string& indent)
{
    const auto isDefinition = [](const Stmt* m) {
        return m->type == "class_definition" || m->type == "function_definition" ||
               m->type == "decorated_definition";
    };
    for (const Stmt* s : m_step.init.local) {
        if (m_src.chainAt(s->start, s->end).size() != 1)
            continue;
        for (const auto& n : s->defines)
            for (const Stmt* m : m_moduleStmts)
                if (isDefinition(m) && m->uses.count(n))
                    m_moduleGlobals.insert(n);
    }
    // Set by the original's `__main__` block before it built the model (Slice::globals).
    for (const auto& n : m_step.init.globals)
        if (!m_moduleGlobals.count(n))
            m_mainGlobals.insert(n);
    if (!m_plan.argsName.empty())
        for (const Stmt* m : m_moduleStmts)
            if (isDefinition(m) && m->uses.count(m_plan.argsName) &&
                !takesNamespace(m_src, *m, m_plan.argsName))
                m_namespaceReaders.insert(m);
    std::string names;
    for (const auto* set : {&m_moduleGlobals, &m_mainGlobals})
        for (const auto& n : *set)
            names += (names.empty() ? "" : ", ") + n;
    if (!m_namespaceReaders.empty())
        names += (names.empty() ? "" : ", ") + m_plan.argsName;
    if (names.empty())
        return {};
    std::string t = indent + "# Module globals of the original that its definitions read.\n" +
                    indent + "global " + names + "\n";
    if (!m_namespaceReaders.empty()) {
        t += namespaceBlock(indent, false);
        m_namespaceUsed = true;
    }
    return t;
}

} // namespace portolan::port::detail
