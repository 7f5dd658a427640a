#!/usr/bin/env python3
"""snippets.py SYMCC FILE...: every ```c block of the given Markdown files
(README.md, docs/guide.md) is a whole program that compiles and links
with symcc under -Wall -Wextra -Werror, so the documentation shows only
code that builds."""
import os
import re
import subprocess
import sys
import tempfile

symcc, files = sys.argv[1], sys.argv[2:]
failed = count = 0
with tempfile.TemporaryDirectory() as tmp:
    for md in files:
        text = open(md).read()
        for m in re.finditer(r"^```c\n(.*?)^```", text, re.S | re.M):
            count += 1
            line = text.count("\n", 0, m.start()) + 1
            src = os.path.join(tmp, "snippet%d.c" % count)
            with open(src, "w") as f:
                f.write(m.group(1))
            r = subprocess.run([symcc, "-Wall", "-Wextra", "-Werror", src, "-o", src[:-2]],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failed += 1
                print("FAILED: %s:%d: the C block does not build:\n%s" % (md, line, r.stderr))
print("%d C blocks in %s, %d do not build" % (count, ", ".join(files), failed))
sys.exit(1 if failed or count == 0 else 0)
