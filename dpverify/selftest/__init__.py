"""The selftest room: claims about dpverify itself (no paper), ids ``audit.*``.

- ``claims/`` — the auditor's controls and planted bugs, its validity and power, the
  floating-point attacks, the exact LDP checker's self-check;
- :mod:`dpverify.selftest.audits` — what those claims share (sources, inputs, one seeded audit call).
- :mod:`dpverify.selftest.rare_event` — a mechanism whose only informative output is rare, on which
  ``audit()``'s level is checked sharply (``audit.api.*``).

The control mechanisms' code is the auditor's (:mod:`dpverify.audit.controls`); the selftest
room declares them as mechanism families in ``mechanisms.py``; the auditor's proofs stay in
``dpverify/audit/proofs``.

Example
-------
>>> from dpverify.rooms import room_of
>>> room_of("audit.control.laplace").name
'selftest'
"""
