#include "core/families/families.h"

#include "core/families/family_builders.h"
#include "core/families/graphcore_config.h"
#include "core/params/model_section.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace portolan::families {

namespace {

using params::ParamsError;
using params::ParamsSection;

using BuildFn = std::string (*)(BuildContext&);

struct Entry
{
    const char* id;
    const char* architecture;
    BuildFn build;
};

const Entry kFamilies[] = {
    {"gpt2", "decoder", &buildDecoder},
    {"gpt3", "decoder", &buildDecoder},
    {"gptj", "decoder", &buildDecoder},
    {"gpt_neox", "decoder", &buildDecoder},
    {"llama", "decoder", &buildDecoder},
    {"mistral", "decoder", &buildDecoder},
    {"mixtral", "decoder", &buildDecoder},
    {"falcon", "decoder", &buildDecoder},
    {"bloom", "decoder", &buildDecoder},
    {"mpt", "decoder", &buildDecoder},
    {"starcoder", "decoder", &buildDecoder},
    {"santacoder", "decoder", &buildDecoder},
    {"btlm", "decoder", &buildDecoder},
    {"jais", "decoder", &buildDecoder},
    {"gemma2", "decoder", &buildDecoder},
    {"dpo", "decoder", &buildDecoder},
    {"bert", "encoder", &buildEncoder},
    {"bert/classifier", "encoder", &buildEncoder},
    {"bert/extractive_summarization", "encoder", &buildEncoder},
    {"bert/token_classifier", "encoder", &buildEncoder},
    {"bert/qa", "encoder", &buildEncoder},
    {"roberta", "encoder", &buildEncoder},
    {"esm2", "encoder", &buildEncoder},
    {"linformer", "encoder", &buildEncoder},
    {"vision_transformer", "vit", &buildEncoder},
    {"dpr", "encoder", &buildDpr},
    {"t5", "encoder-decoder", &buildSeq2Seq},
    {"transformer", "encoder-decoder", &buildSeq2Seq},
    {"unet", "unet", &buildUnet},
    {"dit", "dit", &buildDit},
    {"fc_mnist", "mlp", &buildFcMnist},
    {"llava", "llava", &buildLlava},
    {"multimodal_simple", "llava", &buildLlava},
};

const Entry* findFamily(const std::string& id)
{
    for (const Entry& e : kFamilies)
        if (id == e.id)
            return &e;
    return nullptr;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// model.name as written -> a family id ("LlamaModel" -> llama, "gpt-neox" -> gpt_neox).
std::string canonicalName(const std::string& name)
{
    std::string s = lower(name);
    std::replace(s.begin(), s.end(), '-', '_');
    if (s.size() > 5 && s.ends_with("model"))
        s.resize(s.size() - 5);
    if (s == "neox")
        return "gpt_neox";
    if (s == "vit")
        return "vision_transformer";
    return s;
}

// Path components of the file, nearest folder first; the corpus flattens paths with "__".
std::vector<std::string> pathParts(const std::string& file)
{
    std::string s = file;
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        const bool sep = i == s.size() || s[i] == '/' || s[i] == '\\' ||
                         (s[i] == '_' && i + 1 < s.size() && s[i + 1] == '_');
        if (!sep)
            continue;
        if (i > start)
            parts.push_back(s.substr(start, i - start));
        if (i < s.size() && s[i] == '_')
            ++i;
        start = i + 1;
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

// The family from the path and keys when model.name is absent; `reason` says what decided.
std::string inferFamily(const ParamsSection& m, const std::string& file, std::string* reason)
{
    const auto parts = pathParts(file);
    // BERT fine-tuning folders name the head.
    const auto has = [&](const char* p) {
        return std::find(parts.begin(), parts.end(), p) != parts.end();
    };
    if (has("bert")) {
        for (const char* head :
             {"classifier", "extractive_summarization", "token_classifier", "qa"})
            if (has(head)) {
                *reason = std::string("the path folders 'bert' and '") + head + "'";
                return std::string("bert/") + head;
            }
    }
    for (std::size_t i = 1; i < parts.size(); ++i) { // parts[0] is the file name
        const std::string& p = parts[i];
        if (p == "configs" || p == "pytorch" || p == "tf" || p == "transformers" || p == "models" ||
            p == "nlp" || p == "vision" || p == "multimodal")
            continue;
        if (findFamily(p)) {
            *reason = "the path folder '" + p + "'";
            return p;
        }
    }
    const auto key = [&](const char* k, const char* id) -> std::string {
        if (!m.has(k))
            return {};
        *reason = std::string("the key model.") + k;
        return id;
    };
    for (auto [k, id] : std::initializer_list<std::pair<const char*, const char*>>{
             {"q_encoder", "dpr"},
             {"image_model_list", "multimodal_simple"},
             {"image_model", "llava"},
             {"encoder_filters", "unet"},
             {"vae", "dit"},
             {"moe", "mixtral"},
             {"depth", "fc_mnist"},
             {"hidden_sizes", "fc_mnist"},
             {"mlm_loss_weight", "bert"},
             {"disable_nsp", "bert"},
             {"encoder_nonlinearity", "bert"},
             {"nonlinearity", "gpt2"}}) {
        std::string f = key(k, id);
        if (!f.empty())
            return f;
    }
    if (m.has("encoder_num_hidden_layers")) {
        const bool relative = m.text("position_embedding_type", std::string()) == "relative";
        *reason = "the key model.encoder_num_hidden_layers and its position embedding type";
        return relative ? "t5" : "transformer";
    }
    return {};
}

// n[key], or an undefined-safe null node: yaml-cpp throws when a missing key is used further.
YAML::Node at(const YAML::Node& n, const char* key)
{
    if (!n.IsDefined() || !n.IsMap())
        return YAML::Node();
    const YAML::Node c = n[key];
    return c.IsDefined() ? c : YAML::Node();
}

// A fine-tuning config's `pretrain_params_path`: the pretraining params it starts from, relative
// to the folder the model runs from (the config's folder or the one above `configs/`). The
// corpus flattens folders into file names with "__" after a release prefix, and keeps one copy
// of identical files, so there the same path under another release is accepted as well.
YAML::Node pretrainModel(const ParamsSection& model, const std::string& file)
{
    namespace fs = std::filesystem;
    const std::string rel = model.text("pretrain_params_path");
    const fs::path here(file);
    std::vector<fs::path> candidates{here.parent_path() / rel,
                                     here.parent_path().parent_path() / rel};
    const std::string name = here.filename().string();
    const fs::path folder = here.parent_path();
    if (name.find("__") != std::string::npos) {
        const auto parts = pathParts(name); // nearest first; parts[0] is the file name
        const std::vector<std::string> dir(parts.rbegin(), parts.rend() - 1);
        for (int up = 0; up < 2; ++up) {
            std::vector<std::string> d(dir.begin(),
                                       dir.end() - std::min<long>(up, long(dir.size())));
            for (const auto& piece : fs::path(rel)) {
                const std::string p = piece.string();
                if (p == "..") {
                    if (!d.empty())
                        d.pop_back();
                } else if (p != "." && !p.empty()) {
                    d.push_back(p);
                }
            }
            if (d.size() < 2)
                continue;
            std::string flat, tail;
            for (std::size_t i = 0; i < d.size(); ++i) {
                flat += (i ? "__" : "") + d[i];
                if (i > 0)
                    tail += "__" + d[i];
            }
            candidates.push_back(folder / flat);
            // The same repository path stored under another release prefix.
            std::error_code ec;
            std::vector<fs::path> others;
            for (const auto& e : fs::directory_iterator(folder, ec)) {
                const std::string n = e.path().filename().string();
                if (n.size() > tail.size() && n.ends_with(tail))
                    others.push_back(e.path());
            }
            std::sort(others.begin(), others.end());
            candidates.insert(candidates.end(), others.rbegin(), others.rend());
        }
    }
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec)) {
            YAML::Node root = params::loadParamsFile(c.string());
            resolveMerges(root);
            if (at(root, "model").IsMap())
                return at(root, "model");
        }
    }
    model.fail("pretrain_params_path", "families.pretrain-params",
               model.keyPath("pretrain_params_path") + " = '" + rel +
                   "' names no readable params file with a model section");
}

