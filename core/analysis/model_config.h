#pragma once

// The typed model configs of the Model Zoo Trainer generation (R2.3 on): a class derived from
// cerebras.modelzoo.config.ModelConfig names its model with `name: Literal["fc_mnist"]` and has
// one field per key of the Trainer YAML's trainer.init.model section. The checks (every YAML key
// is a field) and the flow diagram (YAML key -> field -> model) both read them from here.

#include "core/python/index.h"

#include <string>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;

struct ConfigField
{
    std::string name;
    std::string className;
    int file = -1; // index in ProjectAnalysis::python
    python::Span span;
};

struct ModelConfigClasses
{
    // The classes that declare `name: Literal["<name>"]` (file, class index), most derived last.
    std::vector<std::pair<int, int>> classes;
    // Their fields and those of their project ancestors, the nearest declaration first.
    std::vector<ConfigField> fields;
    // False when an ancestor lies outside the project and is not a Model Zoo base config, so
    // that its fields cannot be listed here.
    bool complete = true;

    const ConfigField* field(const std::string& name) const;
};

ModelConfigClasses modelConfigClasses(const ProjectAnalysis& a, const std::string& modelName);

// The project's model class built from a config class: a class whose __init__ takes a parameter
// annotated with that config class (or one of its descendants' names). -1 when none.
std::pair<int, int> modelClassFor(const ProjectAnalysis& a, const ModelConfigClasses& configs);

} // namespace portolan::analysis
