#include "core/targets/target.h"

#include "core/common/resources.h"

#include <algorithm>
#include <cmath>
#include <yaml-cpp/yaml.h>

namespace portolan::targets {

namespace fs = std::filesystem;

namespace {

struct LoadError
{
    Diagnostic diagnostic;
};

SourceLocation at(const fs::path& file, const YAML::Mark& mark)
{
    // yaml-cpp marks are 0-based; -1 when unknown.
    if (mark.line < 0)
        return {file.string(), 0, 0};
    return {file.string(), mark.line + 1, mark.column + 1};
}

[[noreturn]] void fail(const fs::path& file, const YAML::Mark& mark, const std::string& message)
{
    throw LoadError{{Severity::Error, "target.invalid", message, at(file, mark)}};
}

const YAML::Node required(const fs::path& file, const YAML::Node& map, const char* key)
{
    const YAML::Node v = map[key];
    if (!v)
        fail(file, map.Mark(), std::string("missing key '") + key + "'");
    return v;
}

double number(const fs::path& file, const YAML::Node& map, const char* key, bool positive = true)
{
    const YAML::Node v = required(file, map, key);
    double d = 0;
    try {
        d = v.as<double>();
    } catch (const YAML::Exception&) {
        fail(file, v.Mark(), std::string("'") + key + "' must be a number");
    }
    if (!std::isfinite(d) || d < 0 || (positive && d == 0))
        fail(file, v.Mark(), std::string("'") + key + "' must be a positive number");
    return d;
}

double optionalNumber(const fs::path& file, const YAML::Node& map, const char* key, double dflt)
{
    return map[key] ? number(file, map, key, false) : dflt;
}

bool optionalFlag(const fs::path& file, const YAML::Node& map, const char* key, bool dflt)
{
    const YAML::Node v = map[key];
    if (!v)
        return dflt;
    try {
        return v.as<bool>();
    } catch (const YAML::Exception&) {
        fail(file, v.Mark(), std::string("'") + key + "' must be true or false");
    }
}

std::string text(const fs::path& file, const YAML::Node& map, const char* key)
{
    const YAML::Node v = required(file, map, key);
    if (!v.IsScalar())
        fail(file, v.Mark(), std::string("'") + key + "' must be text");
    return v.as<std::string>();
}

Target parse(const fs::path& file, const YAML::Node& root)
{
    if (!root.IsMap())
        fail(file, root.Mark(), "a target file must be a mapping");
    Target t;
    t.file = file;
    t.id = text(file, root, "id");
    t.name = text(file, root, "name");
    const std::string kind = text(file, root, "kind");
    if (kind == "ipu") {
        t.kind = TargetKind::Ipu;
        const YAML::Node m = required(file, root, "ipu");
        if (!m.IsMap())
            fail(file, m.Mark(), "'ipu' must be a mapping");
        t.ipu.tiles = int(number(file, m, "tiles"));
        t.ipu.tileMemoryBytes = std::int64_t(number(file, m, "tile_memory_bytes"));
        t.ipu.threadsPerTile = int(number(file, m, "threads_per_tile"));
        t.ipu.clockHz = number(file, m, "clock_hz");
        t.ipu.fp32Flops = number(file, m, "fp32_flops");
        t.ipu.fp16Flops = number(file, m, "fp16_flops");
        t.ipu.exchangeBytesPerSec = number(file, m, "exchange_bytes_per_s");
        t.ipu.ipuLinkBytesPerSec = number(file, m, "ipu_link_bytes_per_s");
        t.ipu.interIpuBytesPerSec =
            optionalNumber(file, m, "inter_ipu_bytes_per_s", t.ipu.ipuLinkBytesPerSec);
        t.ipu.streamingMemoryBytes = optionalNumber(file, m, "streaming_memory_bytes", 0);
        t.ipu.streamingMemory =
            optionalFlag(file, m, "streaming_memory", t.ipu.streamingMemoryBytes > 0);
        if (t.ipu.streamingMemory && t.ipu.streamingMemoryBytes <= 0)
            fail(file, m["streaming_memory"].Mark(),
                 "'streaming_memory: true' needs streaming_memory_bytes");
    } else if (kind == "cs") {
        t.kind = TargetKind::Cs;
        const YAML::Node m = required(file, root, "cs");
        if (!m.IsMap())
            fail(file, m.Mark(), "'cs' must be a mapping");
        t.cs.cores = std::int64_t(number(file, m, "cores"));
        t.cs.gridWidth = int(number(file, m, "grid_width"));
        t.cs.gridHeight = int(number(file, m, "grid_height"));
        if (double(t.cs.gridWidth) * t.cs.gridHeight < 0.9 * double(t.cs.cores) ||
            double(t.cs.gridWidth) * t.cs.gridHeight > 1.1 * double(t.cs.cores))
            fail(file, m["grid_width"].Mark(),
                 "grid_width x grid_height must be within 10% of 'cores'");
        t.cs.sramBytes = number(file, m, "sram_bytes");
        t.cs.memoryBytesPerSec = number(file, m, "memory_bytes_per_s");
        t.cs.fabricBitsPerSec = number(file, m, "fabric_bits_per_s");
        t.cs.clockHz = number(file, m, "clock_hz");
        t.cs.fp16Flops = number(file, m, "fp16_flops");
        t.cs.externalMemoryBytes = number(file, m, "external_memory_bytes");
        t.cs.externalBytesPerSec = number(file, m, "external_bytes_per_s");
        if (const YAML::Node lp = m["layer_pipelined"]) {
            if (!lp.IsMap())
                fail(file, lp.Mark(), "'layer_pipelined' must be a mapping");
            t.cs.layerPipelinedMaxParams = number(file, lp, "max_params");
            t.cs.layerPipelinedSource = text(file, lp, "source");
        }
    } else {
        fail(file, root["kind"].Mark(), "'kind' must be 'ipu' or 'cs', not '" + kind + "'");
    }
    return t;
}

fs::path targetsDir()
{
    return resourcesDir() / "targets";
}

} // namespace

Result<Target> loadTargetFile(const fs::path& file)
{
    try {
        const YAML::Node root = YAML::LoadFile(file.string());
        return Result<Target>::ok(parse(file, root));
    } catch (const LoadError& e) {
        return Result<Target>::fail(e.diagnostic);
    } catch (const YAML::BadFile&) {
        return Result<Target>::fail(
            {Severity::Error, "target.unreadable", "cannot read the target file", {file.string()}});
    } catch (const YAML::Exception& e) {
        return Result<Target>::fail({Severity::Error, "target.syntax", e.msg, at(file, e.mark)});
    }
}

std::vector<std::string> targetIds()
{
    std::vector<std::string> ids;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(targetsDir(), ec)) {
        const auto& p = entry.path();
        if (p.extension() == ".yaml" && p.stem() != "ipu-systems")
            ids.push_back(p.stem().string());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

Result<Target> loadTarget(const std::string& id)
{
    const auto ids = targetIds();
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        std::string known;
        for (const auto& k : ids)
            known += (known.empty() ? "" : ", ") + k;
        return Result<Target>::fail({Severity::Error,
                                     "target.unknown",
                                     "unknown target '" + id + "' (known: " + known + ")",
                                     {}});
    }
    return loadTargetFile(targetsDir() / (id + ".yaml"));
}

Result<std::vector<IpuSystem>> loadIpuSystems()
{
    const fs::path file = targetsDir() / "ipu-systems.yaml";
    try {
        const YAML::Node root = YAML::LoadFile(file.string());
        const YAML::Node list = required(file, root, "systems");
        if (!list.IsSequence())
            fail(file, list.Mark(), "'systems' must be a list");
        std::vector<IpuSystem> systems;
        for (const auto& s : list) {
            IpuSystem sys;
            sys.ipus = int(number(file, s, "ipus"));
            sys.name = text(file, s, "name");
            systems.push_back(sys);
        }
        return Result<std::vector<IpuSystem>>::ok(systems);
    } catch (const LoadError& e) {
        return Result<std::vector<IpuSystem>>::fail(e.diagnostic);
    } catch (const YAML::Exception& e) {
        return Result<std::vector<IpuSystem>>::fail(
            {Severity::Error, "target.syntax", e.msg, at(file, e.mark)});
    }
}

std::string ipuSystemName(const std::vector<IpuSystem>& systems, int ipus)
{
    for (const auto& s : systems)
        if (s.ipus == ipus)
            return s.name;
    return std::to_string(ipus) + (ipus == 1 ? " IPU" : " IPUs");
}

} // namespace portolan::targets
