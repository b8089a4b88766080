#include "core/graph/flop_rules.h"

#include <algorithm>
#include <array>

namespace portolan::graph {

namespace {

double elems(const Shape& s)
{
    return double(elementCount(s));
}

double productFrom(const Shape& s, std::size_t first)
{
    double n = 1;
    for (std::size_t i = first; i < s.size(); ++i)
        n *= double(s[i]);
    return n;
}

bool oneOf(std::string_view k, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), k) != names.end();
}

// Output elements x contraction length x 2: linear layers, matmuls and convolutions all reduce
// to this once the contraction length is read from the right shape.
OpRule contraction(const Shape& out, double k)
{
    OpRule r;
    r.flops = 2.0 * elems(out) * k;
    r.savesInputs = true;
    return r;
}

OpRule elementwise(const Shape& out, double perElement, bool savesOutput, bool savesInputs)
{
    OpRule r;
    r.flops = perElement * elems(out);
    r.savesOutput = savesOutput;
    r.savesInputs = savesInputs;
    return r;
}

// Training-mode dropout as LibTorch runs it on the CPU: the output is input x noise, and the
// noise (Bernoulli / (1 - p), a tensor of the output's type and size) is kept for backward.
// Measured against the counting allocator; a 1-byte mask undercounts a transformer by ~17%.
OpRule dropout(const Shape& out)
{
    OpRule r = elementwise(out, 1, false, false);
    r.extraSavedScales = true; // sized like the output (applyRule)
    return r;
}

OpRule view()
{
    OpRule r;
    r.aliasesInput = true;
    return r;
}

// A recurrent layer stack (aten::lstm, aten::gru, aten::rnn_tanh, aten::rnn_relu; the LSTM, GRU
// and RNN modules). Every token of every layer and direction multiplies its layer input by
// w_ih [G x H, in] and its previous hidden state by w_hh [G x H, H] (G gates: 4, 3, 1), so the
// FLOPs are 2 x tokens x the elements of the weight matrices (with a projection, w_hr too). The
// gates' elementwise work (a few operations per gate element) is left out, as for linears.
// Saved for backward, per token and layer-direction: the layer input (the stack's own input is
// counted as its input) and about 7 x H for an LSTM or GRU (the activated gates, the cell state,
// the input projections LibTorch's CPU cells keep; the counting allocator measures 7 x H for a
// 2-layer LSTM at H = 128, test_sim_capture), 2 x H for a plain RNN (the new hidden state and
// the previous one); in the parameters' type (4 bytes: dry runs run fp32).
OpRule recurrent(std::string_view kind, const Shape& input, const Shape& output,
                 const std::vector<Shape>& params)
{
    const double gates = kind.find("lstm") != std::string_view::npos  ? 4
                         : kind.find("gru") != std::string_view::npos ? 3
                                                                      : 1;
    OpRule r;
    r.savesInputs = true;
    if (input.size() < 2 || params.empty()) {
        r.known = false; // the weights are not known: the caller estimates from the parameters
        return r;
    }
    const double tokens = elems(input) / double(input.back());
    double weights = 0;
    double savedPerToken = 0;
    std::int64_t gateRows = 0;
    bool first = true;
    bool expectInput = true; // weight matrices come as w_ih, w_hh[, w_hr] per layer-direction
    for (const Shape& w : params) {
        if (w.size() != 2)
            continue;
        weights += elems(w);
        if (gateRows == 0)
            gateRows = w[0];
        if (w[0] != gateRows)
            continue; // a projection w_hr
        if (expectInput) {
            const double hidden = double(gateRows) / gates;
            savedPerToken += (first ? 0.0 : double(w[1])) + (gates > 1 ? 7 : 2) * hidden;
            first = false;
        }
        expectInput = !expectInput;
    }
    r.flops = 2.0 * tokens * weights;
    const double outElems = elems(output);
    if (outElems > 0)
        r.extraSavedBytesPerOutputElement = 4.0 * savedPerToken * tokens / outElems;
    return r;
}

} // namespace

std::string cleanModuleName(std::string_view name)
{
    std::string s(name);
    if (auto p = s.rfind("::"); p != std::string::npos)
        s = s.substr(p + 2);
    if (s.size() > 4 && s.ends_with("Impl"))
        s.resize(s.size() - 4);
    return s;
}

