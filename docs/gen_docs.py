#!/usr/bin/env python3
"""Generate symheap's manual pages and API reference from their one source.

  gen_docs.py [--version=V] SRCDIR --list         names of every page it makes
  gen_docs.py [--version=V] SRCDIR --aliases      "alias page" lines: the other
                                                  functions of a page's family
  gen_docs.py [--version=V] SRCDIR --man OUTDIR   write them (roff) into OUTDIR
  gen_docs.py [--version=V] SRCDIR --api FILE     write the API reference (Markdown)

Sources, all in the repository:
- docs/man/<name>.<section>.md: the tools' pages (symrun.1, symcc.1,
  symheap-info.1) and symheap.7, in a small Markdown subset (below); in
  symheap.7, @ENVIRONMENT@ becomes the table of src/base/config_table.h
  followed by each transport's own (transports/<name>/<name>_settings.h),
  and @STATUS@ the codes of include/symheap/status.h.
- include/symheap/*.h: every documented public function has a section 3
  page (the functions of one comment block share it, sym_p8 .. sym_g64:
  the others are links to it), and symheap(3) lists them all by part; the Markdown reference has every
  documented block, types and macros included.

Markdown subset of docs/man: "% name(section) | title" first; "# NAME",
"## Sub"; paragraphs; "- " bullets; a term line followed by ":   text"
lines (a definition list, for options and variables); lines indented by
four spaces are shown as they are; `code` and **bold** are bold, *word*
italic.  The project's own script, so that the pages need no package
beyond python3 (which meson needs anyway), and so that one parser reads
the header comments the section 3 pages come from.
"""
import os
import re
import sys

PARTS = ["init", "status", "heap", "rma", "amo", "sync", "team", "coll", "request", "p2p"]
MANUAL = "symheap manual"
VERSION = ""  # set from the command line (meson.build's version)


# ---- reading the headers ---------------------------------------------------

