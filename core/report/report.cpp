#include "core/report/report.h"

#include "core/common/atomic_file.h"
#include "core/common/json.h"
#include "core/common/text.h"
#include "core/graph/graph_json.h"
#include "core/report/fast_parse.h"

#include <algorithm>

namespace portolan::report {

using nlohmann::json;
using namespace portolan::sim;

namespace {

json memoryJson(const MemoryBreakdown& m)
{
    return {{"weights", m.weights},
            {"gradients", m.gradients},
            {"grad_accumulators", m.gradAccumulators},
            {"optimizer_state", m.optimizerState},
            {"master_weights", m.masterWeights},
            {"stashed_activations", m.stashedActivations},
            {"temporaries", m.temporaries},
            {"total", m.total()}};
}

MemoryBreakdown memoryFrom(const json& j)
{
    MemoryBreakdown m;
    m.weights = j.at("weights");
    m.gradients = j.at("gradients");
    m.gradAccumulators = j.at("grad_accumulators");
    m.optimizerState = j.at("optimizer_state");
    m.masterWeights = j.at("master_weights");
    m.stashedActivations = j.at("stashed_activations");
    m.temporaries = j.at("temporaries");
    return m;
}

json optionsJson(const CompileOptions& o)
{
    const auto& t = o.training;
    return {{"target", o.target},
            {"ipus", o.ipus},
            {"micro_batch", t.microBatch},
            {"grad_accum", t.gradAccum},
            {"replicas", t.replicas},
            {"precision", precisionName(t.precision)},
            {"optimizer", optimizerName(t.optimizer)},
            {"recompute", t.recompute},
            {"optimizer_off_chip", t.optimizerOffChip},
            {"schedule", scheduleName(t.schedule)},
            {"split", o.split},
            {"cs_mode", o.csMode},
            {"inference", t.inference},
            {"available_memory_proportion", t.availableMemoryProportion},
            {"half_partials", t.halfPartials},
            {"replicated_tensor_sharding", t.replicatedTensorSharding},
            {"first_order_momentum", momentumTypeName(t.halfFirstOrderMomentum)},
            {"serialization_factor", t.serializationFactor},
            {"io_tiles", t.ioTiles},
            {"available_memory_proportion_per_stage", t.availableMemoryProportionPerStage},
            {"recompute_per_stage", t.recomputePerStage},
            {"device_iterations", o.deviceIterations}};
}

CompileOptions optionsFrom(const json& j)
{
    CompileOptions o;
    o.target = j.at("target");
    o.ipus = j.at("ipus");
    auto& t = o.training;
    t.microBatch = j.at("micro_batch");
    t.gradAccum = j.at("grad_accum");
    t.replicas = j.at("replicas");
    t.precision = precisionFromName(j.at("precision").get<std::string>()).value_or(Precision::Fp32);
    t.optimizer = optimizerFromName(j.at("optimizer").get<std::string>()).value_or(Optimizer::Sgd);
    t.recompute = j.at("recompute");
    t.optimizerOffChip = j.at("optimizer_off_chip");
    t.schedule = scheduleFromName(j.at("schedule").get<std::string>()).value_or(Schedule::OneFOneB);
    o.split = j.at("split").get<std::vector<int>>();
    o.csMode = j.at("cs_mode");
    // Poplar options and inference (absent in older reports: the defaults).
    t.inference = j.value("inference", false);
    t.availableMemoryProportion = j.value("available_memory_proportion", 0.6);
    t.halfPartials = j.value("half_partials", false);
    t.replicatedTensorSharding = j.value("replicated_tensor_sharding", false);
    t.halfFirstOrderMomentum =
        momentumTypeFromName(j.value("first_order_momentum", std::string("fp32"))).value_or(false);
    t.serializationFactor = j.value("serialization_factor", 1);
    t.ioTiles = j.value("io_tiles", 0);
    t.availableMemoryProportionPerStage =
        j.value("available_memory_proportion_per_stage", std::vector<double>{});
    t.recomputePerStage = j.value("recompute_per_stage", std::vector<int>{});
    o.deviceIterations = j.value("device_iterations", 1); // absent in older reports
    return o;
}

json ipuJson(const IpuProfile& p)
{
    json tiles;
    for (int c = 0; c < kMemoryCategories; ++c)
        tiles[memoryCategoryName(MemoryCategory(c))] = p.tileBytes[std::size_t(c)];
    // Variables as parallel arrays ("columns"): a report of 1 M variables stays small and loads
    // fast, and a view can build per-tile lists from tile ranges without copying.
    json vars = {{"name", json::array()},
                 {"kind", json::array()},
                 {"always_live", json::array()},
                 {"stage", json::array()},
                 {"op", json::array()},
                 {"bytes", json::array()},
                 {"first_tile", json::array()},
                 {"tile_count", json::array()},
                 {"bytes_per_tile", json::array()},
                 {"live_from", json::array()},
                 {"live_to", json::array()}};
    for (const auto& v : p.variables) {
        vars["name"].push_back(v.name);
        vars["kind"].push_back(v.kind);
        vars["always_live"].push_back(v.alwaysLive);
        vars["stage"].push_back(v.stage);
        vars["op"].push_back(v.op);
        vars["bytes"].push_back(v.bytes);
        vars["first_tile"].push_back(v.firstTile);
        vars["tile_count"].push_back(v.tileCount);
        vars["bytes_per_tile"].push_back(v.bytesPerTile);
        vars["live_from"].push_back(v.liveFrom);
        vars["live_to"].push_back(v.liveTo);
    }
    json steps = json::array();
    for (const auto& s : p.steps)
        steps.push_back({{"name", s.name},
                         {"phase", s.phase},
                         {"stage", s.stage},
                         {"op", s.op},
                         {"always_live", s.alwaysLiveBytes},
                         {"not_always_live", s.notAlwaysLiveBytes}});
    json stages = json::array();
    for (const auto& s : p.stages)
        stages.push_back({{"index", s.index},
                          {"ipu", s.ipu},
                          {"first_op", s.firstOp},
                          {"end_op", s.endOp},
                          {"first_layer", s.firstLayer},
                          {"end_layer", s.endLayer},
                          {"flops", s.flops},
                          {"compute_cycles", s.computeCycles},
                          {"exchange_cycles", s.exchangeCycles},
                          {"link_cycles", s.linkCycles},
                          {"forward_seconds", s.forwardSeconds},
                          {"backward_seconds", s.backwardSeconds},
                          {"memory", memoryJson(s.memory)},
                          {"used_bytes", s.usedBytes},
                          {"max_tile_bytes", s.maxTileBytes},
                          {"oom_tiles", s.oomTiles}});
    json schedule = json::array();
    for (const auto& e : p.schedule)
        schedule.push_back({e.stage, e.microBatch, e.backward ? 1 : 0, e.start, e.end});
    return {{"ipus_per_replica", p.ipusPerReplica},
            {"tiles_per_ipu", p.tilesPerIpu},
            {"tile_capacity", p.tileCapacity},
            {"system", p.systemName},
            {"split_source", p.splitSource},
            {"split_unit", p.splitUnit},
            {"io_tiles_per_ipu", p.ioTilesPerIpu},
            {"bubble", p.bubble},
            {"step_seconds", p.stepSeconds},
            {"samples_per_second", p.samplesPerSecond},
            {"balance", p.balance},
            {"oom_tiles", p.oomTiles},
            {"max_tile_bytes", p.maxTileBytes},
            {"total_bytes", p.totalBytes},
            {"tile_bytes", tiles},
            {"variables", vars},
            {"steps", steps},
            {"stages", stages},
            {"schedule", schedule}};
}

IpuProfile ipuFrom(const json& j, detail::IpuColumns* columns)
{
    IpuProfile p;
    p.ipusPerReplica = j.at("ipus_per_replica");
    p.tilesPerIpu = j.at("tiles_per_ipu");
    p.tileCapacity = j.at("tile_capacity");
    p.systemName = j.at("system");
    p.splitSource = j.at("split_source");
    p.splitUnit = j.value("split_unit", "");
    p.ioTilesPerIpu = j.value("io_tiles_per_ipu", 0);
    p.bubble = j.at("bubble");
    p.stepSeconds = j.at("step_seconds");
    p.samplesPerSecond = j.at("samples_per_second");
    p.balance = j.at("balance");
    p.oomTiles = j.at("oom_tiles");
    p.maxTileBytes = j.at("max_tile_bytes");
    p.totalBytes = j.at("total_bytes");
    const std::size_t tiles = std::size_t(p.tilesPerIpu) * std::size_t(p.ipusPerReplica);
    const bool parsed = columns && columns->present; // by the fast path, already
    for (int c = 0; c < kMemoryCategories; ++c) {
        p.tileBytes[std::size_t(c)] = parsed ? std::move(columns->tileBytes[std::size_t(c)])
                                             : j.at("tile_bytes")
                                                   .at(memoryCategoryName(MemoryCategory(c)))
                                                   .get<std::vector<std::int64_t>>();
        if (p.tileBytes[std::size_t(c)].size() != tiles)
            throw std::runtime_error(std::string("tile_bytes.") +
                                     memoryCategoryName(MemoryCategory(c)) + " has " +
                                     std::to_string(p.tileBytes[std::size_t(c)].size()) +
                                     " tiles, expected " + std::to_string(tiles));
    }
    if (parsed) {
        p.variables = std::move(columns->variables);
    } else {
        const json& v = j.at("variables");
        const std::size_t n = v.at("name").size();
        for (const char* col : {"kind", "always_live", "stage", "op", "bytes", "first_tile",
                                "tile_count", "bytes_per_tile", "live_from", "live_to"})
            if (v.at(col).size() != n)
                throw std::runtime_error(std::string("variables.") + col +
                                         " has a different length");
        p.variables.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            auto& x = p.variables[i];
            x.name = v["name"][i];
            x.kind = v["kind"][i];
            x.alwaysLive = v["always_live"][i];
            x.stage = v["stage"][i];
            x.op = v["op"][i];
            x.bytes = v["bytes"][i];
            x.firstTile = v["first_tile"][i];
            x.tileCount = v["tile_count"][i];
            x.bytesPerTile = v["bytes_per_tile"][i];
            x.liveFrom = v["live_from"][i];
            x.liveTo = v["live_to"][i];
        }
    }
    for (const auto& s : j.at("steps"))
        p.steps.push_back({s.at("name"), s.at("phase"), s.at("stage"), s.at("op"),
                           s.at("always_live"), s.at("not_always_live")});
    for (const auto& s : j.at("stages")) {
        StageProfile st;
        st.index = s.at("index");
        st.ipu = s.at("ipu");
        st.firstOp = s.at("first_op");
        st.endOp = s.at("end_op");
        st.firstLayer = s.at("first_layer");
        st.endLayer = s.at("end_layer");
        st.flops = s.at("flops");
        st.computeCycles = s.at("compute_cycles");
        st.exchangeCycles = s.at("exchange_cycles");
        st.linkCycles = s.at("link_cycles");
        st.forwardSeconds = s.at("forward_seconds");
        st.backwardSeconds = s.at("backward_seconds");
        st.memory = memoryFrom(s.at("memory"));
        st.usedBytes = s.at("used_bytes");
        st.maxTileBytes = s.at("max_tile_bytes");
        st.oomTiles = s.at("oom_tiles");
        p.stages.push_back(st);
    }
    for (const auto& e : j.at("schedule"))
        p.schedule.push_back({e.at(0), e.at(1), e.at(2).get<int>() != 0, e.at(3), e.at(4)});
    return p;
}

json csJson(const CsProfile& p)
{
    json kernels = json::array();
    for (const auto& k : p.kernels)
        kernels.push_back({{"name", k.name},
                           {"first_op", k.firstOp},
                           {"end_op", k.endOp},
                           {"x", k.x},
                           {"y", k.y},
                           {"width", k.width},
                           {"height", k.height},
                           {"active_pes", k.activePes},
                           {"memory_bytes", k.memoryBytes},
                           {"capacity_bytes", k.capacityBytes},
                           {"flops_per_sample", k.flopsPerSample},
                           {"samples_per_second", k.samplesPerSecond},
                           {"compute_samples_per_second", k.computeSamplesPerSecond},
                           {"transmission_samples_per_second", k.transmissionSamplesPerSecond},
                           {"utilisation", k.utilisation},
                           {"fits", k.fits}});
    return {{"mode", p.mode},
            {"mode_reason", p.modeReason},
            {"grid_width", p.gridWidth},
            {"grid_height", p.gridHeight},
            {"samples_per_second", p.samplesPerSecond},
            {"on_wafer_bytes", p.onWaferBytes},
            {"sram_bytes", p.sramBytes},
            {"streamed_bytes", p.streamedBytes},
            {"micro_batch", p.microBatch},
            {"bottleneck", p.bottleneck},
            {"kernels", kernels}};
}

CsProfile csFrom(const json& j)
{
    CsProfile p;
    p.mode = j.at("mode");
    p.modeReason = j.at("mode_reason");
    p.gridWidth = j.at("grid_width");
    p.gridHeight = j.at("grid_height");
    p.samplesPerSecond = j.at("samples_per_second");
    p.onWaferBytes = j.at("on_wafer_bytes");
    p.sramBytes = j.at("sram_bytes");
    p.streamedBytes = j.at("streamed_bytes");
    p.microBatch = j.value("micro_batch", std::int64_t(0));
    p.bottleneck = j.at("bottleneck");
    for (const auto& k : j.at("kernels")) {
        CsKernel c;
        c.name = k.at("name");
        c.firstOp = k.at("first_op");
        c.endOp = k.at("end_op");
        c.x = k.at("x");
        c.y = k.at("y");
        c.width = k.at("width");
        c.height = k.at("height");
        c.activePes = k.at("active_pes");
        c.memoryBytes = k.at("memory_bytes");
        c.capacityBytes = k.at("capacity_bytes");
        c.flopsPerSample = k.at("flops_per_sample");
        c.samplesPerSecond = k.at("samples_per_second");
        c.computeSamplesPerSecond = k.at("compute_samples_per_second");
        c.transmissionSamplesPerSecond = k.at("transmission_samples_per_second");
        c.utilisation = k.at("utilisation");
        c.fits = k.at("fits");
        p.kernels.push_back(std::move(c));
    }
    return p;
}

} // namespace

