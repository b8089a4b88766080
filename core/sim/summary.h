#pragma once

// One summary of a simulated compilation, in words and table rows: the CLI prints it and the
// Summary page shows it, so both say the same thing the same way.

#include "core/sim/profile.h"

#include <string>
#include <vector>

namespace portolan::sim {

struct CompileSummary
{
    bool fits = false;
    std::string headline;                 // "FITS: peak 512 KiB of 624 KiB per tile (18% margin)"
    double margin = 0;                    // (capacity - peak) / capacity; negative when over
    std::vector<std::string> lines;       // model, target, training, memory, pipeline or CS mode
    std::vector<std::string> tableHeader; // stages (IPU) or kernels (CS)
    std::vector<std::vector<std::string>> table; // at most `maxRows` rows
    std::size_t tableRowsOmitted = 0;
    std::vector<std::string> advice; // "fits   recompute: ...; saves 1 MiB on the fullest tile"
    std::vector<std::string> diagnostics; // "file:line: warning: ..."
    std::string timing;                   // "Compiled in 12.3 ms"
};

CompileSummary summarize(const CompileResult& r, std::size_t maxRows = 40);

// "The project's split (poptorch.BeginBlock): layers per stage 2,3 on IPUs 0,1: fits, ...": the
// split the project declares, simulated beside the automatic one.
std::string projectSplitLine(const ProjectSplit& p);

} // namespace portolan::sim
