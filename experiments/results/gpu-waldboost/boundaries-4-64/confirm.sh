#!/usr/bin/env bash
# Session 21: one more face and people-hybrid benchmark of the boundary table (4, 64 the default,
# against 8, 64, 2, 64, 3, 64 and 6, 64), by the binary of the levels-in-flight run.
source experiments/gpu/device_env.sh  # out, B, D, t0, bench_faces, bench_people
bench_faces $B/cascade experiments/models/faces-lbp.h5 fa-confirm > /dev/null
grep -A8 "compaction boundaries and late parts" $out/fa-confirm.md | grep "^| 1920" | awk -F'|' '{print "stride", $4, "4,64:", $5, " 8,64:", $19, " 2,64:", $21, " 3,64:", $25, " 6,64:", $26}'
bench_people $B/cascade experiments/models/inria-hybrid.h5 pe-confirm > /dev/null
grep -A8 "compaction boundaries and late parts" $out/pe-confirm.md | grep "^| 1280" | awk -F'|' '{print "people 4,64:", $5, " 8,64:", $19, " 2,64:", $21, " 3,64:", $25, " 6,64:", $26}'
