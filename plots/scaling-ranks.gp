# Epoch time against total MPI ranks, one series per (kernel, ranks per
# node): measured solid, the scaling model's projections dashed with open
# points (labelled projected), and the ideal line (epoch time falling as
# 1/ranks from the fewest-ranks measured point).
# Placeholders: {{title}} (text); {{xmin}} {{xmax}} (numbers); {{series}}.
set title {{title}}
set logscale x 2
set xrange [{{xmin}}:{{xmax}}]
set logscale y 10
set grid
set xlabel 'total MPI ranks'
set ylabel 'epoch time, s'
set key below left
plot {{series}}
