// The fidelity table: published IPU and CS configurations, simulated with the constants of
// resources/targets/poplar.yaml (each with its source; none tuned to this table). Each row
// must reproduce fit or no fit; the margin (fullest tile against capacity) and, where PopVision
// figures were published, the simulated bytes per IPU are printed beside the published ones.
// Rows close to the limit that must not fit check the model is not simply optimistic; where the
// model still disagrees with a row, the row says so (QEXPECT_FAIL with the reason).
// The automatic split and the search against published configurations are in
// test_sim_fidelity_splits.cpp; the models and options both read are in fidelity_models.h.
#include "core/sim/ipu_sim.h"
#include "fidelity_models.h" // LibTorch before Qt

#include <QTest>
#include <algorithm>
#include <vector>

using namespace portolan;
using namespace portolan::sim;
using namespace portolan::sim::fidelity;

namespace {

struct Row
{
    QString model;
    CompileOptions options;
    bool fits = true;
    QString source;
    QList<double> publishedGiB; // PopVision's per-IPU figures, when published
    QString knownOff;           // the model disagrees with this row: why (QEXPECT_FAIL)
    bool showBefore = false;    // also print the model before off-chip streaming per weight and
                                // fp16 first-order momentum (issue 22 item 5)
};

// mT5-small as optimum-graphcore's mt5_translation notebook runs it, with the IPU config it
// loads (Graphcore/mt5-small-ipu ipu_config.json): fp16, AdamW, micro-batch 1, 128 accumulated,
// layers_per_ipu [0, 8, 8, 0], matmul_proportion 0.25, recompute every layer, and half partials
// (the config does not set enable_half_partials; IPUConfig's default is true in the
// optimum-graphcore releases that read projection_serialization_factor).
CompileOptions mt5(bool offChip, int serialization)
{
    CompileOptions o = ipuOptions(4, {0, 8, 8, 0}, 1, 1, 128, Optimizer::AdamW);
    o.training.halfPartials = true;
    o.training.optimizerOffChip = offChip;
    o.training.serializationFactor = serialization;
    o.training.availableMemoryProportion = 0.25;
    o.training.recompute = true;
    return o;
}

// Graphcore's SQuAD fine-tuning (nlp/bert/pytorch/configs_squad.yml, squad_base_384 and the
// defaults it inherits): fp16, AdamW, recompute every layer, half partials, no embedding
// serialization; each configuration's placement of the optimizer state (off chip or on chip,
// sharded across replicas or not) and its fp16 first-order momentum
// (enable_half_first_order_momentum: True).
CompileOptions squad(int ipus, std::vector<int> split, int replicas, int mb, int accum,
                     std::vector<double> amp, bool offChip, bool sharded, bool halfMomentum)
{
    CompileOptions o = ipuOptions(ipus, std::move(split), replicas, mb, accum, Optimizer::AdamW);
    o.training.recompute = true;
    o.training.halfPartials = true;
    o.training.optimizerOffChip = offChip;
    o.training.replicatedTensorSharding = sharded;
    o.training.halfFirstOrderMomentum = halfMomentum;
    if (amp.size() == 1)
        o.training.availableMemoryProportion = amp.front();
    else
        o.training.availableMemoryProportionPerStage = std::move(amp);
    return o;
}

// The model as it was before issue 22 item 5: state kept off chip all on chip at once for the
// update, and no fp16 first-order momentum.
IpuModelConstants constantsBefore()
{
    IpuModelConstants k = ipuModelConstants();
    k.offChipWeightsInFlight = 1 << 30;
    return k;
}

const QString kBert = QStringLiteral("graphcore/examples nlp/bert/pytorch/configs_pretraining.yml");
const QString kGpt2 = QStringLiteral("graphcore/examples nlp/gpt2/pytorch/benchmarks.yml");
const QString kMt5 =
    QStringLiteral("optimum-graphcore notebooks/mt5_translation.ipynb (PopVision figures)");
const QString kResnet =
    QStringLiteral("graphcore/examples applications/pytorch/cnns/train/configs.yml (SDK 2.0)");
const QString kSquad = QStringLiteral("graphcore/examples nlp/bert/pytorch/configs_squad.yml");
const QString kResnetMk2 = QStringLiteral(
    "graphcore/examples applications/pytorch/cnns/train/configs.yml resnet50_mk2 (commit "
    "9b61ab6): batch_size 18 per replica on one IPU, recompute_mode manual, "
    "available_memory_proportion 0.12, half partials, 16.16");

std::vector<std::pair<QString, Row>> rows()
{
    std::vector<std::pair<QString, Row>> r;
    r.push_back({"BERT-Large SL128 [3,7,7,7] mb 8",
                 {"bert_large_pretraining", bert(4, {3, 7, 7, 7}, 8, 0.25, 2), true, kBert}});
    r.push_back({"BERT-Large mb 12 (x1.5)",
                 {"bert_large_pretraining", bert(4, {3, 7, 7, 7}, 12, 0.25, 2), false,
                  "published micro-batch plus a half"}});
    r.push_back({"BERT-Large mb 16 (x2)",
                 {"bert_large_pretraining", bert(4, {3, 7, 7, 7}, 16, 0.25, 2), false,
                  "twice the published micro-batch"}});
    {
        // optimum-graphcore's BERT-Large (Graphcore/bert-large-ipu ipu_config.json): the same
        // split with matmul_proportion [0.15, 0.18, 0.20, 0.25] per IPU.
        CompileOptions o = bert(4, {3, 7, 7, 7}, 8, 0.25, 2);
        o.training.availableMemoryProportionPerStage = {0.15, 0.18, 0.20, 0.25};
        r.push_back({"BERT-Large [3,7,7,7] mb 8 AMP per IPU",
                     {"bert_large_pretraining", o, true,
                      "Graphcore/bert-large-ipu ipu_config.json (optimum-graphcore)"}});
    }
    r.push_back({"BERT-Base SL128 [0,4,4,4] mb 32",
                 {"bert_base_pretraining", bert(4, {0, 4, 4, 4}, 32, 0.25, 1), true, kBert}});
    r.push_back({"BERT-Base SL128 mb 48 (x1.5)",
                 {"bert_base_pretraining", bert(4, {0, 4, 4, 4}, 48, 0.25, 1), false,
                  "published micro-batch plus a half"}});
    r.push_back({"BERT-Base SL128 mb 64 (x2)",
                 {"bert_base_pretraining", bert(4, {0, 4, 4, 4}, 64, 0.25, 1), false,
                  "twice the published micro-batch"}});
    r.push_back({"BERT-Base SL512 [0,4,4,4] mb 8",
                 {"bert_base_pretraining_512", bert(4, {0, 4, 4, 4}, 8, 0.25, 2), true, kBert}});
    r.push_back({"BERT-Base SL512 mb 12 (x1.5)",
                 {"bert_base_pretraining_512", bert(4, {0, 4, 4, 4}, 12, 0.25, 2), false,
                  "published micro-batch plus a half"}});
    r.push_back({"ResNet-50 1 IPU mb 6", {"resnet50", resnet(6, false), true, kResnet}});
    r.push_back({"ResNet-50 1 IPU mb 8 recompute", {"resnet50", resnet(8, true), true, kResnet}});
    r.push_back({"ResNet-50 mb 9 (x1.5) no recompute",
                 {"resnet50",
                  resnet(9, false),
                  false,
                  "published micro-batch plus a half",
                  {},
                  "fits with a 12% margin: the base row's micro-batch 6 at Poplar's default "
                  "AMP has no Mk2 configuration behind it in the file cited (its Mk2 entry runs "
                  "micro-batch 18 with recomputation at AMP 0.12, which fits with 8% here), so "
                  "whether micro-batch 9 without recomputation fits a Mk2 is not known"}});
    // Graphcore's Mk2 configuration runs micro-batch 18 with recomputation on one IPU, so a
    // "micro-batch 12 with recomputation must not fit" row would contradict a published one; the
    // near-limit row is half as much again as that configuration.
    r.push_back({"ResNet-50 1 IPU mb 18 recompute AMP 0.12",
                 {"resnet50", resnet(18, true, 0.12), true, kResnetMk2}});
    r.push_back({"ResNet-50 mb 27 (x1.5) recompute AMP 0.12",
                 {"resnet50", resnet(27, true, 0.12), false,
                  "the published Mk2 micro-batch 18 plus a half"}});
    r.push_back({"ResNet-50 mb 24 (x4) recompute",
                 {"resnet50", resnet(24, true), false, "four times the published micro-batch"}});
    {
        CompileOptions o = ipuOptions(8, {1, 6, 6, 7, 7, 7, 7, 7}, 2, 1, 1, Optimizer::Sgd);
        o.training.inference = true;
        o.training.halfPartials = true;
        o.training.availableMemoryProportion = 0.2;
        o.training.serializationFactor = 4;
        r.push_back({"GPT-2 XL inference SL1024 8 IPUs", {"gpt2_xl", o, true, kGpt2}});
        CompileOptions four = o;
        four.ipus = 4;
        four.split = {0, 16, 16, 16};
        r.push_back(
            {"GPT-2 XL inference on 4 IPUs", {"gpt2_xl", four, false, "half the published IPUs"}});
    }
    r.push_back({"GPT-2 small training [0,4,4,4]",
                 {"gpt2_small", gpt2Training(4, {0, 4, 4, 4}, 4), true, kGpt2}});
    r.push_back({"GPT-2 medium training [0,3,3,3,3,4,4,4]",
                 {"gpt2_medium", gpt2Training(8, {0, 3, 3, 3, 3, 4, 4, 4}, 2), true, kGpt2}});
    // Off-chip state without replicated tensor sharding, and fp16 first-order momentum
    // (issue 22 item 5): the SQuAD configurations and the single-replica pretraining one that
    // keeps its state off chip unsharded (the defaults: optimizer_state_offchip True,
    // replicated_tensor_sharding False).
    {
        Row row{"bert_large_squad_384",
                squad(4, {3, 7, 7, 7}, 4, 2, 64, {0.15, 0.25, 0.25, 0.25}, true, true, true), true,
                kSquad + " squad_large_384_4x4 (commit 8ae588c: 4 replicas)"};
        row.showBefore = true;
        r.push_back({"BERT-Large SQuAD SL384 4x4 off chip sharded fp16 FOM", row});
    }
    {
        Row row{"bert_large_squad_384",
                squad(4, {3, 7, 7, 7}, 1, 2, 64, {0.15, 0.25, 0.25, 0.25}, true, false, true), true,
                kSquad + " squad_large_384_4x4 on one replica with the file's default "
                         "replicated_tensor_sharding: False (the state streams whole)"};
        row.showBefore = true;
        r.push_back({"BERT-Large SQuAD SL384 [3,7,7,7] off chip, no RTS", row});
    }
    {
        Row row{"bert_large_squad_384",
                squad(8, {2, 3, 3, 3, 3, 3, 3, 4}, 2, 4, 32,
                      {0.08, 0.28, 0.32, 0.32, 0.36, 0.38, 0.4, 0.32}, false, true, true),
                true,
                kSquad + " squad_large_384 (8 IPUs, state on chip sharded over 2 replicas, fp16 "
                         "first-order momentum)"};
        row.showBefore = true;
        r.push_back({"BERT-Large SQuAD SL384 8 IPUs on chip fp16 FOM", row});
    }
    {
        Row row{"bert_base_3l_128", squad(4, {0, 1, 1, 1}, 1, 8, 128, {0.28}, true, false, false),
                true,
                "graphcore/examples nlp/bert/pytorch/configs_pretraining.yml "
                "pretrain_base_3L_128_single (off chip, no RTS, one replica)"};
        row.showBefore = true;
        r.push_back({"BERT-Base 3L pretraining off chip, no RTS", row});
    }
    r.push_back({"mT5-small AdamW on chip",
                 {"mt5_small", mt5(false, 1), false, kMt5, {1.55, 0.32, 0.47, 1.8}}});
    r.push_back({"mT5-small state off chip, no serialization",
                 {"mt5_small", mt5(true, 1), false,
                  "the notebook: off chip, the embedding's 977 MB of AdamW state still has to "
                  "come on chip for its update"}});
    r.push_back(
        {"mT5-small state off chip, serialized x4", {"mt5_small", mt5(true, 4), true, kMt5}});
    return r;
}

} // namespace

