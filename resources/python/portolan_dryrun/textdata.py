"""torchtext in a dry run: its native extension, its data sets and the tokenizers that need a
download. Never silent: each stand-in is announced by a warning event that says what it
replaces and what it costs.

- Debian 12's python3-torchtext (0.14.1) ships `torchtext._torchtext` without its Python
  bindings (the module defines no PyInit), so `import torchtext` fails. When the real module
  cannot load, a pure-Python one stands in: its Vocab is the same mapping (tokens in order, a
  default index); the other native classes (regex tokenizer, BPE encoders, vectors) refuse with
  a message.
- Its data sets (Multi30k, ...) need torchdata, which Debian does not ship, and a download. When
  the real one fails, a small synthetic parallel corpus of the same shape stands in (pairs of
  sentences, one per language, newline-terminated as the files' lines are).
- A spaCy tokenizer needs spaCy (not in Debian 12) and a downloaded language model. When it
  cannot load, a rule tokenizer stands in (words and punctuation apart): the tokens, hence the
  vocabulary and the batches' lengths, differ from the real ones.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import types

NATIVE = "torchtext._torchtext"


class Vocab:
    """torchtext._torchtext.Vocab's interface (vocab.cpp) in Python."""

    def __init__(self, itos, default_index=None):
        self.itos_ = list(itos)
        self.stoi_ = {}
        for i, token in enumerate(self.itos_):
            self.stoi_.setdefault(token, i)
        self.default_index_ = default_index

    def __len__(self):
        return len(self.itos_)

    def __contains__(self, token):
        return token in self.stoi_

    def __getitem__(self, token):
        if token in self.stoi_:
            return self.stoi_[token]
        if self.default_index_ is None:
            raise RuntimeError(f"Token {token} not found and default index is not set")
        return self.default_index_

    def set_default_index(self, index):
        self.default_index_ = index

    def get_default_index(self):
        return self.default_index_

    def insert_token(self, token, index):
        if token in self.stoi_:
            raise RuntimeError(f"Token {token} already exists in the Vocab with index: "
                               f"{self.stoi_[token]}")
        if index < 0 or index > len(self.itos_):
            raise RuntimeError(f"Specified index {index} is out of bounds for vocab of size "
                               f"{len(self.itos_)}")
        self.itos_.insert(index, token)
        self.stoi_ = {t: i for i, t in enumerate(self.itos_)}

    def append_token(self, token):
        if token in self.stoi_:
            raise RuntimeError(f"Token {token} already exists in the Vocab with index: "
                               f"{self.stoi_[token]}")
        self.stoi_[token] = len(self.itos_)
        self.itos_.append(token)

    def lookup_token(self, index):
        if index < 0 or index >= len(self.itos_):
            raise RuntimeError(f"Specified index {index} is out of bounds of the size of "
                               f"itos dictionary: {len(self.itos_)}")
        return self.itos_[index]

    def lookup_tokens(self, indices):
        return [self.lookup_token(i) for i in indices]

    def lookup_indices(self, tokens):
        return [self[t] for t in tokens]

    def get_stoi(self):
        return dict(self.stoi_)

    def get_itos(self):
        return list(self.itos_)


def _refusing(name):
    class Missing:
        def __init__(self, *args, **kwargs):
            raise RuntimeError(f"torchtext's native {name} is not in this torchtext build "
                               "(Debian's python3-torchtext has no Python bindings); the dry "
                               "run stands in for Vocab only")

    Missing.__name__ = name
    return Missing


def _native_module():
    m = types.ModuleType(NATIVE)
    m.__doc__ = "Portolan's stand-in for torchtext's native bindings (textdata.py)."
    m.Vocab = Vocab
    for name in ("RegexTokenizer", "SentencePiece", "CLIPEncoder", "GPT2BPEEncoder",
                 "BERTEncoder", "Vectors", "RegexTokenizerPybind"):
        setattr(m, name, _refusing(name))

    def unavailable(*args, **kwargs):
        raise RuntimeError("torchtext's native file readers are not in this torchtext build")

    for name in ("_load_token_and_vectors_from_file", "_load_vocab_from_file",
                 "_build_vocab_from_text_file", "_build_vocab_from_text_file_using_python_tokenizer",
                 "load_sp_model", "load_sp_model_string"):
        setattr(m, name, unavailable)
    m._portolan = True
    return m


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class NativeFinder(importlib.abc.MetaPathFinder):
    """Loads the real torchtext._torchtext, else the stand-in (announced once)."""

    def __init__(self, session):
        self.session = session

    def find_spec(self, name, path, target=None):
        if name != NATIVE:
            return None
        if getattr(self, "module", None) is None:
            self.module = self._load(name, path)
        return importlib.util.spec_from_loader(name, _Loader(self.module))

    def _load(self, name, path):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        module = None
        if spec is not None:
            try:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except ImportError as error:
                module = None
                reason = str(error).strip().splitlines()[0]
        else:
            reason = "the module is not installed"
        if module is None:
            module = _native_module()
            self.session.events.emit(
                "warning", kind="stand-in",
                message=("torchtext's native extension could not load (" + reason + "); a "
                         "pure-Python Vocab stands in (same tokens and indices; the other "
                         "native classes refuse)"))
        return module


