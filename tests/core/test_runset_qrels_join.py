"""RunSet's join with the qrels looks the judged docnos up in the vocabulary's kept hash table (issue 38): the
same codes as looking the vocabulary up in the judged docnos, call after call, and for a vocabulary with a
repeated docno."""
import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet

DOCS = [f"d{i}" for i in range(12)]


def _forward_join(runs, qrels):
    """The join as it was: the vocabulary looked up in a hash table of the judged docnos."""
    frame = qrels.frame
    row_doc, judged_docs = pd.factorize(frame["docno"])
    row_topic = pd.Index(runs.topics).get_indexer(frame["query"])
    return row_topic, row_doc, len(judged_docs), pd.Index(judged_docs).get_indexer(runs.docnos)


def _same(a, b):
    assert a[2] == b[2]
    for x, y in zip(a[:2] + a[3:], b[:2] + b[3:]):
        assert np.array_equal(x, y) and np.asarray(x).dtype == np.asarray(y).dtype


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), st.sampled_from(DOCS)), min_size=1, max_size=20,
            unique=True),
       st.lists(st.tuples(st.sampled_from(["1", "2", "4"]), st.sampled_from(DOCS), st.integers(0, 2)), min_size=1,
                max_size=20, unique_by=lambda r: r[:2]),
       st.booleans())
def test_join_is_the_forward_join(retrieved, judged, as_index):
    run = pd.DataFrame({"query": [q for q, _ in retrieved], "docno": [d for _, d in retrieved],
                        "score": np.arange(len(retrieved), 0, -1, dtype=float)})
    runs = RunSet.from_frames({"A": run})
    if not as_index:  # a vocabulary given as a plain array
        runs = RunSet(runs.names, runs.topics, np.asarray(runs.docnos, dtype=object), runs.docs)
    qrels = Qrels(pd.DataFrame({"query": [q for q, _, _ in judged], "docno": [d for _, d, _ in judged],
                                "relevance": [g for _, _, g in judged]}))
    expected = _forward_join(runs, qrels)
    _same(runs._qrels_join(qrels), expected)
    _same(runs._qrels_join(qrels), expected)  # again, through the kept hash table
    _same(runs.select(["A"])._qrels_join(qrels), expected)  # a selection shares the vocabulary


def test_vocabulary_with_a_repeated_docno():
    runs = RunSet(["A"], np.array(["1"]), np.array(["d1", "d2", "d1"], dtype=object), np.array([[[0, 1, 2]]]))
    qrels = Qrels(pd.DataFrame({"query": ["1", "1"], "docno": ["d1", "d3"], "relevance": [1, 0]}))
    _same(runs._qrels_join(qrels), _forward_join(runs, qrels))
    assert runs._qrels_join(qrels)[3].tolist() == [0, -1, 0]
