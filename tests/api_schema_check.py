#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks the API's replies against the schema in docs/api.md.

usage: api_schema_check.py docs/api.md replies.json [MARKER [--partial]]
MARKER: the block's comment (default api-schema; api-schema-jobs: the jobs' block)
--partial: the replies are some of the API's (one case's test): entries they do not reach
are not a problem
replies.json: [{"key": "GET /v1/version", "status": 200, "body": ...}, ...]
Fails when a reply does not match its entry, a reply has no entry, or an entry of the
schema was never reached by a reply (unless --partial).
"""
import json
import re
import sys

import jsonschema


def schema_of(doc_path, marker):
    text = open(doc_path, encoding="utf-8").read()
    m = re.search(r"<!-- " + re.escape(marker) + r" -->\s*```json\n(.*?)\n```", text, re.S)
    if not m:
        sys.exit(f"{doc_path}: no ```json block after <!-- {marker} -->")
    return json.loads(m.group(1))


def main():
    doc = schema_of(sys.argv[1], sys.argv[3] if len(sys.argv) > 3 else "api-schema")
    replies = json.load(open(sys.argv[2], encoding="utf-8"))
    defs = doc["$defs"]
    problems, reached = [], set()
    for r in replies:
        entry = doc["endpoints"].get(r["key"])
        status = str(r["status"])
        if entry is None or status not in entry:
            problems.append(f"{r['key']} {status}: no schema in docs/api.md for this reply")
            continue
        reached.add((r["key"], status))
        schema = dict(entry[status])
        schema["$defs"] = defs
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        try:
            jsonschema.validate(r["body"], schema, cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as e:
            problems.append(f"{r['key']} {status}: {e.message} at {list(e.absolute_path)}\n"
                            f"  reply: {json.dumps(r['body'])[:400]}")
    partial = "--partial" in sys.argv[4:]
    for key, statuses in doc["endpoints"].items():
        for status in statuses:
            if not partial and (key, status) not in reached:
                problems.append(f"{key} {status}: documented but never reached by the test")
    for p in problems:
        print(p)
    print(f"{len(replies)} replies checked against {sum(len(s) for s in doc['endpoints'].values())} "
          f"documented replies; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
