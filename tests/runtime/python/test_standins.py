"""The SDK stand-ins are as strict as the real APIs, and do what the dry run relies on.

Run by ctest (test_dryrun_python) with /usr/bin/python3 -m unittest; PYTHONPATH holds
resources/python and resources/python/portolan_standins.
"""
import os
import sys
import tempfile
import unittest

import torch

from portolan_dryrun import driver, modelzoo_finder

# As in a dry run: Model Zoo names resolve through the stand-ins, then their fallbacks.
modelzoo_finder.install(sys, None, None, driver.STANDINS, None, driver.FALLBACK)

import _portolan_hooks as hooks  # noqa: E402
import determined.pytorch as det  # noqa: E402
import poptorch  # noqa: E402
from modelzoo.common.pytorch.PyTorchBaseModel import PyTorchBaseModel, _schedule_fn  # noqa: E402


class WithLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x, labels=None):
        out = self.fc(x)
        if self.training:
            return out, self.loss(out, labels)
        return out


class PopTorchTest(unittest.TestCase):
    def test_training_model_arity_and_keywords(self):
        model = WithLoss()
        opts = poptorch.Options()
        opt = poptorch.optim.SGD(model.parameters(), lr=0.1)
        with self.assertRaisesRegex(TypeError, r"takes from 1 to 3 positional arguments"):
            poptorch.trainingModel(model, opts, opt, True)
        with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 'optimiser'"):
            poptorch.trainingModel(model, options=opts, optimiser=opt)
        with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 'momentun'"):
            poptorch.optim.SGD(model.parameters(), lr=0.1, momentun=0.9)
        with self.assertRaises(TypeError):
            poptorch.inferenceModel(model, opts, opt)

    def test_options_checks(self):
        opts = poptorch.Options()
        with self.assertRaisesRegex(AssertionError, "Invalid key: GPU0"):
            opts.setAvailableMemoryProportion({"GPU0": 0.5})
        with self.assertRaises(ValueError):
            opts.Precision.setPartialsType(torch.int32)
        with self.assertRaises(TypeError):
            opts.deviceIterations()
        opts.deviceIterations(4).replicationFactor(2)
        opts.Training.gradientAccumulation(3)
        opts.setAvailableMemoryProportion({"IPU0": 0.6})
        d = opts.toDict()
        self.assertEqual((d["device_iterations"], d["replication_factor"],
                          d["gradient_accumulation"]), (4, 2, 3))
        self.assertEqual(d["available_memory_proportion"], {"IPU0": 0.6})

    def test_combined_batch_and_steps(self):
        torch.manual_seed(0)
        model = WithLoss()
        opts = poptorch.Options().deviceIterations(2)
        opts.Training.gradientAccumulation(2)
        data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 3, (64,)))
        loader = poptorch.DataLoader(opts, data, batch_size=4)
        self.assertEqual(loader.combinedBatchSize, 16)
        x, y = next(iter(loader))
        self.assertEqual(x.shape[0], 16)
        steps = []
        opt = poptorch.optim.SGD(model.parameters(), lr=0.1)
        original = type(opt).step

        def counting(self_, *a, **k):
            steps.append(1)
            return original(self_, *a, **k)

        opt.step = counting.__get__(opt)
        training = poptorch.trainingModel(model, opts, opt)
        before = model.fc.weight.detach().clone()
        out, loss = training(x, y)
        self.assertEqual(len(steps), 2)  # one optimizer step per device iteration
        self.assertFalse(torch.equal(before, model.fc.weight))
        self.assertEqual(out.shape, (8, 3))  # Final: the last iteration's micro-batches
        with self.assertRaisesRegex(RuntimeError, "must be a multiple"):
            training(torch.randn(6, 4), torch.randint(0, 3, (6,)))

    def test_inputs_keep_their_own_first_dimension(self):
        # A sequence-first batch (seq, batch) with its flattened target (seq * batch): with one
        # micro-batch per call PopTorch passes each input whole; with several, each input is cut
        # along its own first dimension.
        class SequenceFirst(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = torch.nn.Embedding(10, 3)

            def forward(self, data, target):
                out = self.emb(data).view(-1, 3)
                return out, torch.nn.functional.cross_entropy(out, target)

        model = SequenceFirst()
        data = torch.randint(0, 10, (6, 2))
        target = torch.randint(0, 3, (12,))
        training = poptorch.trainingModel(model, poptorch.Options(),
                                          poptorch.optim.SGD(model.parameters(), lr=0.1))
        out, _ = training(data, target)
        self.assertEqual(out.shape, (12, 3))
        opts = poptorch.Options().deviceIterations(2)
        training = poptorch.trainingModel(model, opts,
                                          poptorch.optim.SGD(model.parameters(), lr=0.1))
        out, _ = training(data, target)
        self.assertEqual(out.shape, (6, 3))  # the last iteration: data[3:6], target[6:12]

    def test_model_without_loss_is_rejected(self):
        model = torch.nn.Linear(4, 3)
        training = poptorch.trainingModel(model, poptorch.Options(),
                                          poptorch.optim.SGD(model.parameters(), lr=0.1))
        with self.assertRaisesRegex(RuntimeError, "loss inside forward"):
            training(torch.randn(2, 4))

    def test_begin_block_records_ipus(self):
        from poptorch import _blocks

        a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
        poptorch.BeginBlock(a, "a", ipu_id=0)
        poptorch.BeginBlock(b, "b", ipu_id=3)
        self.assertEqual(_blocks._portolan_ipu_of(b), 3)
        with self.assertRaises(ValueError):
            poptorch.BeginBlock(lambda x: x, ipu_id=1)
        with self.assertRaises(ValueError):
            poptorch.BeginBlock(torch.nn.Linear(1, 1), ipu_id=-1)

    def test_execution_strategy_places_blocks(self):
        # PopTorch's rule: the Stage's IPU, else the block's ipu_id, else the stage id.
        Stage = poptorch.Stage
        s = poptorch.PipelinedExecution(Stage("A").ipu(2), Stage("B", "C"), "D")
        self.assertEqual(s._portolan_place("A", 0), (0, None, 2))
        self.assertEqual(s._portolan_place("B", 3), (1, None, 3))
        self.assertEqual(s._portolan_place("C", None), (1, None, 1))
        self.assertEqual(s._portolan_place("D", None), (2, None, 2))
        self.assertEqual(s._portolan_place("E", 0), (None, None, None))
        self.assertIn("Unknown Block 'E'", s._portolan_notes[0])
        with self.assertRaisesRegex(AssertionError, "more than one stage"):
            poptorch.PipelinedExecution(Stage("A"), Stage("A", "B"))
        with self.assertRaises(AssertionError):
            Stage(1)
        # AutoStage: SameAsIpu takes the block's ipu_id; AutoIncrement numbers new blocks from 1.
        same = poptorch.PipelinedExecution()
        self.assertEqual(same._portolan_place("x", 1), (1, None, 1))
        self.assertEqual(same._portolan_place("y", None)[2], None)
        self.assertIn("SameAsIpu", same._portolan_notes[0])
        inc = poptorch.PipelinedExecution(poptorch.AutoStage.AutoIncrement)
        self.assertEqual(inc._portolan_place("x", 0), (1, None, 0))
        self.assertEqual(inc._portolan_place("y", 1), (2, None, 1))
        self.assertEqual(inc._portolan_place("z", 0), (3, None, 0))
        self.assertEqual(inc._portolan_place("w", None), (4, None, 4))
        self.assertEqual(inc._portolan_place("x", 0), (1, None, 0))
        # Phases: each Stage's phase, its IPU from Phase.ipus.
        serial = poptorch.SerialPhasedExecution(
            poptorch.Phase(Stage("A"), Stage("A2")), poptorch.Phase(Stage("B"), Stage("B2")))
        serial.phase(0).ipus(0, 1)
        serial.phase(1).ipus(0, 1)
        self.assertEqual(serial._portolan_place("B2", None), (None, 1, 1))
        self.assertEqual(serial.toDict()["phases"], 2)
        with self.assertRaisesRegex(AssertionError, "no AutoStage for PhasedExecution"):
            poptorch.SerialPhasedExecution()
        opts = poptorch.Options().setExecutionStrategy(poptorch.ShardedExecution(Stage("A")))
        d = opts.toDict()["execution_strategy"]
        self.assertEqual((d["type"], d["set"], d["stages"][0]["blocks"]),
                         ("ShardedExecution", True, ["A"]))

    def test_block_scopes_run_on_their_stage_ipu(self):
        from poptorch import _blocks

        class Two(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)

            def forward(self, x):
                with poptorch.Block("first"):
                    x = self.a(x)
                with poptorch.Block("second"):
                    x = poptorch.set_available_memory(self.b(x), 0.2)
                    seen.append(_blocks._portolan_ipu_of(self.b))
                return x

        seen = []
        model = Two()
        strategy = poptorch.PipelinedExecution(poptorch.Stage("first").ipu(0),
                                               poptorch.Stage("second").ipu(3))
        _blocks._portolan_reset(strategy)
        model(torch.randn(1, 2))
        _blocks._portolan_reset()
        self.assertEqual(seen, [3])
        self.assertIn({"block": "second", "ipu": 3, "proportion": 0.2},
                      _blocks._portolan_available_memory_calls())


class Trial(det.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        self.model = context.wrap_model(torch.nn.Linear(3, 2))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(),
                                                          lr=context.get_hparam("lr")))


