#!/usr/bin/env bash
# Session 20: two more face benchmarks and one people-hybrid benchmark of the same binary, for
# the boundary table (8, 64 against 16, 64, 4, 64 and the others).
source experiments/gpu/device_env.sh  # out, B, D, row, t0, bench_faces, bench_people
for r in 2 3; do
  bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-new-$r > /dev/null
  grep -A8 "compaction boundaries and late parts" $out/fa-new-$r.md | grep "^| 1920" | awk -F'|' '{print "stride", $4, "8,64:", $5, " 16,64:", $18, " 4,64:", $19, " 64,256:", $11}'
done
bench_people $B/cascade experiments/models/inria-hybrid.h5 pe-new-2 > /dev/null
grep -A8 "compaction boundaries and late parts" $out/pe-new-2.md | grep "^| 1280" | awk -F'|' '{print "people 8,64:", $5, " 16,64:", $18, " 4,64:", $19, " 64,256:", $11}'