namespace {

json projectSplitJson(const std::optional<ProjectSplit>& p)
{
    if (!p)
        return nullptr;
    return {{"source", p->source},
            {"strategy", p->strategy},
            {"layers_per_stage", p->layersPerStage},
            {"ipus", p->ipus},
            {"ipu_count", p->ipuCount},
            {"device_iterations", p->deviceIterations},
            {"gradient_accumulation", p->gradAccum},
            {"micro_batch", p->microBatch},
            {"replicas", p->replicas},
            {"error", p->error},
            {"fits", p->fits},
            {"max_tile_bytes", p->maxTileBytes},
            {"oom_tiles", p->oomTiles},
            {"step_seconds", p->stepSeconds},
            {"samples_per_second", p->samplesPerSecond},
            {"balance", p->balance},
            {"bubble", p->bubble}};
}

json modelFamilyJson(const std::optional<ModelFamilyNotes>& m)
{
    if (!m)
        return nullptr;
    return {{"family", m->family},     {"architecture", m->architecture},
            {"inferred", m->inferred}, {"reason", m->reason},
            {"layout", m->layout},     {"params", m->params},
            {"notes", m->notes}};
}

std::optional<ModelFamilyNotes> modelFamilyFrom(const json& j)
{
    if (!j.is_object())
        return std::nullopt;
    ModelFamilyNotes m;
    m.family = j.at("family").get<std::string>();
    m.architecture = j.value("architecture", "");
    m.inferred = j.value("inferred", false);
    m.reason = j.value("reason", "");
    m.layout = j.value("layout", "");
    m.params = j.value("params", "");
    if (const auto it = j.find("notes"); it != j.end())
        m.notes = it->get<std::vector<std::string>>();
    return m;
}

std::optional<ProjectSplit> projectSplitFrom(const json& j)
{
    if (!j.is_object())
        return std::nullopt;
    ProjectSplit p;
    p.source = j.value("source", "");
    p.layersPerStage = j.at("layers_per_stage").get<std::vector<int>>();
    p.ipus = j.at("ipus").get<std::vector<int>>();
    // Absent in older reports: what the stages say, and the defaults.
    p.strategy = j.value("strategy", "");
    p.ipuCount = j.value("ipu_count",
                         p.ipus.empty() ? 0 : *std::max_element(p.ipus.begin(), p.ipus.end()) + 1);
    p.deviceIterations = j.value("device_iterations", 1);
    p.gradAccum = j.value("gradient_accumulation", 1);
    p.microBatch = j.value("micro_batch", 1);
    p.replicas = j.value("replicas", 1);
    p.error = j.value("error", "");
    p.fits = j.value("fits", false);
    p.maxTileBytes = j.value("max_tile_bytes", std::int64_t(0));
    p.oomTiles = j.value("oom_tiles", 0);
    p.stepSeconds = j.value("step_seconds", 0.0);
    p.samplesPerSecond = j.value("samples_per_second", 0.0);
    p.balance = j.value("balance", 1.0);
    p.bubble = j.value("bubble", 0.0);
    return p;
}

} // namespace

