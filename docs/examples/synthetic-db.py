#!/usr/bin/env python3
"""Writes a synthetic sprbench export (format 2) of two machines at real
scale: 9 GEMM kernels x threads 1..56 on each, DistilBERT training points
(epoch time projected, as a short run stores it) and a data-parallel series
at ppn 2 on 1, 2, 4 and 8 nodes. Import it with `sprbench db import` to look
at reports and plots at a size a 2-core machine cannot run. Every number is
made up; nothing here is a measurement.

usage: synthetic-db.py OUT.json
"""
import json, math, random, sys, uuid

random.seed(17)
KERNELS = [  # name, dtype, GFLOP/s (GOP/s) per core, needs AMX
    ('scalar-f32', 'f32', 2.0, 0), ('avx2-f32', 'f32', 28.0, 0), ('avx512-f32', 'f32', 55.0, 0),
    ('onednn-f32', 'f32', 68.0, 0), ('avx512-bf16', 'bf16', 115.0, 0),
    ('onednn-bf16', 'bf16', 125.0, 0), ('amx-bf16', 'bf16', 520.0, 1),
    ('vnni-int8', 'int8', 230.0, 0), ('amx-int8', 'int8', 1000.0, 1)]
THREADS = list(range(1, 57))
FLOPS = 2 * 1024 ** 3


def machine(fp, host, cpu, ua, amx):
    isa = {'avx2': True, 'fma': True, 'avx512f': True, 'avx512_vnni': True,
           'avx512_bf16': amx, 'amx_tile': amx, 'amx_bf16': amx, 'amx_int8': amx}
    return {'fingerprint': fp, 'hostname': host, 'cpu_model': cpu, 'vendor': 'GenuineIntel',
            'family': 6, 'model': 143 if amx else 106, 'stepping': 8, 'microarch': ua,
            'packages': 1, 'numa_nodes': 1, 'cores': 56, 'pus': 112,
            'l1d_bytes': 49152, 'l2_bytes': 2097152 if amx else 1310720,
            'l3_bytes': 110100480, 'isa': json.dumps(isa), 'amx_os_permitted': 1 if amx else 0,
            'amx_reason': '' if amx else 'CPU has no AMX', 'kernel': '6.8.0',
            'mem_bytes': 512 << 30, 'info_json': json.dumps({'governor': 'performance'}),
            'first_seen': '2026-01-01T00:00:00Z'}


def point(sweep, fp, workload, kernel, dtype, shape, threads, ppn, nodes, samples, metrics,
          status='ok', reason='', config='{}'):
    return {'uuid': uuid.UUID(int=random.getrandbits(128)).hex, 'sweep': sweep, 'machine': fp,
            'seq': 0, 'workload': workload, 'kernel': kernel, 'dtype': dtype, 'shape': shape,
            'config': config, 'threads': threads, 'ppn': ppn, 'nodes': nodes,
            'status': status, 'reason': reason, 'started': '2026-01-01T00:00:00Z',
            'finished': '2026-01-01T00:00:00Z', 'result_json': '{}', 'command': 'synthetic',
            'binding': None, 'samples': samples, 'metrics': metrics, 'log': None}


def metric(name, value, unit, projected=0, source=None):
    return {'name': name, 'value': value, 'unit': unit, 'projected': projected, 'source': source}


def sweep_of(label, fp, workload):
    return {'uuid': uuid.UUID(int=random.getrandbits(128)).hex, 'label': label,
            'workload': workload, 'plan': 'synthetic', 'started': '2026-01-01T00:00:00Z',
            'finished': '2026-01-01T00:00:00Z', 'tool_version': 'synthetic', 'status': 'done',
            'machine': fp}


def side(fp, label, speed, amx, noise):
    sw, tr = sweep_of(label, fp, 'gemm'), sweep_of(label + '-train', fp, 'train')
    pts = []
    for name, dtype, per_core, needs_amx in KERNELS:
        for t in THREADS:
            if needs_amx and not amx:
                pts.append(point(sw['uuid'], fp, 'gemm', name, dtype, '1024x1024x1024:NN', t, 1, 1,
                                 [], [], 'skipped', 'CPU has no AMX'))
                continue
            # memory bandwidth caps the fast kernels well before 56 cores
            rate = speed * per_core * t / (1 + 0.004 * t * math.log2(1 + per_core))
            med = FLOPS / (rate * 1e9)
            n = noise * (30 if (name == 'scalar-f32' and t == 3) else 1)   # one noisy point
            smp = [med * (1 + random.gauss(0, n)) for _ in range(8)]
            smp = [max(s, med * 0.2) for s in smp]
            unit = 'GOP/s' if dtype == 'int8' else 'GFLOP/s'
            key = 'gops' if dtype == 'int8' else 'gflops'
            pts.append(point(sw['uuid'], fp, 'gemm', name, dtype, '1024x1024x1024:NN', t, 1, 1,
                             smp, [metric(key, FLOPS / sorted(smp)[4] / 1e9, unit)]))
    cfg = json.dumps({'model': 'distilbert-base', 'batch': 8, 'seq': 384})
    src = ('3 measured steps (median step time) x 11,000 steps per epoch of SQuAD v1.1 at batch 8,'
           ' seq 384; the run stopped early (--max-steps 3)')
    for name, dtype, tok in (('onednn-f32', 'f32', 900), ('amx-bf16', 'bf16', 3600),
                             ('avx512-bf16', 'bf16', 1500)):
        if name == 'amx-bf16' and not amx:
            continue
        step = 8 * 384 / (tok * speed)
        smp = [step * (1 + random.gauss(0, 0.01)) for _ in range(6)]
        pts.append(point(tr['uuid'], fp, 'train', name, dtype, '', 56, 1, 1, smp,
                         [metric('tokens_per_s', 8 * 384 / step, 'tokens/s'),
                          metric('epoch_seconds', step * 11000, 's', 1, src)], config=cfg))
    # data parallel at 2 ranks per node: no one-rank point in this series
    for nodes in (1, 2, 4, 8):
        ranks = 2 * nodes
        eff = 0.97 ** math.log2(ranks)
        step = 8 * 384 / (900 * speed * 0.5 * eff)
        smp = [step * (1 + random.gauss(0, 0.01)) for _ in range(6)]
        pts.append(point(tr['uuid'], fp, 'train', 'onednn-f32', 'f32', '', 28, 2, nodes, smp,
                         [metric('tokens_per_s', ranks * 8 * 384 / step, 'tokens/s')], config=cfg))
    return [sw, tr], pts


spr = machine('5a5a5a5a5a5a5a5a', 'spr-host', 'Intel Xeon Platinum 8480+', 'Sapphire Rapids', True)
icl = machine('1c1c1c1c1c1c1c1c', 'icelake-host', 'Intel Xeon Platinum 8380', 'Ice Lake', False)
s1, p1 = side(icl['fingerprint'], 'icelake-host', 1.0, False, 0.02)
s2, p2 = side(spr['fingerprint'], 'spr-host', 1.25, True, 0.02)
json.dump({'format': 'sprbench-export', 'version': 2, 'exported': '2026-01-01T00:00:00Z',
           'tool': 'sprbench', 'machines': [icl, spr], 'sweeps': s1 + s2, 'points': p1 + p2},
          open(sys.argv[1], 'w'))