def comment_text(raw):
    """The text of a /* ... */ comment, without its frame."""
    body = raw[2:-2]
    lines = []
    for line in body.split("\n"):
        s = line.strip()
        if s.startswith("*"):
            s = line[line.index("*") + 1:]
            s = s[1:] if s.startswith(" ") else s
        else:
            s = line.strip()
        lines.append(s.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def tidy_decl(text):
    """One declaration per line, without the export and warning marks."""
    text = re.sub(r"\bSYM_API\s+", "", text)
    text = re.sub(r"\bSYM_NODISCARD\s+", "", text)
    text = re.sub(r"\s*SYM_PRINTF_\(\d+,\s*\d+\)", "", text)
    text = re.sub(r"\s*__attribute__\(\(\w+\)\)", "", text)
    decls = []
    for d in text.split(";"):
        d = re.sub(r"\(\s+", "(", " ".join(d.split()))
        if d:
            decls.append(d + ";")
    return decls


FUNC_RE = re.compile(r"\b(sym_\w+)\s*\(")


def macro_decls(code_text):
    """The declarations a "#define NAME(params) ..." block makes through
    its invocations NAME(args) below it."""
    m = re.match(r"\s*#define\s+(\w+)\(([^)]*)\)", code_text)
    name, params = m.group(1), m.group(2)
    body = []
    for line in code_text[m.end():].split("\n"):
        body.append(line.rstrip().rstrip("\\"))
        if not line.rstrip().endswith("\\"):
            break
    invocations = [[a.strip() for a in args.split(",")]
                   for args in re.findall(r"^\s*%s\(([^)]*)\)" % name, code_text, re.M)]
    params = [p.strip() for p in params.split(",")]
    out = []
    for args in invocations:
        text = "\n".join(body)
        for p, a in zip(params, args):
            text = text.replace("##" + p + "##", a).replace("##" + p, a).replace(p + "##", a)
            text = re.sub(r"\b%s\b" % re.escape(p), a, text)
        out.append(text)
    return tidy_decl("\n".join(out))


SECTION_RE = re.compile(r"/\* -+ \*/\n/\*\s*(.+?)\s*\*/\n/\* -+ \*/\n")


def parse_header(path):
    """(file comment, [blocks]) of one header; a block is a dict with the
    comment, its declarations and the functions they declare."""
    src = SECTION_RE.sub(lambda m: "@@SECTION %s\n" % m.group(1), open(path).read())
    tokens = re.findall(r"/\*.*?\*/|[^\n]*\n", src, re.S)
    part_doc = comment_text(tokens[0]) if tokens and tokens[0].startswith("/*") else ""
    blocks, section, pending = [], None, None
    i = 1
    while i < len(tokens):
        t = tokens[i]
        if t.startswith("/*"):
            pending = comment_text(t)
            i += 1
            continue
        if t.startswith("@@SECTION "):
            section = t[len("@@SECTION "):].strip()
            pending = None
            i += 1
            continue
        if not t.strip():
            # a blank line after a comment's own line ends nothing; a
            # blank line between comment and code detaches the comment
            if i > 0 and not tokens[i - 1].startswith("/*"):
                pending = None
            i += 1
            continue
        if t.lstrip().startswith(("#if", "#endif", "#include", "#undef", "extern", "}")) or \
                (pending is None and "SYM_API" not in t):
            pending = None if not t.lstrip().startswith("#undef") else pending
            i += 1
            continue
        code = []
        while i < len(tokens) and not tokens[i].startswith(("/*", "@@SECTION")) and \
                tokens[i].strip():
            code.append(tokens[i])
            i += 1
        code_text = "".join(code)
        if re.match(r"\s*#define\s+\w+\(", code_text) and "SYM_API" in code_text:
            decls = macro_decls(code_text)
        elif "SYM_API" in code_text:
            decls = tidy_decl(code_text)
        else:
            decls = [l.rstrip() for l in code_text.rstrip("\n").split("\n")]
        funcs = []
        if "SYM_API" in code_text:
            for d in decls:
                m = FUNC_RE.search(d)
                if m and m.group(1) not in funcs:
                    funcs.append(m.group(1))
        blocks.append({"doc": pending, "decls": decls, "funcs": funcs, "section": section,
                       "code": code_text})
        pending = None
    return part_doc, blocks


def read_parts(srcdir):
    parts = []
    for name in PARTS:
        path = os.path.join(srcdir, "include", "symheap", name + ".h")
        doc, blocks = parse_header(path)
        title = doc.split("\n")[0]
        m = re.match(r"symheap/\w+\.h - (.*)", title)
        summary = m.group(1) if m else title
        # the rest of the first paragraph of the file comment
        first = doc.split("\n\n")[0].replace("\n", " ")
        m = re.match(r"symheap/\w+\.h - (.*)", first)
        # declarations without a comment of their own are described by the
        # part's comment (the non-blocking collectives of request.h)
        intro = "\n\n".join(p for p in doc.split("\n\n")[1:]
                             if not p.startswith("Part of the public API"))
        for b in blocks:
            if b["doc"] is None:
                b["doc"] = intro
        parts.append({"name": name, "summary": (m.group(1) if m else summary).rstrip("."),
                      "blocks": blocks})
    return parts


def first_sentence(text):
    flat = " ".join(text.replace("`", "").split())
    m = re.match(r"(.+?\.)(\s|$)", flat)
    s = m.group(1) if m else flat
    return s[:-1] if s.endswith(".") else s


def summary_of(block):
    """One line for NAME and the overview: a large family (typed atomics,
    typed waits) by its section's title, any other by its first sentence."""
    if len(block["funcs"]) > 8 and block["section"]:
        return block["section"]
    return first_sentence(block["doc"])


# ---- roff ------------------------------------------------------------------

def roff_escape(text):
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    return text


def roff_inline(text):
    """Escape, then `code` and **bold** bold, *x* italic."""
    out = []
    for piece in re.split(r"(`[^`]+`|\*\*[^*]+\*\*|(?<![\w*])\*[^*\s][^*]*\*(?![\w*]))", text):
        if piece.startswith("`") and piece.endswith("`") and len(piece) > 1:
            out.append("\\fB" + roff_escape(piece[1:-1]) + "\\fR")
        elif piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
            out.append("\\fB" + roff_escape(piece[2:-2]) + "\\fR")
        elif piece.startswith("*") and piece.endswith("*") and len(piece) > 2:
            out.append("\\fI" + roff_escape(piece[1:-1]) + "\\fR")
        else:
            out.append(roff_escape(piece))
    return "".join(out)


def roff_line(text):
    """A text line that roff will not take for a request."""
    text = text.strip()
    return "\\&" + text if text.startswith((".", "'")) else text


def render_text(text, out):
    """Comment or Markdown text: paragraphs, bullets, definition lists and
    literal (indented) lines."""
    lines = text.split("\n")
    i = 0
    para = []

    def flush():
        if para:
            out.append(".PP")
            out.extend(roff_line(roff_inline(l)) for l in para)
            para.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
        elif line.startswith("    ") or line.startswith("```"):
            flush()
            block = []
            if line.startswith("```"):
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    block.append(lines[i])
                    i += 1
                i += 1
            else:
                while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                    block.append(lines[i][4:])
                    i += 1
                while block and not block[-1].strip():
                    block.pop()
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            out.extend(roff_line(roff_escape(b)) if b.strip() else "" for b in block)
            out.append(".fi")
            out.append(".RE")
        elif re.match(r"\s{0,3}- ", line):
            flush()
            indent = len(line) - len(line.lstrip())
            item = [line.strip()[2:]]
            i += 1
            while i < len(lines) and lines[i].strip() and \
                    not re.match(r"\s{0,3}- ", lines[i]) and \
                    len(lines[i]) - len(lines[i].lstrip()) > indent:
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2")
            out.extend(roff_line(roff_inline(l)) for l in item)
        elif i + 1 < len(lines) and lines[i + 1].startswith(":   "):
            flush()
            out.append(".TP")
            out.append(roff_line(roff_inline(line.strip())))
            i += 1
            first = True
            while i < len(lines) and (lines[i].startswith(":   ") or lines[i].startswith("    ")):
                if not first and lines[i].startswith(":   "):
                    out.append(".br")
                out.append(roff_line(roff_inline(lines[i][4:])))
                first = False
                i += 1
        elif line.startswith("  ") and para == []:
            # an indented line of a header comment: keep its layout
            block = []
            while i < len(lines) and lines[i].startswith("  "):
                block.append(lines[i])
                i += 1
            out.append(".PP")
            out.append(".nf")
            out.extend(roff_line(roff_escape(b)) for b in block)
            out.append(".fi")
        else:
            para.append(line)
            i += 1
    flush()


def th(name, section, title):
    return ['.\\" Generated by docs/gen_docs.py: edit its source, not this file.',
            '.TH "%s" "%s" "" "symheap %s" "%s"' % (name.upper(), section, VERSION, title),
            ".nh", ".ad l"]


def md_page(path, extra):
    """A docs/man/*.md page as roff."""
    text = open(path).read()
    for key, value in extra.items():
        text = text.replace(key, value)
    lines = text.split("\n")
    m = re.match(r"%\s*([\w.-]+)\((\d)\)\s*\|\s*(.*)", lines[0])
    if not m:
        sys.exit("%s: first line must be '%% name(section) | title'" % path)
    out = th(m.group(1), m.group(2), m.group(3))
    body, chunk = [], []
    for line in lines[1:]:
        if line.startswith("# ") or line.startswith("## "):
            render_text("\n".join(chunk), body)
            chunk = []
            body.append((".SH " if line.startswith("# ") else ".SS ") + roff_escape(line.split(" ", 1)[1].strip()))
        else:
            chunk.append(line)
    render_text("\n".join(chunk), body)
    # .PP right after a heading is redundant (and groff-clean either way)
    cleaned = []
    for l in body:
        if l == ".PP" and cleaned and cleaned[-1].startswith((".SH", ".SS")):
            continue
        cleaned.append(l)
    return "\n".join(out + cleaned) + "\n"


def table_entries(path):
    """The variables of one settings table (X(field, NAME, type, default,
    min, max, help)), in its order."""
    src = open(path).read().replace("\\\n", "\n")
    entries = re.findall(r'X\(\w+,\s*"(SYMHEAP_\w+)",\s*(\w+),\s*"([^"]*)",\s*[\w+-]+,\s*[\w+-]+,'
                         r'((?:\s*"(?:[^"\\]|\\.)*")+)\s*\)', src)
    if not entries or len(entries) != len(re.findall(r"^\s*X\(\w+,\s*\"SYMHEAP_", src, re.M)):
        sys.exit("gen_docs.py: could not read every entry of %s" % path)
    return entries


def transport_tables(srcdir):
    """Each transport's own settings table: transports/<name>/<name>_settings.h."""
    found = []
    for name in sorted(os.listdir(os.path.join(srcdir, "transports"))):
        path = os.path.join(srcdir, "transports", name, name + "_settings.h")
        if os.path.isfile(path):
            found.append((name, path))
    return found


def environment_list(srcdir):
    """symheap.7's variables, from src/base/config_table.h and each
    transport's own table."""
    tables = [(None, os.path.join(srcdir, "src", "base", "config_table.h"))]
    tables += transport_tables(srcdir)
    out = []
    for transport, path in tables:
        if transport:
            out.append("## Settings of the %s transport" % transport)
            out.append("")
        for name, typ, dflt, help_parts in table_entries(path):
            help_text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', help_parts))
            out.append("`%s` (%s, default %s)" % (name, typ.lower(), dflt if dflt else "empty"))
            out.append(":   " + help_text.replace("\\\"", "\"").rstrip(".") + ".")
            out.append("")
    return "\n".join(out)


def status_list(srcdir):
    src = open(os.path.join(srcdir, "include", "symheap", "status.h")).read()
    out = []
    for name, value, text in re.findall(r'X\((SYM_\w+),\s*(-?\d+),\s*"([^"]*)"\)', src):
        out.append("`%s` (%s)" % (name, value))
        out.append(":   " + text)
        out.append("")
    return "\n".join(out)


def func_pages(parts):
    """name -> roff text of the page of every block of functions, named
    after its first function; and alias -> page for the block's others
    (installed as links, as man pages of one family are)."""
    pages, aliases = {}, {}
    for part in parts:
        for b in part["blocks"]:
            if not b["funcs"]:
                continue
            names = b["funcs"]
            for other in names[1:]:
                aliases[other + ".3"] = names[0] + ".3"
            for name in names[:1]:
                out = th(name, "3", MANUAL)
                out.append(".SH NAME")
                shown = names if len(names) <= 8 else [name]
                out.append(roff_escape(", ".join(shown)) + " \\- " + roff_escape(summary_of(b)))
                out.append(".SH SYNOPSIS")
                out.append(".nf")
                out.append("\\fB#include <symheap.h>\\fR")
                out.append("")
                for d in b["decls"]:
                    out.append(roff_line(roff_escape(d)))
                out.append(".fi")
                out.append(".SH DESCRIPTION")
                render_text(b["doc"], out)
                out.append(".PP")
                out.append("The conventions every call follows (status codes, symmetric "
                           "addresses, deadlines, thread safety) are in")
                out.append(".BR symheap (3).")
                out.append(".SH SEE ALSO")
                others = [n for n in names if n != name][:8] if len(names) <= 8 else []
                refs = [".BR %s (3)," % roff_escape(n) for n in others]
                refs += [".BR symheap (3),", ".BR symheap (7)"]
                out.extend(refs)
                pages[name + ".3"] = "\n".join(out) + "\n"
    return pages, aliases


def overview_page(srcdir, parts):
    """symheap(3): the conventions of symheap.h and every function by part."""
    src = open(os.path.join(srcdir, "include", "symheap.h")).read()
    doc = comment_text(re.match(r"\s*(/\*.*?\*/)", src, re.S).group(1))
    first, _, rest = doc.partition("\n\n")
    out = th("symheap", "3", MANUAL)
    out.append(".SH NAME")
    out.append("symheap \\- one\\-sided, SHMEM\\-style communication over a symmetric heap (C API)")
    out.append(".SH SYNOPSIS")
    out.append(".nf")
    out.append("\\fB#include <symheap.h>\\fR")
    out.append("")
    out.append("\\fBcc\\fR prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs symheap)")
    out.append("\\fBsymcc\\fR prog.c \\-o prog")
    out.append(".fi")
    out.append(".SH DESCRIPTION")
    render_text(first.split(" - ", 1)[-1], out)
    render_text(rest, out)
    out.append(".SH FUNCTIONS")
    for part in parts:
        funcs = [(f, b) for b in part["blocks"] for f in b["funcs"]]
        if not funcs:
            continue
        out.append(".SS " + roff_escape(part["summary"][0].upper() + part["summary"][1:]))
        for f, b in funcs:
            out.append(".TP")
            out.append(".BR %s (3)" % roff_escape(f))
            out.append(roff_line(roff_escape(summary_of(b))))
    out.append(".SH SEE ALSO")
    out.append(".BR symheap (7),")
    out.append(".BR symrun (1),")
    out.append(".BR symcc (1),")
    out.append(".BR symheap\\-info (1)")
    return "\n".join(out) + "\n"


def all_pages(srcdir):
    parts = read_parts(srcdir)
    pages = {}
    mandir = os.path.join(srcdir, "docs", "man")
    extra = {"@ENVIRONMENT@": environment_list(srcdir), "@STATUS@": status_list(srcdir)}
    for f in sorted(os.listdir(mandir)):
        if f.endswith(".md"):
            pages[f[:-3]] = md_page(os.path.join(mandir, f), extra)
    pages["symheap.3"] = overview_page(srcdir, parts)
    funcs, aliases = func_pages(parts)
    pages.update(funcs)
    return pages, aliases, parts


# ---- Markdown --------------------------------------------------------------

def api_markdown(srcdir, parts):
    out = ["# symheap API reference", "",
           "Generated from the comments of `include/symheap/*.h` by `docs/gen_docs.py`; "
           "the conventions every call follows are at the top of `include/symheap.h` "
           "(and in `man 3 symheap`).", ""]
    for part in parts:
        out.append("- [%s](#%s) (`symheap/%s.h`)" % (part["summary"], part["name"], part["name"]))
    out.append("")
    for part in parts:
        out.append('<a id="%s"></a>' % part["name"])
        out.append("## %s" % (part["summary"][0].upper() + part["summary"][1:]))
        out.append("")
        section = None
        for b in part["blocks"]:
            if b["section"] and b["section"] != section:
                section = b["section"]
                out.append("### " + section)
                out.append("")
            out.append("```c")
            out.extend(b["decls"] if b["funcs"] else [l for l in b["code"].rstrip("\n").split("\n")])
            out.append("```")
            out.append("")
            out.append(b["doc"])
            out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args = sys.argv[1:]
    if args and args[0].startswith("--version="):
        global VERSION
        VERSION = args.pop(0)[len("--version="):]
    if len(args) < 2:
        sys.exit(__doc__)
    sys.argv[1:] = args
    srcdir, what = sys.argv[1], sys.argv[2]
    pages, aliases, parts = all_pages(srcdir)
    if what == "--list":
        print("\n".join(sorted(pages)))
    elif what == "--aliases":
        print("\n".join("%s %s" % (a, aliases[a]) for a in sorted(aliases)))
    elif what == "--man":
        os.makedirs(sys.argv[3], exist_ok=True)
        for name, text in pages.items():
            with open(os.path.join(sys.argv[3], name), "w") as f:
                f.write(text)
    elif what == "--api":
        with open(sys.argv[3], "w") as f:
            f.write(api_markdown(srcdir, parts))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