# A few hundred words of a made-up parallel corpus: each language gets its own word list, and
# the sentence pairs draw the same positions in both (aligned, like a translation).
_WORDS = ("a man woman child dog cat ball street park house car bike tree water field "
          "red blue green small big young old runs walks sits plays holds looks at on in "
          "with near the two three people group shirt hat jacket bag table chair").split()


def _sentences(lang, split, count, seed):
    import torch

    gen = torch.Generator().manual_seed(seed)
    tag = str(lang)[:2]
    out = []
    for _ in range(count):
        n = int(torch.randint(4, 12, (1,), generator=gen))
        idx = torch.randint(0, len(_WORDS), (n,), generator=gen).tolist()
        words = [f"{_WORDS[i]}" if tag == "en" else f"{_WORDS[i]}_{tag}" for i in idx]
        out.append(" ".join(words).capitalize() + " .\n")
    return out


class SyntheticPairs(list):
    """A parallel corpus as torchtext's datasets yield it: (source, target) line pairs."""


def _pairs(name, split, language_pair, session, error):
    split = split if isinstance(split, str) else "train"
    count = {"train": 256, "valid": 64, "test": 64}.get(split, 64)
    seed = {"train": 1, "valid": 2, "test": 3}.get(split, 4)
    pair = tuple(language_pair) if language_pair else ("de", "en")
    src = _sentences(pair[0], split, count, seed)
    tgt = _sentences(pair[1], split, count, seed)
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    session.events.emit(
        "warning", kind="synthetic-data",
        message=(f"{split} data is synthetic: torchtext.datasets.{name} could not load "
                 f"({reason}); using {count} made-up sentence pairs {pair[0]}->{pair[1]} of "
                 "4 to 11 words"),
        dataset=f"torchtext.datasets.{name}", samples=count)
    session.synthetic = True
    return SyntheticPairs(zip(src, tgt))


def _wrap_dataset(module, name, session):
    original = getattr(module, name, None)
    if original is None or getattr(original, "_portolan", False):
        return

    def dataset(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - torchdata missing, download refused
            split = kwargs.get("split", args[1] if len(args) > 1 else "train")
            pair = kwargs.get("language_pair", args[2] if len(args) > 2 else None)
            if isinstance(split, (tuple, list)):
                return tuple(_pairs(name, s, pair, session, error) for s in split)
            return _pairs(name, split, pair, session, error)

    dataset._portolan = True
    dataset.__doc__ = original.__doc__
    dataset.__wrapped__ = original
    setattr(module, name, dataset)


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _rule_tokenizer(text):
    return _TOKEN.findall(text)


def _wrap_get_tokenizer(module, session):
    original = getattr(module, "get_tokenizer", None)
    if original is None or getattr(original, "_portolan", False):
        return
    said = set()

    def get_tokenizer(tokenizer, language="en"):
        try:
            return original(tokenizer, language)
        except Exception as error:  # noqa: BLE001 - library or language model missing
            if not isinstance(tokenizer, str):
                raise
            reason = str(error).strip().splitlines()[0] if str(error).strip() else \
                type(error).__name__
            if (tokenizer, language) not in said:
                said.add((tokenizer, language))
                session.events.emit(
                    "warning", kind="stand-in",
                    message=(f"the {tokenizer} tokenizer for '{language}' could not load "
                             f"({reason}); a rule tokenizer (words and punctuation apart) "
                             "stands in: its tokens, hence the vocabulary and the batches' "
                             "lengths, differ from the real ones"))
            return _rule_tokenizer

    get_tokenizer._portolan = True
    get_tokenizer.__doc__ = original.__doc__
    return get_tokenizer


def install_text_fallbacks(session):
    """Before the project imports torchtext: the native stand-in's finder; then torchtext's
    data sets and tokenizer factory get their fallbacks."""
    if not any(isinstance(f, NativeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, NativeFinder(session))
    try:
        import torchtext.data.utils as data_utils
        import torchtext.datasets as datasets
    except Exception:  # noqa: BLE001 - the project's own import will say why
        return False
    wrapped = _wrap_get_tokenizer(data_utils, session)
    if wrapped is not None:
        data_utils.get_tokenizer = wrapped
        import torchtext.data as data

        if getattr(data, "get_tokenizer", None) is not None:
            data.get_tokenizer = wrapped
    for name in getattr(datasets, "__all__", []):
        _wrap_dataset(datasets, name, session)
        sub = getattr(datasets, name.lower(), None)
        if isinstance(sub, types.ModuleType):
            _wrap_dataset(sub, name, session)
    return True
