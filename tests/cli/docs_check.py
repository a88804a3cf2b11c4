#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The documentation's structure, from the source tree (the current directory):
  coverage  every .c file of the code folders is named (as FOLDER/FILE.c) on a page of
            docs/design/; a miss names the file and the pages that name its folder's others
  links     every relative link of README.md and of docs/'s pages resolves: the file exists
            and a #fragment is a heading of the page it points to
  reach     every file of docs/ (but its build inputs) is reached from README.md by links
Prints one 'ok - ' or 'not ok - ' line per finding; exits 1 on any 'not ok'."""
import os
import re
import sys

CODE_DIRS = ['dataplane', 'control', 'models', 'traces']
# the library folders that the commands' code may live in, when they exist
LIB_DIRS = ['experiment', 'report']
BUILD_INPUTS = {'docs/meson.build', 'docs/mkkeysman.sh'}
LINK = re.compile(r'\]\(([^)\s]+)\)')

fails = 0


def bad(msg):
    global fails
    fails += 1
    print('not ok - ' + msg)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    h = heading.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')


def headings(path):
    out, fence = set(), False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
            elif not fence and line.startswith('#'):
                out.add(slug(line.lstrip('#')))
    return out


def links(path):
    """The relative links of a markdown page, outside code blocks and code spans."""
    out, fence = [], False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if line.startswith('```'):
                fence = not fence
                continue
            if fence:
                continue
            line = re.sub(r'`[^`]*`', '', line)
            for m in LINK.finditer(line):
                t = m.group(1)
                if re.match(r'^[a-z]+:', t):
                    continue	# http:, https:, mailto:
                out.append((n, t))
    return out


def coverage():
    if not os.path.isdir('docs/design'):
        bad('there is no docs/design/')
        return
    pages = sorted(os.path.join('docs/design', p) for p in os.listdir('docs/design')
                   if p.endswith('.md'))
    text = {p: open(p, encoding='utf-8').read() for p in pages}
    dirs = CODE_DIRS + [d for d in LIB_DIRS if os.path.isdir(d)]
    named = {p: set(re.findall(r'(?<![\w/])((?:%s)/[\w.-]+\.c)(?!\w)' % '|'.join(dirs), t))
             for p, t in text.items()}
    every = set().union(*named.values())
    n = 0
    for d in dirs:
        for c in sorted(f for f in os.listdir(d) if f.endswith('.c')):
            n += 1
            name = d + '/' + c
            if name not in every:
                where = [p for p in pages if any(x.startswith(d + '/') for x in named[p])]
                bad('%s is named on no page of docs/design/ (the pages of %s/: %s)' %
                    (name, d, ', '.join(where) or 'none'))
    print('ok - %d source files of %s checked against %d design pages' %
          (n, ', '.join(d + '/' for d in dirs), len(pages)))


def walk():
    seen, todo, nlinks = set(), ['README.md'], 0
    anchors = {}
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        if not page.endswith('.md'):
            continue
        for n, t in links(page):
            nlinks += 1
            target, _, frag = t.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
            if not os.path.exists(dest):
                bad('%s:%d: link to %s: no such file' % (page, n, t))
                continue
            if frag and dest.endswith('.md'):
                if dest not in anchors:
                    anchors[dest] = headings(dest)
                if frag not in anchors[dest]:
                    bad('%s:%d: link to %s: %s has no heading #%s' % (page, n, t, dest, frag))
            if os.path.isfile(dest):
                todo.append(dest)
    print('ok - %d links followed from README.md over %d files' % (nlinks, len(seen)))
    every = set()
    for root, _, files in os.walk('docs'):
        for f in files:
            every.add(os.path.normpath(os.path.join(root, f)))
    orphans = sorted(every - seen - BUILD_INPUTS)
    for o in orphans:
        bad('%s is reached from README.md by no link' % o)
    if not orphans:
        print('ok - every file of docs/ is reached from README.md')


coverage()
walk()
sys.exit(1 if fails else 0)
