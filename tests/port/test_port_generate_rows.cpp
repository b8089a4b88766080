// The generators' pattern rows (issue 24): one small fixture per class of code, the status the
// port must have, text it must and must not contain, and the manual item it must name.
#include "tests/port/test_port.h"

#include <QTest>

// Pattern classes of the generators, each on a fixture written for it: the port's status, text it
// must and must not have, and the manual item it must name (empty: none expected).
void TestPort::generatesPatterns_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QString>("contains");
    QTest::addColumn<QString>("absent");
    QTest::addColumn<QString>("manual");

    // The examples' train(args, model, device, loader, optimizer, epoch) called from main():
    // the names it is passed are built in main, and the scheduler main steps per epoch too.
    const QString caller = R"(

def train(args, model, device, loader, optimizer, epoch):
    model.train()
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def main():
    model = Net(args.hidden).to(device)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    loader = DataLoader(dataset, batch_size=args.batch_size)
    for epoch in range(args.epochs):
        train(args, model, device, loader, optimizer, epoch)
        scheduler.step()


if __name__ == '__main__':
    main()
)";
    QTest::newRow("names-in-caller/determined")
        << caller << "determined-pytorchtrial" << true << "model = Net(self.context.get_hparam("
        << "raise NotImplementedError"
        << "";
    QTest::newRow("names-in-caller/poptorch")
        << caller << "graphcore-poptorch" << true << "poptorch.trainingModel"
        << "TODO(portolan)"
        << "";
    // A loop over step numbers whose body draws its batch (a get_batch() helper), no loader.
    const QString drawn = R"(

def get_batch(size=8):
    x = torch.randn(size, 8)
    return x, (x.sum(1) > 0).long()


model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for step in range(100):
    x, y = get_batch()
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("drawn-batches/determined")
        << drawn << "determined-pytorchtrial" << true << "LoopValues(lambda: range(100))"
        << "NotImplementedError"
        << "";
    QTest::newRow("drawn-batches/poptorch")
        << drawn << "graphcore-poptorch" << true
        << "x, y = get_batch()\n            loss = training_model(x, y)"
        << "NotImplementedError"
        << "";
    // A tensor sliced by a stepped range read from a flag (the bptt style).
    const QString sliced = R"(
data = torch.randn(200, 8)
labels = torch.randint(0, 3, (200,))


def get_slice(i, width):
    return data[i:i + width], labels[i:i + width]


model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for batch, i in enumerate(range(0, data.size(0) - 1, args.batch_size)):
    x, y = get_slice(i, args.batch_size)
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("sliced-tensor/determined")
        << sliced << "determined-pytorchtrial" << true
        << "range(0, data.size(0) - 1, self.context.get_hparam(\"batch_size\"))"
        << "global_batch_size\")"
        << "";
    // A learning rate annealed by hand between epochs: the port builds its optimizer once.
    const QString annealed = R"(
model = Net(args.hidden)
lr = args.lr
for epoch in range(3):
    for data, target in train_loader:
        model.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
    lr /= 4.0
)";
    QTest::newRow("annealed-rate/determined")
        << annealed << "determined-pytorchtrial" << false << "torch.optim.SGD("
        << ""
        << "the learning rate changes during training (`lr /= 4.0`)";
    QTest::newRow("annealed-rate/poptorch")
        << annealed << "graphcore-poptorch" << false << "# TODO(portolan): the learning rate"
        << ""
        << "the learning rate changes";
    // The flags namespace handed whole to a helper: the Determined port rebuilds it from the
    // hyperparameters where the helper is called.
    const QString whole = R"(

def make_loader(args):
    return DataLoader(dataset, batch_size=args.batch_size)


model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
loader = make_loader(args)
for data, target in loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("namespace-whole/determined")
        << whole << "determined-pytorchtrial" << true << "args = self.flags()\n"
        << "TODO(portolan)"
        << "";
    // The loader a helper builds over a data set of its own: PopTorch's loader is over that
    // loader's data set, with the helper's batch size (not a loader of the loop's values).
    QTest::newRow("namespace-whole/poptorch")
        << whole << "graphcore-poptorch" << true
        << "poptorch.DataLoader(\n        opts,\n        make_loader(args).dataset,\n"
        << "LoopValues(" << "";
    // The step is a function the loop calls once per iteration (an episode loop that collects
    // its batch around the call): the function's statements are the step, and what the loop
    // does besides the call is a named manual item.
    const QString called = R"(
model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
saved = []


def finish():
    optimizer.zero_grad()
    loss = torch.stack(saved).sum()
    loss.backward()
    optimizer.step()
    del saved[:]


