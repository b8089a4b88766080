#include "core/graph/capture.h"

#include "core/common/json.h"
#include "core/common/text.h"
#include "core/graph/flop_rules.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace portolan::graph {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A wrong member: thrown while reading, turned into one diagnostic naming the member.
struct BadMember
{
    std::string member;
    std::string what;
};

const json* member(const json& j, const char* name)
{
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(name);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string text(const json& j, const char* name, const std::string& where)
{
    const json* m = member(j, name);
    if (!m)
        return {};
    if (!m->is_string())
        throw BadMember{where + name, "must be a string"};
    return m->get<std::string>();
}

std::optional<std::int64_t> integer(const json& j, const char* name, const std::string& where)
{
    const json* m = member(j, name);
    if (!m)
        return std::nullopt;
    if (!m->is_number_integer())
        throw BadMember{where + name, "must be an integer"};
    return m->get<std::int64_t>();
}

// A positive count (device iterations, replication, accumulation): 1 when absent.
int count(const json& j, const char* name, const std::string& where)
{
    const auto v = integer(j, name, where);
    if (v && (*v < 1 || *v > (1 << 24)))
        throw BadMember{where + name, "must be a positive integer"};
    return v ? int(*v) : 1;
}

// "IPU3" -> 3; -1 for anything else.
int ipuKey(const std::string& key)
{
    if (key.size() < 4 || key.compare(0, 3, "IPU") != 0 || key.size() > 9)
        return -1;
    int n = 0;
    for (std::size_t i = 3; i < key.size(); ++i) {
        if (key[i] < '0' || key[i] > '9')
            return -1;
        n = n * 10 + (key[i] - '0');
    }
    return n;
}

double proportion(const json& v, const std::string& where)
{
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
        throw BadMember{where, "must be a number between 0 and 1"};
    return v.get<double>();
}

CapturePoptorch poptorchOptions(const json& j)
{
    const std::string at = "options.poptorch.";
    CapturePoptorch o;
    o.deviceIterations = count(j, "device_iterations", at);
    o.replicationFactor = count(j, "replication_factor", at);
    o.gradientAccumulation = count(j, "gradient_accumulation", at);
    o.precision = text(j, "precision", at);
    o.halfPartials = text(j, "partials_type", at) == "half";
    if (const json* amp = member(j, "available_memory_proportion")) {
        if (!amp->is_object())
            throw BadMember{at + "available_memory_proportion", "must be an object"};
        for (const auto& [key, value] : amp->items())
            if (const int ipu = ipuKey(key); ipu >= 0)
                o.availableMemoryProportion[ipu] =
                    proportion(value, at + "available_memory_proportion." + key);
    }
    if (const json* calls = member(j, "set_available_memory"); calls && calls->is_array())
        for (std::size_t i = 0; i < calls->size(); ++i) {
            const std::string where = at + "set_available_memory[" + std::to_string(i) + "].";
            const auto ipu = integer((*calls)[i], "ipu", where);
            const json* p = member((*calls)[i], "proportion");
            if (!ipu || *ipu < 0 || !p)
                continue;
            const double v = proportion(*p, where + "proportion");
            auto [it, fresh] = o.setAvailableMemory.emplace(int(*ipu), v);
            if (!fresh)
                it->second = std::min(it->second, v);
        }
    return o;
}

std::optional<Shape> shape(const json& j, const std::string& where)
{
    const json* m = member(j, "shape");
    if (!m)
        return std::nullopt;
    if (!m->is_array())
        throw BadMember{where + "shape", "must be a list of integers"};
    Shape s;
    for (const auto& d : *m) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
            throw BadMember{where + "shape", "must be a list of non-negative integers"};
        s.push_back(d.get<std::int64_t>());
    }
    return s;
}

std::vector<CaptureTensor> tensors(const json& j, const char* name, const std::string& where)
{
    std::vector<CaptureTensor> out;
    const json* m = member(j, name);
    if (!m)
        return out;
    if (!m->is_array())
        throw BadMember{where + name, "must be a list"};
    for (std::size_t i = 0; i < m->size(); ++i) {
        const json& t = (*m)[i];
        const std::string at = where + name + "[" + std::to_string(i) + "].";
        if (!t.is_object())
            throw BadMember{at.substr(0, at.size() - 1), "must be an object"};
        out.push_back({text(t, "name", at), shape(t, at), text(t, "dtype", at)});
    }
    return out;
}

