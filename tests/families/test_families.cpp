// Model families from params: published parameter counts of well-known models (built from
// params written here with the published architecture), both params layouts, family inference,
// and positioned errors on broken params.
#include "core/families/families.h"

#include <QTest>

using namespace portolan;

namespace {

QByteArray llama(int layers, int hidden, int heads, int kv, int filter, int vocab, bool moe = false)
{
    QByteArray y = "model:\n  name: llama\n";
    y += "  vocab_size: " + QByteArray::number(vocab) + "\n";
    y += "  hidden_size: " + QByteArray::number(hidden) + "\n";
    y += "  num_hidden_layers: " + QByteArray::number(layers) + "\n";
    y += "  num_heads: " + QByteArray::number(heads) + "\n";
    y += "  filter_size: " + QByteArray::number(filter) + "\n";
    y += "  position_embedding_type: rotary\n  rotary_dim: " + QByteArray::number(hidden / heads) +
         "\n";
    y += "  share_embedding_weights: false\n  norm_type: rmsnorm\n  nonlinearity: swiglu\n";
    y += "  use_projection_bias_in_attention: false\n  use_ffn_bias_in_attention: false\n";
    y += "  use_ffn_bias: false\n  use_bias_in_output: false\n  max_position_embeddings: 4096\n";
    if (kv != heads)
        y += "  attention_module: multiquery_attention\n  extra_attention_params:\n"
             "    num_kv_groups: " +
             QByteArray::number(kv) + "\n";
    if (moe)
        y += "  moe:\n    num_experts: 8\n    top_k: 2\n";
    y += "train_input:\n  batch_size: 8\n  max_sequence_length: 2048\n";
    return y;
}

const char* kGpt2Small = R"(# GPT-2 small as published (HF gpt2)
train_input:
  batch_size: 32
  max_sequence_length: 1024
model:
  vocab_size: 50257
  hidden_size: 768
  use_position_embedding: True
  position_embedding_type: "learned"
  share_embedding_weights: True
  max_position_embeddings: 1024
  num_hidden_layers: 12
  num_heads: 12
  filter_size: 3072
  nonlinearity: "gelu"
  use_bias_in_output: False
)";

const char* kBertBase = R"(model:
  name: bert
  vocab_size: 30522
  hidden_size: 768
  num_hidden_layers: 12
  num_heads: 12
  filter_size: 3072
  encoder_nonlinearity: gelu
  max_position_embeddings: 512
train_input:
  batch_size: 256
  max_sequence_length: 128
  max_predictions_per_seq: 20
)";

const char* kFalcon7b = R"(trainer:
  init:
    model:
      name: falcon
      vocab_size: 65024
      position_embedding_type: rotary
      rotary_dim: 64
      share_embedding_weights: true
      hidden_size: 4544
      filter_size: 18176
      num_heads: 71
      num_hidden_layers: 32
      max_position_embeddings: 2048
      attention_module: multiquery_attention
      use_untied_layer_norm: false
      extra_attention_params:
        num_kv_groups: 1
      use_projection_bias_in_attention: false
      use_ffn_bias_in_attention: false
      use_ffn_bias: false
      nonlinearity: gelu
      use_bias_in_output: false
    optimizer:
      AdamW:
        lr: 0.001
    precision:
      enabled: true
  fit:
    train_dataloader:
      batch_size: 75
      micro_batch_size: 25
)";

} // namespace

