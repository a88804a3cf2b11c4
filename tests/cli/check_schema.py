#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check JSON documents against syncemu's schemas (tools/schemas/, JSON Schema 2020-12):
    check_schema.py SCHEMA_DIR COMMAND FILE...
Each FILE must hold one document valid against COMMAND.schema.json; prints the first error of
each (its path in the document) and exits 1 if any.  Needs python3-jsonschema (Debian)."""
import glob
import json
import os
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)	# RefResolver, in jsonschema >= 4.18

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed")
    sys.exit(77)

sdir, cmd = sys.argv[1], sys.argv[2]
store = {}
for p in glob.glob(os.path.join(sdir, "*.schema.json")):
    s = json.load(open(p))
    store[s["$id"]] = s
schema = store["https://syncemu.invalid/schemas/%s.schema.json" % cmd]
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
v = cls(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
bad = 0
for f in sys.argv[3:]:
    doc = json.load(open(f))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errs[:3]:
        print("%s: %s at /%s" % (f, e.message[:300], "/".join(map(str, e.absolute_path))))
    bad += bool(errs)
sys.exit(1 if bad else 0)