CaptureArgument argument(const json& j, const std::string& where, std::size_t inputs,
                         std::vector<int>& uses)
{
    CaptureArgument a;
    if (j.is_number_integer()) {
        const auto i = j.get<std::int64_t>();
        if (i < 0 || std::size_t(i) >= inputs)
            throw BadMember{where, "names input " + std::to_string(i) + ", but there are " +
                                       std::to_string(inputs) + " inputs"};
        a.input = int(i);
        ++uses[std::size_t(i)];
        return a;
    }
    if (!j.is_array())
        throw BadMember{where, "must be an input index or a list of them"};
    for (std::size_t k = 0; k < j.size(); ++k)
        a.items.push_back(argument(j[k], where + "[" + std::to_string(k) + "]", inputs, uses));
    return a;
}

std::string joinedName(const std::string& type)
{
    const auto dot = type.rfind('.');
    return dot == std::string::npos ? type : type.substr(dot + 1);
}

bool isContainer(const CaptureModule& m)
{
    const std::string t = m.shortType();
    return t == "Sequential" || t == "ModuleList" || t == "ModuleDict";
}

std::string parentOf(const std::string& path)
{
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

// `inner` is `outer` or inside it ("" holds everything).
bool within(const std::string& inner, const std::string& outer)
{
    if (outer.empty() || inner == outer)
        return true;
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           inner[outer.size()] == '.';
}

} // namespace

std::string CaptureModule::shortType() const
{
    return joinedName(type);
}

std::int64_t Capture::totalParams() const
{
    std::int64_t n = 0;
    for (const auto& m : modules)
        n += m.params;
    return n;
}

std::string Capture::origin() const
{
    std::string s = "capture: " + (entry.empty() ? std::string("unknown entry") : entry);
    if (dryRunBatch)
        s += ", dry-run batch " + std::to_string(*dryRunBatch);
    if (syntheticData)
        s += ", synthetic data";
    if (models.size() > 1) {
        s += "; model " + joinedName(modelClass) + ", 1 of " + std::to_string(models.size()) + ":";
        for (std::size_t i = 0; i < models.size(); ++i)
            s += (i ? ", " : " ") + joinedName(models[i]);
        s += " (the others are not compiled)";
    }
    return s;
}

int Capture::pipelineIpus() const
{
    if (declaredIpus > 0)
        return declaredIpus;
    int top = -1;
    for (const auto& st : stages)
        top = std::max(top, st.ipu);
    return top + 1;
}

std::string Capture::pipelineDescription() const
{
    if (pipelineSource.empty())
        return {};
    return pipelineStrategy.empty() ? pipelineSource : pipelineSource + ", " + pipelineStrategy;
}