std::string optimizerName(const YAML::Node& root, bool trainer)
{
    const YAML::Node o =
        trainer ? at(at(at(root, "trainer"), "init"), "optimizer") : at(root, "optimizer");
    std::string type;
    if (o.IsMap()) {
        if (at(o, "optimizer_type").IsScalar())
            type = at(o, "optimizer_type").Scalar();
        else if (o.size() == 1)
            type = o.begin()->first.as<std::string>("");
    }
    type = lower(type);
    if (type == "sgd") {
        const YAML::Node mom = trainer ? at(o.begin()->second, "momentum") : at(o, "momentum");
        if (mom.IsScalar() && mom.as<double>(0.0) > 0)
            return "sgd-momentum";
    }
    return type;
}

bool mixedPrecision(const YAML::Node& root, const YAML::Node& model, bool trainer)
{
    if (trainer) {
        const YAML::Node p = at(at(at(root, "trainer"), "init"), "precision");
        if (at(p, "enabled").IsScalar())
            return at(p, "enabled").as<bool>(false);
    }
    for (const char* k : {"mixed_precision", "use_bfloat16", "to_float16"})
        if (at(model, k).IsScalar() && at(model, k).as<bool>(false))
            return true;
    return false;
}

DataSection readData(const ParamsSection& d, const std::string& sectionName)
{
    DataSection s;
    s.section = sectionName;
    s.batchSize = d.integer("batch_size", 1, 1);
    if (d.has("micro_batch_size")) {
        const YAML::Node n = d.node()["micro_batch_size"];
        try {
            s.microBatch = n.IsScalar() ? n.as<std::int64_t>() : 0;
        } catch (const YAML::Exception&) {
            s.microBatch = 0; // "auto" or "explore": the system chooses
        }
    }
    for (const char* k : {"max_sequence_length", "max_seq_length", "seq_length",
                          "src_max_sequence_length", "sequence_length"})
        if (d.has(k)) {
            s.sequence = d.integer(k, {}, 1);
            s.sequenceFrom = d.keyPath(k);
            break;
        }
    if (d.has("tgt_max_sequence_length"))
        s.targetSequence = d.integer("tgt_max_sequence_length", {}, 1);
    return s;
}

