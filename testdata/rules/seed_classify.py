#!/usr/bin/env python3
"""Classify coding-agent traces into a frozen failure mix.

This is a method script, not a published leaderboard.
Fill traces.jsonl with your own runs before you trust any count.

Copied verbatim from seed 000 ("Ship the Failure Mix"). The only change:
main() reads the JSONL path from argv[1] and prints each row's class, one
a line, then the card, instead of writing benchmark_card.json.
"""
from __future__ import annotations

import json
import collections
import sys
from pathlib import Path

TAXONOMY = (
    "PASS_CONTRACT",
    "PASS_WEAK",
    "ASSUME_API",
    "TOOL_LOOP",
    "MISSING_ASK",
    "SCOPE_SLIP",
    "TIMEOUT",
    "SCORER_RED",
)


def repeated_tools(calls: list[dict], n: int = 3) -> bool:
    window = []
    for call in calls:
        key = (call.get("name"), json.dumps(call.get("args", {}), sort_keys=True))
        window.append(key)
        if len(window) >= n and len(set(window[-n:])) == 1:
            return True
    return False


def classify(row: dict) -> str:
    calls = row.get("tool_calls") or []
    if row.get("timeout") or row.get("wall_s", 0) >= row.get("wall_cap", 10**9):
        return "TIMEOUT"
    if repeated_tools(calls):
        return "TOOL_LOOP"
    if row.get("assumed_api"):
        return "ASSUME_API"
    if row.get("required_missing") and not row.get("asked"):
        return "MISSING_ASK"
    if row.get("outside_allowlist"):
        return "SCOPE_SLIP"
    if row.get("exit_code") == 0 and row.get("written_tests"):
        return "PASS_WEAK"
    if row.get("exit_code") == 0:
        return "PASS_CONTRACT"
    return "SCORER_RED"


def main() -> None:
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line.strip()]
    classes = [classify(r) for r in rows]
    for c in classes:
        print(c)
    counts = collections.Counter(classes)
    n = len(rows) or 1
    card = {
        "n_tasks": len(rows),
        "primary_counts": {k: counts.get(k, 0) for k in TAXONOMY},
        "derived": {
            "headline_pass_rate": (counts["PASS_CONTRACT"] + counts["PASS_WEAK"]) / n,
            "contract_pass_rate": counts["PASS_CONTRACT"] / n,
        },
    }
    print(json.dumps(card, sort_keys=True))


if __name__ == "__main__":
    main()
