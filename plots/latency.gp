# Inference latency per question at batch 1 against threads, one curve per
# kernel: the median (p50) joined, an error bar up to the p99 and a cross at
# the p90 of the questions' latencies.
# Placeholders: {{title}} {{machine}} {{ylabel}} (text); {{xaxis}} {{yaxis}}
# (axis settings chosen for the data's range, as in throughput.gp);
# {{series}}.
set title {{title}}."\n".{{machine}}
set xlabel 'threads'
set ylabel {{ylabel}}
set key below left horizontal maxcols 3
set grid
{{xaxis}}
{{yaxis}}
plot {{series}}
