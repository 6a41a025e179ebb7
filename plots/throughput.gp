# Throughput against threads, one curve per kernel: median with the p10-p90
# spread of the samples as error bars, and the measured peak of each
# instruction path (peak per core x cores used) as a dotted line.
# Placeholders: {{title}} {{machine}} {{ylabel}} {{xlabel}} (text; xlabel
# also names, under the axis, the points not drawn with their reason and
# the noisy ones); {{xaxis}} {{yaxis}}
# (axis settings chosen for the data's range: powers of two on a log axis
# past 8 threads, log y where the values span more than 30x); {{series}}.
set title {{title}}."\n".{{machine}}
set xlabel {{xlabel}}
set ylabel {{ylabel}}
# the legend under the plot, in columns: nine kernels and their peaks take
# no width from the data
set key below left horizontal maxcols 3
set grid
{{xaxis}}
{{yaxis}}
plot {{series}}
