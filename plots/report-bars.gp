# The report's clustered bars: baseline and candidate per label, with the
# p10-p90 spread as error bars where the report gives one.
# Placeholders: {{title}} {{ylabel}} (text); {{xaxis}} (the labels);
# {{series}}.
set title {{title}}
set ylabel {{ylabel}}
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -35 left font ',8'
# room on the right for the last label, which runs down and to the right
set rmargin 14
{{xaxis}}
set grid ytics
set key outside top center horizontal
set yrange [0:*]
plot {{series}}