json toJson(const CompileResult& r)
{
    json advice = json::array();
    for (const auto& a : r.advice)
        advice.push_back({{"id", a.id},
                          {"description", a.description},
                          {"bytes_saved", a.bytesSaved},
                          {"peak_bytes_after", a.peakBytesAfter},
                          {"fits_after", a.fitsAfter},
                          {"samples_per_second_after", a.samplesPerSecondAfter}});
    json diags = json::array();
    for (const auto& d : r.diagnostics)
        diags.push_back(portolan::toJson(d));
    json j = {
        {"schema_version", kSchemaVersion},
        {"generator", "portolan"},
        {"target", {{"id", r.options.target}, {"name", r.targetName}, {"kind", r.targetKind}}},
        {"options", optionsJson(r.options)},
        {"fits", r.fits},
        {"peak_bytes", r.peakBytes},
        {"capacity_bytes", r.capacityBytes},
        {"samples_per_second", r.samplesPerSecond},
        {"compile_milliseconds", r.compileMilliseconds},
        {"memory", memoryJson(r.memory)},
        {"graph",
         graph::graphToJson(r.graph, r.opStage.empty() ? std::vector<int>(r.graph.ops.size(), 0)
                                                       : r.opStage)},
        {"advice", advice},
        {"project_split", projectSplitJson(r.projectSplit)},
        {"model_family", modelFamilyJson(r.modelFamily)},
        {"diagnostics", diags},
        {"ipu", r.ipu ? ipuJson(*r.ipu) : json(nullptr)},
        {"cs", r.cs ? csJson(*r.cs) : json(nullptr)}};
    return j;
}

