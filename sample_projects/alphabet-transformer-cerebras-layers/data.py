"""Generated alphabet sequences, batch-first.

Every sample is seq_len + 1 consecutive letters (wrapping from z to a)
starting at a random letter; labels are the inputs shifted by one. The
generator is seeded, so every run sees the same samples.
"""
import torch
from torch.utils.data import DataLoader, TensorDataset


def _alphabet_dataset(num_samples, seq_len, vocab_size, seed):
    gen = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, vocab_size, (num_samples, 1), generator=gen)
    letters = (starts + torch.arange(seq_len + 1)) % vocab_size
    return TensorDataset(letters[:, :-1], letters[:, 1:])


def get_train_dataloader(params):
    dataset = _alphabet_dataset(params["train_input"]["num_samples"],
                                params["model"]["seq_len"],
                                params["model"]["vocab_size"],
                                params["runconfig"]["seed"])
    return DataLoader(dataset,
                      batch_size=params["train_input"]["batch_size"],
                      shuffle=params["train_input"]["shuffle"],
                      drop_last=params["train_input"]["drop_last_batch"])


def get_eval_dataloader(params):
    # A different seed gives the evaluation its own samples.
    dataset = _alphabet_dataset(params["eval_input"]["num_samples"],
                                params["model"]["seq_len"],
                                params["model"]["vocab_size"],
                                params["runconfig"]["seed"] + 1)
    return DataLoader(dataset,
                      batch_size=params["eval_input"]["batch_size"],
                      shuffle=params["eval_input"]["shuffle"],
                      drop_last=params["eval_input"]["drop_last_batch"])
