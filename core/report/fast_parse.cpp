#include "core/report/fast_parse.h"

#include <simdjson.h>
#include <stdexcept>

namespace portolan::report::detail {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

nlohmann::json toNlohmann(element e)
{
    switch (e.type()) {
    case element_type::ARRAY: {
        nlohmann::json out = nlohmann::json::array();
        for (element child : e.get_array())
            out.push_back(toNlohmann(child));
        return out;
    }
    case element_type::OBJECT: {
        nlohmann::json out = nlohmann::json::object();
        for (auto field : e.get_object())
            out[std::string(field.key)] = toNlohmann(field.value);
        return out;
    }
    case element_type::INT64:
        return std::int64_t(e.get_int64());
    case element_type::UINT64:
        return std::uint64_t(e.get_uint64());
    case element_type::DOUBLE:
        return double(e.get_double());
    case element_type::STRING:
        return std::string(std::string_view(e.get_string()));
    case element_type::BOOL:
        return bool(e.get_bool());
    case element_type::NULL_VALUE:
        return nullptr;
    }
    return nullptr;
}

std::int64_t integer(element e)
{
    if (e.is_int64())
        return std::int64_t(e.get_int64());
    throw std::runtime_error("a variables or tile_bytes column holds a non-integer");
}

// Calls `set(i, element)` for each element of column `name`, after checking its length.
template <typename Set>
void column(simdjson::dom::object columns, const char* name, std::size_t n, Set set)
{
    simdjson::dom::array a = columns[name].get_array();
    if (a.size() != n)
        throw std::runtime_error(std::string("variables.") + name + " has a different length");
    std::size_t i = 0;
    for (element e : a)
        set(i++, e);
}

void readVariables(simdjson::dom::object v, std::vector<sim::Variable>& out)
{
    const std::size_t n = simdjson::dom::array(v["name"].get_array()).size();
    out.resize(n);
    column(v, "name", n,
           [&](std::size_t i, element e) { out[i].name = std::string_view(e.get_string()); });
    column(v, "kind", n,
           [&](std::size_t i, element e) { out[i].kind = std::string_view(e.get_string()); });
    column(v, "always_live", n,
           [&](std::size_t i, element e) { out[i].alwaysLive = bool(e.get_bool()); });
    column(v, "stage", n, [&](std::size_t i, element e) { out[i].stage = int(integer(e)); });
    column(v, "op", n, [&](std::size_t i, element e) { out[i].op = int(integer(e)); });
    column(v, "bytes", n, [&](std::size_t i, element e) { out[i].bytes = integer(e); });
    column(v, "first_tile", n,
           [&](std::size_t i, element e) { out[i].firstTile = int(integer(e)); });
    column(v, "tile_count", n,
           [&](std::size_t i, element e) { out[i].tileCount = int(integer(e)); });
    column(v, "bytes_per_tile", n,
           [&](std::size_t i, element e) { out[i].bytesPerTile = integer(e); });
    column(v, "live_from", n, [&](std::size_t i, element e) { out[i].liveFrom = int(integer(e)); });
    column(v, "live_to", n, [&](std::size_t i, element e) { out[i].liveTo = int(integer(e)); });
}

} // namespace

std::optional<nlohmann::json> parseFast(const std::string& text, IpuColumns& columns)
{
    simdjson::dom::parser parser;
    element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_object())
        return std::nullopt;
    nlohmann::json out = nlohmann::json::object();
    for (auto field : doc.get_object()) {
        if (field.key != "ipu" || !field.value.is_object()) {
            out[std::string(field.key)] = toNlohmann(field.value);
            continue;
        }
        nlohmann::json ipu = nlohmann::json::object();
        for (auto f : field.value.get_object()) {
            if (f.key == "variables" && f.value.is_object()) {
                readVariables(f.value.get_object(), columns.variables);
                columns.present = true;
            } else if (f.key == "tile_bytes" && f.value.is_object()) {
                for (int c = 0; c < sim::kMemoryCategories; ++c) {
                    auto& tiles = columns.tileBytes[std::size_t(c)];
                    simdjson::dom::element cat;
                    if (f.value[sim::memoryCategoryName(sim::MemoryCategory(c))].get(cat) !=
                        simdjson::SUCCESS)
                        throw std::runtime_error(std::string("tile_bytes has no ") +
                                                 sim::memoryCategoryName(sim::MemoryCategory(c)));
                    for (element e : cat.get_array())
                        tiles.push_back(integer(e));
                }
            } else {
                ipu[std::string(f.key)] = toNlohmann(f.value);
            }
        }
        out["ipu"] = std::move(ipu);
    }
    return out;
}

} // namespace portolan::report::detail