class DeterminedTest(unittest.TestCase):
    CONFIG = {"hyperparameters": {"global_batch_size": 16, "lr": {"type": "const", "val": 0.5},
                                  "width": {"type": "int", "minval": 8, "maxval": 64},
                                  "act": {"type": "categorical", "vals": ["relu", "gelu"]}},
              "entrypoint": "model_def:Trial"}

    def test_get_hparam_is_strict(self):
        context = det.PyTorchTrialContext(self.CONFIG)
        self.assertEqual(context.get_hparam("lr"), 0.5)
        self.assertEqual(context.get_hparam("width"), 8)
        self.assertEqual(context.get_hparam("act"), "relu")
        with self.assertRaisesRegex(ValueError, "Could not find name 'lrate' in experiment"):
            context.get_hparam("lrate")
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'default'"):
            context.get_hparam("lr", default=0.1)
        with self.assertRaises(TypeError):
            context.get_hparam()

    def test_wrapping_and_stepping(self):
        context = det.PyTorchTrialContext(self.CONFIG)
        trial = Trial(context)
        loss = trial.model(torch.randn(4, 3)).pow(2).mean()
        context.backward(loss)
        context.step_optimizer(trial.opt, clip_grads=lambda p: torch.nn.utils.clip_grad_norm_(p, 1))
        self.assertTrue(all(p.grad is None or not p.grad.any() for p in trial.model.parameters()))
        stray = torch.optim.SGD(trial.model.parameters(), lr=0.1)
        with self.assertRaises(AssertionError):
            context.step_optimizer(stray)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(trial.opt)
        with self.assertRaises(Exception):
            context.wrap_lr_scheduler(plateau, det.LRScheduler.StepMode.STEP_EVERY_BATCH)
        context.wrap_lr_scheduler(plateau, det.LRScheduler.StepMode.MANUAL_STEP)
        with self.assertRaises(TypeError):
            context.wrap_model(object())

    def test_data_loader_keeps_torch_signature(self):
        data = torch.utils.data.TensorDataset(torch.randn(10, 3))
        loader = det.DataLoader(data, batch_size=5)
        self.assertEqual(len(loader), 2)
        with self.assertRaises(TypeError):
            det.DataLoader(data, batchsize=5)


