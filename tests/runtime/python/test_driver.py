"""The driver's static decisions (entry, config, Model Zoo mount) and the capture's tables."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import torch

from portolan_dryrun import capture, plan
from portolan_dryrun.session import ModuleRecord

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "projects")
PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                          "resources", "python"))


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class PlanTest(unittest.TestCase):
    def test_script_choice(self):
        with tempfile.TemporaryDirectory() as root:
            write(root, "model.py", "import torch\nclass M(torch.nn.Module):\n    pass\n")
            write(root, "infer.py", "import torch\nprint(torch.zeros(1))\n")
            write(root, "tools/train_big.py",
                  "import torch\nloss = torch.zeros(1, requires_grad=True).sum()\n"
                  "loss.backward()\n")
            write(root, "main.py", "import torch\nif __name__ == '__main__':\n"
                  "    torch.zeros(1, requires_grad=True).sum().backward()\n")
            write(root, "tests/test_main.py", "import torch\ntorch.zeros(1).backward()\n")
            write(root, "README.md", "Run `python tools/train_big.py --epochs 3`.\n")
            entry, reason = plan.choose_script(root, "plain-pytorch")
            self.assertEqual(entry, "tools/train_big.py")
            self.assertIn("README", reason)
            os.remove(os.path.join(root, "README.md"))
            self.assertEqual(plan.choose_script(root, "plain-pytorch")[0], "main.py")
            # No trainingModel anywhere: the usual entry name, saying so.
            entry, reason = plan.choose_script(root, "graphcore-poptorch")
            self.assertEqual(entry, "main.py")
            self.assertIn("no trainingModel call", reason)
        with tempfile.TemporaryDirectory() as root:
            write(root, "model.py", "import torch\n")
            with self.assertRaises(plan.PlanError):
                plan.choose_script(root, "plain-pytorch")

    def test_script_named_like_a_test(self):
        # An experiment script named `*_test.py` or `test_*.py` that reads like a script is an
        # entry; one that reads like a test (a framework, test functions), or sits in tests/,
        # is not.
        script = ("import torch\n\ndef fit():\n    torch.ones(2, requires_grad=True).sum()"
                  ".backward()\n\nif __name__ == '__main__':\n    fit()\n")
        for name in ("bench/sine_test.py", "test_sine.py"):
            with tempfile.TemporaryDirectory() as root:
                write(root, name, script)
                self.assertEqual(plan.choose_script(root, "plain-pytorch")[0], name)
        for rel, text in (("sine_test.py", "import unittest\n" + script),
                          ("test_sine.py", script.replace("def fit", "def test_fit")),
                          ("tests/sine_test.py", script)):
            with tempfile.TemporaryDirectory() as root:
                write(root, rel, text)
                with self.assertRaises(plan.PlanError):
                    plan.choose_script(root, "plain-pytorch")

    def test_entrypoint(self):
        self.assertEqual(plan.parse_entrypoint("model_def:MNistTrial"),
                         ("trial", "model_def", "MNistTrial"))
        self.assertEqual(plan.parse_entrypoint(
            "python3 -m determined.launch.torch_distributed python3 train.py --x 1"),
            ("script", "train.py", ["--x", "1"]))
        with self.assertRaises(plan.PlanError):
            plan.parse_entrypoint("model_def")

    def test_experiment_config_numbers_as_determined_reads_them(self):
        # YAML 1.2 floats (an exponent without a dot); other values keep their YAML types.
        with tempfile.TemporaryDirectory() as root:
            write(root, "const.yaml", "hyperparameters:\n  wd: 1e-4\n  lr: -2.5E+3\n"
                  "  d: 0.1\n  n: 10\n  name: 1e4x\n  ver: '1e-4'\n"
                  "entrypoint: model_def:T\n")
            config = plan.load_experiment_config(os.path.join(root, "const.yaml"))
            hp = config["hyperparameters"]
            self.assertEqual((hp["wd"], hp["lr"], hp["d"], hp["n"]), (1e-4, -2500.0, 0.1, 10))
            self.assertEqual((hp["name"], hp["ver"]), ("1e4x", "1e-4"))
            # Other YAML (Model Zoo params) keeps PyYAML's reading, as the Model Zoo does.
            self.assertEqual(plan.load_yaml(os.path.join(root, "const.yaml"))
                             ["hyperparameters"]["wd"], "1e-4")

    def test_modelzoo_mount(self):
        root = os.path.join(FIXTURES, "modelzoo-port-needs-checkout")
        imports = plan.modelzoo_imports(root)
        self.assertEqual(plan.modelzoo_mount(root, imports),
                         "modelzoo.transformers.pytorch.toyport")
        self.assertIn("modelzoo.transformers.pytorch.toy_common.toy_layers", imports)

    def test_third_party_imports_skip_tests_and_own_modules(self):
        with tempfile.TemporaryDirectory() as root:
            write(root, "train.py", "import torch, yaml\nimport helpers\nimport transformers\n")
            write(root, "helpers.py", "import os\n")
            write(root, "tests/test_x.py", "import pytest\n")
            found = plan.third_party_imports(root)
            self.assertEqual(sorted(found), ["torch", "transformers", "yaml"])


class CaptureTablesTest(unittest.TestCase):
    def test_shared_parameters_count_once(self):
        class Tied(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(10, 4)
                self.head = torch.nn.Linear(4, 10, bias=False)
                self.head.weight = self.embed.weight
                self.norm = torch.nn.BatchNorm1d(4)

        class FakeSession:
            records = {}

        model = Tied()
        rows = capture.module_table(FakeSession(), model)
        self.assertEqual([r["path"] for r in rows], ["", "embed", "head", "norm"])
        self.assertEqual(sum(r["params"] for r in rows),
                         sum(p.numel() for p in model.parameters()))
        self.assertEqual(rows[2]["params"], 0)  # the tied weight counted at the embedding
        self.assertEqual(rows[3]["buffers"], 4 + 4 + 1)
        self.assertEqual(rows[3]["buffer_bytes"], 4 * 4 + 4 * 4 + 8)

    def test_container_ipu_is_common_or_null(self):
        class FakeSession:
            records = {}

        model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(
            torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)))
        for module, ipu in ((model, 0), (model[0], 0), (model[1], 1), (model[1][0], 1),
                            (model[1][1], 1)):
            r = ModuleRecord()
            r.calls, r.ipu, r.order = 1, ipu, len(FakeSession.records)
            FakeSession.records[module] = r
        rows = {r["path"]: r for r in capture.module_table(FakeSession(), model)}
        self.assertIsNone(rows[""]["ipu"])
        self.assertEqual(rows["1"]["ipu"], 1)
        self.assertEqual(rows["0"]["ipu"], 0)


class DeclaredStrategyTest(unittest.TestCase):
    """block-stage-poptorch: `with poptorch.Block("B1")` scopes placed by the Options' execution
    strategy, captured with the project's device iterations and gradient accumulation."""

    ROWS = [  # strategy argument, class, stages as "ipu:modules:blocks"
        ("pipelined", "PipelinedExecution",
         ["0:stem:B1", "1:mixer_a:B2", "2:mixer_b:B3", "3:head,loss:B4"]),
        ("shared-ipu", "PipelinedExecution",
         ["0:stem:B1", "1:mixer_a,mixer_b:B2,B3", "2:head,loss:B4"]),
        ("sharded", "ShardedExecution",
         ["0:stem,mixer_a:B1,B2", "1:mixer_b:B3", "2:head,loss:B4"]),
        ("by-order", "PipelinedExecution",
         ["0:stem:B1", "1:mixer_a,mixer_b:B2,B3", "2:head,loss:B4"]),
    ]

    def test_strategies(self):
        for argument, strategy, stages in self.ROWS:
            with self.subTest(strategy=argument), tempfile.TemporaryDirectory() as tmp:
                root = os.path.join(tmp, "project")
                shutil.copytree(os.path.join(FIXTURES, "block-stage-poptorch"), root)
                env = dict(os.environ, PYTHONPATH=PYTHON_DIR, PYTHONDONTWRITEBYTECODE="1")
                p = subprocess.run([sys.executable, "-m", "portolan_dryrun", "--project", root,
                                    "--flavour", "graphcore-poptorch", "--", "--strategy",
                                    argument], capture_output=True, text=True, env=env,
                                   timeout=300)
                self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
                with open(os.path.join(root, ".portolan", "capture", "capture.json")) as f:
                    sidecar = json.load(f)
                pipeline = sidecar["pipeline"]
                self.assertEqual(pipeline["source"], "poptorch.Block")
                self.assertEqual(pipeline["strategy"], strategy)
                self.assertTrue(pipeline["explicit_stages"])
                self.assertNotIn("notes", pipeline)
                got = [f"{s['ipu']}:{','.join(s['modules'])}:{','.join(s['blocks'])}"
                       for s in pipeline["stages"]]
                self.assertEqual(got, stages)
                self.assertEqual(pipeline["ipus"], len(stages))
                blocks = {m["path"]: m["block"] for m in sidecar["modules"]}
                self.assertEqual((blocks["stem.1"], blocks["head.1"], blocks[""]),
                                 ("B1", "B4", None))
                options = sidecar["options"]["poptorch"]
                self.assertEqual((options["device_iterations"], options["gradient_accumulation"],
                                  options["replication_factor"]), (3, 8, 1))
                self.assertEqual(options["available_memory_proportion"],
                                 {"IPU0": 0.5, "IPU1": 0.4})
                b3 = int(stages[[i for i, s in enumerate(stages) if "B3" in s][0]][0])
                self.assertEqual(options["set_available_memory"],
                                 [{"block": "B3", "ipu": b3, "proportion": 0.25}])
                self.assertEqual(options["execution_strategy"]["type"], strategy)
                self.assertEqual(sidecar["batch"]["full"], 4)


if __name__ == "__main__":
    unittest.main()
