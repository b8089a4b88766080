#include "core/params/schema.h"

#include "core/common/atomic_file.h"
#include "core/common/resources.h"

#include <algorithm>
#include <yaml-cpp/yaml.h>

namespace portolan::params {

std::string_view schemaTypeName(SchemaType t)
{
    switch (t) {
    case SchemaType::Any:
        return "any";
    case SchemaType::Int:
        return "int";
    case SchemaType::Float:
        return "float";
    case SchemaType::Bool:
        return "bool";
    case SchemaType::String:
        return "string";
    case SchemaType::Path:
        return "path";
    case SchemaType::Enum:
        return "enum";
    case SchemaType::List:
        return "list";
    case SchemaType::Map:
        return "map";
    case SchemaType::OneOf:
        return "one_of";
    case SchemaType::Null:
        return "null";
    }
    return "any";
}

const SchemaNode& SchemaNode::target() const
{
    const SchemaNode* n = this;
    for (int hops = 0; n->ref && hops < 32; ++hops)
        n = n->ref;
    return *n;
}

const std::string& SchemaNode::describe() const
{
    return description.empty() && ref ? ref->describe() : description;
}

const SchemaNode* SchemaNode::key(std::string_view name) const
{
    const SchemaNode& t = target();
    if (&t != this)
        return t.key(name);
    for (const auto& [k, node] : keys)
        if (k == name)
            return node.get();
    return nullptr;
}

namespace {

struct SchemaError
{
    std::string message;
    YAML::Mark mark;
};

std::optional<SchemaType> typeFromName(const std::string& n)
{
    for (SchemaType t : {SchemaType::Any, SchemaType::Int, SchemaType::Float, SchemaType::Bool,
                         SchemaType::String, SchemaType::Path, SchemaType::Enum, SchemaType::List,
                         SchemaType::Map, SchemaType::OneOf, SchemaType::Null})
        if (schemaTypeName(t) == n)
            return t;
    return std::nullopt;
}

class SchemaReader
{
public:
    // Definitions are created first and filled in after, so that refs (even recursive ones)
    // point at stable nodes.
    std::map<std::string, std::shared_ptr<SchemaNode>> readDefinitions(const YAML::Node& defs)
    {
        if (!defs)
            return {};
        if (!defs.IsMap())
            throw SchemaError{"`definitions` must be a mapping", defs.Mark()};
        for (const auto& kv : defs)
            m_defs[kv.first.as<std::string>()] = std::make_shared<SchemaNode>();
        for (const auto& kv : defs) {
            auto filled = read(kv.second);
            *m_defs[kv.first.as<std::string>()] = std::move(*filled);
        }
        return m_defs;
    }

    std::shared_ptr<SchemaNode> read(const YAML::Node& y, int depth = 0)
    {
        if (depth > 64)
            throw SchemaError{"schema nests too deeply", y.Mark()};
        if (!y.IsMap())
            throw SchemaError{"a schema node must be a mapping", y.Mark()};
        if (y["ref"]) {
            const std::string name = y["ref"].as<std::string>();
            auto it = m_defs.find(name);
            if (it == m_defs.end())
                throw SchemaError{"unknown ref '" + name + "'", y["ref"].Mark()};
            auto n = std::make_shared<SchemaNode>();
            n->ref = it->second.get();
            applyCommon(*n, y); // a ref can add its own description, required, ...
            return n;
        }
        auto n = std::make_shared<SchemaNode>();
        if (const YAML::Node t = y["type"]) {
            if (t.IsSequence()) {
                n->type = SchemaType::OneOf;
                for (const auto& item : t) {
                    const auto type = typeFromName(item.as<std::string>());
                    if (!type)
                        throw SchemaError{"unknown type '" + item.as<std::string>() + "'",
                                          item.Mark()};
                    if (*type == SchemaType::Null) {
                        n->nullable = true;
                        continue;
                    }
                    auto option = std::make_shared<SchemaNode>();
                    option->type = *type;
                    n->options.push_back(option);
                }
            } else {
                const auto type = typeFromName(t.as<std::string>());
                if (!type)
                    throw SchemaError{"unknown type '" + t.as<std::string>() + "'", t.Mark()};
                n->type = *type;
            }
        } else if (y["keys"] || (y["values"] && y["values"].IsMap())) {
            n->type = SchemaType::Map;
        } else if (y["options"]) {
            n->type = SchemaType::OneOf;
        }
        applyCommon(*n, y);
        if (const YAML::Node k = y["keys"]) {
            if (!k.IsMap())
                throw SchemaError{"`keys` must be a mapping", k.Mark()};
            for (const auto& kv : k)
                n->keys.emplace_back(kv.first.as<std::string>(), read(kv.second, depth + 1));
        }
        if (const YAML::Node a = y["additional_keys"]) {
            const std::string v = a.as<std::string>();
            if (v == "true")
                n->additionalKeys = ExtraKeys::Allow;
            else if (v == "false" || v == "error")
                n->additionalKeys = ExtraKeys::Error;
            else if (v == "warning")
                n->additionalKeys = ExtraKeys::Warning;
            else if (v == "info")
                n->additionalKeys = ExtraKeys::Info;
            else
                throw SchemaError{"additional_keys is true, false, warning or info", a.Mark()};
        }
        if (const YAML::Node v = y["values"]; v && v.IsMap())
            n->additionalValues = read(v, depth + 1);
        if (const YAML::Node i = y["items"])
            n->items = read(i, depth + 1);
        if (const YAML::Node m = y["min_items"])
            n->minItems = m.as<std::size_t>();
        if (const YAML::Node o = y["options"]) {
            for (const auto& item : o)
                n->options.push_back(read(item, depth + 1));
        }
        if (n->type == SchemaType::Enum && n->values.empty())
            throw SchemaError{"an enum needs `values`", y.Mark()};
        if (n->type == SchemaType::OneOf && n->options.empty())
            throw SchemaError{"one_of needs `options`", y.Mark()};
        return n;
    }

private:
    static void applyCommon(SchemaNode& n, const YAML::Node& y)
    {
        if (y["description"])
            n.description = y["description"].as<std::string>();
        if (const YAML::Node d = y["default"]) {
            n.hasDefault = true;
            n.defaultValue = d.IsScalar() ? d.Scalar() : YAML::Dump(d);
        }
        if (y["min"])
            n.min = y["min"].as<double>();
        if (y["max"])
            n.max = y["max"].as<double>();
        if (const YAML::Node v = y["values"]; v && v.IsSequence())
            for (const auto& item : v)
                n.values.push_back(item.IsNull() ? std::string("null") : item.as<std::string>());
        if (y["case_insensitive"])
            n.caseInsensitive = y["case_insensitive"].as<bool>();
        if (y["nullable"])
            n.nullable = y["nullable"].as<bool>();
        if (y["required"])
            n.required = y["required"].as<bool>();
        if (y["deprecated"])
            n.deprecated = y["deprecated"].as<std::string>();
        if (y["format"])
            n.scientific = y["format"].as<std::string>() == "scientific";
    }

