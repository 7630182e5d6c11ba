"""τ between measures over bootstrapped queries: means equal up to rounding tie (fireeval.vmr.tau_matrices, issue 38).

With two BLAS threads the matrix product adds two systems' mathematically equal resampled means in different
orders; compared exactly, one came out above the other, a τ replicate moved by a whole step, and BCa's z0,
interval ends and a sensitivity label of axiou_measures followed the machine's thread count."""
import numpy as np
from scipy.stats import kendalltau

from fireeval.stats.resampling import bootstrap_indices
from fireeval.vmr.tau_matrices import bootstrap_tau_matrix, jackknife_tau_matrix, leave_one_system_out_tau


def _with_noisy_twin(seed: int) -> np.ndarray:
    """(2 measures, 5 systems, 30 queries); system 4 is system 0 with a few ulps of noise in measure 0 and
    equal in measure 1 to system 1: its means equal theirs up to rounding."""
    rng = np.random.default_rng(seed)
    pq = rng.random((2, 5, 30))
    pq[0, 4] = pq[0, 0] * (1 + rng.integers(-3, 4, 30) * np.finfo(float).eps)
    pq[1, 4] = pq[1, 1]
    return pq


def _tau(a, b) -> float:
    # the reference: means rounded far above their float noise, then scipy's τ-b with exact ties
    return kendalltau(np.round(a, 12), np.round(b, 12)).statistic


def test_bootstrap_replicates_tie_means_equal_up_to_rounding():
    for seed in range(5):
        pq = _with_noisy_twin(seed)
        point, samples = bootstrap_tau_matrix(pq, n_boot=50, seed=seed)
        idx = bootstrap_indices(30, 30, 50, seed)  # bootstrap_tau_matrix's draw
        means = pq[..., idx].mean(-1)  # (M, S, B), summed in another order than the matrix product
        assert np.allclose(samples[:, 0, 1], [_tau(means[0, :, r], means[1, :, r]) for r in range(50)], rtol=0,
                           atol=1e-12)
        assert point[0, 1] == _tau(pq[0].mean(-1), pq[1].mean(-1))
        jack = jackknife_tau_matrix(pq)[:, 0, 1]
        loo = [(pq.sum(-1) - pq[..., q]) / 29 for q in range(30)]
        assert np.allclose(jack, [_tau(m[0], m[1]) for m in loo], rtol=0, atol=1e-12)
        loso = leave_one_system_out_tau(pq)[:, 0, 1]
        keep = [np.delete(pq.mean(-1), s, axis=1) for s in range(5)]
        assert np.allclose(loso, [_tau(k[0], k[1]) for k in keep], rtol=0, atol=1e-12)

