#include "core/port/step_cleanup.h"

#include "core/port/generate.h"
#include "core/port/plan.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace portolan::port {

namespace {

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

std::string joined(const std::vector<std::string>& v, bool trailingNewline)
{
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out += v[i] + (i + 1 < v.size() || trailingNewline ? "\n" : "");
    return out;
}

bool isIdentifier(const std::string& s)
{
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

// Whether `name` occurs as a word in `text` outside comments (a rough reading: a string that
// holds the name keeps the alias, which is the safe side).
bool reads(const std::string& text, const std::string& name)
{
    for (const auto& line : lines(text)) {
        const std::string code = line.substr(0, line.find('#'));
        for (auto at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
            const auto word = [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            };
            const bool before = at > 0 && (word(code[at - 1]) || code[at - 1] == '.');
            const bool after = at + name.size() < code.size() && word(code[at + name.size()]);
            if (!before && !after)
                return true;
        }
    }
    return false;
}

std::string trimmed(const std::string& s)
{
    const auto a = s.find_first_not_of(' ');
    if (a == std::string::npos)
        return {};
    return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

} // namespace

std::string dropDeadAliases(const std::string& method)
{
    static const char* const sources[] = {"batch", "batch_idx", "epoch_idx"};
    auto v = lines(method);
    // Past the signature (which may span lines) and the method's leading comments.
    std::size_t i = 0;
    while (i < v.size() && trimmed(v[i]).back() != ':')
        ++i;
    ++i;
    while (i < v.size() && trimmed(v[i]).starts_with("#"))
        ++i;
    while (i < v.size()) {
        const std::string t = trimmed(v[i]);
        const auto eq = t.find(" = ");
        if (eq == std::string::npos)
            break;
        const std::string name = t.substr(0, eq), source = t.substr(eq + 3);
        if (!isIdentifier(name) ||
            std::find(std::begin(sources), std::end(sources), source) == std::end(sources))
            break;
        std::vector<std::string> rest(v.begin() + std::ptrdiff_t(i) + 1, v.end());
        if (name == source || !reads(joined(rest, false), name))
            v.erase(v.begin() + std::ptrdiff_t(i));
        else
            ++i;
    }
    return joined(v, method.ends_with("\n"));
}

std::string dropTrainingComments(const std::string& method)
{
    static const std::regex training(
        R"(\b(train(s|ing)?|backward|backprop\w*|gradients?|grads?|optimi[sz]\w*|zero_grad|zero the|step the|update the (weights|parameters))\b)",
        std::regex::icase);
    auto v = lines(method);
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string t = trimmed(v[i]);
        if (i > 1 && t.starts_with("#") && std::regex_search(t, training))
            continue;
        kept.push_back(v[i]);
    }
    return joined(kept, method.ends_with("\n"));
}

void noteCheckpointSaves(const PortPlan& plan, const std::string& guide, const std::string& api,
                         PortResult& out)
{
    std::string instead;
    if (guide == "determined-pytorchtrial")
        instead = "Determined checkpoints the trial's wrapped model and optimizer itself (when "
                  "and where: min_checkpoint_period and checkpoint_storage in the experiment "
                  "config)";
    else if (guide == "graphcore-poptorch")
        instead = "after training_model.detachFromDevice() the host model holds the trained "
                  "weights: save it there, at the end of main(), as the original does";
    else if (api == "trainer")
        instead = "the Trainer checkpoints through its checkpoint settings (checkpoint: steps: "
                  "in the params file)";
    else if (api == "cstorch")
        instead = "cstorch.save(state_dict, path) in a checkpoint_closure writes the checkpoint "
                  "(the loop's checkpoint_steps say when)";
    else
        instead = "the runner checkpoints every runconfig.checkpoint_steps (the params file)";
    for (const auto& item : plan.leftovers) {
        if (item.kind != "checkpoint")
            continue;
        const auto dot = item.name.rfind('.');
        const std::string call = dot == std::string::npos ? item.name : item.name.substr(dot + 1);
        if ((call != "save" && call != "save_state_dict") ||
            std::find(out.keptSaves.begin(), out.keptSaves.end(), item.at.where()) !=
                out.keptSaves.end())
            continue;
        std::string text = item.at.text;
        std::replace(text.begin(), text.end(), '\n', ' ');
        out.notes.push_back("checkpoint save `" + trimmed(text) + "` (" + item.at.where() +
                            ") is not carried over: " + instead);
    }
}

} // namespace portolan::port
