"""torchtext in a dry run (textdata.py): the pure-Python Vocab keeps the native one's tokens and
indices, a data set that cannot load becomes announced synthetic sentence pairs, and a tokenizer
that needs a download becomes an announced rule tokenizer whose cost is said.

Run by ctest (test_dryrun_python).
"""
import importlib.util
import types
import unittest

from portolan_dryrun import textdata


class _Events:
    def __init__(self):
        self.emitted = []

    def emit(self, event, **fields):
        self.emitted.append((event, fields))


def _session():
    return types.SimpleNamespace(events=_Events(), synthetic=False)


class VocabTest(unittest.TestCase):
    def test_indices_and_default(self):
        v = textdata.Vocab(["<unk>", "<pad>", "a", "b"], None)
        self.assertEqual(len(v), 4)
        self.assertEqual(v["b"], 3)
        self.assertIn("a", v)
        with self.assertRaises(RuntimeError):
            v["zzz"]
        v.set_default_index(0)
        self.assertEqual(v.lookup_indices(["a", "zzz"]), [2, 0])
        self.assertEqual(v.get_default_index(), 0)

    def test_insert_and_append(self):
        v = textdata.Vocab(["a", "b"], None)
        v.insert_token("c", 0)
        v.append_token("d")
        self.assertEqual(v.get_itos(), ["c", "a", "b", "d"])
        self.assertEqual(v.get_stoi()["b"], 2)
        self.assertEqual(v.lookup_tokens([0, 3]), ["c", "d"])
        with self.assertRaises(RuntimeError):
            v.append_token("a")
        with self.assertRaises(RuntimeError):
            v.lookup_token(9)

    def test_other_native_classes_refuse(self):
        m = textdata._native_module()
        with self.assertRaises(RuntimeError):
            m.RegexTokenizer([], [], False)


class FallbackTest(unittest.TestCase):
    def test_dataset_that_cannot_load_gives_aligned_pairs(self):
        session = _session()

        def Corpus(root=".data", split=("train", "valid"), language_pair=("de", "en")):
            raise ModuleNotFoundError("Package `torchdata` not found")

        module = types.SimpleNamespace(Corpus=Corpus)
        textdata._wrap_dataset(module, "Corpus", session)
        train, valid = module.Corpus(split=("train", "valid"), language_pair=("de", "en"))
        self.assertEqual(len(train), 256)
        self.assertEqual(len(valid), 64)
        src, tgt = train[0]
        self.assertTrue(src.endswith("\n") and tgt.endswith("\n"))
        self.assertEqual(len(src.split()), len(tgt.split()))  # aligned word for word
        self.assertEqual(module.Corpus(split="train")[5], train[5])  # deterministic
        self.assertTrue(session.synthetic)
        kinds = [f["kind"] for _, f in session.events.emitted]
        self.assertEqual(kinds.count("synthetic-data"), 3)
        self.assertIn("torchdata", session.events.emitted[0][1]["message"])

    def test_dataset_that_loads_is_untouched(self):
        session = _session()
        module = types.SimpleNamespace(Corpus=lambda split="train": ["real"])
        textdata._wrap_dataset(module, "Corpus", session)
        self.assertEqual(module.Corpus(), ["real"])
        self.assertEqual(session.events.emitted, [])

    def test_tokenizer_that_needs_a_download(self):
        session = _session()

        def get_tokenizer(tokenizer, language="en"):
            if tokenizer == "spacy":
                raise OSError(f"Can't find model '{language}'")
            return str.split

        module = types.SimpleNamespace(get_tokenizer=get_tokenizer)
        wrapped = textdata._wrap_get_tokenizer(module, session)
        self.assertIs(wrapped("basic"), str.split)
        tok = wrapped("spacy", "de")
        self.assertEqual(tok("Ein Mann, zwei Hunde."), ["Ein", "Mann", ",", "zwei", "Hunde", "."])
        wrapped("spacy", "de")
        messages = [f["message"] for _, f in session.events.emitted]
        self.assertEqual(len(messages), 1)  # said once per tokenizer and language
        self.assertIn("differ from the real ones", messages[0])


@unittest.skipUnless(importlib.util.find_spec("torchtext"), "torchtext is not installed")
class TorchtextTest(unittest.TestCase):
    def test_vocab_from_iterator_imports_and_builds(self):
        session = _session()
        self.assertTrue(textdata.install_text_fallbacks(session))
        from torchtext.vocab import build_vocab_from_iterator

        v = build_vocab_from_iterator([["b", "a", "b"]], specials=["<unk>"], special_first=True)
        self.assertEqual(v.get_itos(), ["<unk>", "b", "a"])


if __name__ == "__main__":
    unittest.main()