// The model's family, by model.name or inferred from the path and keys (noted in `out`), with a
// builder of its own: throws the diagnostic otherwise.
std::string familyOf(const ParamsSection& model, const YAML::Node& modelNode,
                     const std::string& file, bool dpo, ModelFromParams& out)
{
    std::string family;
    if (model.has("name")) {
        family = canonicalName(model.text("name"));
        out.familyReason = model.keyPath("name");
    } else {
        family = inferFamily(model, file, &out.familyReason);
        out.inferred = true;
        if (family.empty())
            model.failAt(modelNode, "families.unknown",
                         "no model.name, and neither the path nor the keys name a model "
                         "family the builders know");
        out.notes.push_back("no model.name: the family '" + family + "' is inferred from " +
                            out.familyReason);
    }
    if (dpo)
        family = "dpo";
    if (family == "roberta")
        family = "bert";
    if (!findFamily(family)) {
        std::string known;
        for (const Entry& e : kFamilies)
            known += (known.empty() ? "" : ", ") + std::string(e.id);
        model.fail("name", "families.unknown",
                   "no builder for the model family '" + family + "' (known: " + known + ")");
    }
    return family;
}

Result<ModelFromParams> build(YAML::Node root, const std::string& file,
                              const std::string& namedConfigName = {})
{
    try {
        resolveMerges(root);
        if (!root.IsMap())
            throw ParamsError(params::diagnosticAt(root, file, "families.not-params",
                                                   "the file is not a mapping of sections"));
        ModelFromParams out;
        // A Graphcore application's named configurations: build the chosen one, translated
        // into the classic layout, and keep its execution settings.
        if (!root["model"].IsDefined() && !root["trainer"].IsDefined()) {
            if (auto named = namedConfig(root, file, namedConfigName)) {
                if (!*named)
                    return Result<ModelFromParams>::fail(named->error);
                NamedConfig& config = *named->value;
                auto built = build(config.classic, file);
                if (!built)
                    return built;
                ModelFromParams& m = *built.value;
                m.layout = "graphcore";
                m.namedConfig = config.name;
                m.namedConfigs = config.names;
                m.namedModelConfigs = config.modelNames;
                m.execution = config.settings;
                m.inferred = true;
                m.familyReason = config.familyReason;
                m.notes.push_back("the named configuration '" + config.name + "' (" +
                                  std::to_string(config.names.size()) +
                                  " in the file; the family '" + config.family +
                                  "' is inferred from " + config.familyReason + ")");
                m.graph.name = config.family + " (" + config.name + ")";
                m.graph.origin = "params: " + file + ", named configuration '" + config.name +
                                 "' (" + m.architecture + " builder, family inferred)";
                return built;
            }
        }
        // Where the model is, for each API generation: one rule (params::modelSectionOf).
        const auto section = params::modelSectionOf(root);
        if (!section && root["model"].IsDefined())
            throw ParamsError(params::diagnosticAt(root["model"], file, "families.no-model",
                                                   "model must be a mapping"));
        if (!section)
            throw ParamsError(params::diagnosticAt(
                root, file, "families.no-model",
                "no model section: neither a top-level model: (classic layout) nor "
                "trainer.init.model (trainer layout); a data preparation config has none"));
        const bool trainer = section->layout == params::ParamsLayout::Trainer;
        const bool classic = !trainer;
        out.layout = classic ? "classic" : "trainer";
        YAML::Node modelNode = section->node;
        ParamsSection model(modelNode, file, section->path);
        const bool dpo = model.has("dpo");
        if (model.has("pretrain_params_path")) {
            // The fine-tuning keys win over the pretraining model's.
            YAML::Node base = pretrainModel(model, file);
            for (auto it = base.begin(); it != base.end(); ++it) {
                const std::string key = it->first.as<std::string>("");
                if (!modelNode[key].IsDefined())
                    modelNode[key] = it->second;
            }
            out.notes.push_back("the architecture comes from " +
                                model.keyPath("pretrain_params_path"));
        }
        if (model.has("policy_model")) {
            // DPO: the policy is the model that trains; the reference model only runs forward.
            model = model.child("policy_model");
            modelNode = model.node();
        }
        ParamsSection data(YAML::Node(YAML::NodeType::Map), file, "train_input");
        const YAML::Node loader = at(at(at(root, "trainer"), "fit"), "train_dataloader");
        if (classic && at(root, "train_input").IsMap())
            data = ParamsSection(at(root, "train_input"), file, "train_input");
        else if (trainer && loader.IsMap())
            data = ParamsSection(loader, file, "trainer.fit.train_dataloader");
        out.data = readData(data, data.path());

        const std::string family = familyOf(model, modelNode, file, dpo, out);
        const Entry* entry = findFamily(family);
        out.family = family;
        BuildContext ctx{model, out.data, family, data, &out.graph, &out.notes};
        out.architecture = entry->build(ctx);
        out.data = ctx.data;
        out.optimizer = optimizerName(root, trainer);
        out.mixedPrecision = mixedPrecision(root, modelNode, trainer);
        const std::string stem = std::filesystem::path(file).stem().string();
        out.graph.name = family + (stem.empty() ? std::string() : " (" + stem + ")");
        out.graph.origin = "params: " + file + " (" + entry->architecture + " builder, " +
                           (out.inferred ? "family inferred" : "model.name") + ")";
        return Result<ModelFromParams>::ok(std::move(out));
    } catch (const ParamsError& e) {
        return Result<ModelFromParams>::fail(e.diagnostic());
    } catch (const YAML::Exception& e) {
        Diagnostic d{Severity::Error, "families.yaml", e.msg, {file, 0, 0}};
        if (e.mark.line >= 0) {
            d.location.line = e.mark.line + 1;
            d.location.column = e.mark.column + 1;
        }
        return Result<ModelFromParams>::fail(d);
    }
}

} // namespace

