"""What an audit's output means: the stop (``early_stop``, ``stop_reason``), the event in exact words,
the draw counts explained, the JSON (domain, every candidate with its score, the statistic, the event
in words and in machine form), and console output that prints mechanism and event text verbatim.

The planted mechanisms below are the issue's two examples of an early stop that understates a broken
mechanism: a clipped sum whose clip bound is twice what its noise is calibrated for, and a Gumbel-max
exponential mechanism whose noise scale is half what ε needs.  Every test is seeded.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from rich.console import Console

from dpverify.audit import audit
from dpverify.audit.events import Binner, Event, make_event
from dpverify.audit.render import audit_json, draws_text, print_audit, print_zcdp, zcdp_json
from dpverify.audit.words import event_form, number_text, statistic_subject, values_words
from dpverify.mechanisms.relations import Pairs


def _two_sided_geometric(rng, n, epsilon):
    """Integer noise with P(k) ∝ e^{−ε|k|} (the discrete Laplace): integer outputs, so no floating-point
    leak confounds the planted bugs."""
    p = -np.expm1(-epsilon)
    return rng.geometric(p, n) - rng.geometric(p, n)


class ClippedSumBug:
    """Σ clip(x_i, 0, 2) + discrete Laplace(ε) over integer records: the noise is calibrated for records
    clipped to [0, 1], so replacing one record moves the sum by up to 2 and the true ε is 2ε (attained
    by the first pair)."""

    def __init__(self, epsilon: float = 1.0):
        self.epsilon = epsilon
        z, one, ones = np.zeros(5, int), np.eye(5, dtype=int)[0], np.ones(5, int)
        self.relation = Pairs(((z, 2 * one), (z, one), (ones, ones - one), (z, 3 * one), (2 * ones, 2 * ones - one)),
                              description="replace one integer record")

    def exact_epsilon(self, d, d_prime) -> float:
        """The pair's ε: the discrete Laplace shifted by the clipped sums' difference."""
        shift = abs(np.clip(d, 0, 2).sum() - np.clip(d_prime, 0, 2).sum())
        return float(shift * self.epsilon)

    def sample(self, data, rng, n):
        return int(np.clip(np.asarray(data), 0, 2).sum()) + _two_sided_geometric(rng, n, self.epsilon)

    __call__ = sample


class GumbelMaxBug:
    """argmax_i (u_i + Gumbel(1/ε)): the exponential mechanism with utilities of sensitivity 1 needs the
    scale 2/ε; at 1/ε its ε over all ℓ∞-neighbours is 2ε (a supremum; each pair's ε is its exact
    log-ratio of softmax probabilities, :meth:`exact_epsilon`)."""

    def __init__(self, epsilon: float = 1.0):
        self.epsilon = epsilon
        u = np.ones(4)
        e0 = np.eye(4)[0]
        self.relation = Pairs(((u, 2 * u - 2 * e0), (np.zeros(4), e0), (np.zeros(4), u), (e0, u - e0)),
                              description="utilities within 1 of each other (linf)")

    def exact_epsilon(self, d, d_prime) -> float:
        p, q = (np.exp(self.epsilon * np.asarray(x, float)) for x in (d, d_prime))
        p, q = p / p.sum(), q / q.sum()
        return float(np.max(np.abs(np.log(p / q))))

    def sample(self, data, rng, n):
        u = np.asarray(data, float)
        return np.argmax(u + rng.gumbel(0.0, 1.0 / self.epsilon, (n, u.size)), axis=1)

    __call__ = sample


def _geo(d, rng, n):
    """ε = 1 on integer inputs one apart: the discrete Laplace at ε = 1 (exactly ε-DP, no float leak)."""
    return int(np.asarray(d).reshape(-1)[0]) + _two_sided_geometric(rng, n, 1.0)


# ------------------------------------------------------------------ reading the words back
_RUN = re.compile(r"^(?:an|any) (?:(even|odd) )?integer from (-?\d+) to (-?\d+)(?: in steps of (\d+))?$")


def _members(words: str) -> set[int]:
    """The integers a values phrase names (the grammar of :func:`values_words`), read independently."""
    parts = re.split(r", or |, | or | nor ", words)
    out: set[int] = set()
    for p in parts:
        m = _RUN.match(p.strip())
        if m:
            kind, a, b, step = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
            out |= set(range(a, b + 1, int(step) if step else (2 if kind else 1)))
        else:
            out.add(int(p))
    return out


def _read_values(phrase: str) -> tuple[bool, set[int]]:
    """(negated, members) of "is ..." words about T."""
    for head, neg in (("none of ", True), ("neither ", True), ("not ", True)):
        if phrase.startswith(head):
            return neg, _members(phrase[len(head):])
    return False, _members(phrase)


def test_discrete_event_words_name_exactly_the_members():
    """Random unions of an integer statistic's bins (seeded): the words, read back by an independent
    parser, name exactly the values the event contains — including values never seen in selection."""
    g = np.random.default_rng(0)
    for trial in range(200):
        seen = np.unique(g.choice(np.arange(-20, 21), size=g.integers(2, 30), replace=False))
        b = Binner(seen.astype(np.int64))
        mask = g.random(b.nbins) < g.uniform(0.1, 0.9)
        if mask.all() or not mask.any():
            continue
        ev = make_event("bins", mask, b)
        words = ev.describe("T")
        assert words.startswith("T is ") and "…" not in words and "..." not in words, words
        neg, members = _read_values(words[len("T is "):])
        grid = np.arange(-25, 26)
        said = np.array([(v not in members) if neg else (v in members) for v in grid])
        assert np.array_equal(said, ev.contains(grid)), (trial, words)


def test_discrete_words_of_a_known_set():
    """The issue's "T ∈ {−8, −6, …, 11}": the even integers from −8 to 10 and 11, said exactly."""
    vals = np.arange(-8, 12)
    lo, hi = -8, 10
    b = Binner(vals.astype(np.int64))
    mask = np.r_[(vals % 2 == 0) | (vals == 11), False]
    assert make_event("bins", mask, b).describe("the released value") == \
        f"the released value is an even integer from {lo} to {hi}, or {vals[-1]}"
    few = [int(v) for v in vals[:3]]
    assert values_words(few) == f"an integer from {few[0]} to {few[-1]}"
    assert values_words(few[:2]) == f"{few[0]} or {few[1]}"


