"""Synthetic stand-ins for data that is not there (portolan_dryrun/datafiles.py), through the
whole driver in a child process: text files, a downloaded archive and an image folder, a real
file winning over a fake, nothing written where the project looks, and no fake for a library's
own missing file."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                          "resources", "python"))

MODEL = """
import torch
class Net(torch.nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, 8)
        self.out = torch.nn.Linear(8, vocab)
    def forward(self, x):
        return self.out(self.emb(x))
"""

TEXT_PROJECT = MODEL + """
import os
words = {}
def tokenize(path):
    assert os.path.exists(path)
    ids = []
    with open(path, encoding="utf8") as f:
        for line in f:
            for w in line.split() + ["<eos>"]:
                ids.append(words.setdefault(w, len(words)))
    return torch.tensor(ids)
train = tokenize(os.path.join("data", "corpus", "train.txt"))
valid = tokenize(os.path.join("data", "corpus", "valid.txt"))
extra = open(os.path.join("data", "corpus", "real.txt")).read()
print("REAL:" + extra.strip())
model = Net(len(words))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = train[: (len(train) // 4) * 4].view(4, -1).t()
for i in range(0, 40, 8):
    x, y = data[i:i + 8], data[i + 1:i + 9]
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x).view(-1, len(words)), y.reshape(-1))
    loss.backward()
    opt.step()
"""

IMAGE_PROJECT = """
import os, tarfile, urllib.request
import torch
from PIL import Image
import numpy as np
if not os.path.exists("dataset/pics"):
    os.makedirs("dataset", exist_ok=True)
    data = urllib.request.urlopen("https://example.org/pics.tar.gz").read()
    with open("dataset/pics.tar.gz", "wb") as f:
        f.write(data)
    with tarfile.open("dataset/pics.tar.gz") as tar:
        tar.extractall("dataset")
    os.remove("dataset/pics.tar.gz")
names = [n for n in os.listdir("dataset/pics/train") if n.endswith(".jpg")]
images = [np.asarray(Image.open(os.path.join("dataset/pics/train", n)).convert("L"),
                     dtype=np.float32)[:32, :32] / 255 for n in names[:4]]
x = torch.tensor(np.stack(images))[:, None]
net = torch.nn.Conv2d(1, 2, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    net(x).mean().backward()
    opt.step()
"""

# A perceptual-loss style: a style image at a relative path, and a listed image folder, both
# missing. Printing their bytes' digest shows what the project read.
SAME_FAKES_PROJECT = """
import hashlib, os
import torch
from PIL import Image
style = Image.open(os.path.join("images", "style.jpg")).convert("RGB")
names = sorted(os.listdir("photos"))
first = Image.open(os.path.join("photos", names[0])).convert("RGB")
print("DIGEST:" + hashlib.sha1(style.tobytes() + first.tobytes()).hexdigest())
net = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    net(torch.ones(1, 2)).sum().backward()
    opt.step()
"""

LIBRARY_PROJECT = """
import torch
import helper_lib
helper_lib.read("missing.txt")
"""


def run(root, *args):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "portolan_dryrun", "--project", root,
                        "--flavour", "plain-pytorch", *args], capture_output=True, text=True,
                       env=env, timeout=300)
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    return p, events


class DataFilesTest(unittest.TestCase):
    def test_text_corpus_and_real_file_wins(self):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "train.py"), "w") as f:
                f.write(TEXT_PROJECT)
            os.makedirs(os.path.join(root, "data", "corpus"))
            with open(os.path.join(root, "data", "corpus", "real.txt"), "w") as f:
                f.write("the real file\n")
            p, events = run(root)
            end = events[-1]
            self.assertEqual(end["event"], "finished", p.stdout[-2000:] + p.stderr[-2000:])
            self.assertEqual(end["step"], 3)
            self.assertTrue(end["synthetic_data"])
            faked = [e["path"] for e in events
                     if e["event"] == "warning" and e.get("kind") == "synthetic-data"]
            self.assertEqual([os.path.basename(x) for x in faked], ["train.txt", "valid.txt"])
            self.assertIn("REAL:the real file", p.stdout)
            # The fakes live in the mirror, never in the project's data folder.
            self.assertEqual(sorted(os.listdir(os.path.join(root, "data", "corpus"))),
                             ["real.txt"])
            with open(os.path.join(root, ".portolan", "capture", "capture.json")) as f:
                capture = json.load(f)
            self.assertTrue(capture["synthetic_data"])
            # Sequence-first input [8, 4]: the batch of 4 is in dimension 1, from no loader
            # and no argument, so it stays unknown rather than guessed from dimension 0.
            self.assertEqual(capture["inputs"][0]["shape"], [8, 4])
            self.assertNotEqual(capture["batch"]["dry_run"], 8)

    def test_download_and_image_folder(self):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "train.py"), "w") as f:
                f.write(IMAGE_PROJECT)
            p, events = run(root)
            end = events[-1]
            self.assertEqual(end["event"], "finished", p.stdout[-2000:] + p.stderr[-2000:])
            warnings = [e for e in events if e.get("kind") == "synthetic-data"]
            self.assertEqual([w["format"] for w in warnings], [".tar.gz", "image-folder"])
            self.assertIn("example.org", warnings[0]["message"])
            self.assertTrue(warnings[1]["path"].endswith("dataset/pics/train"))
            self.assertFalse(os.path.exists(os.path.join(root, "dataset", "pics")))

    def test_same_fakes_in_other_folders(self):
        # An original and its port are dry-run from two folders (copies in temporary folders):
        # a made-up image or image folder named by the same relative path must be the same,
        # or the port's losses differ from the original's through the data alone.
        # The second run has the script in a sub-folder (where the original keeps it, while its
        # port moves it to the top): the relative paths name the same data in both.
        digests = []
        for folder in ("", "code"):
            with tempfile.TemporaryDirectory() as root:
                os.makedirs(os.path.join(root, folder), exist_ok=True)
                with open(os.path.join(root, folder, "train.py"), "w") as f:
                    f.write(SAME_FAKES_PROJECT)
                p, events = run(root, "--entry", os.path.join(folder, "train.py"))
                self.assertEqual(events[-1]["event"], "finished",
                                 p.stdout[-2000:] + p.stderr[-2000:])
                digests += [x for x in p.stdout.splitlines() if x.startswith("DIGEST:")]
        self.assertEqual(len(digests), 2)
        self.assertEqual(digests[0], digests[1])

    def test_library_code_gets_no_fake(self):
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as lib:
            with open(os.path.join(root, "train.py"), "w") as f:
                f.write(LIBRARY_PROJECT)
            with open(os.path.join(lib, "helper_lib.py"), "w") as f:
                f.write(textwrap.dedent("""
                    def read(path):
                        return open(path).read()
                """))
            env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + lib,
                       PYTHONDONTWRITEBYTECODE="1")
            p = subprocess.run([sys.executable, "-m", "portolan_dryrun", "--project", root,
                                "--flavour", "plain-pytorch"], capture_output=True, text=True,
                               env=env, timeout=300)
            events = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
            self.assertEqual(events[-1]["event"], "failed")
            self.assertEqual(events[-1]["code"], "dryrun.data-missing")
            self.assertFalse(any(e.get("kind") == "synthetic-data" for e in events))


if __name__ == "__main__":
    unittest.main()
