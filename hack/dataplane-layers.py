#!/usr/bin/env python3
"""Include-graph checks of the data plane (dataplane/src), run by `make verify`.

Prints four counts and the offending files, and exits 1 unless all four are 0:

1. upward includes: a file that includes a file of a higher layer. The layers, lowest first
   (a file may include its own layer and any lower one):
     0 sys          plain system helpers, errors and signals
     1 kinds        the bench-kind descriptor and the registry's interface (kinds/*.hpp):
                    forward declarations only, so every layer may look a kind up
     2 config       the cell and its parsing
     3 engine, memory, datagram, gpu, search   the hot-path interface and what engines share;
                    the rate search (trials through a function, no engines)
     4 metrics      combining and judging results
     5 control, output   the control channel's messages, the record, CSV, summary, ready file
     6 transports   one directory per transport, each with the file that registers its kind;
                    kinds/registry.cpp (the one list of kinds, so it includes every transport)
     7 run          the run drivers (client, server, in-process)
     8 app, main.cpp     the edge
2. include loops: cycles in the file include graph (a .cpp counts as including what its .hpp does).
3. long files: files under dataplane/src over 400 lines.
4. transport names outside transports/ and kinds/registry.cpp: with comments removed, a whole
   word (case-insensitive; "_" is part of a word, so udp_gso is not one) naming a registered
   kind (the `k.name = "..."` of every transports/*/*_kind.cpp, so a new kind is checked as soon
   as it exists; "nccl-tests", the reference tool, is not a kind's name), in code or in a string literal, or an include of "transports/..." (system
   includes in <> are not looked at). One file is exempt: sys/socket.cpp wraps the operating
   system's TCP and UDP sockets, which the control channel uses whatever the kind.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dataplane", "src")
MAX_LINES = 400
LAYERS = [
    ("sys",),
    ("kinds",),
    ("config",),
    ("engine", "memory", "datagram", "gpu", "search"),
    ("metrics",),
    ("control", "output"),
    ("transports", "kinds/registry.cpp"),
    ("run",),
    ("app", "main.cpp"),
]
SOURCE = (".cpp", ".hpp", ".cu", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
KIND_NAME = re.compile(r'\bk\.name\s*=\s*"([a-z0-9_]+)"')
NAMING_ALLOWED = ("transports/", "kinds/registry.cpp", "sys/socket.cpp")


def layer_of(rel):
    best, best_len = None, -1
    for index, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (rel == p or rel.startswith(p + "/")) and len(p) > best_len:
                best, best_len = index, len(p)
    return best


def strip_comments(text):
    # Removes // and /* */ comments, keeps string literals (a "//" inside a string stays).
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main():
    files = {}
    for dirpath, _, names in os.walk(ROOT):
        for name in names:
            if name.endswith(SOURCE):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                with open(path, encoding="utf-8") as f:
                    files[rel] = f.read()

    kinds = sorted({n for rel, text in files.items() if re.fullmatch(r"transports/[^/]+/[^/]+_kind\.cpp", rel)
                    for n in KIND_NAME.findall(text)})
    if not kinds:
        print("no registered kinds found (transports/*/*_kind.cpp with k.name = ...): the check needs updating")
        return 1
    transport_word = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(kinds) + r")(?![A-Za-z0-9_]|-tests)", re.I)

    graph = {rel: [inc for inc in INCLUDE.findall(text) if inc in files] for rel, text in files.items()}

    upward = []
    for rel, incs in sorted(graph.items()):
        mine = layer_of(rel)
        if mine is None:
            upward.append(f"{rel}: in no layer (add its directory to LAYERS)")
            continue
        for inc in incs:
            theirs = layer_of(inc)
            if theirs is not None and theirs > mine:
                upward.append(f"{rel} (layer {mine}) includes {inc} (layer {theirs})")

    # A .cpp and its .hpp are one unit: merge them so a loop through an implementation counts.
    def unit(rel):
        return os.path.splitext(rel)[0]

    ugraph = {}
    for rel, incs in graph.items():
        ugraph.setdefault(unit(rel), set()).update(unit(i) for i in incs if unit(i) != unit(rel))
    loops = find_cycles(ugraph)

    long_files = []
    for rel, text in sorted(files.items()):
        lines = text.count("\n")
        if lines > MAX_LINES:
            long_files.append(f"{rel}: {lines} lines")

    naming = []
    for rel, text in sorted(files.items()):
        if rel.startswith(NAMING_ALLOWED):
            continue
        code = strip_comments(text)
        for lineno, line in enumerate(code.splitlines(), 1):
            if re.match(r"\s*#\s*include\s*<", line):
                continue
            if re.search(r'#\s*include\s+"transports/', line) or transport_word.search(line):
                naming.append(f"{rel}:{lineno}: {line.strip()}")

    report = [
        ("includes running back up the layers", upward),
        ("include loops", loops),
        (f"files over {MAX_LINES} lines", long_files),
        (f"transport names ({', '.join(kinds)}) outside transports/ and kinds/registry.cpp", naming),
    ]
    failed = False
    for title, items in report:
        print(f"{title}: {len(items)}")
        for item in items:
            print(f"  {item}")
        failed = failed or bool(items)
    return 1 if failed else 0


def find_cycles(graph):
    """Strongly connected components with more than one unit (Tarjan), each printed as a loop."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(" <-> ".join(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
