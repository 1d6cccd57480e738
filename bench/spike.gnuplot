# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# IDs issued and lead during BM_Burst_Game. Input: the CSV STEADYFLAKE_SPIKE_CSV points to.
# Usage: gnuplot -e "csv='spike.csv'; png='spike.png'" bench/spike.gnuplot
set datafile separator ","
set terminal pngcairo size 900,480 font ",10" noenhanced
set output png
set title "steadyflake: a 300,000-ID burst on the game layout (max_lead 2 s)"
set xlabel "seconds since the burst began"
set ylabel "IDs issued"
set y2label "lead: ID time ahead of the clock (ms)"
set ytics nomirror
set y2tics
set y2range [0:2200]
set key left top
set grid
plot csv using 1:2 skip 1 with lines lw 2 title "IDs issued" axes x1y1, \
     csv using 1:3 skip 1 with lines lw 2 title "lead (ms)" axes x1y2, \
     2000 with lines dt 2 title "max_lead" axes x1y2