OpRule moduleRule(std::string_view k, const OpShapes& s)
{
    const Shape in = s.inputs.empty() ? Shape{} : s.inputs.front();
    const Shape weight = s.params.empty() ? Shape{} : s.params.front();
    if (k == "Linear" || k == "Bilinear")
        return contraction(s.output, weight.size() >= 2 ? double(weight[1]) : 0);
    if (oneOf(k, {"Conv1d", "Conv2d", "Conv3d"}))
        return contraction(s.output, weight.size() >= 2 ? productFrom(weight, 1) : 0);
    if (oneOf(k, {"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"})) {
        // Each input element scatters into out_channels/groups x kernel outputs.
        OpRule r = contraction(in, weight.size() >= 2 ? productFrom(weight, 1) : 0);
        return r;
    }
    if (oneOf(k, {"LSTM", "GRU", "RNN"}))
        return recurrent(k == "LSTM" ? "lstm" : k == "GRU" ? "gru" : "rnn", in, s.output, s.params);
    if (k == "Embedding" || k == "EmbeddingBag") {
        OpRule r; // a gather; backward scatters into the weight gradient
        r.savesInputs = true;
        return r;
    }
    if (k == "PositionalEncoding") // x + a fixed table (a buffer, not a parameter)
        return elementwise(s.output, 1, false, false);
    if (oneOf(k, {"ReLU", "ReLU6", "LeakyReLU", "Hardtanh"}))
        return elementwise(s.output, 1, true, false);
    if (oneOf(k, {"Sigmoid", "Tanh", "ELU", "SELU"}))
        return elementwise(s.output, 4, true, false);
    if (oneOf(k, {"GELU", "SiLU", "Mish", "Softplus", "Hardswish"}))
        return elementwise(s.output, 8, false, true);
    if (oneOf(k, {"Softmax", "LogSoftmax"}))
        return elementwise(s.output, 5, true, false);
    if (oneOf(k, {"Dropout", "Dropout2d", "AlphaDropout"})) {
        return dropout(s.output);
    }
    if (oneOf(k, {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
                  "InstanceNorm1d", "InstanceNorm2d"}))
        return elementwise(s.output, 5, false, true);
    if (oneOf(k, {"MaxPool1d", "MaxPool2d", "MaxPool3d"})) {
        OpRule r = elementwise(in, 1, false, true);
        r.extraSavedBytesPerOutputElement = 8; // int64 argmax indices
        return r;
    }
    if (oneOf(k, {"AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
                  "AdaptiveAvgPool3d"}))
        return elementwise(in, 1, false, false);
    if (oneOf(k, {"AdaptiveMaxPool2d", "AdaptiveMaxPool1d"})) {
        OpRule r = elementwise(in, 1, false, true);
        r.extraSavedBytesPerOutputElement = 8;
        return r;
    }
    if (oneOf(k, {"Flatten", "Unflatten", "Identity"}))
        return view();
    OpRule unknown;
    unknown.known = false;
    unknown.savesInputs = true;
    return unknown;
}

