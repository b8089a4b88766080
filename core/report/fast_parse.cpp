#include "core/report/fast_parse.h"

#include <algorithm>
#include <simdjson.h>
#include <stdexcept>

namespace portolan::report::detail {

static_assert(kParsePadding >= simdjson::SIMDJSON_PADDING);

namespace {

namespace od = simdjson::ondemand;

// simdjson's On Demand API: no tape of the whole document is built (on a 100 MB report, writing
// and page-faulting that tape was half the load time); the columns are read as they are met and
// everything else is handed to nlohmann as its raw text, which nlohmann then fully checks.
nlohmann::json rawToJson(od::value v)
{
    std::string_view raw;
    switch (od::json_type(v.type())) {
    case od::json_type::object:
        raw = od::object(v.get_object()).raw_json();
        break;
    case od::json_type::array:
        raw = od::array(v.get_array()).raw_json();
        break;
    default:
        raw = v.raw_json_token();
        break;
    }
    return nlohmann::json::parse(raw);
}

std::int64_t integer(od::value e)
{
    std::int64_t x = 0;
    if (e.get_int64().get(x) != simdjson::SUCCESS)
        throw std::runtime_error("a variables or tile_bytes column holds a non-integer");
    return x;
}

constexpr std::array<std::string_view, 11> kVariableColumns = {
    "name",       "kind",           "always_live", "stage",     "op",     "bytes",
    "first_tile", "bytes_per_tile", "tile_count",  "live_from", "live_to"};

void setColumn(std::size_t column, sim::Variable& v, od::value e)
{
    switch (column) {
    case 0:
        v.name = std::string_view(e.get_string());
        break;
    case 1:
        v.kind = std::string_view(e.get_string());
        break;
    case 2:
        v.alwaysLive = bool(e.get_bool());
        break;
    case 3:
        v.stage = int(integer(e));
        break;
    case 4:
        v.op = int(integer(e));
        break;
    case 5:
        v.bytes = integer(e);
        break;
    case 6:
        v.firstTile = int(integer(e));
        break;
    case 7:
        v.bytesPerTile = integer(e);
        break;
    case 8:
        v.tileCount = int(integer(e));
        break;
    case 9:
        v.liveFrom = int(integer(e));
        break;
    default:
        v.liveTo = int(integer(e));
        break;
    }
}

// The columns in whatever order the file has them; each must be present and as long as the
// first one read.
void readVariables(od::object columns, std::vector<sim::Variable>& out)
{
    std::array<bool, kVariableColumns.size()> seen{};
    bool sized = false;
    for (auto field : columns) {
        const std::string_view key = field.unescaped_key();
        const auto it = std::find(kVariableColumns.begin(), kVariableColumns.end(), key);
        if (it == kVariableColumns.end())
            continue; // a column this version does not know
        const std::size_t column = std::size_t(it - kVariableColumns.begin());
        od::array values = field.value().get_array();
        if (!sized) {
            out.resize(values.count_elements());
            sized = true;
        }
        std::size_t i = 0;
        for (auto e : values) {
            if (i == out.size())
                throw std::runtime_error("variables." + std::string(key) +
                                         " has a different length");
            setColumn(column, out[i++], e.value());
        }
        if (i != out.size())
            throw std::runtime_error("variables." + std::string(key) + " has a different length");
        seen[column] = true;
    }
    for (std::size_t c = 0; c < seen.size(); ++c)
        if (!seen[c])
            throw std::runtime_error("variables has no " + std::string(kVariableColumns[c]) +
                                     " column");
}

void readTileBytes(od::object categories,
                   std::array<std::vector<std::int64_t>, sim::kMemoryCategories>& out)
{
    std::array<bool, sim::kMemoryCategories> seen{};
    for (auto field : categories) {
        const std::string_view key = field.unescaped_key();
        int c = 0;
        while (c < sim::kMemoryCategories && key != sim::memoryCategoryName(sim::MemoryCategory(c)))
            ++c;
        if (c == sim::kMemoryCategories)
            continue;
        auto& tiles = out[std::size_t(c)];
        tiles.clear();
        for (auto e : od::array(field.value().get_array()))
            tiles.push_back(integer(e.value()));
        seen[std::size_t(c)] = true;
    }
    for (int c = 0; c < sim::kMemoryCategories; ++c)
        if (!seen[std::size_t(c)])
            throw std::runtime_error(std::string("tile_bytes has no ") +
                                     sim::memoryCategoryName(sim::MemoryCategory(c)));
}

bool onlyWhitespace(const char* from, const char* to)
{
    return std::all_of(from, to,
                       [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

} // namespace

std::optional<nlohmann::json> parseFast(const std::string& text, IpuColumns& columns)
{
    // simdjson reads up to 64 bytes past the text; loadReport reserves them, anything else is
    // copied once.
    simdjson::padded_string copy;
    simdjson::padded_string_view view(text.data(), text.size(), text.capacity());
    if (text.capacity() - text.size() < simdjson::SIMDJSON_PADDING) {
        copy = simdjson::padded_string(text);
        view = copy;
    }
    try {
        od::parser parser;
        od::document doc = parser.iterate(view);
        // On Demand reads only what is asked for: check first that the text is one object and
        // nothing after it (a walk over the structure only, without the values).
        const std::string_view whole = doc.raw_json();
        const char* end = text.data() + text.size();
        if (whole.empty() || whole.front() != '{' ||
            !onlyWhitespace(std::min(whole.data() + whole.size(), end), end))
            return std::nullopt;
        doc.rewind();
        nlohmann::json out = nlohmann::json::object();
        for (auto field : od::object(doc.get_object())) {
            const std::string key(std::string_view(field.unescaped_key()));
            od::value value = field.value();
            if (key != "ipu" || od::json_type(value.type()) != od::json_type::object) {
                out[key] = rawToJson(value);
                continue;
            }
            nlohmann::json ipu = nlohmann::json::object();
            for (auto f : od::object(value.get_object())) {
                const std::string name(std::string_view(f.unescaped_key()));
                od::value v = f.value();
                const bool isObject = od::json_type(v.type()) == od::json_type::object;
                if (name == "variables" && isObject) {
                    readVariables(v.get_object(), columns.variables);
                    columns.present = true;
                } else if (name == "tile_bytes" && isObject) {
                    readTileBytes(v.get_object(), columns.tileBytes);
                } else {
                    ipu[name] = rawToJson(v);
                }
            }
            out["ipu"] = std::move(ipu);
        }
        return out;
    } catch (const simdjson::simdjson_error&) {
        return std::nullopt; // not valid JSON: nlohmann's parser will say where
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // the same: the fallback parser reports it
    }
}

} // namespace portolan::report::detail
