"""Mutant killer for mutmut: exit 1 when a claim with one of the given id prefixes misses its expected verdict.

Mutation score of a room's core module against its claims (run from a copy of the source tree, since
mutmut 2 edits files in place; ``pip install dpverify[mutation]``)::

    cp -r <source tree> <copy> && cd <copy> && export PYTHONPATH=$PWD
    nice -n 10 python3 -m mutmut run --paths-to-mutate dpverify/primitives/additive.py \\
        --runner "python3 benchmarks/mutation_claims.py primitives." --tests-dir tests --no-progress
    python3 -m mutmut results

A mutant is killed when some claim's verdict changes (or its check raises); a survivor is a change of
the code that no claim of those prefixes notices.
"""

from __future__ import annotations

import sys


def main(prefixes: list[str]) -> int:
    from dpverify.claims import all_claims

    for pre in prefixes:
        for c in all_claims(pre):
            try:
                v = c.check(thorough=False).verdict
            except Exception as e:  # a crash kills the mutant too
                print(f"{c.id}: check raised {type(e).__name__}")
                return 1
            if v != c.expected:
                print(f"{c.id}: {v.value}, expected {c.expected.value}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
