#pragma once
// An original both validation tests use (test_port_validation, test_port_determined_validation):
// a language model validated by a function that slices a tensor itself, with a plateau decay.

#include <string>

namespace portfixture {

// A language model trained at module level by a hand-written SGD update, validated by a function
// that reads the model as a global over a tensor (not a loader), and a rate divided by 4 when the
// validation loss does not improve (@DECAY@): the loss rises at epochs 5 and 6 with this data.
inline const char* const Plateau = R"(import argparse
import math
import time
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1.0)
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--bptt", type=int, default=5)
args = parser.parse_args()


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


train_data = batchify((torch.arange(240) * 7) % 11, 4)
val_data = batchify((torch.arange(60) * 7 + torch.arange(60) // 7) % 11, 2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 8)
        self.out = nn.Linear(8, 11)

    def forward(self, x):
        return torch.log_softmax(self.out(torch.tanh(self.embed(x))), dim=-1).view(-1, 11)


model = Net()
criterion = nn.NLLLoss()


def get_batch(source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)


def evaluate(data_source):
    model.eval()
    total_loss = 0.
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i)
            output = model(data)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train():
    model.train()
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        loss = criterion(model(data), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


lr = args.lr
best_val_loss = None
for epoch in range(1, args.epochs + 1):
    epoch_start_time = time.time()
    train()
    val_loss = evaluate(val_data)
    print('-' * 20)
    print("end of epoch {:d} | {} | valid loss {:.6f} | ppl {:.4f}".format(
        epoch, time.time() - epoch_start_time >= 0, val_loss, math.exp(val_loss)))
@DECAY@)";

inline const char* const Decay = R"(    if not best_val_loss or val_loss < best_val_loss:
        best_val_loss = val_loss
    else:
        lr /= 4.0
)";

inline std::string withDecay(const std::string& decay)
{
    std::string s = Plateau;
    s.replace(s.find("@DECAY@"), 7, decay);
    return s;
}

} // namespace portfixture
