"""Offline NLP resources for the caption proxies: WordNet, a part-of-speech tagger, Lesk, METEOR.

**WordNet** is resolved in one place, :func:`ensure_wordnet`, in this order:

1. an NLTK WordNet already on ``nltk.data.path`` (e.g. after ``nltk.download("wordnet")``);
2. the WordNet 3.0 database of Debian's ``wordnet-base`` (+ ``wordnet-sense-index``)
   in ``/usr/share/wordnet`` (or ``$FIREEVAL_WORDNET_DIR``). NLTK's reader also needs
   a ``lexnames`` file that Debian does not ship: it is taken from the data registry
   (``nlp/wordnet_lexnames_generated.txt``). The files are *copied* (NLTK refuses
   symlinks that leave its root) into ``<user cache>/fireeval/nltk_data/corpora/wordnet``
   -- never into a data directory -- and that folder is put first on ``nltk.data.path``.

Otherwise :class:`WordNetUnavailable` names both fixes. :func:`wordnet` loads NLTK's
reader once per process in about 0.7 s instead of NLTK's 3-7 s (same files, same
synsets; the multilingual WordNet-3.0 map is built on first use, see :func:`_reader_class`).

**Part-of-speech tagger**: :func:`pos_tag` uses TextBlob's ``PatternTagger`` (PyPI
``textblob``, MIT; its model is Pattern's Brill-style lexicon and contextual rules,
trained on the Brown corpus and Penn Treebank, shipped inside the wheel, so it works
offline). Wray et al. used spaCy's ``en_core_web_lg``, whose model is not on PyPI;
NLTK's perceptron tagger needs a download. The proxies take any tagger with the
same signature (``caption -> [(word, universal_tag), ...]``), so the definition of
PoS/SYN does not depend on this choice.

**Lesk** (:func:`lesk_synset`) is NLTK's simplified Lesk (``nltk.wsd.lesk``: the
sense whose gloss shares most words with the caption, first WordNet sense on ties)
with the glosses cached. Tags and verb/noun sets are memoised per distinct caption.
**METEOR** (:func:`meteor_matrix`) gives NLTK's ``single_meteor_score`` to the last
bit for every pair at once: NLTK's greedy alignment stages replayed as bit-mask
operations, with stems and synonym sets looked up once per distinct word.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from fireeval.core.parsed_cache import user_cache_dir
from fireeval.core.trec import PATH
from fireeval.core.validation import BOOL, STR, Instance, Options, validate_params
from fireeval.t2v.param_checks import TEXTS

__all__ = [
    "tokenize",
    "WordNetUnavailable",
    "TaggerUnavailable",
    "ensure_wordnet",
    "wordnet",
    "pos_tag",
    "ego_pos_tag",
    "verb_noun_sets",
    "lesk_synset",
    "meteor",
    "meteor_matrix",
]


_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@validate_params(caption=STR)
def tokenize(caption: str) -> list[str]:
    """Lower-cased word tokens of ``caption`` (runs of letters/digits, keeping "n't"-style endings).

    Parameters
    ----------
    caption : str
        The caption.

    Returns
    -------
    list of str

    >>> tokenize("A man, driving a CAR.")
    ['a', 'man', 'driving', 'a', 'car']
    """
    if not isinstance(caption, str):
        raise TypeError(f"a caption must be a str, not {type(caption).__name__} ({caption!r})")
    return list(_tokens(caption))


@lru_cache(maxsize=1 << 17)
def _tokens(caption: str) -> tuple:
    """:func:`tokenize`, memoised: a chapter tokenises the same captions for every proxy and matrix."""
    return tuple(_TOKEN.findall(caption.lower()))


SYSTEM_WORDNET = Path("/usr/share/wordnet")
LEXNAMES = "nlp/wordnet_lexnames_generated.txt"
# The files NLTK's WordNetCorpusReader opens (index.sense / cntlist.rev serve lemma counts).
_WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv", "index.noun", "index.verb", "index.adj",
                  "index.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc")
_OPTIONAL_FILES = ("index.sense", "cntlist.rev")
_FIX = ("Fix: on Debian/Ubuntu `apt-get install wordnet-base wordnet-sense-index` (database in "
        "/usr/share/wordnet; the lexnames file comes from the data registry, nlp/wordnet_lexnames_generated.txt), "
        "or online `python -c \"import nltk; nltk.download('wordnet')\"`, or set FIREEVAL_WORDNET_DIR to a folder "
        "holding the WordNet 3.0 dict files.")


class WordNetUnavailable(RuntimeError):
    """WordNet cannot be found or assembled offline; the message names the fix.

    Examples
    --------
    A folder without WordNet's files, and NLTK's own copy not searched:

    >>> import tempfile
    >>> ensure_wordnet(system_dir=tempfile.mkdtemp(), cache_dir=tempfile.mkdtemp(), search_nltk=False)
    Traceback (most recent call last):
    ...
    fireeval.t2v.nlp.WordNetUnavailable: WordNet not found: /tmp/... lacks data.noun, data.verb, data.adj, data.adv ..., and NLTK has no 'wordnet' corpus on nltk.data.path. Fix: on Debian/Ubuntu `apt-get install wordnet-base wordnet-sense-index` ...
    """


class TaggerUnavailable(ImportError):
    """The default part-of-speech tagger (TextBlob) is not installed.

    Examples
    --------
    An ImportError, so ``except ImportError`` catches it too:

    >>> issubclass(TaggerUnavailable, ImportError)
    True
    """


_READY: dict = {}


def _nltk_has_wordnet() -> bool:
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
        return True
    except LookupError:
        try:
            nltk.data.find("corpora/wordnet.zip")
            return True
        except LookupError:
            return False


LEXNAMES_MANPAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")
_LEX_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def lexnames_from_manpage(path) -> str:
    """Rebuild WordNet's ``lexnames`` file (``NN<TAB>file<TAB>category``) from lexnames(5WN).

    Debian's ``wordnet-base`` ships the database and this manual page but not the file
    NLTK needs; the page lists every lexicographer file as ``NN<TAB>name<TAB>contents``
    and the syntactic category follows from the name (noun 1, verb 2, adj 3, adv 4).
    This is how ``nlp/wordnet_lexnames_generated.txt`` of the shared data was made.

    >>> import gzip, tempfile, os
    >>> page = tempfile.NamedTemporaryFile(suffix=".gz", delete=False)
    >>> _ = page.write(gzip.compress("00\\tadj.all\\tall adjectives\\n18\\tnoun.person  \\tpeople\\n".encode()))
    >>> page.close()
    >>> lexnames_from_manpage(page.name).split()
    ['00', 'adj.all', '3', '18', 'noun.person', '1']
    >>> os.unlink(page.name)
    """
    import gzip
    import re

    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        rows = [m.groups() for m in (re.match(r"^(\d\d)\t(\w+)\.(\w+)\s", line) for line in fh) if m]
    if not rows:
        raise WordNetUnavailable(f"{path} lists no lexicographer files; cannot rebuild 'lexnames'. {_FIX}")
    return "".join(f"{num}\t{cat}.{name}\t{_LEX_CATEGORY[cat]}\n" for num, cat, name in rows)


@validate_params(system_dir=[PATH, None], cache_dir=[PATH, None], search_nltk=BOOL)
def ensure_wordnet(system_dir=None, cache_dir=None, search_nltk: bool = True) -> str:
    """Make NLTK's WordNet loadable offline; return where it comes from.

    Parameters
    ----------
    system_dir : path, optional
        Folder holding the WordNet 3.0 dict files (default ``$FIREEVAL_WORDNET_DIR``
        or ``/usr/share/wordnet``).
    cache_dir : path, optional
        Where the NLTK data folder is assembled (default :func:`user_cache_dir`).
    search_nltk : bool
        Accept a WordNet already on ``nltk.data.path`` first.

    Returns
    -------
    str
        Where WordNet comes from.

    Raises
    ------
    WordNetUnavailable
        Naming the fix, when no source works.

    Examples
    --------
    >>> import tempfile
    >>> ensure_wordnet(system_dir=tempfile.mkdtemp(), cache_dir=tempfile.mkdtemp(), search_nltk=False)
    Traceback (most recent call last):
    ...
    fireeval.t2v.nlp.WordNetUnavailable: WordNet not found: /tmp/... lacks data.noun, data.verb, data.adj, data.adv ..., and NLTK has no 'wordnet' corpus on nltk.data.path. Fix: on Debian/Ubuntu `apt-get install wordnet-base wordnet-sense-index` ...
    """
    import nltk

    key = (str(system_dir), str(cache_dir), search_nltk)
    if key in _READY:
        return _READY[key]
    if search_nltk and _nltk_has_wordnet():
        _READY[key] = "nltk_data"
        return "nltk_data"
    source = Path(system_dir or os.environ.get("FIREEVAL_WORDNET_DIR") or SYSTEM_WORDNET)
    missing = [f for f in _WORDNET_FILES if not (source / f).is_file()]
    if missing:
        raise WordNetUnavailable(f"WordNet not found: {source} lacks {', '.join(missing[:4])}"
                                 f"{' ...' if len(missing) > 4 else ''}, and NLTK has no 'wordnet' corpus on "
                                 f"nltk.data.path. {_FIX}")
    root = Path(cache_dir or user_cache_dir()) / "nltk_data"
    target = root / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    lexnames = source / "lexnames"
    if not lexnames.is_file():
        from fireeval.datasets import DataError, DataUnavailable, data_path

        try:
            lexnames = data_path(LEXNAMES)
        except (DataUnavailable, DataError) as err:
            if not LEXNAMES_MANPAGE.is_file():
                raise WordNetUnavailable(f"WordNet's {source} has no 'lexnames' file, the registry copy is "
                                         f"unavailable ({err}) and {LEXNAMES_MANPAGE} is absent. {_FIX}") from err
            # The registry file was derived from this manual page: derive it again.
            lexnames = target / "lexnames.from-manpage"
            lexnames.write_text(lexnames_from_manpage(LEXNAMES_MANPAGE))
    wanted = [(source / f, f) for f in _WORDNET_FILES + _OPTIONAL_FILES if (source / f).is_file()]
    wanted.append((Path(lexnames), "lexnames"))
    for src, name in wanted:
        dst = target / name
        if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
            tmp = dst.with_suffix(dst.suffix + f".tmp{os.getpid()}")
            shutil.copyfile(src, tmp)  # a copy: NLTK rejects symlinks out of its root
            os.replace(tmp, dst)
    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))
    _READY[key] = str(target)
    return str(target)


_DEFERRED = object()


class _AsciiLines:
    """A WordNet data file held in memory, read as NLTK reads it: ``seek(byte offset)``, ``readline``.

    NLTK's own seekable reader decodes through a 72-byte buffer on every look-up (a
    synset costs a seek, a readline and a seek back to 0); here a line is a slice of the
    bytes. Used only for files that are printable ASCII with "\n" line ends, where
    both give the same lines.
    """

    def __init__(self, data: bytes):
        self._data, self._pos = data, 0

    @classmethod
    def load(cls, root, fileid):
        from nltk.data import FileSystemPathPointer

        if not isinstance(root, FileSystemPathPointer):
            return None
        path = os.path.join(root.path, fileid)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as fh:
            data = fh.read()
        printable = data.translate(None, bytes(range(0x20, 0x7F)) + b"\n")
        return cls(data) if not printable else None

    def seek(self, offset, whence=0):
        if whence != 0:
            raise OSError("only absolute seeks are supported")
        self._pos = offset

    def tell(self):
        return self._pos

    def readline(self, size=None):
        end = self._data.find(b"\n", self._pos)
        end = len(self._data) if end < 0 else end + 1
        if size is not None and size >= 0:
            end = min(end, self._pos + size)
        line = self._data[self._pos:end].decode("ascii")
        self._pos = end
        return line

    def __iter__(self):
        while line := self.readline():
            yield line

    def close(self):
        pass


@lru_cache(maxsize=1)
def _reader_class():
    """NLTK's ``WordNetCorpusReader`` minus two load-time costs that no result here depends on.

    1. Its constructor maps WordNet 3.0 synset ids to the loaded version's for the
       multilingual (OMW) functions by reading ``index.sense`` twice (about 60 % of the
       load); here ``map30`` is computed on first access instead, so OMW still works.
    2. It reads ``index.*``, ``*.exc`` and ``lexnames`` line by line through NLTK's
       seekable stream reader; from a plain folder they are read with Python's own
       text files (same lines, same parse), about 15x faster.
    3. Synset look-ups read the data files from memory (:class:`_AsciiLines`), and the
       lemma index is parsed by slicing each line's fields (same map, ~3x faster).
    """
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.data import FileSystemPathPointer

    class WordNetReader(WordNetCorpusReader):
        def __init__(self, root, omw_reader):
            self._loading = True
            try:
                super().__init__(root, omw_reader)
            finally:
                self._loading = False

        def open(self, file):
            root = self._root
            if (self._loading and isinstance(root, FileSystemPathPointer) and not file.startswith("data.")
                    and "/" not in file and ".." not in file and os.path.isfile(os.path.join(root.path, file))):
                return open(os.path.join(root.path, file), encoding=self.encoding(file) or "utf8")
            return super().open(file)

        def _load_lemma_pos_offset_map(self):
            # NLTK's parse of index.* (a closure and a generator call per token), rewritten
            # as slices of each line's fields: the same map, built in a third of the time.
            # Any line that does not parse falls back to NLTK's loop and its error message.
            try:
                lemma_map = self._lemma_pos_offset_map
                satellites = self.satellite_offsets
                for suffix in self._FILEMAP.values():
                    with self.open(f"index.{suffix}") as fp:
                        for line in fp:
                            if line.startswith(" "):
                                continue
                            fields = line.split()
                            lemma, pos, n_synsets, n_pointers = fields[0], fields[1], int(fields[2]), int(fields[3])
                            start = 6 + n_pointers
                            if n_synsets <= 0 or int(fields[4 + n_pointers]) != n_synsets \
                                    or len(fields) < start + n_synsets:
                                raise ValueError(line)
                            offsets = [int(x) for x in fields[start:start + n_synsets]]
                            lemma_map[lemma][pos] = offsets
                            if pos == "a":
                                lemma_map[lemma]["s"] = [o for o in offsets if o in satellites]
            except (ValueError, IndexError):
                self._lemma_pos_offset_map.clear()
                super()._load_lemma_pos_offset_map()

        def _data_file(self, pos):
            pos = "a" if pos == "s" else pos
            if self._data_file_map.get(pos) is None:
                fast = _AsciiLines.load(self._root, f"data.{self._FILEMAP[pos]}")
                if fast is not None:
                    self._data_file_map[pos] = fast
            return super()._data_file(pos)

        def map_wn(self, version="wordnet"):
            if self._loading:
                return _DEFERRED
            return super().map_wn(version)

        @property
        def map30(self):
            if self._map30 is _DEFERRED:
                self._map30 = super().map_wn()
            return self._map30

        @map30.setter
        def map30(self, value):
            self._map30 = value

    return WordNetReader


@lru_cache(maxsize=1)
def wordnet():
    """NLTK's WordNet reader, after :func:`ensure_wordnet`, loaded once per process (about 1.5 s).

    The same files and the same ``WordNetCorpusReader`` as ``nltk.corpus.wordnet``
    (synsets, lemmas, glosses are identical), built without its eager WordNet-3.0
    mapping for the multilingual functions, which is made on first use instead
    (:func:`_reader_class`); that mapping was 60 % of the ~7 s load.
    """
    ensure_wordnet()
    import nltk
    from nltk.corpus import CorpusReader, LazyCorpusLoader

    omw = LazyCorpusLoader("omw-2.0", CorpusReader, r".*/wn-data-.*\.tab", encoding="utf8")
    return _reader_class()(nltk.data.find("corpora/wordnet"), omw)


# --- part of speech ---------------------------------------------------------------------------

_BE = frozenset("be am is are was were been being 's 're 'm".split())
_AUX_CANDIDATES = frozenset("do does did have has had having".split())
_DETERMINERS = frozenset("a an the his her their its this that these those my your our some another each "
                         "every".split())
_PRONOUNS = frozenset("i you he she it we they someone somebody everyone people person".split())
# Indefinite pronouns are PRON for spaCy, so not nouns here either.
_PRON_WORDS = frozenset("someone somebody something anyone anybody anything everyone everybody everything "
                        "nothing nobody none".split())
_FUNCTION = frozenset("to in on at into onto with from of for by about over under up down out off "
                      "around through across along".split()) | _DETERMINERS


@lru_cache(maxsize=1)
def _pattern_tag():
    try:
        from textblob.en import tag
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise TaggerUnavailable("the default part-of-speech tagger needs TextBlob: `pip install textblob` "
                                "(it ships its model; no download), or pass your own tagger=") from err
    return tag


def _universal(penn: str) -> str:
    if penn.startswith("VB"):
        return "VERB"
    if penn in ("NN", "NNS"):
        return "NOUN"  # proper nouns (NNP) are PROPN in spaCy, which Wray's code leaves out
    if penn.startswith("JJ"):
        return "ADJ"
    if penn.startswith("RB") or penn == "RP":
        return "ADV"
    return "X"


@lru_cache(maxsize=None)
def _wordnet_pos(word: str) -> frozenset:
    """Which of noun "n" and verb "v" WordNet knows ``word`` as, cached.

    The same answer as ``{ss.pos() for ss in wn.synsets(word)} & {"n", "v"}`` (the
    synsets of a part of speech are those of its morphy forms), without building synsets.
    """
    wn = wordnet()
    return frozenset(p for p in "nv" if wn.morphy(word.lower(), p) is not None)


def _repair(words, tags, ego):
    """Caption-specific corrections of the Brill tagger's frequent errors (documented in pos_tag)."""
    for i, w in enumerate(words):
        if not _function_word(i, w, tags):
            tags[i] = _content_tag(i, words, tags, ego)
    return tags