class ModelZooTest(unittest.TestCase):
    PARAMS = {"runconfig": {"mode": "train"}, "model": {},
              "optimizer": {"optimizer_type": "AdamW", "learning_rate": 0.001,
                            "weight_decay_rate": 0.01}}

    def test_base_model_needs_params_model_device(self):
        class Wrapper(PyTorchBaseModel):
            def __init__(self, params):
                super().__init__(params=params, model=torch.nn.Linear(2, 2))

        with self.assertRaisesRegex(TypeError, "missing 1 required positional argument: 'device'"):
            Wrapper(self.PARAMS)

    def test_optimizer_and_schedule(self):
        class Wrapper(PyTorchBaseModel):
            def __init__(self, params):
                super().__init__(params=params, model=torch.nn.Linear(2, 2), device=None)

        w = Wrapper(self.PARAMS)
        self.assertIsInstance(w.optimizer, torch.optim.AdamW)
        bad = dict(self.PARAMS, optimizer={"optimizer_type": "Adagrad2", "learning_rate": 0.1})
        with self.assertRaisesRegex(ValueError, "Unsupported optimizer type Adagrad2"):
            Wrapper(bad)
        lr = _schedule_fn([{"scheduler": "Linear", "initial_learning_rate": 0.0,
                            "end_learning_rate": 1.0, "steps": 10},
                           {"scheduler": "Constant", "learning_rate": 1.0}])
        self.assertAlmostEqual(lr(5), 0.5)
        self.assertAlmostEqual(lr(50), 1.0)
        with self.assertRaisesRegex(ValueError, "Missing required parameters"):
            _schedule_fn({"scheduler": "Exponential", "decay_steps": 10})(1)

    def test_weight_decay_leaves_out_biases_and_norms(self):
        # As Model Zoo's group_optimizer_params: the decay on all but biases and normalization
        # modules, unless the model's trainable_named_parameters says otherwise.
        params = {"runconfig": {"mode": "train"}, "model": {},
                  "optimizer": {"optimizer_type": "Adam", "learning_rate": 0.1,
                                "weight_decay_rate": 0.03}}
        net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.LayerNorm(2))

        class Wrapper(PyTorchBaseModel):
            def __init__(self, params):
                super().__init__(params=params, model=net, device=None)

        groups = Wrapper(params).optimizer.param_groups
        decayed = [p for g in groups if g["weight_decay"] == 0.03 for p in g["params"]]
        self.assertEqual([id(p) for p in decayed], [id(net[0].weight)])

        class Everything(Wrapper):
            def trainable_named_parameters(self):
                return [], list(self.model.named_parameters())

        groups = Everything(params).optimizer.param_groups
        decayed = [p for g in groups if g["weight_decay"] == 0.03 for p in g["params"]]
        self.assertEqual(len(decayed), 4)

    def test_layers_api_shapes(self):
        from modelzoo.common.pytorch.layers import (EmbeddingLayer, TransformerEncoder,
                                                    TransformerEncoderLayer)

        emb = EmbeddingLayer(vocab_size=50, embedding_size=16, max_position_embeddings=32)
        ids = torch.randint(0, 50, (2, 10))
        self.assertEqual(emb(ids).shape, (2, 10, 16))
        with self.assertRaisesRegex(ValueError, "max_position_embeddings"):
            EmbeddingLayer(vocab_size=50, embedding_size=16)
        layer = TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0,
                                        activation="relu")
        encoder = TransformerEncoder(layer, num_layers=2)
        mask = torch.triu(torch.ones(10, 10, dtype=torch.float16), 1) * \
            torch.finfo(torch.float16).min
        self.assertEqual(encoder(emb(ids), mask=mask).shape, (2, 10, 16))

    def test_fallback_decoder_pieces(self):
        # The R1.8 names models import without a checkout: a GPT-J block with rotary
        # embeddings, T5's relative position bias, and the losses, trained one step.
        from modelzoo.common.pytorch.layers import (BiaslessLayerNorm, GPTJDecoderLayer,
                                                    RelativePositionEmbeddingLayer)
        from modelzoo.common.pytorch.layers.utils import apply_position_bias
        from modelzoo.common.pytorch.model_utils.GPTLMHeadModelLoss import GPTLMHeadModelLoss
        from modelzoo.common.pytorch.model_utils.RotaryPositionEmbeddingHelper import \
            RotaryPositionEmbeddingHelper
        from modelzoo.common.pytorch.model_utils.T5ForConditionalGenerationLoss import \
            T5ForConditionalGenerationLoss

        block = GPTJDecoderLayer(d_model=16, nhead=4, dim_feedforward=32)
        rotary = RotaryPositionEmbeddingHelper(max_position_embeddings=32, rotary_dim=2)
        x = torch.randn(2, 10, 16)
        causal = torch.triu(torch.ones(10, 10, dtype=torch.bool), 1)
        y = BiaslessLayerNorm(16)(block(x, tgt_mask=causal,
                                        rotary_position_embedding_helper=rotary))
        self.assertEqual(y.shape, (2, 10, 16))
        # Rotation keeps each pair's length: the norm of a rotated head is the same.
        q = torch.randn(1, 10, 4, 4)
        self.assertTrue(torch.allclose(rotary.rotate_tensor(q, 10).norm(dim=-1),
                                       q.norm(dim=-1), atol=1e-5))
        bias = RelativePositionEmbeddingLayer(num_heads=4, bidirectional_relative_attention=True)
        self.assertEqual(apply_position_bias(bias, 10, 12).shape, (4, 10, 12))
        self.assertIsNone(apply_position_bias(rotary, 10, 10))
        head = torch.nn.Linear(16, 50)
        labels = torch.randint(0, 50, (2, 10))
        mask = torch.ones(2, 10)
        loss = GPTLMHeadModelLoss(50, "num_tokens", 1.0)(head(y), labels, mask) + \
            T5ForConditionalGenerationLoss(1.0, "batch_size")(head(y), labels, mask)
        loss.backward()
        self.assertIsNotNone(block.q_proj.weight.grad)
        with self.assertRaisesRegex(ValueError, "loss_weight"):
            GPTLMHeadModelLoss(50, "num_tokens", 0.5)

    def test_fallback_metrics_and_helpers(self):
        from modelzoo.common.pytorch.metrics import (DiceCoefficientMetric, FBetaScoreMetric,
                                                     MeanIOUMetric)
        from modelzoo.common.pytorch.model_utils.activations import get_activation
        from modelzoo.common.pytorch.model_utils.create_initializer import create_initializer

        labels = torch.tensor([0, 1, 1, 2])
        perfect = {m: m(3) for m in (MeanIOUMetric, DiceCoefficientMetric, FBetaScoreMetric)}
        for metric in perfect.values():
            metric(labels, labels)
            self.assertAlmostEqual(metric.compute(), 1.0)
        iou = MeanIOUMetric(2)
        iou(torch.tensor([0, 1]), torch.tensor([1, 1]))  # class 0: 0/1, class 1: 1/2
        self.assertAlmostEqual(iou.compute(), 0.25)
        self.assertIs(get_activation("RELU"), torch.nn.functional.relu)
        with self.assertRaises(KeyError):
            get_activation("no-such")
        w = torch.empty(64, 64)
        create_initializer({"name": "truncated_normal", "std": 0.02})(w)
        self.assertLessEqual(float(w.abs().max()), 0.04 + 1e-6)
        with self.assertRaisesRegex(ValueError, "Initializer name"):
            create_initializer({})

    def test_runner_command_line(self):
        from modelzoo.common.pytorch import run_utils
        from portolan_dryrun.session import ArgumentsError, Session

        class Quiet:
            def emit(self, *a, **k):
                pass

        Session(Quiet(), steps=1, batch=2)._patch_argparse()
        saved = sys.argv
        try:
            sys.argv = ["run.py", "CPU", "--mode", "train"]
            with self.assertRaises(ArgumentsError) as caught:
                run_utils.get_params_from_args("/tmp")
            self.assertIn("--params", caught.exception.message)
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
                f.write("runconfig: {max_steps: 5}\nmodel: {}\n")
            sys.argv = ["run.py", "--mode", "train", "--params", f.name]
            params = run_utils.get_params_from_args("/tmp")
            self.assertEqual(params["runconfig"]["mode"], "train")
            self.assertEqual(params["runconfig"]["max_steps"], 5)
            self.assertEqual(params["runconfig"]["model_dir"], "/tmp/model_dir")
            os.unlink(f.name)
        finally:
            sys.argv = saved

    def test_shared_model_code_needs_a_checkout(self):
        with self.assertRaisesRegex(ModuleNotFoundError, "point Portolan at a Model Zoo checkout"):
            import modelzoo.transformers.pytorch.huggingface_common.modeling_bert  # noqa: F401

    def test_use_cs_is_false(self):
        from modelzoo.common.pytorch import cb_model

        self.assertFalse(cb_model.use_cs())


