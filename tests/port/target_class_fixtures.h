#pragma once
// The fixtures of test_port_target_classes: small originals, each written for one pattern of
// per-target generation (issue 24). Not a corpus project's code.

namespace targetfixtures {

// Truncated backpropagation through time: the state is reset at the start of each epoch, in the
// loop around the batch loop, and each step reads it, detaches it and binds the model's new one.
inline constexpr const char* CarriedState = R"(import torch
import torch.nn as nn

torch.manual_seed(0)
tokens = torch.randint(0, 20, (4, 61))
width = 4
span = 10


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.rnn = nn.LSTM(8, 16, 1, batch_first=True)
        self.out = nn.Linear(16, 20)

    def forward(self, x, h):
        y, (h, c) = self.rnn(self.emb(x), h)
        return self.out(y.reshape(-1, 16)), (h, c)


def cut(pair):
    return [t.detach() for t in pair]


model = Recurrent()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

for epoch in range(2):
    carry = (torch.zeros(1, width, 16), torch.zeros(1, width, 16))
    for i in range(0, tokens.size(1) - span, span):
        x = tokens[:, i:i + span]
        y = tokens[:, i + 1:i + 1 + span]
        carry = cut(carry)
        logits, carry = model(x, carry)
        loss = criterion(logits, y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
)";

// Gradient clipping between backward() and the step, on the model's parameters; the limit is
// small, so every step clips (a port that drops the clip parts from the original at step 2).
// @CLIP@ is swapped per row.
inline constexpr const char* Clipped = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--clip', type=float, default=0.01)
parser.add_argument('--lr', type=float, default=0.5)
args = parser.parse_args()

torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
loader = DataLoader(data, batch_size=8)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.@OPT@(net.parameters(), lr=args.lr)

for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        @CLIP@
        optimizer.step()
)";

// Seeding: @SEED@ is swapped per row (a seed flag that defaults to None, a literal, none).
inline constexpr const char* Seeded = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--seed', type=int, help='random seed')
parser.add_argument('--lr', type=float, default=0.1)
args = parser.parse_args()
@SEED@
data = TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,)))
loader = DataLoader(data, batch_size=8, shuffle=True)
net = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.5), nn.Linear(8, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=args.lr)

for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        optimizer.step()
)";

// A learning rate decayed by hand at the end of every K-th epoch and written into the optimizer
// (@COND@ swapped per row). An epoch is one batch of the dry run's size (2), so a decay every
// epoch shows in the first steps the verification compares.
inline constexpr const char* Decayed = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--epochs', type=int, default=6)
args = parser.parse_args()

rate = 0.5
torch.manual_seed(0)
data = TensorDataset(torch.randn(2, 6), torch.randint(0, 3, (2,)))
loader = DataLoader(data, batch_size=2)
net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=rate)


def set_rate(opt, value):
    for group in opt.param_groups:
        group['lr'] = value


for epoch in range(args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        optimizer.step()
    if @COND@:
        rate /= 4
        set_rate(optimizer, rate)
)";

// Two models trained in turn, written as such scripts often are: the flags parsed at module
// level and read by the model classes as a global (`opt.latent`), a module value computed from
// them (`shape`), the critic built at module level, betas from flags, a seed flag that defaults
// to None. The one-loss targets leave the step to the user (one item, at the first backward());
// nothing else may be left: no cascade of check errors, and the dry run runs.
inline constexpr const char* InTurn = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--latent', type=int, default=4)
parser.add_argument('--channels', type=int, default=2)
parser.add_argument('--size', type=int, default=3)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--b1', type=float, default=0.5)
parser.add_argument('--seed', type=int)
opt = parser.parse_args()

shape = (opt.channels, opt.size)
if opt.seed is not None:
    torch.manual_seed(opt.seed)


class Maker(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(opt.latent, shape[0] * shape[1])

    def forward(self, z):
        return self.net(z).view(z.size(0), *shape)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(shape[0] * shape[1], 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x.view(x.size(0), -1))


critic = Critic()
maker = Maker()
loss_fn = nn.BCELoss()
opt_m = torch.optim.Adam(maker.parameters(), lr=opt.lr, betas=(opt.b1, 0.999))
opt_c = torch.optim.Adam(critic.parameters(), lr=opt.lr, betas=(opt.b1, 0.999))
loader = DataLoader(TensorDataset(torch.randn(16, 2, 3)), batch_size=4)

for epoch in range(2):
    for (real,) in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        opt_m.zero_grad()
        made = maker(torch.randn(real.size(0), opt.latent))
        loss_m = loss_fn(critic(made), ones)
        loss_m.backward()
        opt_m.step()
        opt_c.zero_grad()
        loss_c = loss_fn(critic(real), ones) + loss_fn(critic(made.detach()), zeros)
        loss_c.backward()
        opt_c.step()
)";

} // namespace targetfixtures
