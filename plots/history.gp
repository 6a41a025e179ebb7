# One point key's metric over the sweeps of one machine, oldest first: the
# median with the p10-p90 spread, x labelled by tool version and date, so a
# regression shows where it started.
# Placeholders: {{title}} {{machine}} {{ylabel}} (text); {{xaxis}} (the
# tic labels); {{series}}.
set title {{title}}."\n".{{machine}}
set xlabel 'sweep (tool version, date)'
set ylabel {{ylabel}}
set grid
# room for the last rotated version label
set rmargin 10
set key below left
set yrange [0:*]
{{xaxis}}
plot {{series}}