def _function_word(i, w, tags) -> bool:
    """Tag a form of *be*, *do*/*have*, a pronoun or a function word (in place); False for a content word."""
    if w in _BE:
        if tags[i] == "VERB":
            tags[i] = "AUX"
        return True
    if w in _AUX_CANDIDATES and tags[i] == "VERB":
        follow = next((t for t in tags[i + 1:] if t not in ("ADV", "X")), None)
        if follow == "VERB":
            tags[i] = "AUX"
        return True
    if w in _PRON_WORDS:
        tags[i] = "X"
        return True
    return w in _FUNCTION or w in _PRONOUNS


def _content_tag(i, words, tags, ego) -> str:
    """The tag of content word ``i`` after rules R1-R5 (pos_tag's docstring), the first that applies."""
    at = _Word(words[i], tags[i], words[i - 1] if i else None, tags[i - 1] if i else None,
               words[i + 1] if i + 1 < len(words) else None, i, tags[i - 2] if i >= 2 else None, ego)
    for rule, tag in _RULES:
        if rule(at):
            return tag
    return at.tag


@dataclass(frozen=True)
class _Word:
    """A content word with its neighbours, as the repair rules read it."""

    w: str
    tag: str
    prev_w: str | None
    prev_t: str | None
    nxt: str | None
    i: int
    tag_before_prev: str | None
    ego: bool