// YAML merge keys (`<<: *base`), which yaml-cpp 0.7 leaves as a plain "<<" key: the merged
// map's entries are copied in where the map does not set them. In place, so positions survive.
void resolveMerges(YAML::Node n, int depth)
{
    if (depth > 64 || !n.IsDefined())
        return;
    if (n.IsSequence()) {
        for (std::size_t i = 0; i < n.size(); ++i)
            resolveMerges(n[i], depth + 1);
        return;
    }
    if (!n.IsMap())
        return;
    if (n["<<"].IsDefined()) {
        YAML::Node merged = n["<<"];
        n.remove("<<");
        std::vector<YAML::Node> sources;
        if (merged.IsSequence())
            for (std::size_t i = 0; i < merged.size(); ++i)
                sources.push_back(merged[i]);
        else
            sources.push_back(merged);
        for (YAML::Node src : sources) {
            resolveMerges(src, depth + 1);
            if (!src.IsMap())
                continue;
            for (auto it = src.begin(); it != src.end(); ++it) {
                const std::string key = it->first.as<std::string>("");
                if (!key.empty() && !n[key].IsDefined())
                    n[key] = it->second;
            }
        }
    }
    for (auto it = n.begin(); it != n.end(); ++it)
        resolveMerges(it->second, depth + 1);
}

