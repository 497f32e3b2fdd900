"""The selftest room: the library's self-tests, claims about dpverify itself (no paper).

The auditor's controls (correct mechanisms it must never refute), its planted bugs (broken
mechanisms it must refute), the floating-point attacks on Laplace releases, the auditor's validity
and power, and the exact LDP checker's self-check.  The claims keep the ids ``audit.*`` they had
when they lived inside the auditor, so the room registers that namespace; the auditor's own
proofs stay with the auditor (``audit/<file>.md``).
"""

from dpverify.rooms import Room

ROOM = Room(
    name="selftest",
    summary="the library's self-tests: the auditor's controls and planted bugs, floating-point attacks, "
            "the auditor's validity and power, the exact LDP checker",
    namespaces=("audit",),
    glossary=(("control", "a correct mechanism the auditor must never refute: its claim audit.control.* can only "
                          "come out inconclusive"),
              ("planted bug", "a broken mechanism the auditor must refute (claims audit.bug.*)")),
)
