set terminal pngcairo size 1280,960 font ',10'
set output '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plot.png'
set multiplot layout 2,2 title 'Out-of-core benchmark: limit 128 MiB, data 384 MiB per app'
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
plot '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-nr1.dat' using 1:2 with linespoints linestyle 1 title 'bdmpi-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-nr2.dat' using 1:2 with linespoints linestyle 2 title 'bdmpi-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-base-nr1.dat' using 1:2 with linespoints linestyle 3 title 'bdmpi-base-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-base-nr2.dat' using 1:2 with linespoints linestyle 4 title 'bdmpi-base-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-nr1#2.dat' using 1:2 with linespoints linestyle 5 title 'bdmpi-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-nr2#2.dat' using 1:2 with linespoints linestyle 6 title 'bdmpi-nr2#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-base-nr1#2.dat' using 1:2 with linespoints linestyle 7 title 'bdmpi-base-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/pagerank.bdmpi-base-nr2#2.dat' using 1:2 with linespoints linestyle 8 title 'bdmpi-base-nr2#2', 1.476 with lines dashtype 2 lc rgb 'gray' title 'dd write+read'
set title 'kmeans (16 ranks)'
plot '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-nr1.dat' using 1:2 with linespoints linestyle 1 title 'bdmpi-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-nr2.dat' using 1:2 with linespoints linestyle 2 title 'bdmpi-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-base-nr1.dat' using 1:2 with linespoints linestyle 3 title 'bdmpi-base-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-base-nr2.dat' using 1:2 with linespoints linestyle 4 title 'bdmpi-base-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-nr1#2.dat' using 1:2 with linespoints linestyle 5 title 'bdmpi-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-nr2#2.dat' using 1:2 with linespoints linestyle 6 title 'bdmpi-nr2#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-base-nr1#2.dat' using 1:2 with linespoints linestyle 7 title 'bdmpi-base-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/kmeans.bdmpi-base-nr2#2.dat' using 1:2 with linespoints linestyle 8 title 'bdmpi-base-nr2#2', 1.476 with lines dashtype 2 lc rgb 'gray' title 'dd write+read'
set title 'sgd (16 ranks)'
plot '/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-nr1.dat' using 1:2 with linespoints linestyle 1 title 'bdmpi-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-nr2.dat' using 1:2 with linespoints linestyle 2 title 'bdmpi-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-base-nr1.dat' using 1:2 with linespoints linestyle 3 title 'bdmpi-base-nr1','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-base-nr2.dat' using 1:2 with linespoints linestyle 4 title 'bdmpi-base-nr2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-nr1#2.dat' using 1:2 with linespoints linestyle 5 title 'bdmpi-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-nr2#2.dat' using 1:2 with linespoints linestyle 6 title 'bdmpi-nr2#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-base-nr1#2.dat' using 1:2 with linespoints linestyle 7 title 'bdmpi-base-nr1#2','/work/wt/s28-budget/bench/apps/results/2026-11-30-s28-budget/ooc-ab/plotdata/sgd.bdmpi-base-nr2#2.dat' using 1:2 with linespoints linestyle 8 title 'bdmpi-base-nr2#2', 1.476 with lines dashtype 2 lc rgb 'gray' title 'dd write+read'

unset multiplot