    std::map<std::string, std::shared_ptr<SchemaNode>> m_defs;
};

std::vector<std::string> stringList(const YAML::Node& y)
{
    std::vector<std::string> out;
    if (y && y.IsSequence())
        for (const auto& item : y)
            out.push_back(item.as<std::string>());
    return out;
}

} // namespace

Result<Schema> parseSchema(const std::string& yamlText, const std::string& name)
{
    Diagnostic d;
    d.code = "schema.invalid";
    d.location.file = name;
    try {
        const YAML::Node y = YAML::Load(yamlText);
        if (!y.IsMap() || !y["root"])
            throw SchemaError{"a schema file needs a `root` node", y.Mark()};
        Schema s;
        s.name = y["name"] ? y["name"].as<std::string>() : name;
        s.title = y["title"] ? y["title"].as<std::string>() : s.name;
        s.pyyamlLoader = y["yaml_loader"] && y["yaml_loader"].as<std::string>() == "pyyaml";
        s.nullsAllowed = y["nulls_allowed"] && y["nulls_allowed"].as<bool>();
        if (const YAML::Node det = y["detect"]) {
            s.detect.keys = stringList(det["keys"]);
            s.detect.require = stringList(det["require"]);
            s.detect.exclude = stringList(det["exclude"]);
            s.detect.nestedKeys = stringList(det["nested_keys"]);
            if (det["min_matches"])
                s.detect.minMatches = det["min_matches"].as<std::size_t>();
        }
        SchemaReader reader;
        s.definitions = reader.readDefinitions(y["definitions"]);
        s.root = reader.read(y["root"]);
        return Result<Schema>::ok(std::move(s));
    } catch (const SchemaError& e) {
        d.message = e.message;
        d.location.line = e.mark.is_null() ? 0 : e.mark.line + 1;
        d.location.column = e.mark.is_null() ? 0 : e.mark.column + 1;
    } catch (const YAML::Exception& e) {
        d.message = e.msg;
        d.location.line = e.mark.is_null() ? 0 : e.mark.line + 1;
        d.location.column = e.mark.is_null() ? 0 : e.mark.column + 1;
    }
    return Result<Schema>::fail(d);
}

Result<Schema> loadSchema(const std::filesystem::path& file)
{
    auto text = readFile(file);
    if (!text)
        return Result<Schema>::fail(text.error);
    auto s = parseSchema(*text.value, file.string());
    if (s && s.value->name.empty())
        s.value->name = file.stem().string();
    return s;
}

const Schema* SchemaSet::find(std::string_view name) const
{
    for (const auto& s : schemas)
        if (s.name == name)
            return &s;
    return nullptr;
}

SchemaSet loadSchemas(const std::filesystem::path& dir)
{
    SchemaSet set;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".yaml")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto s = loadSchema(f);
        if (s)
            set.schemas.push_back(std::move(*s.value));
        else
            set.errors.push_back(s.error);
    }
    return set;
}

SchemaSet loadBuiltinSchemas()
{
    return loadSchemas(resourcesDir() / "schemas");
}

} // namespace portolan::params
