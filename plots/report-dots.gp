# The report's dot plot for many points: one row per kernel, shape and
# threads, the baseline's and the candidate's median as dots with their
# p10-p90 spread, on a log axis (scalar next to AMX stays readable), one
# unit per chart.
# Placeholders: {{title}} {{xlabel}} (text); {{yaxis}} (the row labels and
# the range that holds them); {{series}}.
set title {{title}}
set xlabel {{xlabel}}
set logscale x 10
set grid xtics ytics mxtics
set ytics font ',8'
set key outside bottom center horizontal
{{yaxis}}
plot {{series}}
