#!/usr/bin/env python3
"""The size limits of docs/ARCHITECTURE.md, checked on the sources:
no function under harness/ over 150 lines, no file under harness/study/
over 800 lines, no command file (harness/cmd_*.c) over 300, no file under
kernels/, bench/ or harness/ over 1,000. A function is counted from the first line of its signature
to its closing brace, with comments, strings and character literals
blanked first, so a brace inside them is not counted.

    tests/code_limits.py [ROOT]      (exit 1 naming each breach)
"""
import os, re, sys

FN_LIMIT, STUDY_FILE_LIMIT, CMD_FILE_LIMIT, FILE_LIMIT = 150, 800, 300, 1000


def blank(src):
    """src with comments removed and literals emptied, lines kept."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        elif src[i] in '"\'':
            q, j = src[i], i + 1
            while j < n and src[j] != q and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            out.append(q + q)
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return ''.join(out)


def functions(path):
    """(first line, length, signature) of each top-level function body."""
    lines = blank(open(path, encoding='utf-8', errors='replace').read()).split('\n')
    depth, start = 0, None
    for k, line in enumerate(lines):
        if depth == 0 and line.startswith('{'):
            j = k - 1
            while j > 0 and not re.match(r'[A-Za-z_]', lines[j]):
                j -= 1
            start = j if '(' in ''.join(lines[j:k]) else None
        before = depth
        depth += line.count('{') - line.count('}')
        if before > 0 and depth == 0 and start is not None:
            yield start + 1, k - start + 1, lines[start].strip()
            start = None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    os.chdir(root)
    bad = 0
    for top in ('kernels', 'bench', 'harness'):
        for d, _, files in sorted(os.walk(top)):
            for f in sorted(files):
                p = os.path.join(d, f)
                if not f.endswith(('.c', '.h', '.def')):
                    continue
                n = sum(1 for _ in open(p, encoding='utf-8', errors='replace'))
                if n > FILE_LIMIT:
                    print(f'limits: {p}: {n} lines (a file under kernels/, bench/ or harness/ has at most '
                          f'{FILE_LIMIT})', file=sys.stderr)
                    bad = 1
    for d, _, files in sorted(os.walk('harness')):
        for f in sorted(files):
            p = os.path.join(d, f)
            if not f.endswith('.c'):
                continue
            for line, n, sig in functions(p):
                if n > FN_LIMIT:
                    print(f'limits: {p}:{line}: a function of {n} lines (at most {FN_LIMIT}): {sig[:70]}',
                          file=sys.stderr)
                    bad = 1
            if d.startswith('harness/study') or d == os.path.join('harness', 'study'):
                n = sum(1 for _ in open(p, encoding='utf-8', errors='replace'))
                if n > STUDY_FILE_LIMIT:
                    print(f'limits: {p}: {n} lines (a study/ file has at most {STUDY_FILE_LIMIT})', file=sys.stderr)
                    bad = 1
            # a command parses its options on the table and runs the work
            # below it: what grows past this is work that belongs a floor down
            if d == 'harness' and f.startswith('cmd_'):
                n = sum(1 for _ in open(p, encoding='utf-8', errors='replace'))
                if n > CMD_FILE_LIMIT:
                    print(f'limits: {p}: {n} lines (a command file harness/cmd_*.c has at most '
                          f'{CMD_FILE_LIMIT})', file=sys.stderr)
                    bad = 1
    if not bad:
        print(f'limits: ok (harness/ functions <= {FN_LIMIT} lines, study/ files <= {STUDY_FILE_LIMIT},'
              f' cmd_*.c files <= {CMD_FILE_LIMIT}, kernels/, bench/ and harness/ files <= {FILE_LIMIT})')
    return bad


sys.exit(main())