def _imperative(a: _Word) -> bool:
    """R1: imperative ("open fridge", "mix the ingredients"): a first word that WordNet allows as a verb is the
    verb in egocentric narrations, or before a determiner."""
    return a.i == 0 and a.tag != "VERB" and (a.ego or a.nxt in _DETERMINERS) and "v" in _wordnet_pos(a.w)


def _after_to_or_coordinated(a: _Word) -> bool:
    """R4: "to cook" is a verb; "singing and dancing": an -ing word coordinated with a verb is one."""
    coordinated = a.w.endswith("ing") and a.prev_w == "and" and a.tag_before_prev == "VERB"
    return a.tag != "VERB" and "v" in _wordnet_pos(a.w) and (a.prev_w == "to" or coordinated)


def _between_subject_and_object(a: _Word) -> bool:
    """R2: "<subject> <word> <determiner/preposition>" -- "a woman slices an onion" -- or a third-person "-s"
    form between a subject noun and an object ("a man slices bread")."""
    if a.tag not in ("NOUN", "ADJ") or not (a.prev_t == "NOUN" or a.prev_w in _PRONOUNS) or a.nxt is None:
        return False
    third_person = a.w.endswith("s") and not a.prev_w.endswith("s") and a.nxt not in _BE
    return "v" in _wordnet_pos(a.w) and (a.nxt in _FUNCTION or third_person)