def test_continuous_event_words_are_exact_intervals():
    """Unions of a continuous statistic's bins: the numbers in the words read back to the exact edges,
    and the intervals they state agree with ``contains`` on every edge and between edges."""
    g = np.random.default_rng(1)
    b = Binner(g.normal(size=400))
    for trial in range(50):
        mask = g.random(b.nbins) < 0.02
        mask[g.integers(b.nbins)] = True
        if mask.all():
            continue
        ev = make_event("bins", mask, b)
        form = event_form(ev)
        if form["form"] != "intervals" or len(form["intervals"]) > 16:
            continue
        words = ev.describe("T")
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", words)]
        flat = [x for iv in form["intervals"] for x in iv if x is not None]
        assert nums == flat, words
        pts = np.sort(np.r_[b.edges, (b.edges[:-1] + b.edges[1:]) / 2, b.edges[0] - 1, b.edges[-1] + 1])
        said = np.zeros(len(pts), bool)
        for lo, hi in form["intervals"]:
            said |= (pts > (-np.inf if lo is None else lo)) & (pts <= (np.inf if hi is None else hi))
        assert np.array_equal(said, ev.contains(pts)), words


def test_threshold_words_use_the_exact_threshold():
    b = Binner(np.random.default_rng(2).normal(size=1000))
    j = 300
    le = make_event("le", np.arange(b.nbins) <= j, b)
    gt = make_event("gt", np.arange(b.nbins) > j, b)
    t = float(b.edges[j])
    assert le.describe("the released value") == f"the released value is at most {number_text(t)}"
    assert gt.describe("the classifier's score") == f"the classifier's score is above {number_text(t)}"
    assert float(number_text(t)) == t == le.to_json()["threshold"]
    full = Event("bins", None, False, b.edges, np.ones(b.nbins, bool), "every output")
    assert full.to_json()["form"] == "everything" and full.describe().startswith("any output")


