"""``dpverify verify --json-envelope``: the versioned envelope, validated against the JSON Schema
the package ships (with ``jsonschema`` when it is installed, else a small validator of the subset
the schema uses).  Real output of a real run is validated, and each check is shown to flip."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import pytest

from dpverify.claims.envelope import SCHEMA_ID, SCHEMA_NAME, envelope, schema

_CLAIMS = textwrap.dedent('''
    from dpverify.claims import claim, Outcome, Verdict, Source

    @claim("zzenv.holds", source=Source("My paper", "§1", "(2)"), statement="1 + 1 = 2",
           method="exact computation")
    def _h(thorough=False):
        return Outcome(Verdict.HOLDS, {"sum": 2, "bound": float("inf")})

    @claim("zzenv.wrong", source=Source("My paper", "§2"), statement="2 + 2 = 5",
           method="exact computation", expected="holds")
    def _w(thorough=False):
        return Outcome(Verdict.REFUTED, {"sum": 4})
''')


def _validate(instance, sch):
    """Validate with jsonschema when installed, else with :func:`_mini` (the subset the schema uses)."""
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema is a test dependency where available
        _mini(instance, sch, sch, "$")
        return
    jsonschema.Draft202012Validator.check_schema(sch)
    jsonschema.Draft202012Validator(sch).validate(instance)


class _Invalid(ValueError):
    pass


def _mini(x, s, root, where):
    """A validator of the keywords the shipped schema uses: type, const, enum, required, properties,
    additionalProperties, items, minimum, minLength, pattern, $ref (local)."""
    import re

    if "$ref" in s:
        node = root
        for part in s["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return _mini(x, node, root, where)
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        ok = any((t == "integer" and isinstance(x, int) and not isinstance(x, bool))
                 or (t == "number" and isinstance(x, (int, float)) and not isinstance(x, bool))
                 or (t in kinds and isinstance(x, kinds[t])) for t in types)
        if not ok:
            raise _Invalid(f"{where}: {x!r} is not of type {types}")
    if "const" in s and x != s["const"]:
        raise _Invalid(f"{where}: {x!r} != {s['const']!r}")
    if "enum" in s and x not in s["enum"]:
        raise _Invalid(f"{where}: {x!r} not in {s['enum']}")
    if "minimum" in s and x < s["minimum"]:
        raise _Invalid(f"{where}: {x!r} < {s['minimum']}")
    if "minLength" in s and len(x) < s["minLength"]:
        raise _Invalid(f"{where}: too short")
    if "pattern" in s and not re.search(s["pattern"], x):
        raise _Invalid(f"{where}: {x!r} does not match {s['pattern']}")
    if isinstance(x, dict):
        for k in s.get("required", []):
            if k not in x:
                raise _Invalid(f"{where}: {k!r} is required")
        props = s.get("properties", {})
        for k, v in x.items():
            if k in props:
                _mini(v, props[k], root, f"{where}.{k}")
            elif s.get("additionalProperties") is False:
                raise _Invalid(f"{where}: unexpected {k!r}")
    if isinstance(x, list) and "items" in s:
        for i, v in enumerate(x):
            _mini(v, s["items"], root, f"{where}[{i}]")


@pytest.fixture(scope="module")
def real_output(tmp_path_factory):
    d = tmp_path_factory.mktemp("env")
    (d / "my_claims.py").write_text(_CLAIMS, encoding="utf-8")
    run = lambda *flags: subprocess.run([sys.executable, "-m", "dpverify", "verify", "my_claims.py", *flags],
                                        cwd=d, capture_output=True, text=True, timeout=300)
    return run("--json-envelope"), run("--json")


def test_real_output_validates_against_the_shipped_schema(real_output):
    env_run, _ = real_output
    assert env_run.returncode == 1, env_run.stderr  # zzenv.wrong differs from its expected verdict
    doc = json.loads(env_run.stdout)
    sch = schema()
    assert sch["$id"] == SCHEMA_ID and doc["schema"] == SCHEMA_NAME
    _validate(doc, sch)
    _mini(doc, sch, sch, "$")  # the fallback validator agrees
    s = doc["summary"]
    assert s["total"] == 2 and s["counts"]["holds"] == 1 and s["counts"]["refuted"] == 1
    assert s["as_expected"] is False and s["differ_from_expected"] == ["zzenv.wrong"]
    assert [r["id"] for r in doc["results"]] == ["zzenv.holds", "zzenv.wrong"]
    import dpverify

    assert doc["dpverify_version"] == dpverify.__version__


def test_default_json_output_is_unchanged_a_bare_list(real_output):
    env_run, plain_run = real_output
    plain = json.loads(plain_run.stdout)
    assert isinstance(plain, list)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in plain] == \
           [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(env_run.stdout)["results"]]


@pytest.mark.parametrize("damage", [
    lambda d: d.pop("summary"),
    lambda d: d.__setitem__("schema", "dpverify-verify/2"),
    lambda d: d["summary"]["counts"].__setitem__("holds", -1),
    lambda d: d["results"][0].__setitem__("verdict", "fine"),
    lambda d: d["results"][0].pop("evidence"),
    lambda d: d.__setitem__("extra", 1),
    lambda d: d.__setitem__("created_utc", "yesterday"),
])
def test_the_schema_rejects_damaged_envelopes(real_output, damage):
    doc = json.loads(real_output[0].stdout)
    bad = copy.deepcopy(doc)
    damage(bad)
    sch = schema()
    with pytest.raises(Exception):
        _validate(bad, sch)
    with pytest.raises(_Invalid):
        _mini(bad, sch, sch, "$")


def test_envelope_checks_its_input():
    with pytest.raises(TypeError, match="results"):
        envelope("not a list", command="c", seconds=0)
    with pytest.raises(ValueError, match=r"results\[0\]"):
        envelope([{"id": "a"}], command="c", seconds=0)
    with pytest.raises(ValueError, match="seconds"):
        envelope([], command="c", seconds=-1)
    from datetime import datetime

    with pytest.raises(ValueError, match="created"):
        envelope([], command="c", seconds=0, created=datetime(2026, 1, 1))
    r = {"id": "a", "verdict": "holds", "expected": "holds"}
    before = copy.deepcopy(r)
    envelope([r], command="c", seconds=0)
    assert r == before  # input not mutated
