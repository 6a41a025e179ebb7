# mk_export.py TPL OUT SPEC: an export of one sweep per SPEC entry (JSON:
# [{"machine": FP, "label": L, "points": [{"kernel", "shape", "samples"} or
# {"ratios": [...]}]}]), built from the export TPL of one real sweep's
# point: "ratios" makes a paired point, one A and one B sample per pair with
# B = A x ratio; SPEC may be @FILE. The gate tests craft their databases
# from it (db import).
import json, sys, uuid, copy
tpl = json.load(open(sys.argv.pop(1)))
spec = json.loads(open(sys.argv[2][1:]).read() if sys.argv[2].startswith('@') else sys.argv[2])
d = copy.deepcopy(tpl)
d['sweeps'], d['points'] = [], []
mt = tpl['machines'][0]
for si, sw in enumerate(spec):
    fp = sw.get('machine', mt['fingerprint'])
    if fp not in [m['fingerprint'] for m in d['machines']]:
        m = copy.deepcopy(mt); m['fingerprint'] = fp; m['hostname'] = 'other'; d['machines'].append(m)
    s = copy.deepcopy(tpl['sweeps'][0])
    s.update(uuid=uuid.uuid4().hex, label=sw.get('label', 's%d' % si), machine=fp,
             started='2026-12-04T10:%02d:00Z' % si, finished='2026-12-04T10:%02d:30Z' % si)
    d['sweeps'].append(s)
    for pi, pt in enumerate(sw['points']):
        p = copy.deepcopy(tpl['points'][0])
        p.pop('log', None)
        p.update(uuid=uuid.uuid4().hex, sweep=s['uuid'], machine=fp, seq=pi,
                 kernel=pt.get('kernel', 'scalar-f32'), shape=pt.get('shape', '16x16x16:NN'))
        if 'ratios' in pt:  # one A and one B sample per pair, B = A x ratio
            smp, side, pair = [], [], []
            for k, r in enumerate(pt['ratios']):
                smp += [1e-3, 1e-3 * r]; side += [0, 1]; pair += [k, k]
            p['pairing'] = {'mode': 'abba', 'baseline': './a', 'candidate': './b',
                            'samples': smp, 'side': side, 'pair': pair}
            p['samples'] = [x for x, sd in zip(smp, side) if sd == 1]
        else:
            p['samples'] = pt['samples']
        med = sorted(p['samples'])[len(p['samples']) // 2]
        for m in p['metrics']:  # the rate of these samples (2 x 16^3 flops)
            if m['name'] == 'gflops': m['value'] = 8192e-9 / med
        p['result_json'] = dict(p['result_json'], samples=p['samples'], kernel=p['kernel'],
                                machine_fingerprint=fp)
        d['points'].append(p)
json.dump(d, open(sys.argv[1], 'w'))
