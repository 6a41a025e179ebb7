#!/usr/bin/env python3
"""The `sprbench report|gate|plot|db` commands a document shows, one a line
(FILE<TAB>COMMAND): each line of a fenced code block (continuation lines
joined, comments dropped, `a && b` split), and each inline code span that is
a whole command (at least one option, no placeholder such as DIR or FILE,
no [ ] | < > or ...). tests/docs_commands.sh runs them.

    tests/docs_commands.py FILE...
"""
import re, sys
SUBS = ('report', 'gate', 'plot', 'db')
def commands(path):
    text = open(path, encoding='utf-8').read()
    out = []
    # fenced blocks: joined continuation lines, comments dropped, && and | split
    for block in re.findall(r'^```[a-z]*\n(.*?)^```', text, re.S | re.M):
        lines, cur = [], ''
        for line in block.split('\n'):
            if line.rstrip().endswith('\\'):
                cur += line.rstrip()[:-1] + ' '
                continue
            lines.append(cur + line)
            cur = ''
        for line in lines:
            line = re.sub(r'\s+#.*$', '', line).strip()
            for part in re.split(r'\s*&&\s*', line):
                m = re.match(r'^((?:[A-Z_]+=\S+\s+)*)(?:build/)?sprbench\s+(\S+)(.*)$', part)
                if m and m.group(2) in SUBS:
                    out.append(re.sub(r'\s+', ' ', part.strip()))
    # inline spans that are whole commands, not synopses (no placeholders)
    for span in re.findall(r'`((?:build/)?sprbench [^`]+)`', text):
        span = re.sub(r'\s+', ' ', span).strip()
        w = span.split()
        if len(w) < 4 or w[1] not in SUBS or not any(t.startswith('--') for t in w): continue
        if any(re.fullmatch(r'[A-Z][A-Z0-9_.]*', t) for t in w[2:]) or re.search(r'[|\[\]<>]|\.\.\.', span):
            continue
        out.append(span)
    return out
for p in sys.argv[1:]:
    seen = set()
    for c in commands(p):
        if c in seen: continue
        seen.add(c)
        print(p, '\t', c, sep='')
