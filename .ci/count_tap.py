#!/usr/bin/env python3
"""Count Criterion test cases in a meson testlog.json: prints "passed failed"
(skipped cases are listed on stderr and counted in neither).

Each test binary reports its cases as TAP lines; a binary that died before
reporting (crash, timeout) counts as one failure beyond its TAP lines.  A
test that prints no TAP at all (a self-checking program such as the
OpenSHMEM tests under symrun) is one case: passed when meson says OK.
Skipped cases (Criterion reports those --filter leaves out as "ok ... #
SKIP") count as neither."""
import json
import os
import re
import sys

passed = failed = 0
sized_out = 0  # jobs of sizes SYMHEAP_TEST_PES leaves out: summed, not listed
# (binary, case) of those, and of cases that passed: a case whose every
# size was left out did not run in this stage at all, which is named
sized_names = set()
ran_names = set()
skipped_tests = []  # whole meson tests that skipped (status 77), by name
failures = []  # "binary case" of every failed case, "binary (result)" of a dead binary
with open(sys.argv[1]) as f:
    for line in f:
        rec = json.loads(line)
        out = rec.get("stdout") or ""
        # "ok - x  # SKIP": tests left out by --filter are not passes
        # cases left out by --filter say only "test was skipped"; a case
        # that skips itself gives its reason: list those, loudly
        for skip in re.findall(r"^ok\b.*# SKIP.*$", out, re.M):
            if "SYMHEAP_TEST_PES=" in skip:
                sized_out += 1
                m = re.match(r"^ok\b\s*(?:\d+\s*)?-\s*(\S+)", skip)
                if m:
                    sized_names.add((rec.get("name"), m.group(1)))
            elif not skip.endswith("# SKIP test was skipped"):
                print("SKIPPED (not counted as passed):", skip, file=sys.stderr)
        for m in re.finditer(r"^(?:not )?ok\b\s*(?:\d+\s*)?-\s*(\S+)(?!.*# SKIP)", out, re.M):
            ran_names.add((rec.get("name"), m.group(1)))
        if rec.get("result") == "SKIP":
            skipped_tests.append(str(rec.get("name")).split(" / ")[-1])
        for m in re.finditer(r"^not ok\b\s*(?:\d+\s*)?-\s*(\S+)", out, re.M):
            failures.append(f"{rec.get('name')} {m.group(1)}")
        ok = len(re.findall(r"^ok\b(?!.*# SKIP)", out, re.M))
        bad = len(re.findall(r"^not ok\b", out, re.M))
        passed += ok
        failed += bad
        if rec.get("result") not in ("OK", "EXPECTEDFAIL", "SKIP") and bad == 0:
            failed += 1
            failures.append(f"{rec.get('name')} ({rec.get('result')})")
        elif ok == 0 and bad == 0 and rec.get("result") in ("OK", "EXPECTEDFAIL"):
            passed += 1
if sized_out:
    print(f"SKIPPED (not counted as passed): {sized_out} cases of job sizes "
          "that SYMHEAP_TEST_PES leaves out", file=sys.stderr)
if skipped_tests:
    # e.g. the OpenSHMEM programs' jobs of sizes SYMHEAP_TEST_PES leaves out
    # (tests/shmem/sized_run.sh)
    print(f"SKIPPED (not counted as passed): {len(skipped_tests)} test programs: "
          + " ".join(sorted(map(str, skipped_tests))), file=sys.stderr)
for binary, case in sorted(sized_names - ran_names, key=str):
    print(f"NOT RUN at any size in this stage (SYMHEAP_TEST_PES): {binary} {case}",
          file=sys.stderr)
# Named on stderr, and kept in $CI_FAILED_FILE so that the end of the run
# lists every failure of every stage next to the totals.
for name in failures:
    print("FAILED:", name, file=sys.stderr)
if failures and os.environ.get("CI_FAILED_FILE"):
    with open(os.environ["CI_FAILED_FILE"], "a") as f:
        for name in failures:
            f.write(f"{os.environ.get('CI_STAGE_NAME', sys.argv[1])}: {name}\n")
print(passed, failed)
