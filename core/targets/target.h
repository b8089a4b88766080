#pragma once

// Hardware targets as data (resources/targets/*.yaml, docs/ARCHITECTURE.md, Simulated compilation).
// Every figure comes from the YAML file, whose comments give the public source.

#include "core/common/diagnostic.h"

#include <filesystem>
#include <string>
#include <vector>

namespace portolan::targets {

enum class TargetKind
{
    Ipu,
    Cs
};

struct IpuFigures
{
    int tiles = 0;                    // per IPU
    std::int64_t tileMemoryBytes = 0; // SRAM per tile
    int threadsPerTile = 6;
    double clockHz = 0;
    double fp32Flops = 0; // per IPU, peak
    double fp16Flops = 0;
    double exchangeBytesPerSec = 0;  // in-IPU exchange
    double interIpuBytesPerSec = 0;  // between IPUs of one system
    double ipuLinkBytesPerSec = 0;   // all IPU-Links of one IPU together
    double streamingMemoryBytes = 0; // per IPU (off-chip, for state kept off chip)
    // The system has streaming memory at all (IPU-M2000 on; the Mk1's C2 cards had none): only
    // then can optimizer state be kept off chip. `streaming_memory` in the file, else whether
    // it gives streaming_memory_bytes.
    bool streamingMemory = false;
};

struct CsFigures
{
    std::int64_t cores = 0;
    int gridWidth = 0;
    int gridHeight = 0;
    double sramBytes = 0;
    double memoryBytesPerSec = 0;
    double fabricBitsPerSec = 0;
    double clockHz = 0;
    double fp16Flops = 0;
    double externalMemoryBytes = 0; // off-wafer weight store (MemoryX)
    double externalBytesPerSec = 0;
    // Layer-pipelined execution holds models up to this many parameters (0: no published limit);
    // larger ones run in weight-streaming mode only.
    double layerPipelinedMaxParams = 0;
    std::string layerPipelinedSource; // where the limit is published
};

struct Target
{
    std::string id;   // file stem, "ipu-mk2"
    std::string name; // for people
    TargetKind kind = TargetKind::Ipu;
    IpuFigures ipu;
    CsFigures cs;
    std::filesystem::path file;
};

struct IpuSystem
{
    int ipus = 1;
    std::string name;
};

// Loads one target file; errors carry file:line:column of the offending key or value.
Result<Target> loadTargetFile(const std::filesystem::path& file);
// Loads resources/targets/<id>.yaml; an unknown id lists the known ones.
Result<Target> loadTarget(const std::string& id);
// The ids of every target file in resources/targets (sorted).
std::vector<std::string> targetIds();
// IPU system sizes (resources/targets/ipu-systems.yaml).
Result<std::vector<IpuSystem>> loadIpuSystems();
// The name of a system of `ipus` IPUs ("IPU-POD16"), or "N IPUs".
std::string ipuSystemName(const std::vector<IpuSystem>& systems, int ipus);

} // namespace portolan::targets