class TestSimFidelity : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void constantsFromTheirFile()
    {
        const IpuModelConstants& k = ipuModelConstants();
        QVERIFY2(QString::fromStdString(k.source).endsWith("targets/poplar.yaml"),
                 k.source.c_str());
        std::printf("IPU model constants: %s\n", k.source.c_str());
    }

    void ipuTable_data()
    {
        QTest::addColumn<int>("index");
        const auto all = rows();
        for (std::size_t i = 0; i < all.size(); ++i)
            QTest::addRow("%s", qPrintable(all[i].first)) << int(i);
    }
    void ipuTable()
    {
        QFETCH(int, index);
        const auto all = rows();
        const Row& row = all[std::size_t(index)].second;
        const graph::OpGraph& g = modelGraph(row.model);
        QVERIFY2(!g.ops.empty(), qPrintable(row.model));
        auto r = compileGraph(g, row.options);
        QVERIFY2(r, r.error.toString().c_str());
        const auto& ipu = *r.value->ipu;
        const double margin =
            double(r.value->capacityBytes - r.value->peakBytes) / double(r.value->capacityBytes);
        std::string perIpu;
        for (const auto& st : ipu.stages)
            if (st.usedBytes > 0)
                perIpu += (perIpu.empty() ? "" : " / ") +
                          QString::number(double(st.usedBytes) / (1 << 30), 'f', 2).toStdString();
        std::string published;
        for (double gib : row.publishedGiB)
            published += (published.empty() ? "" : " / ") + QString::number(gib).toStdString();
        std::printf("  %-44s %-12s published %-12s margin %+6.1f%%  GiB per IPU %s%s%s\n",
                    QTest::currentDataTag(), r.value->fits ? "fits" : "does not fit",
                    row.fits ? "fits" : "no fit", 100 * margin, perIpu.c_str(),
                    published.empty() ? "" : " (PopVision ",
                    published.empty() ? "" : published.c_str());
        if (!published.empty())
            std::printf(")\n");
        // What the fullest tile holds, by PopVision's categories (KB).
        int fullest = 0;
        for (int t = 0; t < int(ipu.tileBytes[0].size()); ++t)
            if (ipu.tileTotal(t) > ipu.tileTotal(fullest))
                fullest = t;
        std::string cats;
        for (int c = 0; c < kMemoryCategories; ++c)
            cats += std::string(cats.empty() ? "" : ", ") + memoryCategoryName(MemoryCategory(c)) +
                    " " +
                    std::to_string(ipu.tileBytes[std::size_t(c)][std::size_t(fullest)] / 1024);
        std::printf("      fullest tile %d (IPU %d), KB: %s\n", fullest, fullest / ipu.tilesPerIpu,
                    cats.c_str());
        // How much of the margin rests on the one estimate left in the tile model: the exchange
        // code per byte received (poplar.yaml exchange_code_per_byte, no public figure).
        {
            IpuModelConstants bare = ipuModelConstants();
            bare.exchangeCodePerByte = 0;
            auto target = targets::loadTarget(row.options.target);
            QVERIFY(target);
            auto b = simulateIpu(g, *target.value, row.options, bare);
            QVERIFY(b);
            std::printf("      without the exchange-code estimate: %s, margin %+.1f%%\n",
                        b.value->fits ? "fits" : "does not fit",
                        100 * double(b.value->capacityBytes - b.value->peakBytes) /
                            double(b.value->capacityBytes));
        }
        if (row.showBefore) {
            // Before issue 22 item 5: off-chip state all on chip for the update, fp32 momentum.
            CompileOptions before = row.options;
            before.training.halfFirstOrderMomentum = false;
            auto target = targets::loadTarget(row.options.target);
            QVERIFY(target);
            auto b = simulateIpu(g, *target.value, before, constantsBefore());
            QVERIFY(b);
            std::printf("      before (off-chip state all on chip at the update, fp32 first-order "
                        "momentum): %s, margin %+.1f%%\n",
                        b.value->fits ? "fits" : "does not fit",
                        100 * double(b.value->capacityBytes - b.value->peakBytes) /
                            double(b.value->capacityBytes));
        }
        if (!row.knownOff.isEmpty())
            QEXPECT_FAIL("", qPrintable("model off: " + row.knownOff), Continue);
        QCOMPARE(r.value->fits, row.fits);
    }

    // Throughput against Graphcore's published training figures (Graphcore "Performance
    // Results" page, Bow Pod16, pre-SDK 2.5 table: items/s at fp16.16). The model has no host
    // I/O, no all-reduce across replicas and no per-step program overhead, so it may read high;
    // Graphcore's own figures for one model on one system spread by about 15% across frameworks
    // and SDKs (BERT-Large SL128 on Bow Pod16: 4,527 TensorFlow2 SDK 3.3 to 5,179 PopART), so a
    // row holds within a factor of 1.5 either way (simulated / published in [0.67, 1.5]).
    void throughputTable_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("config"); // 0: BERT-Large, 1: ResNet-50
        QTest::addColumn<double>("published");
        QTest::addColumn<QString>("source");
        QTest::addRow("BERT-Large SL128 Bow Pod16")
            << "bert_large_pretraining" << 0 << 5179.0 << "PopART, batch 65,536";
        QTest::addRow("ResNet-50 Bow Pod16")
            << "resnet50" << 1 << 42029.0 << "TensorFlow1, batch 1,920";
    }
    void throughputTable()
    {
        QFETCH(QString, model);
        QFETCH(int, config);
        QFETCH(double, published);
        QFETCH(QString, source);
        // BERT-Large as the memory row (4 IPUs x 4 replicas, [3,7,7,7], micro-batch 8); ResNet-50
        // data-parallel on 16 IPUs at the published batch (16 x 6 x 20 = 1,920).
        CompileOptions o = config == 0 ? bert(4, {3, 7, 7, 7}, 8, 0.25, 2) : resnet(6, false);
        o.target = "ipu-bow";
        if (config == 1)
            o.training.gradAccum = 20;
        const graph::OpGraph& g = modelGraph(model);
        QVERIFY2(!g.ops.empty(), qPrintable(model));
        auto r = compileGraph(g, o);
        QVERIFY2(r, r.error.toString().c_str());
        const double simulated = r.value->samplesPerSecond;
        const double ratio = simulated / published;
        std::printf("  %-30s simulated %8.0f samples/s, published %8.0f (%s): x%.2f%s\n",
                    QTest::currentDataTag(), simulated, published, qPrintable(source), ratio,
                    r.value->fits ? "" : " (does not fit)");
        // Known off: the cycle model reads high. matmul_efficiency (0.6 of peak) has no source
        // that holds: at the model's FLOP count, the published BERT-Large figure is about a third
        // of peak, and convolutions with few channels run the AMP units well below that.
        if (QTest::currentDataTag() == QByteArray("BERT-Large SL128 Bow Pod16") ||
            QTest::currentDataTag() == QByteArray("ResNet-50 Bow Pod16"))
            QEXPECT_FAIL("",
                         "model off: the matmul and convolution efficiency has no source "
                         "that holds (poplar.yaml matmul_efficiency)",
                         Continue);
        QVERIFY2(ratio >= 1 / 1.5 && ratio <= 1.5, qPrintable(QString::number(ratio)));
    }

    void csModelZoo_data()
    {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<QString>("force"); // the mode the user forces ("": chosen by size)
        // Cerebras Model Zoo R_1.6.0 README: layer-pipelined holds models under about a
        // billion parameters; its GPT-2 Large (774 M) runs pipelined at batch 32.
        QTest::addRow("R_1.6.0 GPT-2 Large batch 32")
            << "R_1.6.0__transformers__pytorch__gpt2__configs__params_gpt2_large.yaml"
            << "layer-pipelined" << true << "";
        QTest::addRow("R_1.6.0 GPT-2 small")
            << "R_1.6.0__transformers__pytorch__gpt2__configs__params_gpt2_small.yaml"
            << "layer-pipelined" << true << "";
        // Model Zoo R1.8.0 README and configs: GPT-3 6.7B at batch 85 and GPT-J 6B at batch 65
        // in weight-streaming mode.
        QTest::addRow("R_1.8.0 GPT-3 6.7B batch 85")
            << "R_1.8.0__transformers__pytorch__gpt3__configs__params_gpt3_6p7b.yaml"
            << "weight-streaming" << true << "";
        QTest::addRow("R_1.8.0 GPT-J 6B batch 65")
            << "R_1.8.0__transformers__tf__gptj__configs__params_gptj_6B.yaml"
            << "weight-streaming" << true << "";
        // Model Zoo R_1.6.0 README, "Execution modes": layer-pipelined holds models of less than
        // a billion parameters; Cerebras runs GPT-2 XL (1.5 B) in weight streaming. Forced
        // layer-pipelined, it is not supported and does not fit (before: "fits").
        QTest::addRow("GPT-2 XL 1.5B forced layer-pipelined")
            << "RELEASE_2.1.0__transformers__pytorch__gpt2__configs__params_gpt2_xl.yaml"
            << "layer-pipelined" << false << "layer-pipelined";
        QTest::addRow("GPT-2 XL 1.5B by size")
            << "RELEASE_2.1.0__transformers__pytorch__gpt2__configs__params_gpt2_xl.yaml"
            << "weight-streaming" << true << "";
    }

    void csModelZoo()
    {
        const QByteArray root = qgetenv("PORTOLAN_CORPUS");
        if (root.isEmpty())
            QSKIP("PORTOLAN_CORPUS is not set; the CS rows read Model Zoo configs");
        QFETCH(QString, config);
        QFETCH(QString, force);
        auto built =
            families::buildFromParamsFile(QString::fromLocal8Bit(root).toStdString() +
                                          "/cerebras-modelzoo-configs/" + config.toStdString());
        QVERIFY2(built, built.error.toString().c_str());
        CompileOptions o;
        o.target = "cs-2";
        o.advice = false;
        o.training.microBatch = int(built.value->data.batchSize);
        o.training.precision = Precision::Mixed;
        o.training.optimizer = Optimizer::AdamW;
        o.csMode = force.toStdString();
        auto r = compileGraph(built.value->graph, o);
        QVERIFY2(r, r.error.toString().c_str());
        std::printf("  %-32s %.3g B params: %s, %s, on wafer %.1f GB of 40 GB; %s\n",
                    QTest::currentDataTag(), double(built.value->graph.totalParams()) / 1e9,
                    r.value->cs->mode.c_str(), r.value->fits ? "fits" : "does not fit",
                    double(r.value->cs->onWaferBytes) / 1e9, r.value->cs->modeReason.c_str());
        QTEST(QString::fromStdString(r.value->cs->mode), "mode");
        QTEST(r.value->fits, "fits");
        // Above the published limit a forced layer-pipelined compile says it is not supported,
        // with the source.
        const bool over = double(built.value->graph.totalParams()) >= 1e9;
        bool unsupported = false;
        for (const auto& d : r.value->diagnostics)
            if (d.code == "compile.cs-mode-unsupported") {
                unsupported = true;
                std::printf("      %s\n", d.message.c_str());
                QVERIFY(d.message.find("Model Zoo README") != std::string::npos);
            }
        QCOMPARE(unsupported, over && force == "layer-pipelined");
    }
};

QTEST_GUILESS_MAIN(TestSimFidelity)
#include "test_sim_fidelity.moc"