def _progressive(a: _Word) -> bool:
    """R5: an -ing word right after a form of "be" is the progressive verb ("is cooking food")."""
    return a.tag != "VERB" and a.w.endswith("ing") and a.prev_w in _BE and "v" in _wordnet_pos(a.w)


def _after_function_word(a: _Word) -> bool:
    """R3: after a determiner or a preposition (not "to") a word is not a verb ("watch a play", "turn on tap")."""
    return (a.tag == "VERB" and a.prev_w is not None and a.prev_w in _FUNCTION and a.prev_w != "to"
            and not a.w.endswith("ing") and "n" in _wordnet_pos(a.w))


#: the repair rules in the order they are tried, with the tag each gives
_RULES = ((_imperative, "VERB"), (_after_to_or_coordinated, "VERB"), (_between_subject_and_object, "VERB"),
          (_progressive, "VERB"), (_after_function_word, "NOUN"))


@validate_params(caption=STR, ego=BOOL)
def pos_tag(caption: str, ego: bool = False) -> list:
    """Universal part-of-speech tags ``[(word, tag), ...]`` of a caption's tokens.

    Tags: "VERB", "AUX", "NOUN", "ADJ", "ADV", "X" (anything else). The Brill-style
    Pattern tagger (TextBlob) gives Penn tags, mapped to universal ones (NN/NNS ->
    NOUN, proper nouns excluded as spaCy's PROPN is; VB* -> VERB). Three rules then
    repair its frequent errors on captions, each gated on WordNet knowing the needed
    part of speech: R1 the first word of an imperative (egocentric narration, or
    followed by a determiner) is a verb ("*open* fridge"); R2 a noun/adjective between
    a subject and a determiner/preposition is a verb ("a woman *slices* an onion");
    R3 a verb (not -ing) right after a determiner or preposition is a noun ("watch a
    *play*", "turn on *tap*"); R4 a word after "to", or an -ing word coordinated with
    a verb, is a verb ("how to *cook*", "singing and *dancing*"); R5 an -ing word
    after a form of *be* is a verb ("is *cooking* food"). Forms of *be* are AUX, and *do*/*have* are AUX when a verb
    follows, as spaCy (which Wray et al. used) marks them. ``ego=True`` also tags
    with "I" prepended (dropped again), as Wray's reference code does for
    egocentric narrations, which have no subject.

    Parameters
    ----------
    caption : str
        The caption.
    ego : bool
        Tag as an egocentric narration (see above).

    Returns
    -------
    list of (str, str)

    >>> pos_tag("a man is driving a car")
    [('a', 'X'), ('man', 'NOUN'), ('is', 'AUX'), ('driving', 'VERB'), ('a', 'X'), ('car', 'NOUN')]
    >>> [t for _, t in pos_tag("open fridge", ego=True)]
    ['VERB', 'NOUN']
    """
    return list(_pos_tag_cached(caption, bool(ego)))


