#!/usr/bin/env python3
"""Writes a large PyTorch ET for reader benchmarks by repeating the nodes of a
real trace with shifted ids, so the text has the shape of a real trace.

usage: make_big_et.py SOURCE_ET(.json[.gz]) OUT.json SIZE_MB
"""
import gzip
import json
import sys


def main():
    src, out, size_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opener = gzip.open if open(src, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(src, 'rt') as f:
        trace = json.load(f)
    nodes = trace['nodes']
    span = max(n['id'] for n in nodes) + 1
    target = size_mb * 1000 * 1000
    written = 0
    copy = 0
    with open(out, 'w') as f:
        head = {k: v for k, v in trace.items() if k not in ('nodes', 'finish_ts')}
        text = json.dumps(head)[:-1] + ', "nodes": [\n'
        f.write(text)
        written += len(text)
        first = True
        while written < target:
            shift = copy * span
            for n in nodes:
                m = dict(n)
                m['id'] = n['id'] + shift
                if 'parent' in m:
                    m['parent'] = n['parent'] + shift if n['parent'] != n['id'] else m['id']
                if 'ctrl_deps' in m:
                    m['ctrl_deps'] = n['ctrl_deps'] + shift
                line = ('' if first else ',\n') + json.dumps(m, separators=(', ', ': '))
                first = False
                f.write(line)
                written += len(line)
            copy += 1
        tail = '\n], "finish_ts": %d}\n' % trace.get('finish_ts', 0)
        f.write(tail)
    print(f'{out}: {written / 1e6:.0f} MB, {copy} copies of {len(nodes)} nodes')


if __name__ == '__main__':
    main()
