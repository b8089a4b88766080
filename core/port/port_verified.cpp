#include "core/port/port_verified.h"

#include "core/port/data_files.h"

#include <chrono>
#include <fstream>

namespace portolan::port {

namespace fs = std::filesystem;

std::optional<Diagnostic> rewritePort(const PortResult& port, const fs::path& out)
{
    std::error_code ec;
    for (const auto& f : port.files) {
        const fs::path p = out / f.path;
        fs::create_directories(p.parent_path(), ec);
        std::ofstream s(p, std::ios::binary | std::ios::trunc);
        s << f.text;
        if (!s) {
            Diagnostic d;
            d.code = "port.output";
            d.location.file = p.string();
            d.message = "cannot write " + p.string();
            return d;
        }
    }
    return std::nullopt;
}

PortRun portWithVerification(const analysis::ProjectAnalysis& analysis, const PortRequest& request)
{
    PortRun run;
    const auto values = argumentValues(request.args, analysis.facts().flags);
    const auto t0 = std::chrono::steady_clock::now();
    PortOptions options = request.options;
    options.values = values;
    run.plan = planPort(analysis, options);
    const double planMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!run.plan)
        return run;
    PortPlan& plan = *run.plan.value;
    VerifyOptions vo = request.verifyOptions;
    vo.originalArgs = request.args;
    // The original's dry run before generation: the port is written from what it observed.
    std::optional<OriginalRun> original;
    std::string dataSetNote;
    if (request.verify) {
        original = runOriginal(request.project, plan, vo);
        plan.train.observedSamples = original->trainSamples;
        plan.train.observedSynthetic = original->trainSamplesSynthetic;
        dataSetNote = addFilesRead(request.project, original->filesRead, plan.dataFiles);
        vo.original = &*original;
    }
    std::error_code ec;
    const auto dropRecord = [&] {
        if (original)
            fs::remove_all(original->workDir, ec);
    };
    run.port = generatePort(plan, request.target, request.api, values);
    if (!run.port) {
        dropRecord();
        return run;
    }
    run.port.value->planMs = planMs;
    if (!dataSetNote.empty())
        run.port.value->notes.push_back(dataSetNote);
    run.writeError = request.replaceFiles ? rewritePort(*run.port.value, request.out)
                                          : writePort(*run.port.value, request.out);
    if (run.writeError) {
        dropRecord();
        return run;
    }
    // The check, the port's dry run and the replay; a cancelled original's run stops there
    // (verifyPort removes its record).
    if (request.verify)
        run.verify = verifyPort(request.project, request.out, *run.port.value, vo);
    return run;
}

} // namespace portolan::port
