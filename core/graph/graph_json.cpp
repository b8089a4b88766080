#include "core/graph/graph_json.h"

#include "core/common/json.h"
#include "core/common/text.h"

namespace portolan::graph {

using nlohmann::json;

json graphToJson(const OpGraph& g, const std::vector<int>& opStage)
{
    json ops = json::array();
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        json shapes = json::array();
        for (const auto& s : op.inputShapes)
            shapes.push_back(json(s));
        json o = {{"name", op.name},
                  {"kind", op.kind},
                  {"module", op.modulePath},
                  {"layer", op.layer},
                  {"inputs", op.inputOps},
                  {"input_shapes", shapes},
                  {"output_shape", json(op.outputShape)},
                  {"dtype", dtypeName(op.dtype)},
                  {"params", op.paramCount},
                  {"param_bytes", op.paramBytes},
                  {"tied_to", op.tiedTo},
                  {"forward_flops", op.forwardFlops},
                  {"backward_flops", op.backwardFlops},
                  {"activation_bytes", op.activationBytes},
                  {"input_bytes", op.inputBytes},
                  {"extra_saved_bytes", op.extraSavedBytes},
                  {"extra_saved_scales", op.extraSavedScales},
                  {"saves_inputs", op.savesInputs},
                  {"saves_output", op.savesOutput},
                  {"aliases_input", op.aliasesInput},
                  {"location", toJson(op.location)}};
        if (!opStage.empty())
            o["stage"] = i < opStage.size() ? opStage[i] : 0;
        ops.push_back(std::move(o));
    }
    json j = {{"name", g.name},
              {"origin", g.origin},
              {"input_shape", g.inputShape},
              {"input_dtype", dtypeName(g.inputDtype)},
              {"recorded_batch", g.recordedBatch},
              {"layers", g.layerNames},
              {"first_block", g.firstBlock},
              {"block_count", g.blockCount},
              {"params", g.totalParams()},
              {"forward_flops_per_sample", g.totalForwardFlops()},
              {"ops", ops}};
    if (!g.declaredSplit.empty()) {
        j["declared_split"] = {{"source", g.declaredSplit.source},
                               {"layer_starts", g.declaredSplit.layerStarts},
                               {"ipus", g.declaredSplit.ipus}};
        if (!g.declaredSplit.strategy.empty())
            j["declared_split"]["strategy"] = g.declaredSplit.strategy;
    }
    return j;
}

SourceLocation locationFromJson(const json& j)
{
    SourceLocation l;
    if (!j.is_object())
        return l;
    // A child's document is read, not trusted: a member of another type is left out.
    const auto number = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
    };
    l.file = stringMember(j, "file");
    l.line = number("line");
    l.column = number("column");
    return l;
}

Diagnostic diagnosticFromJson(const json& d)
{
    Diagnostic diag;
    if (!d.is_object())
        return diag;
    diag.severity =
        severityFromName(stringMember(d, "severity", "error")).value_or(Severity::Error);
    diag.code = stringMember(d, "code");
    diag.message = stringMember(d, "message");
    if (const auto location = d.find("location"); location != d.end())
        diag.location = locationFromJson(*location);
    return diag;
}

OpGraph graphFromJson(const json& j, std::vector<int>* opStage)
{
    OpGraph g;
    g.name = j.at("name");
    g.origin = j.at("origin");
    g.inputShape = j.at("input_shape").get<Shape>();
    g.inputDtype = dtypeFromName(j.at("input_dtype").get<std::string>());
    g.recordedBatch = j.at("recorded_batch");
    g.layerNames = j.at("layers").get<std::vector<std::string>>();
    g.firstBlock = j.value("first_block", 0); // absent before model families
    g.blockCount = j.value("block_count", 0);
    for (const auto& o : j.at("ops")) {
        Op op;
        op.name = o.at("name");
        op.kind = o.at("kind");
        op.modulePath = o.at("module");
        op.layer = o.at("layer");
        if (opStage)
            opStage->push_back(o.value("stage", 0));
        op.inputOps = o.at("inputs").get<std::vector<int>>();
        for (const auto& s : o.at("input_shapes"))
            op.inputShapes.push_back(s.get<Shape>());
        op.outputShape = o.at("output_shape").get<Shape>();
        op.dtype = dtypeFromName(o.at("dtype").get<std::string>());
        op.paramCount = o.at("params");
        op.paramBytes = o.at("param_bytes");
        op.tiedTo = o.value("tied_to", -1);
        op.forwardFlops = o.at("forward_flops");
        op.backwardFlops = o.at("backward_flops");
        op.activationBytes = o.at("activation_bytes");
        op.inputBytes = o.at("input_bytes");
        op.extraSavedBytes = o.at("extra_saved_bytes");
        op.extraSavedScales = o.value("extra_saved_scales", false); // absent in older reports
        op.savesInputs = o.at("saves_inputs");
        op.savesOutput = o.at("saves_output");
        op.aliasesInput = o.at("aliases_input");
        op.location = locationFromJson(o.at("location"));
        g.ops.push_back(std::move(op));
    }
    if (const auto it = j.find("declared_split"); it != j.end() && it->is_object()) {
        g.declaredSplit.source = it->value("source", "");
        g.declaredSplit.strategy = it->value("strategy", "");
        g.declaredSplit.layerStarts = it->at("layer_starts").get<std::vector<int>>();
        g.declaredSplit.ipus = it->at("ipus").get<std::vector<int>>();
    }
    return g;
}

std::string graphDocument(const OpGraph& g)
{
    json diags = json::array();
    for (const auto& d : g.diagnostics)
        diags.push_back(toJson(d));
    const json doc = {{"format", kGraphDocumentFormat},
                      {"version", kGraphDocumentVersion},
                      {"graph", graphToJson(g)},
                      {"diagnostics", diags}};
    return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string errorDocument(const Diagnostic& error)
{
    const json doc = {{"format", kGraphDocumentFormat},
                      {"version", kGraphDocumentVersion},
                      {"error", toJson(error)}};
    return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<OpGraph> parseGraphDocument(std::string_view text, const std::string& source)
{
    const auto fail = [&](const std::string& message, SourceLocation where = {}) {
        if (where.file.empty())
            where.file = source;
        return Result<OpGraph>::fail({Severity::Error, "graph.document", message, where});
    };
    json doc;
    if (const auto bad = parseJson(text, doc))
        return fail(text.empty() ? "no op graph was written"
                                 : "the op graph is not valid JSON: " + bad->message,
                    {source, text.empty() ? 0 : bad->at.line, text.empty() ? 0 : bad->at.column});
    if (stringMember(doc, "format") != kGraphDocumentFormat)
        return fail("not a Portolan op graph document (no \"format\": \"portolan-op-graph\")");
    if (!doc["version"].is_number_integer() || doc["version"].get<int>() != kGraphDocumentVersion)
        return fail("op graph document version " + doc["version"].dump() +
                    " is not supported (this Portolan reads version " +
                    std::to_string(kGraphDocumentVersion) + ")");
    if (const auto it = doc.find("error"); it != doc.end() && !it->is_null())
        return Result<OpGraph>::fail(diagnosticFromJson(*it));
    try {
        OpGraph g = graphFromJson(doc.at("graph"));
        if (const auto it = doc.find("diagnostics"); it != doc.end() && it->is_array())
            for (const auto& d : *it)
                g.diagnostics.push_back(diagnosticFromJson(d));
        return Result<OpGraph>::ok(std::move(g));
    } catch (const std::exception& e) {
        return fail(std::string("malformed op graph: ") + e.what());
    }
}

} // namespace portolan::graph
