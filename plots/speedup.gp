# Speedup over each kernel's fewest-threads point and parallel efficiency,
# medians with the p10-p90 spread, and the ideal (linear) line on each.
# Placeholders: {{title}} {{machine}} {{xlabel}} (text; xlabel also names,
# under the axis, the points not drawn with their reason and the noisy ones);
# {{xaxis}} {{yaxis}};
# {{speedup}} {{efficiency}} (the two panels' plot clauses).
set multiplot layout 2,1 title {{title}}."\n".{{machine}}
set grid
# fixed margins: the two panels' x axes line up, the key sits right of them
set lmargin 12
set rmargin 30
set key outside right top
{{xaxis}}
{{yaxis}}
set ylabel 'speedup (median, p10-p90)'
plot {{speedup}}
unset logscale y
set yrange [0:*]
set xlabel {{xlabel}}
set ylabel 'parallel efficiency, % (median, p10-p90)'
unset key
plot {{efficiency}}
unset multiplot
