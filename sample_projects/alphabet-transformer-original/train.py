"""Train the alphabet transformer on generated letter sequences.

Every sample is seq_len + 1 consecutive letters, wrapping from z to a,
starting at a random letter; the target is the input shifted by one.

Example:
    python3 train.py --steps 100
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import AlphabetTransformer


def alphabet_dataset(num_samples, seq_len, vocab_size, seed):
    gen = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, vocab_size, (num_samples, 1), generator=gen)
    letters = (starts + torch.arange(seq_len + 1)) % vocab_size
    return TensorDataset(letters[:, :-1], letters[:, 1:])


def parse_args():
    parser = argparse.ArgumentParser(description="alphabet transformer")
    parser.add_argument("--vocab-size", type=int, default=26)
    parser.add_argument("--embedding-size", type=int, default=64)
    parser.add_argument("--num-heads", type=int, default=4)
    parser.add_argument("--num-hidden-layers", type=int, default=2)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--nonlinearity", default="relu",
                        choices=["relu", "gelu"])
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--log-steps", type=int, default=10)
    parser.add_argument("--num-samples", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    model = AlphabetTransformer(
        args.vocab_size, args.embedding_size, args.num_heads,
        args.num_hidden_layers, args.hidden_size, args.dropout,
        args.nonlinearity, args.seq_len)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda":
        model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(
        alphabet_dataset(args.num_samples, args.seq_len, args.vocab_size,
                         args.seed),
        batch_size=args.batch_size, shuffle=True, drop_last=True)

    model.train()
    step = 0
    while step < args.steps:
        for inputs, targets in loader:
            # The DataLoader yields [batch, seq]; the model wants [seq, batch].
            inputs = inputs.t().to(device)
            targets = targets.t().to(device)
            logits = model(inputs)
            loss = loss_fn(logits.reshape(-1, args.vocab_size),
                           targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step % args.log_steps == 0:
                print(f"step {step:5d}  loss {loss.item():.4f}")
            if step >= args.steps:
                break

    # Show what the model learned: the letter it predicts after each input.
    model.eval()
    with torch.no_grad():
        sample = alphabet_dataset(1, 8, args.vocab_size, args.seed + 1)[0][0]
        predicted = model(sample.unsqueeze(1).to(device)).argmax(dim=-1)
    print("input    ", " ".join(chr(ord("a") + int(t)) for t in sample))
    print("predicted", " ".join(chr(ord("a") + int(t)) for t in predicted))


if __name__ == "__main__":
    main()