std::string Capture::optimizerName() const
{
    std::string c = optimizerClass;
    std::transform(c.begin(), c.end(), c.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    const std::string last = joinedName(c);
    if (last == "adamw")
        return "adamw";
    if (last == "adam" || last == "lamb" || last == "adamax")
        return "adam";
    if (last == "sgd")
        return optimizerMomentum > 0 ? "sgd-momentum" : "sgd";
    return {};
}

fs::path captureDir(const fs::path& project)
{
    return project / ".portolan" / "capture";
}

bool hasCapture(const fs::path& dir)
{
    std::error_code ec;
    return fs::is_regular_file(dir / "capture.json", ec);
}

namespace {

// The modules' list (capture.json "modules"); BadMember on a malformed one.
void readModules(const json& mods, Capture& c)
{
    if (!mods.is_array())
        throw BadMember{"modules", "must be a list"};
    for (std::size_t i = 0; i < mods.size(); ++i) {
        const json& m = mods[i];
        const std::string at = "modules[" + std::to_string(i) + "].";
        if (!m.is_object())
            throw BadMember{"modules[" + std::to_string(i) + "]", "must be an object"};
        CaptureModule cm;
        cm.path = text(m, "path", at);
        cm.type = text(m, "type", at);
        if (const json* l = member(m, "leaf"); l && l->is_boolean())
            cm.leaf = l->get<bool>();
        cm.params = integer(m, "params", at).value_or(0);
        cm.paramBytes = integer(m, "param_bytes", at).value_or(0);
        cm.buffers = integer(m, "buffers", at).value_or(0);
        cm.bufferBytes = integer(m, "buffer_bytes", at).value_or(0);
        cm.trainableParams = integer(m, "trainable_params", at).value_or(cm.params);
        if (auto ipu = integer(m, "ipu", at))
            cm.ipu = int(*ipu);
        cm.block = text(m, "block", at);
        cm.calls = int(integer(m, "calls", at).value_or(0));
        cm.inputs = tensors(m, "inputs", at);
        cm.outputs = tensors(m, "outputs", at);
        if (cm.params < 0 || cm.paramBytes < 0)
            throw BadMember{at + "params", "must not be negative"};
        c.modules.push_back(std::move(cm));
    }
}

// The declared pipeline (capture.json "pipeline"): its stages, strategy and notes.
void readPipeline(const json& pipeline, Capture& c)
{
    const json* p = &pipeline;
    c.pipelineSource = text(*p, "source", "pipeline.");
    if (c.pipelineSource.empty())
        c.pipelineSource = "declared";
    if (const json* stages = member(*p, "stages")) {
        if (!stages->is_array())
            throw BadMember{"pipeline.stages", "must be a list"};
        for (std::size_t i = 0; i < stages->size(); ++i) {
            const std::string at = "pipeline.stages[" + std::to_string(i) + "].";
            CaptureStage s;
            s.ipu = int(integer((*stages)[i], "ipu", at).value_or(0));
            if (const json* ms = member((*stages)[i], "modules"); ms && ms->is_array())
                for (const auto& name : *ms)
                    if (name.is_string())
                        s.modules.push_back(name.get<std::string>());
            if (const json* bs = member((*stages)[i], "blocks"); bs && bs->is_array())
                for (const auto& name : *bs)
                    if (name.is_string())
                        s.blocks.push_back(name.get<std::string>());
            if (auto id = integer((*stages)[i], "stage", at))
                s.stage = int(*id);
            if (auto id = integer((*stages)[i], "phase", at))
                s.phase = int(*id);
            c.stages.push_back(std::move(s));
        }
    }
    c.pipelineStrategy = text(*p, "strategy", "pipeline.");
    c.pipelineAutoStage = text(*p, "auto_stage", "pipeline.");
    if (auto n = integer(*p, "ipus", "pipeline."); n && *n > 0 && *n <= 1 << 16)
        c.declaredIpus = int(*n);
    if (const json* notes = member(*p, "notes"); notes && notes->is_array())
        for (const auto& n : *notes)
            if (n.is_string())
                c.pipelineNotes.push_back(n.get<std::string>());
}

// The members after the format check; BadMember on a malformed one. Returns whether the capture
// says where the batch is but not its size.
bool readMembers(const json& j, Capture& c)
{
    bool batchUnknown = false;
    c.project = text(j, "project", "");
    c.entry = text(j, "entry", "");
    c.flavour = text(j, "flavour", "");
    c.torchVersion = text(j, "torch_version", "");
    if (const json* model = member(j, "model")) {
        c.modelClass = text(*model, "class", "model.");
        const std::string trace = text(*model, "trace", "model.");
        c.traceError = text(*model, "trace_error", "model.");
        if (const json* t = member(*model, "training"); t && t->is_boolean())
            c.training = t->get<bool>();
        if (!trace.empty()) {
            const fs::path p = fs::path(trace).is_absolute() ? fs::path(trace) : c.dir / trace;
            c.trace = p.lexically_normal();
        }
    }
    c.inputs = tensors(j, "inputs", "");
    if (const json* ms = member(j, "models")) {
        if (!ms->is_array())
            throw BadMember{"models", "must be a list"};
        for (std::size_t i = 0; i < ms->size(); ++i)
            c.models.push_back(text((*ms)[i], "class", "models[" + std::to_string(i) + "]."));
    }
    if (const json* st = member(j, "input_structure")) {
        if (!st->is_array())
            throw BadMember{"input_structure", "must be a list"};
        std::vector<int> uses(c.inputs.size(), 0);
        for (std::size_t k = 0; k < st->size(); ++k)
            c.inputStructure.push_back(argument(
                (*st)[k], "input_structure[" + std::to_string(k) + "]", c.inputs.size(), uses));
        for (std::size_t i = 0; i < uses.size(); ++i)
            if (uses[i] != 1)
                throw BadMember{"input_structure", "must name input " + std::to_string(i) +
                                                       " once (it names it " +
                                                       std::to_string(uses[i]) + " times)"};
    }
    if (const json* b = member(j, "batch")) {
        if (const auto d = integer(*b, "dim", "batch."))
            c.batchDim = int(*d);
        // A capture that says where the batch is and leaves its size null does not know it.
        batchUnknown = b->contains("dim") && !member(*b, "dry_run");
        c.dryRunBatch = integer(*b, "dry_run", "batch.");
        c.fullBatch = integer(*b, "full", "batch.");
        c.batchSource = text(*b, "source", "batch.");
    }
    if (const json* mods = member(j, "modules"))
        readModules(*mods, c);
    if (const json* p = member(j, "pipeline"))
        readPipeline(*p, c);
    if (const json* o = member(j, "options"))
        if (const json* pt = member(*o, "poptorch"))
            c.poptorch = poptorchOptions(*pt);
    if (const json* o = member(j, "optimizer")) {
        c.optimizerClass = text(*o, "class", "optimizer.");
        if (const json* groups = member(*o, "param_groups"); groups && groups->is_array())
            for (const auto& g : *groups)
                if (const json* m = member(g, "momentum"); m && m->is_number())
                    c.optimizerMomentum = std::max(c.optimizerMomentum, m->get<double>());
    }
    c.steps = int(integer(j, "steps", "").value_or(0));
    if (const json* sd = member(j, "synthetic_data"); sd && sd->is_boolean())
        c.syntheticData = sd->get<bool>();
    return batchUnknown;
}

// What the members leave implicit: each module's IPU from a stage list without per-module ids,
// and the dry run's batch from the first input's shape.
void completeCapture(Capture& c, bool batchUnknown)
{
    // A stage list without per-module ids still says where each module starts to run. With
    // per-module ids (BeginBlock's own record) the ids win: a module listed under a stage may be
    // called again later, on another IPU.
    const bool annotated =
        std::any_of(c.modules.begin(), c.modules.end(), [](const auto& m) { return m.ipu; });
    if (!annotated)
        for (const auto& stage : c.stages)
            if (!stage.modules.empty())
                for (auto& m : c.modules)
                    if (m.path == stage.modules.front())
                        m.ipu = stage.ipu;
    if (!c.dryRunBatch && !batchUnknown) {
        for (const auto& t : c.inputs)
            if (t.shape && !t.shape->empty()) {
                c.dryRunBatch = t.shape->front();
                break;
            }
    }
}

} // namespace

// The phases: read and parse the file, check its format and version, read the members
// (readMembers), and complete what they leave implicit.
Result<Capture> loadCapture(const fs::path& dirOrFile)
{
    std::error_code ec;
    Capture c;
    c.file = fs::is_directory(dirOrFile, ec) ? dirOrFile / "capture.json" : dirOrFile;
    c.dir = c.file.parent_path();
    const auto fail = [&](const std::string& code, const std::string& message, int line = 0,
                          int column = 0) {
        return Result<Capture>::fail(
            {Severity::Error, code, message, {c.file.string(), line, column}});
    };
    std::ifstream in(c.file, std::ios::binary);
    if (!in)
        return fail("capture.unreadable", "no readable capture.json here");
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string body = buf.str();
    json j;
    if (const auto bad = parseJson(body, j))
        return fail(
            "capture.corrupt",
            (bad->truncated ? "capture.json is truncated: " : "capture.json is not valid JSON: ") +
                bad->message,
            bad->at.line, bad->at.column);
    if (stringMember(j, "format") != kCaptureFormat)
        return fail("capture.format",
                    "not a Portolan capture (no \"format\": \"portolan-capture\")");
    if (!j["version"].is_number_integer() || j["version"].get<int>() != kCaptureVersion)
        return fail("capture.version", "capture version " + j["version"].dump() +
                                           " is not supported (this Portolan reads version " +
                                           std::to_string(kCaptureVersion) + ")");
    bool batchUnknown = false;
    try {
        batchUnknown = readMembers(j, c);
    } catch (const BadMember& e) {
        return fail("capture.member", "capture.json: '" + e.member + "' " + e.what);
    }
    completeCapture(c, batchUnknown);
    return Result<Capture>::ok(std::move(c));
}

std::string CaptureLayering::unitOf(const std::string& modulePath) const
{
    std::string best;
    bool found = false;
    for (const auto& u : units)
        if (within(modulePath, u) && (!found || u.size() > best.size())) {
            best = u;
            found = true;
        }
    return best;
}

std::optional<int> CaptureLayering::ipuOf(const std::string& unit) const
{
    for (std::size_t i = 0; i < units.size(); ++i)
        if (units[i] == unit)
            return ipu[i];
    return std::nullopt;
}

CaptureLayering captureLayering(const std::vector<CaptureModule>& modules)
{
    // Parameters under each module (its own plus its descendants'), and its children in order.
    std::map<std::string, std::int64_t> subtree;
    std::map<std::string, std::vector<const CaptureModule*>> children;
    std::map<std::string, const CaptureModule*> byPath;
    for (const auto& m : modules) {
        byPath[m.path] = &m;
        if (!m.path.empty())
            children[parentOf(m.path)].push_back(&m);
        for (std::string p = m.path;; p = parentOf(p)) {
            subtree[p] += m.params;
            if (p.empty())
                break;
        }
    }
    const std::int64_t total = std::max<std::int64_t>(1, subtree[""]);
    std::vector<std::string> annotated;
    for (const auto& m : modules)
        if (m.ipu && !m.path.empty())
            annotated.push_back(m.path);

    CaptureLayering out;
    const auto open = [&](const CaptureModule& m) {
        const auto& kids = children[m.path];
        if (kids.empty())
            return false;
        if (isContainer(m) || kids.size() == 1)
            return true;
        for (const auto& a : annotated)
            if (a != m.path && within(a, m.path))
                return true;
        return subtree[m.path] * 4 > total;
    };
    const auto inheritedIpu = [&](const std::string& path) -> std::optional<int> {
        for (std::string p = path;; p = parentOf(p)) {
            if (auto it = byPath.find(p); it != byPath.end() && it->second->ipu)
                return it->second->ipu;
            if (p.empty())
                return std::nullopt;
        }
    };
    std::vector<const CaptureModule*> todo;
    const auto& top = children[""];
    todo.assign(top.rbegin(), top.rend());
    while (!todo.empty()) {
        const CaptureModule* m = todo.back();
        todo.pop_back();
        if (open(*m)) {
            const auto& kids = children[m->path];
            todo.insert(todo.end(), kids.rbegin(), kids.rend());
            continue;
        }
        out.units.push_back(m->path);
        out.ipu.push_back(inheritedIpu(m->path));
    }
    return out;
}

DeclaredSplit declaredSplit(const Capture& c, const CaptureLayering& layering,
                            const std::vector<std::string>& layerUnits)
{
    DeclaredSplit s;
    bool any = false;
    for (const auto& m : c.modules)
        any = any || m.ipu.has_value();
    if (c.pipelineSource.empty() && !any)
        return s;
    s.source = c.pipelineSource.empty() ? std::string("declared") : c.pipelineSource;
    s.strategy = c.pipelineStrategy;
    int current = 0;
    for (std::size_t layer = 0; layer < layerUnits.size(); ++layer) {
        if (auto ipu = layering.ipuOf(layerUnits[layer]))
            current = *ipu;
        if (s.ipus.empty() || s.ipus.back() != current) {
            s.layerStarts.push_back(int(layer));
            s.ipus.push_back(current);
        }
    }
    if (s.layerStarts.size() < 2)
        return DeclaredSplit{}; // everything on one IPU: nothing to pipeline
    return s;
}

Result<OpGraph> graphFromModules(const Capture& c)
{
    OpGraph g;
    g.name = c.modelClass.empty() ? std::string("model") : joinedName(c.modelClass);
    g.origin = c.origin() + ", module tree only";
    const std::int64_t batch = std::max<std::int64_t>(1, c.dryRunBatch.value_or(1));
    g.recordedBatch = batch;
    for (const auto& t : c.inputs)
        if (t.shape && !t.shape->empty()) {
            g.inputShape = Shape(t.shape->begin() + 1, t.shape->end());
            g.inputDtype = dtypeFromName(t.dtype);
            break;
        }
    const CaptureLayering layering = captureLayering(c.modules);
    std::vector<std::string> layerUnits;
    for (const auto& m : c.modules) {
        const bool hasChildren =
            std::any_of(c.modules.begin(), c.modules.end(),
                        [&](const auto& o) { return o.path != m.path && within(o.path, m.path); });
        if (hasChildren && m.params == 0)
            continue; // a container: its children are the ops
        if (m.outputs.empty() || !m.outputs.front().shape)
            continue; // never called in the step (or no tensor out)
        Op op;
        op.kind = m.shortType();
        op.modulePath = m.path;
        op.name = m.path.empty() ? op.kind : m.path;
        for (const auto& t : m.inputs)
            if (t.shape)
                op.inputShapes.push_back(*t.shape);
        op.outputShape = *m.outputs.front().shape;
        op.dtype = dtypeFromName(m.outputs.front().dtype);
        op.paramCount = m.params;
        op.paramBytes = m.paramBytes;
        std::int64_t in = 0, out = 0;
        for (const auto& t : m.inputs)
            if (t.shape)
                in += elementCount(*t.shape) * dtypeBytes(dtypeFromName(t.dtype));
        for (const auto& t : m.outputs)
            if (t.shape)
                out += elementCount(*t.shape) * dtypeBytes(dtypeFromName(t.dtype));
        op.inputBytes = in / batch;
        op.activationBytes = out / batch;
        // The weight's shape is not in the capture; rebuild what the FLOP rules read from it.
        OpShapes shapes{op.inputShapes, op.outputShape, {}};
        const std::int64_t outFeatures = op.outputShape.empty() ? 1 : op.outputShape.back();
        const std::int64_t channels = op.outputShape.size() >= 2 ? op.outputShape[1] : 1;
        if (op.kind == "Linear" && !op.inputShapes.empty() && !op.inputShapes.front().empty())
            shapes.params.push_back({outFeatures, op.inputShapes.front().back()});
        else if (op.kind.rfind("Conv", 0) == 0 && channels > 0)
            shapes.params.push_back({channels, m.params / channels});
        OpRule rule = moduleRule(op.kind, shapes);
        applyRule(op, rule, batch);
        if (!rule.known && m.params > 0) {
            const double rows = double(elementCount(op.outputShape)) /
                                double(std::max<std::int64_t>(1, outFeatures));
            op.forwardFlops = 2.0 * double(m.params) * rows / double(batch);
            op.backwardFlops = 2.0 * op.forwardFlops;
        }
        op.inputOps = {g.ops.empty() ? -1 : int(g.ops.size()) - 1};
        const std::string unit = layering.unitOf(m.path);
        if (g.layerNames.empty() || layerUnits.back() != unit) {
            g.layerNames.push_back(unit.empty() ? std::string("forward") : unit);
            layerUnits.push_back(unit);
        }
        op.layer = int(g.layerNames.size()) - 1;
        g.ops.push_back(std::move(op));
    }
    if (g.ops.empty())
        return Result<OpGraph>::fail({Severity::Error,
                                      "capture.empty",
                                      "the capture has neither a traced model (model.pt) nor "
                                      "module shapes to build a graph from",
                                      {c.file.string()}});
    Diagnostic d;
    d.severity = Severity::Warning;
    d.code = "capture.no-trace";
    d.message = "the model could not be traced" +
                (c.traceError.empty() ? std::string() : " (" + c.traceError + ")") +
                "; its graph is built from the module tree alone: one op per module, FLOPs "
                "by module type";
    d.location.file = c.file.string();
    g.diagnostics.push_back(std::move(d));
    g.declaredSplit = declaredSplit(c, layering, layerUnits);
    return Result<OpGraph>::ok(std::move(g));
}

} // namespace portolan::graph
