// The text families' twins (decoders, BERT-style encoders, encoder-decoders) for
// test_families_twins: each family's params, written here at a small size, and a torch::nn model
// of the same architecture built from the same sizes (twins.h).
#include "twin_case.h" // LibTorch before Qt

using namespace portolan;
using twins::Spec;
using twins::TwinCases;

namespace {

std::string decoderYaml(const std::string& name, const std::string& extra)
{
    return "train_input:\n  batch_size: 4\n  max_sequence_length: 16\nmodel:\n  name: " + name +
           "\n  vocab_size: 97\n  hidden_size: 64\n  num_hidden_layers: 2\n  num_heads: 4\n"
           "  filter_size: 128\n  max_position_embeddings: 32\n" +
           extra;
}

torch::Tensor tokens()
{
    return torch::randint(97, {2, 16});
}

// A BERT twin: embeddings with segments and a norm, post-norm blocks, NSP on the pooled first
// token, MLM (transform, norm, tied decoder with bias) on the masked positions.
struct BertHeadsImpl : torch::nn::Module
{
    BertHeadsImpl(const Spec& s, torch::Tensor word, int64_t masked, bool nsp, bool preLn)
        : masked(masked), withNsp(nsp)
    {
        this->word = register_parameter("word", word); // tied: shared with the embedding
        if (preLn)
            final = register_module("final", twins::Norm("layernorm", s.hidden));
        if (nsp) {
            pooler = register_module("pooler", torch::nn::Linear(s.hidden, s.hidden));
            nspHead = register_module("nsp", torch::nn::Linear(s.hidden, 2));
        }
        transform = register_module("transform", torch::nn::Linear(s.hidden, s.hidden));
        norm = register_module("norm", twins::Norm("layernorm", s.hidden));
        bias = register_parameter("bias", torch::zeros({s.vocab}));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        if (final)
            x = final(x);
        if (withNsp)
            nspHead(torch::tanh(pooler(x.narrow(1, 0, 1))));
        auto h = masked < x.size(1) ? x.index_select(1, torch::arange(masked)) : x;
        h = norm(torch::gelu(transform(h)));
        return torch::linear(h, this->word, bias);
    }
    torch::Tensor word;
    int64_t masked;
    bool withNsp;
    twins::Norm final{nullptr}, norm{nullptr};
    torch::nn::Linear pooler{nullptr}, nspHead{nullptr}, transform{nullptr};
    torch::Tensor bias;
};
TORCH_MODULE(BertHeads);

torch::nn::Sequential bert(const Spec& s, int64_t masked, bool nsp)
{
    torch::nn::Sequential net;
    twins::Embed emb(s);
    net->push_back("embeddings", emb);
    for (int64_t l = 0; l < s.layers; ++l)
        net->push_back("encoder" + std::to_string(l), twins::Block(s));
    net->push_back("heads", BertHeads(s, emb->wte->weight, masked, nsp, s.preNorm));
    return net;
}

// An encoder-decoder twin: one token stream [source | target]; encoder layers rewrite the
// source part, decoder layers the target part with cross-attention to the source part.
struct Seq2SeqEmbedImpl : torch::nn::Module
{
    Seq2SeqEmbedImpl(const Spec& s) : s(s)
    {
        shared = register_module("shared", torch::nn::Embedding(s.vocab, s.hidden));
    }
    torch::Tensor forward(torch::Tensor ids)
    {
        auto x = shared(ids);
        if (s.positions == "fixed")
            x = x + torch::zeros({1, ids.size(1), s.hidden});
        return x;
    }
    Spec s;
    torch::nn::Embedding shared{nullptr};
};
TORCH_MODULE(Seq2SeqEmbed);

struct EncoderLayerImpl : torch::nn::Module
{
    EncoderLayerImpl(const Spec& s, int64_t src, torch::Tensor table, bool finalNorm) : src(src)
    {
        if (table.defined())
            this->table = register_parameter("relative", table); // shared by the stack
        block = register_module("block", twins::Block(s));
        if (finalNorm)
            norm = register_module("norm", twins::Norm(s.norm, s.hidden));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto enc = block->forward(x.narrow(1, 0, src), torch::Tensor(), table);
        if (norm)
            enc = norm(enc);
        return torch::cat({enc, x.narrow(1, src, x.size(1) - src)}, 1);
    }
    int64_t src;
    torch::Tensor table;
    twins::Block block{nullptr};
    twins::Norm norm{nullptr};
};
TORCH_MODULE(EncoderLayer);

struct DecoderLayerImpl : torch::nn::Module
{
    DecoderLayerImpl(const Spec& s, int64_t src, torch::Tensor table) : src(src)
    {
        if (table.defined())
            this->table = register_parameter("relative", table); // shared by the stack
        block = register_module("block", twins::Block(s, true));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto mem = x.narrow(1, 0, src);
        auto dec = block->forward(x.narrow(1, src, x.size(1) - src), mem, table);
        return torch::cat({mem, dec}, 1);
    }
    int64_t src;
    torch::Tensor table;
    twins::Block block{nullptr};
};
TORCH_MODULE(DecoderLayer);

struct Seq2SeqHeadImpl : torch::nn::Module
{
    Seq2SeqHeadImpl(const Spec& s, int64_t src, torch::Tensor word, bool norm, bool rescale)
        : src(src), rescale(rescale)
    {
        this->word = register_parameter("word", word); // tied to the shared embedding
        if (norm)
            final = register_module("final", twins::Norm(s.norm, s.hidden));
        register_module("traced", torch::nn::Identity());
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto dec = x.narrow(1, src, x.size(1) - src);
        if (final)
            dec = final(dec);
        if (rescale)
            dec = dec * 0.125;
        return torch::linear(dec, this->word);
    }
    int64_t src;
    torch::Tensor word;
    bool rescale;
    twins::Norm final{nullptr};
};
TORCH_MODULE(Seq2SeqHead);

torch::nn::Sequential seq2seq(const Spec& s, int64_t src, int64_t layers, bool t5)
{
    torch::nn::Sequential net;
    Seq2SeqEmbed emb(s);
    net->push_back("embeddings", emb);
    // T5: one relative-position table per stack, owned by its first layer.
    torch::Tensor encTable, decTable;
    if (t5) {
        encTable = emb->register_parameter("enc_relative", torch::randn({32, s.heads}));
        decTable = emb->register_parameter("dec_relative", torch::randn({32, s.heads}));
    }
    for (int64_t l = 0; l < layers; ++l)
        net->push_back("encoder" + std::to_string(l),
                       EncoderLayer(s, src, encTable, t5 && l + 1 == layers));
    for (int64_t l = 0; l < layers; ++l)
        net->push_back("decoder" + std::to_string(l), DecoderLayer(s, src, decTable));
    net->push_back("head", Seq2SeqHead(s, src, emb->shared->weight, t5, t5));
    return net;
}

} // namespace

