# Inference accuracy per kernel, the kernels grouped by precision (named on
# the top axis: f32, bf16, int8): exact match, F1 and the share of answers
# identical to the f32 path's, in %, one bar each where the points have it.
# Columns of the data: per kernel, x and value of each bar (EM, F1,
# identical answers), then the point's batch and threads.
# Placeholders: {{title}} {{machine}} (text); {{xaxis}} (the x range, the
# kernels below and the precisions above); {{series}}.
set title {{title}}."\n".{{machine}}
set ylabel '% of the questions'
set yrange [0:105]
set style fill solid 0.8 border -1
set boxwidth 0.26
set grid ytics
set key below center horizontal maxcols 3
set xtics rotate by 30 right nomirror
set x2tics nomirror font ',12'
{{xaxis}}
plot {{series}}
