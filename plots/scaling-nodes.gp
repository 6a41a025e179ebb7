# Training scaling over nodes: epoch time, speedup over each series' own
# 1-node point and parallel efficiency; measured series solid, the scaling
# model's projections dashed (labelled projected), ideal lines dashed black,
# and the published study's points (only on its own workload: DistilBERT-
# base, seq 384) as black squares labelled as published figures.
# Placeholders: {{title}} (text); {{xmax}} {{ymax}} (numbers); {{epoch}}
# {{speedup}} {{efficiency}} (the three panels' plot clauses).
set multiplot layout 3,1 title {{title}}
set logscale x 2
set xrange [0.8:{{xmax}}]
set grid
set lmargin 12
set rmargin 4
# the legend goes under the last panel, across the page: long series names
# then take no width from the data
unset key
set ylabel 'epoch time, s'
set logscale y 10
plot {{epoch}}
unset logscale y
set logscale y 2
set ylabel 'speedup vs 1 node'
set yrange [0.8:{{ymax}}]
plot {{speedup}}
unset logscale y
set yrange [0:120]
set ylabel 'parallel efficiency, %'
set xlabel 'nodes'
set key below left
plot {{efficiency}}
unset multiplot