def test_statistic_subjects():
    from dpverify.audit.events import PatternCode

    code = PatternCode(-1, 2)
    assert f"minus {code.low} read as base-{code.high - code.low + 1}" in statistic_subject("pattern", code)
    assert statistic_subject("coordinate 3, flags last").startswith("coordinate 3 of the released vector")
    assert statistic_subject("my_stat") == "the statistic my_stat of the output"


# ------------------------------------------------------------------ the stop
def test_a_quick_refutation_is_an_early_stop_and_the_full_audit_is_not():
    """The same audit of the clipping bug: the default stops at the quick check (1 % of the budget) and
    says so; ``stop_early=False`` spends the whole budget on one final test, with no quick check."""
    m = ClippedSumBug(1.0)
    kw = dict(epsilon=1.0, samples=100_000, rng=0)
    quick = audit(m, **kw)
    assert quick.verdict().value == "refuted" and quick.early_stop
    assert quick.stop_reason == "refuted at the quick check (1,000 draws per input, 1 % of the budget)"
    assert quick.stages[-1].kind == "quick check" and quick.samples_used < quick.samples
    full = audit(m, stop_early=False, **kw)
    assert not full.early_stop and full.stop_reason == "the whole budget spent on one final test (no early stop)"
    assert full.samples_used == full.samples and all(s.kind.startswith("stage 1") for s in full.stages)
    assert full.epsilon > quick.epsilon  # seeded
    assert m.exact_epsilon(*full.pair) == pytest.approx(2.0)


def test_a_refutation_at_a_stage_is_an_early_stop():
    """One pair, a given statistic: no screening, no quick check; the staged final audit stops at the
    first refuting stage of several, and says which."""
    half = lambda d, rng, n: rng.laplace(float(d), 0.5, n)  # noqa: E731  (true ε 2 against a claim of 1)
    r = audit(half, epsilon=1.0, pairs=[(0.0, 1.0)], samples=200_000, rng=0, statistic=np.asarray)
    m = re.fullmatch(r"refuted at stage (\d+) of (\d+) of the final audit \(its stages so far: ([\d,]+) draws per "
                     r"input, .* % of the budget\)", r.stop_reason)
    assert m and int(m.group(1)) < int(m.group(2)) and r.early_stop, r.stop_reason
    assert int(m.group(3).replace(",", "")) == sum(s.n for s in r.stages if "safe" not in s.kind)


def test_an_inconclusive_audit_spends_the_budget():
    r = audit(_geo, epsilon=1.0, pairs=[(0, 1), (1, 2)], samples=50_000, rng=0)
    assert r.verdict().value == "inconclusive" and not r.early_stop
    assert r.stop_reason.startswith("the whole budget spent in ")


# ------------------------------------------------------------------ JSON
def test_json_carries_candidates_statistic_stop_and_event_and_round_trips():
    m = GumbelMaxBug(1.0)
    r = audit(m, epsilon=1.0, samples=50_000, rng=3)
    d = audit_json(r, mechanism="GumbelMaxBug", params={"epsilon": 1.0})
    assert json.loads(json.dumps(d)) == d
    pairs = m.relation.candidates()
    assert [(c["d"], c["d_prime"]) for c in d["candidates"]] == [(list(a), list(b)) for a, b in pairs]
    last = {p: (name, score) for _, p, name, score in r.screened}
    for c in d["candidates"]:
        name, score = last[c["index"]]
        assert c["statistic"] == name and c["score"] == (score if score > -1e8 else None)
    assert d["statistic"] == r.statistic and d["statistic_text"] == statistic_subject(r.statistic)
    assert (d["stop_reason"], d["early_stop"], d["event_text"]) == (r.stop_reason, r.early_stop, r.event_text)
    assert d["domain"] is None and d["candidate_pairs"] == len(pairs)
    # the machine form of the best test's events gives back its counts' membership
    ev = r.best_stage.events[0]
    outs = np.arange(4)
    form = d["events"][0]
    said = np.isin(outs, form["values"]) if form["form"] == "one_of" else ~np.isin(outs, form["values"])
    assert np.array_equal(said, ev.contains(outs))


