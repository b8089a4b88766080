#pragma once
// The Cerebras generation's shared state (not a public header): generate_cerebras.cpp writes the
// model and the data code, generate_cerebras_files.cpp the files around them (model.py, data.py,
// params.yaml, run.py). Both generations (the runner and the Trainer) read the same plan; what
// differs is where a flag is read (params[section][key] or a typed config field).
#include "core/port/cerebras_schedule.h"
#include "core/port/generate_internal.h"

namespace portolan::port::detail {

// The optimizer's class and its keyword values as YAML, from the construction's arguments.
struct OptimizerYaml
{
    std::string name;
    std::vector<std::pair<std::string, std::string>> values;
    std::vector<std::string> dropped;
};

// A YAML scalar as the Python literal a generated default or fallback writes.
std::string pythonLiteral(const std::string& yaml);

class CerebrasGen
{
public:
    CerebrasGen(const PortPlan& plan, const std::string& api,
                const std::map<std::string, std::string>& values);
    CerebrasGen(const CerebrasGen&) = delete; // the render rules' flag readers capture `this`
    CerebrasGen& operator=(const CerebrasGen&) = delete;

    // The model class that returns its loss, and the manual items of the step.
    std::string modelClass();
    // get_train_dataloader/get_eval_dataloader (runner) or the two data processors (Trainer).
    std::string dataCode();
    // model.py, data.py, configs/params.yaml, run.py, and the original's files kept.
    void writeFiles(const std::string& model, const std::string& data);

    PortResult out;

private:
    // Where a flag lives for the runner: params[section][key] (the params-from-argparse fix's
    // sections), "model" when the params plan has no entry.
    std::pair<std::string, std::string> section(const std::string& dest) const;
    // Does rendered code read the flags namespace whole (not only `args.x`)?
    bool usesWhole(const std::string& text) const;
    // The namespace rebuilt from the params, every flag under its own name. `data`: read in a
    // data function (the runner's params, the Trainer's data processor config).
    std::string namespaceBlock(const std::string& indent, bool data);
    std::string dataFunction(const DataPlan& data, const DataPlan& fallback, bool train,
                             const std::string& indent);
    std::string trainerProcessor(const std::string& name, const std::string& body);
    std::string paramsYaml();
    std::string maxSteps();
    std::string runnerYaml(const std::string& bs);
    std::string trainerYaml(const std::string& bs);
    std::string runPy() const;
    void keepOriginals();
    bool placeClip();
    std::string moduleGlobalsBlock(const std::string& indent);

    const PortPlan& m_plan;
    std::map<std::string, std::string> m_values; // the original's command-line values
    Slicer m_slicer;
    const SourceFile& m_src;
    bool m_runner;
    std::string m_api;
    std::string m_at; // the runner's folder for model.py/data.py ("" or "dir/")
    // The generated modules' names: model and data, unless the original has a package so named.
    std::string m_modelModule = "model", m_dataModule = "data";
    std::map<std::string, Hyper> m_hp;
    OptimizerYaml m_opt;
    std::vector<std::pair<std::string, std::string>> m_runnerKeys;
    std::string m_name;
    const std::string m_cls = "PortedModel";
    std::set<std::string> m_modelFields, m_dataFields;
    RenderRules m_initRules, m_fwdRules, m_dataRules;
    StepCode m_step;
    std::vector<const Stmt*> m_moduleStmts, m_dataStmts;
    bool m_namespaceUsed = false, m_dataNamespace = false, m_usesLoopValues = false;
    CerebrasSchedule m_schedule;
    // Module globals the model's constructor sets (moduleGlobalsBlock), and the definitions that
    // read the flags namespace as a global.
    std::set<std::string> m_moduleGlobals;
    std::set<std::string> m_mainGlobals; // set as the original's `__main__` block set them
    std::set<const Stmt*> m_namespaceReaders;
    // The original's gradient clipping as a key of the params file: {section path, key, value};
    // empty when none.
    struct
    {
        std::string section, key, value;
    } m_clip;
};

} // namespace portolan::port::detail
