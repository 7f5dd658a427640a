#!/usr/bin/env python3
"""check_man.py LIBSYMHEAP.so MANDIR GEN_DOCS SRCDIR: every generated
manual page renders with man(1) -l without a warning from groff or man and
has a NAME section, and every function libsymheap.so exports has its
section 3 page, or is a link (gen_docs.py --aliases) to an existing one."""
import concurrent.futures
import os
import re
import subprocess
import sys

lib, mandir, gen, srcdir = sys.argv[1:5]
pages = sorted(f for f in os.listdir(mandir) if f.rsplit(".", 1)[-1] in ("1", "3", "7"))
failed = []
if len(pages) < 10:
    failed.append("only %d pages in %s" % (len(pages), mandir))
env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")


def render(names):
    r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l"] +
                       [os.path.join(mandir, n) for n in names],
                       capture_output=True, text=True, env=env)
    return r.returncode, r.stderr.strip(), re.sub(".\b", "", r.stdout)


# One man run per page (man takes about 0.1 s each, a list of pages as
# long), two at a time.
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    for page, (rc, err, out) in zip(pages, pool.map(lambda p: render([p]), pages)):
        if rc != 0 or err:
            failed.append("%s: man exited %d: %s" % (page, rc, err[:500]))
        elif "\nNAME\n" not in out or out.count("\n") < 8:
            failed.append("%s: renders as:\n%s" % (page, out[:300]))
aliases = dict(l.split() for l in subprocess.run(
    [sys.executable, gen, srcdir, "--aliases"], capture_output=True, text=True,
    check=True).stdout.split("\n") if l.strip())
for alias, target in aliases.items():
    if target not in pages:
        failed.append("%s links to %s, which is not a page" % (alias, target))
for name in ("symrun.1", "symcc.1", "symheap-info.1", "symheap.3", "symheap.7"):
    if name not in pages:
        failed.append("no page %s" % name)
nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                    check=True).stdout
exported = sorted({l.split()[-1] for l in nm.splitlines()
                   if len(l.split()) == 3 and l.split()[1] == "T" and l.split()[2].startswith("sym_")})
missing = [f for f in exported if f + ".3" not in pages and f + ".3" not in aliases]
if missing:
    failed.append("exported functions without a page: " + " ".join(missing))
for f in failed:
    print("FAILED:", f)
print("%d pages rendered, %d links, %d exported functions, %d problems"
      % (len(pages), len(aliases), len(exported), len(failed)))
sys.exit(1 if failed else 0)