for episode in range(10):
    saved.append(model(torch.randn(1, 8)).sum())
    finish()
)";
    QTest::newRow("step-function-in-loop/determined")
        << called << "determined-pytorchtrial" << false << "self.context.backward(loss)"
        << ""
        << "the training step is finish(), called once per iteration";
    // A branch on the accelerator that only moves the model and picks the device is dropped
    // whole: the model's construction above it is what the port builds.
    const QString branch = R"(
model = Net(args.hidden)
if torch.cuda.is_available():
    model = model.cuda()
    device = torch.device("cuda")
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("device-branch/determined")
        << branch << "determined-pytorchtrial" << true
        << "model = Net(self.context.get_hparam(\"hidden\"))\n        model = "
           "self.context.wrap_model(model)"
        << " model = model\n"
        << "";
    QTest::newRow("device-branch/poptorch")
        << branch << "graphcore-poptorch" << true << "model = Net(args.hidden)\n"
        << "is_available():\n"
        << "";
    // An optimizer PopTorch does not train with is named, not swapped silently.
    const QString adadelta = R"(
model = Net(args.hidden)
optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("unsupported-optimizer/poptorch")
        << adadelta << "graphcore-poptorch" << false << "TODO(portolan)"
        << ""
        << "not one poptorch.trainingModel trains with";
    QTest::newRow("unsupported-optimizer/determined")
        << adadelta << "determined-pytorchtrial" << true << "optim.Adadelta("
        << "TODO(portolan)"
        << "";
    // A step function whose parameters have other names than the caller's variables: the
    // port's step reads what the caller passes (net -> the model, inputs -> features, ...).
    const QString renamed = R"(

def train_step(net, opt, inputs, labels):
    opt.zero_grad()
    loss = F.nll_loss(net(inputs), labels)
    loss.backward()
    opt.step()


model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
features = torch.randn(16, 8)
classes = torch.randint(0, 3, (16,))
for epoch in range(args.epochs):
    train_step(model, optimizer, features, classes)
)";
    QTest::newRow("renamed-step-parameters/determined")
        << renamed << "determined-pytorchtrial" << true << "F.nll_loss(self.model("
        << "net(inputs)"
        << "";
    QTest::newRow("renamed-step-parameters/poptorch")
        << renamed << "graphcore-poptorch" << true << "F.nll_loss(self.model("
        << "net(inputs)"
        << "";
    // Around the step function's call, the loop only logs and breaks on a flag: that steers
    // the original's loop, it is not training, so the port is full.
    QString steered = renamed;
    steered += R"(    print('epoch', epoch)
    if args.epochs > 100:
        break
)";
    QTest::newRow("step-function-loop-control/determined")
        << steered << "determined-pytorchtrial" << true << "F.nll_loss(self.model("
        << "break"
        << "";
    // The loop in a method of a trainer class the script instantiates with the model, the
    // loader, the optimizer and the criterion: `self.x` is what the constructor stored.
    const QString trainer = R"(
from tqdm import tqdm


class Trainer:
    def __init__(self, net, loader, opt, loss_fn):
        self.net = net
        self.loader = loader
        self.opt = opt
        self.loss_fn = loss_fn

    def fit(self):
        self.net.train()
        for inputs, labels in tqdm(self.loader, desc="train"):
            self.opt.zero_grad()
            loss = self.loss_fn(self.net(inputs), labels)
            loss.backward()
            self.opt.step()


def main():
    model = Net(args.hidden)
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    criterion = nn.NLLLoss()
    Trainer(model, train_loader, optimizer, criterion).fit()


if __name__ == '__main__':
    main()
)";
    QTest::newRow("trainer-class/determined") << trainer << "determined-pytorchtrial" << true
                                              << "loss = self.criterion(self.model(inputs), labels)"
                                              << "raise NotImplementedError"
                                              << "";
    QTest::newRow("trainer-class/poptorch") << trainer << "graphcore-poptorch" << true
                                            << "loss = self.criterion(self.model(inputs), labels)"
                                            << "TODO(portolan)"
                                            << "";
    // Each layer builds an optimizer on its own parameters and trains itself in its method
    // (layer-local training): a partial port that names it.
    const QString layerLocal = R"(

class Layer(nn.Linear):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.opt = optim.SGD(self.parameters(), lr=args.lr)

    def fit(self, x):
        for i in range(3):
            self.opt.zero_grad()
            loss = self(x).pow(2).mean()
            loss.backward()
            self.opt.step()


layers = [Layer(8, 8), Layer(8, 8)]
for data, target in train_loader:
    for layer in layers:
        layer.fit(data)
)";
    QTest::newRow("layer-local-optimizers/determined")
        << layerLocal << "determined-pytorchtrial" << false << "TODO(portolan)"
        << ""
        << "layer-local optimizers: `self.opt` is built on the parameters of class Layer";
    // A model class whose constructor takes the flags namespace whole (`Wide(args)`): it reads
    // what it is given, so the trial hands it the namespace rebuilt from the hyperparameters.
    const QString namespaceClass = R"(