namespace {

Result<CompileResult> fromJson(const json& j, const std::string& file, detail::IpuColumns* columns)
{
    const auto fail = [&](const std::string& msg) {
        return Result<CompileResult>::fail({Severity::Error, "report.invalid", msg, {file, 0, 0}});
    };
    if (!j.is_object() || !j.contains("schema_version"))
        return fail("not a Portolan compile report (no schema_version)");
    if (!j["schema_version"].is_number_integer() ||
        j["schema_version"].get<int>() != kSchemaVersion)
        return fail("report schema version " + j["schema_version"].dump() +
                    " is not supported (this Portolan reads version " +
                    std::to_string(kSchemaVersion) + ")");
    try {
        CompileResult r;
        r.options = optionsFrom(j.at("options"));
        r.targetName = j.at("target").at("name");
        r.targetKind = j.at("target").at("kind");
        r.fits = j.at("fits");
        r.peakBytes = j.at("peak_bytes");
        r.capacityBytes = j.at("capacity_bytes");
        r.samplesPerSecond = j.at("samples_per_second");
        r.compileMilliseconds = j.at("compile_milliseconds");
        r.memory = memoryFrom(j.at("memory"));
        r.graph = graph::graphFromJson(j.at("graph"), &r.opStage);
        for (const auto& a : j.at("advice"))
            r.advice.push_back({a.at("id"), a.at("description"), a.at("bytes_saved"),
                                a.at("peak_bytes_after"), a.at("fits_after"),
                                a.at("samples_per_second_after")});
        if (const auto it = j.find("project_split"); it != j.end()) // absent in older reports
            r.projectSplit = projectSplitFrom(*it);
        if (const auto it = j.find("model_family"); it != j.end()) // absent in older reports
            r.modelFamily = modelFamilyFrom(*it);
        for (const auto& d : j.at("diagnostics"))
            r.diagnostics.push_back(graph::diagnosticFromJson(d));
        if (!j.at("ipu").is_null())
            r.ipu = ipuFrom(j.at("ipu"), columns);
        if (!j.at("cs").is_null())
            r.cs = csFrom(j.at("cs"));
        return Result<CompileResult>::ok(std::move(r));
    } catch (const std::exception& e) {
        return fail(std::string("malformed report: ") + e.what());
    }
}

} // namespace

