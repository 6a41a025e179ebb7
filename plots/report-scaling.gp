# The report's scaling chart: baseline and candidate against ranks.
# Placeholders: {{title}} {{ylabel}} (text); {{series}}.
set title {{title}}
set xlabel 'ranks'
set ylabel {{ylabel}}
set grid
set logscale x 2
set key outside top center horizontal
set yrange [0:*]
plot {{series}}