class TestFamilies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void publishedParameterCounts_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<qlonglong>("params");
        // Parameter counts of the published checkpoints (Hugging Face model cards and configs).
        QTest::addRow("gpt2-small") << QByteArray(kGpt2Small) << 124439808LL;
        QTest::addRow("llama-2-7b") << llama(32, 4096, 32, 32, 11008, 32000) << 6738415616LL;
        QTest::addRow("llama-2-70b") << llama(80, 8192, 64, 8, 28672, 32000) << 68976648192LL;
        QTest::addRow("mistral-7b") << llama(32, 4096, 32, 8, 14336, 32000) << 7241732096LL;
        QTest::addRow("mixtral-8x7b")
            << llama(32, 4096, 32, 8, 14336, 32000, true) << 46702792704LL;
        QTest::addRow("falcon-7b") << QByteArray(kFalcon7b) << 6921720704LL;
        QTest::addRow("bert-base") << QByteArray(kBertBase) << 110106428LL;
    }
    void publishedParameterCounts()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(qlonglong, params);
        auto r = families::buildFromParamsText(yaml.toStdString(), "params.yaml");
        QVERIFY2(r, r.error.toString().c_str());
        QCOMPARE(qlonglong(r.value->graph.totalParams()), params);
    }

    void layoutsAndData_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<qlonglong>("batch");
        QTest::addColumn<qlonglong>("micro");
        QTest::addColumn<qlonglong>("sequence");
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<bool>("mixed");
        QTest::addRow("classic") << QByteArray(kGpt2Small) << "classic" << 32LL << 0LL << 1024LL
                                 << "" << false;
        QTest::addRow("trainer, sequence from the model")
            << QByteArray(kFalcon7b) << "trainer" << 75LL << 25LL << 2048LL << "adamw" << true;
    }
    void layoutsAndData()
    {
        QFETCH(QByteArray, yaml);
        auto r = families::buildFromParamsText(yaml.toStdString(), "p.yaml");
        QVERIFY2(r, r.error.toString().c_str());
        QTEST(QString::fromStdString(r.value->layout), "layout");
        QTEST(qlonglong(r.value->data.batchSize), "batch");
        QTEST(qlonglong(r.value->data.microBatch), "micro");
        QTEST(qlonglong(r.value->data.sequence), "sequence");
        QTEST(QString::fromStdString(r.value->optimizer), "optimizer");
        QTEST(r.value->mixedPrecision, "mixed");
    }

    void inference_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("family");
        QTest::addColumn<bool>("inferred");
        QTest::addRow("named") << QByteArray(kBertBase) << "x.yaml"
                               << "bert" << false;
        QTest::addRow("gpt2 path, no name")
            << QByteArray(kGpt2Small) << "R_1.6.0__transformers__pytorch__gpt2__configs__p.yaml"
            << "gpt2" << true;
        QTest::addRow("gpt3 folder")
            << QByteArray(kGpt2Small) << "/zoo/transformers/pytorch/gpt3/configs/p.yaml"
            << "gpt3" << true;
        QTest::addRow("decoder keys only") << QByteArray(kGpt2Small) << "params.yaml"
                                           << "gpt2" << true;
    }
    void inference()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QString, file);
        auto r = families::buildFromParamsText(yaml.toStdString(), file.toStdString());
        QVERIFY2(r, r.error.toString().c_str());
        QTEST(QString::fromStdString(r.value->family), "family");
        QTEST(r.value->inferred, "inferred");
        if (r.value->inferred) {
            // The report says so.
            bool said = false;
            for (const auto& n : r.value->notes)
                said = said || n.find("inferred") != std::string::npos;
            QVERIFY(said);
        }
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("text");
        QTest::addRow("data preparation")
            << QByteArray("setup:\n  input_dir: x\n") << 1 << "families.no-model"
            << "no model section";
        QTest::addRow("unknown family")
            << QByteArray("model:\n  name: dino\n") << 2 << "families.unknown"
            << "dino";
        QTest::addRow("bad type") << QByteArray("model:\n  name: gpt2\n  hidden_size: wide\n"
                                                "  num_hidden_layers: 2\n  num_heads: 2\n")
                                  << 3 << "runtime.params-type"
                                  << "hidden_size";
        QTest::addRow("heads") << QByteArray("model:\n  name: llama\n  hidden_size: 10\n"
                                             "  num_hidden_layers: 2\n  num_heads: 3\n")
                               << 5 << "families.heads"
                               << "not divisible";
        QTest::addRow("activation") << QByteArray("model:\n  name: gpt2\n  hidden_size: 8\n"
                                                  "  num_hidden_layers: 1\n  num_heads: 2\n"
                                                  "  nonlinearity: sine\n")
                                    << 6 << "families.activation"
                                    << "sine";
        QTest::addRow("syntax") << QByteArray("model: [1, 2\n") << 2 << "families.yaml"
                                << "syntax";
    }
    void errors()
    {
        QFETCH(QByteArray, yaml);
        auto r = families::buildFromParamsText(yaml.toStdString(), "broken.yaml");
        QVERIFY(!r);
        QTEST(r.error.location.line, "line");
        QTEST(QString::fromStdString(r.error.code), "code");
        QFETCH(QString, text);
        QVERIFY2(QString::fromStdString(r.error.message).contains(text),
                 r.error.toString().c_str());
        QCOMPARE(QString::fromStdString(r.error.location.file), QStringLiteral("broken.yaml"));
    }

    void moeCountsTopKExperts()
    {
        // MoE FLOPs count the top-k experts per token: 8 experts, top-2, against the dense twin
        // with one expert's MLP, the MLP FLOPs are exactly twice as many.
        auto dense =
            families::buildFromParamsText(llama(2, 256, 4, 4, 512, 1000).toStdString(), "d.yaml");
        auto moe = families::buildFromParamsText(llama(2, 256, 4, 4, 512, 1000, true).toStdString(),
                                                 "m.yaml");
        QVERIFY(dense && moe);
        const auto mlpFlops = [](const graph::OpGraph& g) {
            double f = 0;
            for (const auto& op : g.ops)
                if (op.modulePath.find(".mlp.") != std::string::npos && op.kind == "aten::linear" &&
                    op.modulePath.find("router") == std::string::npos)
                    f += op.forwardFlops;
            return f;
        };
        QCOMPARE(mlpFlops(moe.value->graph), 2 * mlpFlops(dense.value->graph));
    }
};

QTEST_GUILESS_MAIN(TestFamilies)
#include "test_families.moc"