@lru_cache(maxsize=1 << 17)
def _pos_tag_cached(caption: str, ego: bool) -> tuple:
    """:func:`pos_tag`, memoised per distinct caption (a chapter tags the same captions many times)."""
    words = list(_tokens(caption))
    if not words:
        return ()
    text = " ".join((["i"] if ego else []) + words)
    # Pattern's tokenizer only splits punctuation, contractions and sentences; on words of
    # letters and digits without an apostrophe it returns the text unchanged, so skip it.
    tagged = _pattern_tag()(text, tokenize=any("'" in w for w in words))
    tags = [_universal(t) for _, t in tagged]
    if ego:
        tags = tags[1:]
    if len(tags) != len(words):  # the tagger re-tokenised (e.g. split "n't"): tag word by word
        tags = [_universal(t[0][1]) if (t := _pattern_tag()(w)) else "X" for w in words]
    return tuple(zip(words, _repair(words, tags, ego)))


@validate_params(caption=STR)
def ego_pos_tag(caption: str) -> list:
    """:func:`pos_tag` with ``ego=True`` (for imperative egocentric narrations, e.g. EPIC-KITCHENS).

    Parameters
    ----------
    caption : str
        The narration.

    Returns
    -------
    list of (str, str)

    Examples
    --------
    >>> ego_pos_tag("open fridge")
    [('open', 'VERB'), ('fridge', 'NOUN')]
    """
    return pos_tag(caption, ego=True)


# --- synsets ----------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _senses(word: str, pos: str):
    """WordNet senses of ``word`` with part of speech ``pos`` and their gloss word sets (cached)."""
    # synsets(word, pos) are, in order, the synsets(word) of that part of speech (for "n"/"v";
    # adjective satellites "s" come from "a"), as nltk.wsd.lesk filters them.
    wn = wordnet()
    synsets = wn.synsets(word, pos) if pos in ("n", "v") else [ss for ss in wn.synsets(word) if str(ss.pos()) == pos]
    return tuple((ss.name(), frozenset(ss.definition().split())) for ss in synsets)


@validate_params(context=TEXTS, word=STR, pos=Options("n", "v", "a", "r", "s"))
def lesk_synset(context: Sequence[str], word: str, pos: str) -> str | None:
    """Name of the Lesk sense of ``word`` in ``context`` (e.g. "drive.v.01"), None if WordNet has none.

    Identical to ``nltk.wsd.lesk(context, word, pos).name()``: the sense whose gloss
    shares most words with the context, ties to the first (most frequent) sense.

    Parameters
    ----------
    context : sequence of str
        The caption's tokens.
    word : str
        The word.
    pos : str
        WordNet's part of speech (``"v"``, ``"n"``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> lesk_synset(["a", "man", "drives", "a", "car"], "drives", "v")
    'drive.v.01'
    """
    senses = _senses(word, pos)
    if not senses:
        return None
    ctx = context if isinstance(context, (set, frozenset)) else set(context)
    best, best_overlap = senses[0][0], -1
    for name, gloss in senses:  # the first sense with the largest overlap, as max() picks
        overlap = len(ctx & gloss)
        if overlap > best_overlap:
            best, best_overlap = name, overlap
    return best


@validate_params(captions=TEXTS, synsets=BOOL, tagger=[Instance(Callable,
                 fix="pass a function caption -> [(word, tag), ...]"), None])
def verb_noun_sets(captions: Sequence[str], synsets: bool = False, tagger=None):
    """Per caption, the set of its verbs and the set of its nouns (surface forms, lower-cased).

    With ``synsets=True`` each word is replaced by its Lesk WordNet synset name (the
    caption's tokens are the context), or kept as the word itself when WordNet has no
    synset for it. Returns ``(verbs, nouns)``, two lists of frozensets. With the
    built-in taggers (:func:`pos_tag`, :func:`ego_pos_tag`) the sets are memoised per
    distinct caption; any other tagger is called for every caption.

    Parameters
    ----------
    captions : sequence of str
        The captions.
    synsets : bool
        Replace words by their Lesk synsets.
    tagger : callable, optional
        ``caption -> [(word, tag), ...]``; default :func:`pos_tag`.

    Returns
    -------
    (list of frozenset, list of frozenset)

    Examples
    --------
    >>> verbs, nouns = verb_noun_sets(["a man is driving a car"])
    >>> sorted(verbs[0]), sorted(nouns[0])
    (['driving'], ['car', 'man'])
    >>> verbs, nouns = verb_noun_sets(["a man is driving a car"], synsets=True)
    >>> sorted(verbs[0]), sorted(nouns[0])
    (['drive.v.01'], ['car.n.01', 'man.n.01'])
    """
    tagger = tagger or pos_tag
    ego = _BUILTIN_TAGGERS.get(tagger)
    verbs, nouns = [], []
    for caption in captions:
        v, n = (_caption_verb_noun(caption, synsets, ego) if ego is not None
                else _verb_noun(tagger(caption), synsets))
        verbs.append(v)
        nouns.append(n)
    return verbs, nouns


