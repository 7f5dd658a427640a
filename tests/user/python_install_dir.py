#!/usr/bin/env python3
"""python_install_dir.py PREFIX DIR: where meson installs the Python
package (DIR) is on /usr/bin/python3's sys.path for the prefixes that
interpreter searches (/usr and /usr/local); other prefixes need
PYTHONPATH, as the README says (skipped: 77)."""
import subprocess
import sys

prefix, where = sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")
if prefix not in ("/usr", "/usr/local"):
    print("prefix %s: the README's PYTHONPATH line applies" % prefix)
    sys.exit(77)
path = subprocess.run(["/usr/bin/python3", "-c", "import sys; print('\\n'.join(sys.path))"],
                      capture_output=True, text=True, check=True, env={}).stdout.split("\n")
if where not in path:
    print("meson installs the package into %s, which /usr/bin/python3 does not search:\n  %s"
          % (where, "\n  ".join(p for p in path if p)))
    sys.exit(1)
print("%s is on /usr/bin/python3's path" % where)