const std::vector<FamilyInfo>& knownFamilies()
{
    static const std::vector<FamilyInfo> list = [] {
        std::vector<FamilyInfo> v;
        for (const Entry& e : kFamilies)
            v.push_back({e.id, e.architecture});
        return v;
    }();
    return list;
}

Result<bool> isModelParams(const std::filesystem::path& file)
{
    try {
        const YAML::Node root = params::loadParamsFile(file.string());
        if (!root.IsMap())
            return Result<bool>::ok(false);
        if (root["model"].IsDefined() || params::modelSectionOf(root))
            return Result<bool>::ok(true);
        const auto named = namedConfig(root, file.string());
        return Result<bool>::ok(named && *named);
    } catch (const ParamsError& e) {
        return Result<bool>::fail(e.diagnostic());
    }
}

Result<ModelFromParams> buildFromParamsFile(const std::filesystem::path& file,
                                            const std::string& namedConfig)
{
    try {
        return build(params::loadParamsFile(file.string()), file.string(), namedConfig);
    } catch (const ParamsError& e) {
        return Result<ModelFromParams>::fail(e.diagnostic());
    }
}

Result<ModelFromParams> buildFromParamsText(std::string_view text, const std::string& fileName)
{
    try {
        return build(YAML::Load(std::string(text)), fileName);
    } catch (const YAML::Exception& e) {
        Diagnostic d{
            Severity::Error, "families.yaml", "YAML syntax error: " + e.msg, {fileName, 0, 0}};
        if (e.mark.line >= 0) {
            d.location.line = e.mark.line + 1;
            d.location.column = e.mark.column + 1;
        }
        return Result<ModelFromParams>::fail(d);
    }
}

} // namespace portolan::families