def _verb_noun(tagged, synsets):
    context = {w for w, _ in tagged}
    v = [w for w, t in tagged if t == "VERB"]
    n = [w for w, t in tagged if t == "NOUN"]
    if synsets:
        lesk = lesk_synset.__wrapped__  # (unchecked: called per word)
        v = [lesk(context, w, "v") or w for w in v]
        n = [lesk(context, w, "n") or w for w in n]
    return frozenset(v), frozenset(n)


@lru_cache(maxsize=1 << 17)
def _caption_verb_noun(caption: str, synsets: bool, ego: bool):
    if not isinstance(caption, str):
        raise TypeError(f"a caption must be a str, not {type(caption).__name__} ({caption!r})")
    return _verb_noun(_pos_tag_cached(caption, ego), synsets)


_BUILTIN_TAGGERS = {pos_tag: False, ego_pos_tag: True}


# --- METEOR -----------------------------------------------------------------------------------
#
# NLTK's single_meteor_score aligns a hypothesis with a reference in three stages -- exact
# words, then Porter stems, then WordNet synonyms of the hypothesis word -- each one greedy:
# the hypothesis words left unmatched are visited from last to first, and each takes the
# highest-numbered reference position still free whose word is related to it. The score then
# depends only on the number of matches m, the number of chunks, and the two lengths.
#
# meteor_matrix reproduces exactly that, for all pairs at once: the relations are looked up
# once per distinct word (stem, synonym set), each reference is a bit mask of its positions
# per related hypothesis word, and the greedy step "highest free related position" is
# ``highest set bit of (related & free)``, vectorised over every (reference, hypothesis) pair.

_MASK_BITS = 52  # reference positions per mask: an int64 that float64 holds exactly (for frexp)
_PAIRS_PER_BLOCK = 300_000


@lru_cache(maxsize=None)
def _stem(word: str) -> str:
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=None)
def _meteor_synonyms(word: str) -> frozenset:
    """What METEOR's synonym stage accepts for ``word`` (a hypothesis word's stem): the names
    without "_" of the lemmas of all its WordNet synsets, and the word itself."""
    return frozenset(lemma.name() for ss in wordnet().synsets(word) for lemma in ss.lemmas()
                     if "_" not in lemma.name()) | {word}


class _CachedWordNet:
    """The one method METEOR calls on WordNet (``synsets(word)``), memoised (for the fallback path)."""

    class _Bag:
        def __init__(self, names):
            self._lemmas = [_Lemma(n) for n in names]

        def lemmas(self):
            return self._lemmas

    def synsets(self, word):
        names = sorted(_meteor_synonyms(word) - {word})
        return [self._Bag(names)] if names else []


class _Lemma:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class _CachedStemmer:
    def stem(self, word):
        return _stem(word)


def _meteor_value(matches: int, chunks: int, hyp_len: int, ref_len: int, alpha: float, beta: float,
                  gamma: float) -> float:
    """NLTK's score from the alignment counts, written as single_meteor_score writes it (same floats)."""
    try:
        precision = float(matches) / hyp_len
        recall = float(matches) / ref_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def _bit_masks(rows, cols, bits, n_rows, n_cols):
    """``out[r, c] = sum of 2**bit`` over the given triples (distinct bits per cell, so an OR)."""
    out = np.zeros((n_rows, n_cols + 1), dtype=np.int64)  # last column: padding, always 0
    np.add.at(out, (rows, cols), np.left_shift(np.int64(1), bits))
    return out