def test_the_plan_domain_reaches_the_report(monkeypatch):
    """The domain the plan states (``plan.domain``) is in the report and its JSON."""
    import dpverify.audit.api as api

    real = api.make_plan

    class WithDomain:
        def __init__(self, plan):
            self._plan, self.domain = plan, "records in [0, 1], 5 of them"

        def __getattr__(self, name):
            return getattr(self._plan, name)

    monkeypatch.setattr(api, "make_plan", lambda *a, **k: WithDomain(real(*a, **k)))
    r = audit(_geo, epsilon=1.0, pairs=[(0, 1)], samples=10_000, rng=0)
    assert r.domain == "records in [0, 1], 5 of them" == r.to_json()["domain"]


# ------------------------------------------------------------------ console
def _printed(r, **kw) -> str:
    c = Console(file=io.StringIO(), width=400, record=True)
    print_audit(c, r, claimed=r.claimed, verdict=r.verdict().value, **kw)
    return c.export_text()


def test_console_prints_names_and_events_verbatim_and_says_what_it_means():
    name = "mod:mech[red] [/] [bold]x[/bold]"
    r = audit(_geo, epsilon=1.0, pairs=[([0], [1])], samples=20_000, rng=0)
    out = _printed(r, mechanism=name)
    assert f"audit of {name} " in out
    assert r.event_text in out and "[0] vs [1]" in out
    assert "no violation found at this budget" in out and "this does not certify DP" in out
    assert "early stop" not in out
    broken = audit(ClippedSumBug(1.0), epsilon=1.0, samples=100_000, rng=0)
    out = _printed(broken, mechanism=name)
    assert "this bound comes from an early stop" in out and "--full" in out and "does not certify" not in out


def test_draw_counts_are_explained():
    """A pooled count runs over both inputs' draws, so it can exceed the per-input budget; the words
    say so, and say when the draw counts are Poisson."""
    r = audit(_geo, epsilon=1.0, pairs=[(0, 1)], samples=20_000, rng=0)
    text = draws_text(r)
    assert text.startswith(f"P: {r.count_p:,} of {r.trials:,} draws, Q: {r.count_q:,} of {r.trials_q:,} draws")
    assert ("both orders pooled" in text) == (r.direction == "both")
    assert ("Poisson" in text) == (r.test == "poisson")
    if r.direction == "both" and r.test == "binomial":
        assert r.trials == 2 * r.best_stage.n and f"{r.best_stage.n:,} draws at each input" in text


def test_zcdp_rendering_escapes_and_serialises():
    from dpverify.audit.curves import CurveAudit
    from dpverify.audit.renyi import ZCDPAudit

    res = ZCDPAudit(0.5, 0.7, CurveAudit((0.0, 1.0), (0.3, 0.01), (0.2, 0.05), 0.99, 100, 100))
    c = Console(file=io.StringIO(), width=300, record=True)
    print_zcdp(c, res, pair=([0], [1]), mechanism="z[red]")
    out = c.export_text()
    assert "zCDP audit of z[red]" in out and "[0] vs [1]" in out and "refuted" in out
    d = zcdp_json(res, pair=(np.zeros(1), np.ones(1)), samples=200, seconds=0.5, mechanism="z")
    assert json.loads(json.dumps(d)) == d and d["refuted_at"] == [0.0] and d["pair"] == [[0.0], [1.0]]


# ------------------------------------------------------------------ how much an early stop understates
@pytest.mark.parametrize("mech", [ClippedSumBug(1.0), GumbelMaxBug(1.0)], ids=["clipping", "gumbel"])
def test_the_full_audit_gives_the_larger_bound(mech):
    """Seeds 0–4 at 10^5 draws per input (0.4 s): the full audit's mean bound exceeds the default's (an
    early stop at the quick check), and stays below the pairs' exact ε."""
    default, full = [], []
    for s in range(5):
        default.append(audit(mech, epsilon=1.0, samples=100_000, rng=s))
        full.append(audit(mech, epsilon=1.0, samples=100_000, rng=s, stop_early=False))
    true = max(mech.exact_epsilon(a, b) for a, b in mech.relation.candidates())
    assert np.mean([r.epsilon for r in default]) < np.mean([r.epsilon for r in full]) < true
    assert all(r.early_stop for r in default) and not any(r.early_stop for r in full)
