#pragma once

// A port with its verification in the one order that the CLI's `port --verify` and the GUI's
// Verify share: the plan, the original's dry run (what it observed, the samples of an epoch,
// goes into the port: Determined's records_per_epoch, a Cerebras schedule in steps), the
// generation, the files written, then the check, the port's dry run and the replay
// (verifyPort). Without verification: plan, generate, write.

#include "core/port/generate.h"

#include <optional>

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::port {

struct PortRequest
{
    std::filesystem::path project; // the original, never written
    std::filesystem::path out;     // where the port goes
    std::string target;            // guide id
    std::string api;               // Cerebras generation API, "" for the target's default
    PortOptions options;           // entry, model, loss; `values` are set from `args`
    std::vector<std::string> args; // the original's command-line values (after `--`)
    bool verify = false;
    // `out` holds an earlier port of the same plan (the GUI writes one before Verify): its
    // files are written over instead of refusing a folder that is not empty.
    bool replaceFiles = false;
    VerifyOptions verifyOptions; // originalArgs and original are set from the request
};

struct PortRun
{
    Result<PortPlan> plan;
    Result<PortResult> port; // unset when the plan failed
    std::optional<Diagnostic> writeError;
    std::optional<VerifyResult> verify; // set when verified (cancelled included)
};

PortRun portWithVerification(const analysis::ProjectAnalysis& analysis, const PortRequest& request);

// Writes the port's files under `out`, over the files of an earlier port there.
std::optional<Diagnostic> rewritePort(const PortResult& port, const std::filesystem::path& out);

} // namespace portolan::port