class HooksTest(unittest.TestCase):
    def test_clamp_keeps_the_requested_batch(self):
        saved = hooks.dry_run_batch, list(hooks.requested_batches)
        try:
            hooks.dry_run_batch = 2
            hooks.requested_batches.clear()
            self.assertEqual(hooks.clamp_batch(64, "x"), 2)
            self.assertEqual(hooks.clamp_batch(1, "y"), 1)
            self.assertEqual(hooks.requested_batches[0], {"requested": 64, "used": 2,
                                                          "source": "x"})
            # A batch of at most KEPT_BATCH stays whole, unless a vendor's micro-batch (which
            # device iterations multiply) asks not to; larger ones are made small.
            self.assertEqual(hooks.clamp_batch(hooks.KEPT_BATCH, "z"), hooks.KEPT_BATCH)
            self.assertEqual(hooks.clamp_batch(hooks.KEPT_BATCH + 1, "z"), 2)
            self.assertEqual(hooks.clamp_batch(4, "z", keep_small=False), 2)
        finally:
            hooks.dry_run_batch = saved[0]
            hooks.requested_batches[:] = saved[1]


if __name__ == "__main__":
    unittest.main()
    def test_determined_batch_hyperparameter_is_the_dry_runs(self):
        # A trial that sizes its model from get_hparam("global_batch_size") sees the batch its
        # loaders get in the dry run, not the experiment's.
        saved = hooks.dry_run_batch, list(hooks.requested_batches)
        try:
            hooks.dry_run_batch = 2
            context = det.PyTorchTrialContext(hparams={"global_batch_size": 64, "lr": 0.1})
            self.assertEqual(context.get_hparam("global_batch_size"), 2)
            self.assertEqual(context.get_per_slot_batch_size(), 2)
            self.assertEqual(context.get_hparam("lr"), 0.1)
        finally:
            hooks.dry_run_batch = saved[0]
            hooks.requested_batches[:] = saved[1]