const TwinCases& portolan::twins::textCases()
{
    static const TwinCases list = [] {
        TwinCases v;
        {
            Spec s; // GPT-2/3: learned positions, tied head, gelu, biases
            v.push_back({"gpt2",
                         {decoderYaml("gpt2", "  nonlinearity: gelu\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // LLaMA: rotary, RMS norm, SwiGLU, GQA, untied, no biases
            s.positions = "rotary";
            s.norm = "rmsnorm";
            s.activation = "swiglu";
            s.kvHeads = 2;
            s.qkvBias = s.outBias = s.ffnBias = false;
            s.tied = false;
            v.push_back(
                {"llama",
                 {decoderYaml("llama", "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                       "  norm_type: rmsnorm\n  nonlinearity: swiglu\n"
                                       "  share_embedding_weights: false\n"
                                       "  use_projection_bias_in_attention: false\n"
                                       "  use_ffn_bias_in_attention: false\n  use_ffn_bias: false\n"
                                       "  attention_module: multiquery_attention\n"
                                       "  extra_attention_params: {num_kv_groups: 2}\n"),
                  [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // Mixtral: LLaMA with 4 experts, top-2
            s.positions = "rotary";
            s.norm = "rmsnorm";
            s.activation = "swiglu";
            s.kvHeads = 2;
            s.qkvBias = s.outBias = s.ffnBias = false;
            s.tied = false;
            s.experts = 4;
            s.topK = 2;
            v.push_back({"mixtral",
                         {decoderYaml("mixtral",
                                      "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                      "  norm_type: rmsnorm\n  nonlinearity: swiglu\n"
                                      "  share_embedding_weights: false\n"
                                      "  use_projection_bias_in_attention: false\n"
                                      "  use_ffn_bias_in_attention: false\n  use_ffn_bias: false\n"
                                      "  attention_module: multiquery_attention\n"
                                      "  extra_attention_params: {num_kv_groups: 2}\n"
                                      "  moe: {num_experts: 4, top_k: 2}\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // Falcon-7B style: parallel block, one norm, MQA, rotary, tied
            s.positions = "rotary";
            s.parallel = true;
            s.kvHeads = 1;
            s.qkvBias = s.outBias = s.ffnBias = false;
            v.push_back(
                {"falcon",
                 {decoderYaml("falcon", "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                        "  attention_module: multiquery_attention\n"
                                        "  extra_attention_params: {num_kv_groups: 1}\n"
                                        "  use_untied_layer_norm: false\n"
                                        "  use_projection_bias_in_attention: false\n"
                                        "  use_ffn_bias_in_attention: false\n"
                                        "  use_ffn_bias: false\n  nonlinearity: gelu\n"),
                  [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // GPT-NeoX: parallel with two norms, partial rotary, untied, head bias
            s.positions = "rotary";
            s.rotaryDim = 8;
            s.parallel = s.twoNorms = true;
            s.tied = false;
            s.headBias = true;
            v.push_back({"gpt-neox",
                         {decoderYaml("gptj", "  position_embedding_type: rotary\n  rotary_dim: 8\n"
                                              "  use_untied_layer_norm: true\n"
                                              "  share_embedding_weights: false\n"
                                              "  use_bias_in_output: true\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // BLOOM: ALiBi, embedding norm
            s.positions = "alibi";
            s.embeddingNorm = true;
            v.push_back({"bloom",
                         {decoderYaml("bloom", "  position_embedding_type: alibi\n"
                                               "  embedding_layer_norm: true\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // MPT: ALiBi, bias-free norms and projections
            s.positions = "alibi";
            s.norm = "biasless";
            s.qkvBias = s.outBias = s.ffnBias = false;
            v.push_back({"mpt",
                         {decoderYaml("mpt", "  position_embedding_type: alibi\n"
                                             "  norm_type: biasless-layernorm\n"
                                             "  use_projection_bias_in_attention: false\n"
                                             "  use_ffn_bias_in_attention: false\n"
                                             "  use_ffn_bias: false\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // StarCoder: learned positions, MQA
            s.kvHeads = 1;
            v.push_back(
                {"starcoder",
                 {decoderYaml("starcoder", "  attention_module: multiquery_attention\n"
                                           "  extra_attention_params: {num_kv_groups: 1}\n"),
                  [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // Jais / BTLM: ALiBi, SwiGLU, muP embedding scale
            s.positions = "alibi";
            s.activation = "swiglu";
            s.embeddingScale = true;
            v.push_back({"jais",
                         {decoderYaml("jais", "  position_embedding_type: alibi\n"
                                              "  nonlinearity: swiglu\n"
                                              "  embeddings_scale: 14.6\n"),
                          [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // Gemma 2: sandwich norms, GeGLU, RMS norm, rotary, wider heads
            s.positions = "rotary";
            s.norm = "rmsnorm";
            s.activation = "geglu";
            s.sandwich = true;
            s.headDim = 32;
            s.rotaryDim = 32;
            s.kvHeads = 2;
            s.qkvBias = s.outBias = s.ffnBias = false;
            s.embeddingScale = true;
            v.push_back(
                {"gemma2",
                 {decoderYaml("gemma2", "  position_embedding_type: rotary\n  rotary_dim: 32\n"
                                        "  norm_type: rmsnorm\n  nonlinearity: geglu\n"
                                        "  norm_first_sandwich: true\n"
                                        "  attention_inner_dim: 128\n  embeddings_scale: 8\n"
                                        "  attention_module: multiquery_attention\n"
                                        "  extra_attention_params: {num_kv_groups: 2}\n"
                                        "  use_projection_bias_in_attention: false\n"
                                        "  use_ffn_bias_in_attention: false\n"
                                        "  use_ffn_bias: false\n"),
                  [s] { return twins::decoder(s); }, tokens}});
        }
        {
            Spec s; // BERT: post-norm, segments, embedding norm, MLM on 5 masked of 16, NSP
            s.preNorm = false;
            s.causal = false;
            s.segments = true;
            s.embeddingNorm = true;
            v.push_back({"bert",
                         {"model:\n  name: bert\n  vocab_size: 97\n  hidden_size: 64\n"
                          "  num_hidden_layers: 2\n  num_heads: 4\n  filter_size: 128\n"
                          "  max_position_embeddings: 32\n  encoder_nonlinearity: gelu\n"
                          "train_input:\n  batch_size: 2\n  max_sequence_length: 16\n"
                          "  max_predictions_per_seq: 5\n",
                          [s] { return bert(s, 5, true); }, tokens}});
        }
        {
            Spec s; // ESM-2: pre-norm, rotary, no segments or embedding norm, final norm
            s.positions = "rotary";
            s.causal = false;
            v.push_back({"esm2",
                         {"model:\n  name: esm2\n  vocab_size: 97\n  hidden_size: 64\n"
                          "  num_hidden_layers: 2\n  num_heads: 4\n  filter_size: 128\n"
                          "  max_position_embeddings: 32\n  encoder_nonlinearity: gelu\n"
                          "  mlm_nonlinearity: gelu\n  position_embedding_type: rotary\n"
                          "  rotary_dim: 16\n  embedding_layer_norm: false\n  disable_nsp: true\n"
                          "  use_final_layer_norm: true\n"
                          "train_input:\n  batch_size: 2\n  max_sequence_length: 16\n",
                          [s] { return bert(s, 16, false); }, tokens}});
        }
        {
            Spec s; // T5: relative buckets, RMS norm, pre-norm, ReLU, no biases, tied
            s.positions = "relative";
            s.norm = "rmsnorm";
            s.activation = "relu";
            s.qkvBias = s.outBias = s.ffnBias = false;
            s.causal = true;
            v.push_back({"t5",
                         {"model:\n  name: t5\n  src_vocab_size: 97\n  d_model: 64\n  d_kv: 16\n"
                          "  d_ff: 128\n  num_heads: 4\n  encoder_num_hidden_layers: 2\n"
                          "  decoder_num_hidden_layers: 2\n  encoder_nonlinearity: relu\n"
                          "  decoder_nonlinearity: relu\n  dropout_rate: 0.0\n"
                          "train_input:\n  batch_size: 2\n  src_max_sequence_length: 12\n"
                          "  tgt_max_sequence_length: 8\n",
                          [s] { return seq2seq(s, 12, 2, true); },
                          [] {
                              return torch::randint(97, {2, 20});
                          }}});
        }
        {
            Spec s; // Transformer: fixed positions, post-norm layer norm, biases in the MLP
            s.positions = "fixed";
            s.preNorm = false;
            s.activation = "relu";
            s.qkvBias = s.outBias = false;
            v.push_back(
                {"transformer",
                 {"model:\n  name: transformer\n  src_vocab_size: 97\n  d_model: 64\n"
                  "  d_kv: 16\n  d_ff: 128\n  num_heads: 4\n  encoder_num_hidden_layers: 2\n"
                  "  decoder_num_hidden_layers: 2\n  encoder_nonlinearity: relu\n"
                  "  decoder_nonlinearity: relu\n  dropout_rate: 0.0\n"
                  "  position_embedding_type: fixed\n  norm_type: layernorm\n"
                  "  use_pre_encoder_decoder_layer_norm: false\n  use_ffn_bias: true\n"
                  "train_input:\n  batch_size: 2\n  src_max_sequence_length: 12\n"
                  "  tgt_max_sequence_length: 8\n",
                  [s] { return seq2seq(s, 12, 2, false); },
                  [] {
                      return torch::randint(97, {2, 20});
                  }}});
        }
        return v;
    }();
    return list;
}