def _meteor_counts(ref_ids, hyp_ids, word_stem, synonyms):
    """Alignment counts (matches, chunks) of every reference (rows) with every hypothesis.

    ``ref_ids``/``hyp_ids``: lists of int arrays (word ids per caption, each reference at
    most ``_MASK_BITS`` words); ``word_stem``: stem id per word id; ``synonyms``: for each
    stem id of a hypothesis word, the stem ids its synonym stage accepts. (NLTK's stem
    stage hands the *stems* of the words it leaves unmatched to the synonym stage, so
    that stage relates stems: ``stem(ref) in synonyms(stem(hyp))``.)
    """
    import scipy.sparse as sp

    n_ref, n_hyp = len(ref_ids), len(hyp_ids)
    matches = np.zeros((n_ref, n_hyp), dtype=np.int64)
    chunks = np.zeros((n_ref, n_hyp), dtype=np.int64)
    hyp_len = np.array([len(h) for h in hyp_ids], dtype=np.int64)
    if n_ref == 0 or n_hyp == 0 or hyp_len.max(initial=0) == 0:
        return matches, chunks
    # Hypotheses longest first: step i of the greedy pass touches only the first live[i] columns.
    order = np.argsort(-hyp_len, kind="stable")
    width = int(hyp_len[order[0]])
    live = np.array([(hyp_len > i).sum() for i in range(width)])
    # Column keys: hypothesis words (exact and synonym stages) and stems, renumbered densely.
    hyp_vocab = {w: k for k, w in enumerate(dict.fromkeys(int(w) for h in hyp_ids for w in h))}
    hyp_stems = {s: k for k, s in enumerate(dict.fromkeys(int(word_stem[w]) for w in hyp_vocab))}
    n_words, n_stems = len(hyp_vocab), len(hyp_stems)
    word_key = np.full((width, n_hyp), n_words, dtype=np.int64)  # padding -> the zero column
    stem_key = np.full((width, n_hyp), n_stems, dtype=np.int64)
    for col, h in enumerate(order):
        ids = hyp_ids[h]
        word_key[:len(ids), col] = [hyp_vocab[int(w)] for w in ids]
        stem_key[:len(ids), col] = [hyp_stems[int(word_stem[w])] for w in ids]
    # Synonym relation as a sparse (hypothesis stem) x (any stem) 0/1 matrix.
    n_all, n_all_stems = len(word_stem), int(word_stem.max()) + 1
    syn_rows = np.concatenate([np.full(len(synonyms[s]), k, dtype=np.int64) for s, k in hyp_stems.items()])
    syn_cols = np.concatenate([np.asarray(synonyms[s], dtype=np.int64) for s in hyp_stems])
    syn = sp.csr_matrix((np.ones(len(syn_rows), dtype=np.int64), (syn_rows, syn_cols)),
                        shape=(n_stems, n_all_stems))

    word_to_key = np.full(n_all, -1, dtype=np.int64)
    word_to_key[list(hyp_vocab)] = list(hyp_vocab.values())
    stem_to_key = np.full(n_all_stems, -1, dtype=np.int64)
    stem_to_key[list(hyp_stems)] = list(hyp_stems.values())

    block = max(1, min(n_ref, _PAIRS_PER_BLOCK // n_hyp, 2_000_000 // (n_words + 1)))
    for start in range(0, n_ref, block):
        refs = ref_ids[start:start + block]
        n = len(refs)
        lengths = np.array([len(r) for r in refs], dtype=np.int64)
        row = np.repeat(np.arange(n), lengths)
        pos = np.concatenate([np.arange(k, dtype=np.int64) for k in lengths])
        word = np.concatenate(refs).astype(np.int64)
        # Per reference: the mask of its positions related to each hypothesis key.
        wk = word_to_key[word]
        exact = _bit_masks(row[wk >= 0], wk[wk >= 0], pos[wk >= 0], n, n_words)
        sk = stem_to_key[word_stem[word]]
        stem = _bit_masks(row[sk >= 0], sk[sk >= 0], pos[sk >= 0], n, n_stems)
        positions = sp.csr_matrix((np.left_shift(np.int64(1), pos), (word_stem[word], row)),
                                  shape=(n_all_stems, n))
        synonym = np.zeros((n, n_stems + 1), dtype=np.int64)
        synonym[:, :n_stems] = (syn @ positions).toarray().T  # distinct stems hold distinct bits: sum = OR

        free = np.broadcast_to(np.left_shift(np.int64(1), lengths)[:, None] - 1, (n, n_hyp)).copy()
        aligned = np.full((width, n, n_hyp), -1, dtype=np.int8)  # reference position per hypothesis word
        _align_greedy(((exact, word_key), (stem, stem_key), (synonym, stem_key)), live, free, aligned)
        matched = aligned >= 0
        n_matched = matched.sum(axis=0)
        follows = matched[1:] & matched[:-1] & (aligned[1:] == aligned[:-1] + 1)
        matches[start:start + n][:, order] = n_matched
        chunks[start:start + n][:, order] = n_matched - follows.sum(axis=0)
    return matches, chunks


def _align_greedy(stages, live, free, aligned) -> None:
    """:func:`_meteor_counts`' greedy alignment, in place, stage by stage (exact, stem, synonym).

    ``stages``: (table, keys) pairs, ``table[r, key]`` the bit mask of reference ``r``'s positions related
    to a hypothesis key, ``keys[i, col]`` the key of hypothesis word ``i`` in column ``col``; ``live[i]``: the
    columns (longest hypotheses first) that have a word ``i``; ``free``: each pair's unaligned reference
    positions (bits); ``aligned[i, r, col]``: the reference position aligned with word ``i`` (-1: none).
    Words are taken from the last to the first, each to its highest free related position.
    """
    for table, keys in stages:
        for i in range(len(live) - 1, -1, -1):
            m = live[i]
            here = aligned[i, :, :m]
            candidates = table[:, keys[i, :m]] & free[:, :m]
            candidates[here >= 0] = 0
            if not candidates.any():
                continue
            best = np.frexp(candidates)[1] - 1  # highest set bit; -1 where none
            hit = best >= 0
            here[hit] = best[hit]
            free[:, :m] &= ~np.where(hit, np.left_shift(np.int64(1), np.maximum(best, 0)), 0)


def _meteor_distinct(ref_tok, hyp_tok, alpha=0.9, beta=3.0, gamma=0.5):
    """METEOR of every tokenised reference (rows) with every tokenised hypothesis (columns)."""
    out = np.zeros((len(ref_tok), len(hyp_tok)))
    if not ref_tok or not hyp_tok:
        return out
    word_stem, synonyms, ref_ids, hyp_ids = _meteor_ids(ref_tok, hyp_tok)
    short = [i for i, r in enumerate(ref_ids) if len(r) <= _MASK_BITS]
    matches, chunks = _meteor_counts([ref_ids[i] for i in short], hyp_ids, word_stem, synonyms)
    ref_len = np.array([len(ref_ids[i]) for i in short], dtype=np.int64)[:, None]
    hyp_len = np.array([len(h) for h in hyp_ids], dtype=np.int64)[None, :]
    out[short] = _meteor_by_combination(matches, chunks, hyp_len, ref_len, alpha, beta, gamma)
    long_refs = [i for i, r in enumerate(ref_ids) if len(r) > _MASK_BITS]
    if long_refs:  # rare: NLTK itself, with the cached stems and synonyms
        from nltk.translate.meteor_score import single_meteor_score

        wn, stemmer = _CachedWordNet(), _CachedStemmer()
        for i in long_refs:
            out[i] = [single_meteor_score(ref_tok[i], h, stemmer=stemmer, wordnet=wn, alpha=alpha, beta=beta,
                                          gamma=gamma) if h else 0.0 for h in hyp_tok]
    return out


def _meteor_ids(ref_tok, hyp_tok):
    """:func:`_meteor_counts`' inputs: (stem id per word id, synonym stem ids per hypothesis stem id,
    reference word ids, hypothesis word ids), the words numbered in order of first appearance."""
    vocab = {w: k for k, w in enumerate(dict.fromkeys(w for t in (*ref_tok, *hyp_tok) for w in t))}
    stems: dict = {}
    word_stem = np.array([stems.setdefault(_stem(w), len(stems)) for w in vocab], dtype=np.int64)
    hyp_stems = dict.fromkeys(_stem(w) for t in hyp_tok for w in t)
    synonyms = {stems[s]: [stems[x] for x in _meteor_synonyms(s) if x in stems] for s in hyp_stems}
    ref_ids = [np.array([vocab[w] for w in t], dtype=np.int64) for t in ref_tok]
    hyp_ids = [np.array([vocab[w] for w in t], dtype=np.int64) for t in hyp_tok]
    return word_stem, synonyms, ref_ids, hyp_ids


def _meteor_by_combination(matches, chunks, hyp_len, ref_len, alpha, beta, gamma) -> np.ndarray:
    """METEOR of each pair from its (matches, chunks, hypothesis length, reference length).

    The score depends on these only: NLTK's formula is evaluated once per distinct combination, in
    Python floats, so every value is NLTK's to the last bit.
    """
    radix = [_MASK_BITS + 1, _MASK_BITS + 1, int(hyp_len.max(initial=0)) + 1, _MASK_BITS + 1]
    key = ((matches * radix[1] + chunks) * radix[2] + hyp_len) * radix[3] + ref_len
    combos, inverse = np.unique(key, return_inverse=True)
    values = []
    for k in combos.tolist():
        k, r_len = divmod(k, radix[3])
        k, h_len = divmod(k, radix[2])
        m, c = divmod(k, radix[1])
        values.append(_meteor_value(m, c, h_len, r_len, alpha, beta, gamma))
    return np.asarray(values)[inverse.reshape(-1)].reshape(matches.shape)


@validate_params(reference=STR, hypothesis=STR)
def meteor(reference: str, hypothesis: str) -> float:
    """NLTK METEOR of one hypothesis caption against one reference caption (both tokenised).

    Parameters
    ----------
    reference, hypothesis : str
        The captions.

    Returns
    -------
    float

    >>> round(meteor("a man is driving a car", "a man is driving a car"), 4)
    0.9977
    """
    return float(meteor_matrix([reference], [hypothesis])[0, 0])


def _cache_key(refs, hyps):
    import nltk

    payload = json.dumps({"refs": refs, "hyps": hyps, "nltk": nltk.__version__, "v": 1}).encode()
    return hashlib.sha256(payload).hexdigest()[:24]


@validate_params(references=TEXTS, hypotheses=TEXTS, cache_dir=[PATH, None], verbose=BOOL)
def meteor_matrix(references: Sequence[str], hypotheses: Sequence[str], cache_dir=None,
                  verbose: bool = False) -> np.ndarray:
    """METEOR of every hypothesis (columns) against every reference (rows).

    ``M[i, j] = single_meteor_score(tokens(references[i]), tokens(hypotheses[j]))``
    (NLTK defaults alpha = 0.9, beta = 3, gamma = 0.5), the same floats as NLTK's:
    its three greedy alignment stages (exact word, Porter stem, WordNet synonym of the
    hypothesis word; each hypothesis word, last first, takes the highest free related
    reference position) are replayed as bit-mask operations over all distinct pairs at
    once, with stems and synonym sets looked up once per distinct word, and NLTK's
    formula is evaluated once per distinct (matches, chunks, lengths). References
    longer than 52 words go through NLTK itself. Asymmetric: recall is measured on the
    reference. Hundreds of times faster than NLTK pair by pair (figures: benchmarks/bench_similarity.py).
    With ``cache_dir`` the matrix is stored as ``meteor-<hash>.npy`` keyed by both
    caption lists and the NLTK version, and re-read on the next call.

    Parameters
    ----------
    references, hypotheses : sequence of str
        The captions.
    cache_dir : path-like, optional
        Where the matrix is cached.
    verbose : bool
        Report progress.

    Returns
    -------
    ndarray (len(references), len(hypotheses))

    >>> meteor_matrix(["a man drives a car", "a dog"], ["the man is driving an automobile", "dogs"]).round(4)
    array([[0.1961, 0.    ],
           [0.    , 0.2632]])
    """
    references, hypotheses = list(references), list(hypotheses)
    path = None
    if cache_dir is not None:
        path = Path(cache_dir) / f"meteor-{_cache_key(references, hypotheses)}.npy"
        if path.is_file():
            return np.load(path)
    refs = list(dict.fromkeys(references))
    hyps = list(dict.fromkeys(hypotheses))
    start = time.perf_counter()
    tokens = tokenize.__wrapped__  # (unchecked: called per caption)
    distinct = _meteor_distinct([tokens(r) for r in refs], [tokens(h) for h in hyps])
    if verbose:
        print(f"METEOR: {len(refs)} x {len(hyps)} distinct pairs in {time.perf_counter() - start:.1f} s")
    ri = {r: i for i, r in enumerate(refs)}
    hi = {h: j for j, h in enumerate(hyps)}
    out = distinct[np.array([ri[r] for r in references], dtype=int)[:, None],
                   np.array([hi[h] for h in hypotheses], dtype=int)[None, :]]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, out)
    return out
