"""Expected reciprocal rank: ir_measures' ``ERR@K`` (Chapelle et al. 2009), as NTCIR/TREC's gdeval computes it."""
import numpy as np

from fireeval.core.measures.base import Family, Param

#: gdeval's largest grade (``$MAX_JUDGMENT``): the probability of a grade g is (2^g - 1) / 2^4.
MAX_GRADE = 4


def expected_reciprocal_rank(ctx, k):
    """ERR@K: the expected reciprocal rank at which a user stops, stopping at rank j with
    probability R_j = (2^{g_j} - 1) / 2^4 (gdeval's cascade; unjudged and negative grades count 0).

    .. math:: ERR@K = \\sum_{j \\le K} \\frac{R_j}{j} \\prod_{i < j} (1 - R_i)

    Grades above 4 are refused, as gdeval refuses them.

    >>> from fireeval.core.measures import score
    >>> score("ERR@2", [[4, 1]]).tolist()   # 15/16 + (1/16) * (1/16) / 2
    [0.939453125]
    """
    top = np.nan_to_num(ctx.grades[..., :k], nan=0.0)
    if (top > MAX_GRADE).any():
        raise ValueError(f"ERR@{k}: a grade of {top.max():g} is above gdeval's largest, {MAX_GRADE}. Fix: map the "
                         f"grades into 0..{MAX_GRADE} (ERR's stopping probability is (2^g - 1) / 2^{MAX_GRADE})")
    stop = (2.0 ** np.maximum(top, 0.0) - 1.0) / 2.0 ** MAX_GRADE
    reach = np.cumprod(np.concatenate([np.ones(stop.shape[:-1] + (1,)), 1.0 - stop[..., :-1]], axis=-1), axis=-1)
    return (stop * reach / np.arange(1, stop.shape[-1] + 1)).sum(axis=-1)


FAMILIES = (
    Family("ERR", "err", expected_reciprocal_rank, ir_names=("ERR",), param=Param("K", int, (10,), doc="cut-off"),
           trec_forms=False, gains_based=False),
)
