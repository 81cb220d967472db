"""A fixed sample of tools/fuzz_frontend.py's random PyTorch programs: each
runs through the fused loop kernels and the emulated GPU kernels (also in
reverse order, bounds checked) and matches the reference. The same seeds
give the same programs on every machine; the full campaign is the script
(docs/reliability.md)."""
import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import fuzz_frontend  # noqa: E402

SAMPLE = [(seed, i, expr) for seed in (11, 12)
          for i, expr in enumerate(fuzz_frontend.programs(seed, 30))]


@pytest.mark.parametrize("seed, index, expr", SAMPLE,
                         ids=["%d-%d" % (s, i) for s, i, _ in SAMPLE])
def test_random_program(seed, index, expr):
    result = fuzz_frontend.check_program(expr, values_seed=index)
    assert result is None or result.startswith("unsupported"), \
        "%s\n  strata run -c %r" % (result, expr)


def test_the_generator_is_deterministic():
    assert fuzz_frontend.programs(11, 30) == [e for s, _, e in SAMPLE if s == 11]
