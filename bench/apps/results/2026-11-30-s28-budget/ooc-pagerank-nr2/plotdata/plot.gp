set terminal pngcairo size 640,480 font ',10'
set output '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plot.png'
set multiplot layout 1,1 title 'Out-of-core benchmark: limit 128 MiB, data 384 MiB per app'
set logscale y
set xlabel 'iteration'
set xtics 1
set style line 1 lc rgb '#1b9e77' pt 1 lw 1.5
set style line 2 lc rgb '#d95f02' pt 2 lw 1.5
set style line 3 lc rgb '#7570b3' pt 7 lw 1.5
set style line 4 lc rgb '#e7298a' pt 5 lw 1.5
set style line 5 lc rgb '#444444' pt 9 lw 1.5
set style line 6 lc rgb '#66a61e' pt 4 lw 1.5
set style line 7 lc rgb '#e6ab02' pt 6 lw 1.5
set style line 8 lc rgb '#a6761d' pt 8 lw 1.5
set ylabel 'seconds per iteration'
set key below font ',9'
set grid
set title 'pagerank (16 ranks)'
plot '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi.dat' using 1:2 with linespoints linestyle 1 title 'bdmpi','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-base.dat' using 1:2 with linespoints linestyle 2 title 'bdmpi-base','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-x.dat' using 1:2 with linespoints linestyle 3 title 'bdmpi-x','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi#2.dat' using 1:2 with linespoints linestyle 4 title 'bdmpi#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-base#2.dat' using 1:2 with linespoints linestyle 5 title 'bdmpi-base#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-x#2.dat' using 1:2 with linespoints linestyle 6 title 'bdmpi-x#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi#3.dat' using 1:2 with linespoints linestyle 7 title 'bdmpi#3','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-base#3.dat' using 1:2 with linespoints linestyle 8 title 'bdmpi-base#3','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-pagerank-nr2/plotdata/pagerank.bdmpi-x#3.dat' using 1:2 with linespoints linestyle 1 title 'bdmpi-x#3', 1.247 with lines dashtype 2 lc rgb 'gray' title 'dd write+read'

unset multiplot