Result<CompileResult> fromJson(const json& j, const std::string& file)
{
    return fromJson(j, file, nullptr);
}

std::optional<Diagnostic> saveReport(const std::filesystem::path& file, const CompileResult& r)
{
    return writeFileAtomically(file, toJson(r).dump() + "\n");
}

Result<CompileResult> loadReport(const std::filesystem::path& file)
{
    auto text = readFile(file, detail::kParsePadding);
    if (!text)
        return Result<CompileResult>::fail(text.error);
    detail::IpuColumns columns;
    try {
        if (auto fast = detail::parseFast(*text.value, columns))
            return fromJson(*fast, file.string(), &columns);
    } catch (const std::exception& e) {
        return Result<CompileResult>::fail({Severity::Error,
                                            "report.invalid",
                                            std::string("malformed report: ") + e.what(),
                                            {file.string(), 0, 0}});
    }
    // simdjson rejected the text: nlohmann's parser says where.
    json j;
    if (const auto bad = parseJson(*text.value, j))
        return Result<CompileResult>::fail(
            {Severity::Error,
             "report.corrupt",
             (bad->truncated ? std::string("the report is truncated: ")
                             : std::string("the report is not valid JSON: ")) +
                 bad->message,
             {file.string(), bad->at.line, bad->at.column}});
    return fromJson(j, file.string());
}

} // namespace portolan::report