class Wide(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.fc = nn.Linear(8, args.hidden)
        self.out = nn.Linear(args.hidden, 3)

    def forward(self, x):
        return F.log_softmax(self.out(F.relu(self.fc(x))), dim=1)


model = Wide(args)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("namespace-class/determined")
        << namespaceClass << "determined-pytorchtrial" << true << "args = self.flags()"
        << ""
        << "";
    QTest::newRow("namespace-class/cerebras")
        << namespaceClass << "cerebras-pytorch" << true << "args = types.SimpleNamespace("
        << ""
        << "";
    // The script's code under `if __name__ == '__main__':` at module level: the block is the
    // loop's scope, so what builds the model and the optimizer there moves into the port.
    const QString mainBlock = R"(

if __name__ == '__main__':
    model = Net(args.hidden)
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for data, target in train_loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
)";
    QTest::newRow("main-block/determined") << mainBlock << "determined-pytorchtrial" << true
                                           << "model = Net(self.context.get_hparam(\"hidden\"))"
                                           << ""
                                           << "";
    // Data drawn once while setting up (a random permutation) after the original's seed: the
    // port seeds the same way before it draws, so the draw is the same.
    const QString seeded = R"(

if __name__ == '__main__':
    torch.manual_seed(7)
    points = torch.randn(16, 8)
    order = torch.randperm(16)
    model = Net(args.hidden)
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        optimizer.zero_grad()
        loss = F.nll_loss(model(points[order]), torch.zeros(16, dtype=torch.long))
        loss.backward()
        optimizer.step()
)";
    QTest::newRow("seeded-setup/determined")
        << seeded << "determined-pytorchtrial" << true
        << "torch.manual_seed(7)\n        points = torch.randn(16, 8)"
        << ""
        << "";
    QTest::newRow("seeded-setup/poptorch")
        << seeded << "graphcore-poptorch" << true
        << "torch.manual_seed(7)\n    points = torch.randn(16, 8)"
        << ""
        << "";
    QTest::newRow("main-block/cerebras")
        << mainBlock << "cerebras-pytorch" << true << "model = Net("
        << ""
        << "";
    // torch's Adam with a weight decay (L2, on every parameter): the runner's params name it
    // weight_decay_rate, once, and the model keeps biases and norms in the decay as torch does.
    const QString decayed = R"(

model = Net(args.hidden)
optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=0.03)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("adam-weight-decay/cerebras-params")
        << decayed << "cerebras-pytorch" << true << "  weight_decay_rate: 0.03\n"
        << "  weight_decay:"
        << "";
    QTest::newRow("adam-weight-decay/cerebras-all-parameters")
        << decayed << "cerebras-pytorch" << true
        << "def trainable_named_parameters(self):\n"
           "        # Every parameter decays, as in the original (no layer left out).\n"
           "        return [], list(self.model.named_parameters())"
        << ""
        << "";
    // Without a decay nothing is overridden.
    QString undecayed = decayed;
    undecayed.replace(", weight_decay=0.03", "");
    QTest::newRow("adam-no-weight-decay/cerebras")
        << undecayed << "cerebras-pytorch" << true << "  eps: 1.0e-8\n"
        << "trainable_named_parameters"
        << "";
    // torch's AdamW decays by 0.01 by default and always corrects the bias; the runner's AdamW
    // does neither unless told.
    QString adamw = undecayed;
    adamw.replace("optim.Adam(", "optim.AdamW(");
    // A loop that builds its own batches from a helper, over an endless counter: the Cerebras
    // data function yields one value of the loop per step (batch 1), and the model's step
    // builds the batch from it.
    const QString ownBatches = R"(
from itertools import count

SCALE = torch.randn(8, 1)


def make_batch(n=16):
    x = torch.randn(n, 8)
    return x, x.mm(SCALE)


model = nn.Linear(8, 1)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for step in count(1):
    inputs, targets = make_batch()
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("own-batches/cerebras")
        << ownBatches << "cerebras-pytorch" << true
        << "LoopValues(lambda: count(1)),\n        batch_size=1,\n        collate_fn=one_value"
        << "TODO(portolan)"
        << "";
    // The original's --seed flag (default 42) is the runner's seed, not a fixed one.
    const QString seedFlag = R"(
parser.add_argument('--seed', type=int, default=42)
args = parser.parse_args()
torch.manual_seed(args.seed)
model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)";
    QTest::newRow("seed-flag/cerebras") << seedFlag << "cerebras-pytorch" << true << "  seed: 42\n"
                                        << "  seed: 1\n"
                                        << "";
    QTest::newRow("adamw-defaults/cerebras")
        << adamw << "cerebras-pytorch" << true
        << "  weight_decay_rate: 1.0e-2\n  correct_bias: true\n"
        << ""
        << "";
}