OpRule atenRule(std::string_view k, const OpShapes& s)
{
    const auto input = [&](std::size_t i) {
        return i < s.inputs.size() ? s.inputs[i] : Shape{};
    };
    const auto lastDim = [](const Shape& sh) {
        return sh.empty() ? 0.0 : double(sh.back());
    };
    if (k == "aten::linear")
        return contraction(s.output, lastDim(input(0)));
    if (oneOf(k, {"aten::matmul", "aten::mm", "aten::bmm"}))
        return contraction(s.output, lastDim(input(0)));
    if (oneOf(k, {"aten::addmm", "aten::baddbmm", "aten::addbmm"}))
        return contraction(s.output, lastDim(input(1)));
    // Transposed convolutions scatter each input element into out/groups x kernel outputs (the
    // weight is [in, out/groups, kernel...]), as the ConvTranspose module rule counts them.
    if (oneOf(k, {"aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"}))
        return contraction(input(0), input(1).size() >= 2 ? productFrom(input(1), 1) : 0);
    if (oneOf(k, {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::_convolution",
                  "aten::convolution"})) {
        // A traced ConvTranspose is an aten::_convolution too; it is the one whose output is
        // spatially larger than its input.
        const Shape in = input(0);
        const bool transposed = in.size() == s.output.size() && in.size() > 2 &&
                                productFrom(s.output, 2) > productFrom(in, 2);
        if (transposed)
            return contraction(in, input(1).size() >= 2 ? productFrom(input(1), 1) : 0);
        return contraction(s.output, input(1).size() >= 2 ? productFrom(input(1), 1) : 0);
    }
    if (oneOf(k, {"aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu"}))
        return recurrent(k, input(0), s.output, s.params);
    if (oneOf(k, {"aten::embedding"})) {
        OpRule r;
        r.savesInputs = true;
        return r;
    }
    if (oneOf(k, {"aten::relu", "aten::relu_", "aten::hardtanh", "aten::leaky_relu"}))
        return elementwise(s.output, 1, true, false);
    if (oneOf(k, {"aten::sigmoid", "aten::tanh", "aten::elu"}))
        return elementwise(s.output, 4, true, false);
    if (oneOf(k, {"aten::gelu", "aten::silu", "aten::softplus"}))
        return elementwise(s.output, 8, false, true);
    if (oneOf(k, {"aten::softmax", "aten::log_softmax", "aten::_softmax"}))
        return elementwise(s.output, 5, true, false);
    if (oneOf(k, {"aten::dropout", "aten::feature_dropout", "aten::native_dropout"}))
        return dropout(s.output);
    if (oneOf(k, {"aten::layer_norm", "aten::batch_norm", "aten::group_norm", "aten::instance_norm",
                  "aten::native_layer_norm"}))
        return elementwise(s.output, 5, false, true);
    if (oneOf(k, {"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d",
                  "aten::adaptive_max_pool2d"})) {
        OpRule r = elementwise(input(0), 1, false, true);
        r.extraSavedBytesPerOutputElement = 8;
        return r;
    }
    if (oneOf(k, {"aten::avg_pool1d", "aten::avg_pool2d", "aten::adaptive_avg_pool2d",
                  "aten::adaptive_avg_pool1d", "aten::mean", "aten::sum"}))
        return elementwise(input(0), 1, false, false);
    if (oneOf(k, {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::neg",
                  "aten::masked_fill", "aten::where", "aten::clamp"}))
        return elementwise(s.output, 1, false, false);
    if (oneOf(k, {"aten::mul", "aten::mul_", "aten::div", "aten::div_"}))
        return elementwise(s.output, 1, false, true);
    if (oneOf(k, {"aten::sqrt", "aten::rsqrt", "aten::exp", "aten::log", "aten::pow"}))
        return elementwise(s.output, 4, true, false);
    if (oneOf(k, {"aten::view",    "aten::reshape",   "aten::flatten", "aten::transpose",
                  "aten::permute", "aten::unsqueeze", "aten::squeeze", "aten::select",
                  "aten::slice",   "aten::expand",    "aten::t",       "aten::chunk",
                  "aten::split",   "aten::unflatten", "aten::view_as", "aten::expand_as",
                  "aten::unbind",  "aten::detach",    "aten::alias",   "aten::contiguous",
                  "aten::to",      "aten::type_as",   "aten::narrow",  "aten::dropout_"}))
        return view();
    OpRule unknown;
    unknown.known = false;
    return unknown;
}

void applyRule(Op& op, const OpRule& rule, std::int64_t batch)
{
    const double b = double(std::max<std::int64_t>(1, batch));
    op.forwardFlops = rule.flops / b;
    op.backwardFlops = 2.0 * op.forwardFlops;
    op.savesInputs = rule.savesInputs;
    op.savesOutput = rule.savesOutput;
    op.aliasesInput = rule.aliasesInput;
    op.extraSavedScales = rule.extraSavedScales;
    op.extraSavedBytes = rule.extraSavedScales
                             ? op.activationBytes
                             : std::int64_t(rule.extraSavedBytesPerOutputElement *
                                            double(elementCount(op.outputShape)) / b);
    if (op.aliasesInput)
        op.activationBytes = 0; // shares its input's storage
}

} // namespace portolan::graph
